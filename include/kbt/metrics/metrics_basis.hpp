#pragma once
// What every combo of a run shares and only the metrics accumulator's
// finish() reads (metrics_accumulator.hpp): passed to it rather than kept in
// the accumulator, so that a GPU thread does not hold two more Reals in
// registers for its whole window (docs/kernels.md "CUDA: registers and
// spills"). Neither is ever swept.

namespace kbt {

template <class Real>
struct MetricsBasis {
  Real initial_equity = 0;    // the account's equity before the first bar
  Real periods_per_year = 0;  // annualises the return metrics (docs/metrics.md)
};

}  // namespace kbt
