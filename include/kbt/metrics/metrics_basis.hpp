#pragma once
// What every combo of a run shares and only the metrics accumulator's
// finish() reads (metrics_accumulator.hpp): passed to it rather than kept in
// the accumulator, whose copies the several-window pass stores per window and
// block (16 bytes less each in fp64). Neither is ever swept. (The CUDA
// kernels' registers did not change: ptxas already read both from the
// kernel's parameters.)

namespace kbt {

template <class Real>
struct MetricsBasis {
  Real initial_equity = 0;    // the account's equity before the first bar
  Real periods_per_year = 0;  // annualises the return metrics (docs/metrics.md)
};

}  // namespace kbt
