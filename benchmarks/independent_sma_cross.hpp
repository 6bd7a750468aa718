#pragma once
// An SMA-cross loop written the way a quant writes one, independently of kbt
// (docs/benchmarks.md "Against an independent loop"): nothing of kbt's — not
// its accumulator, not its portfolio step, not its math — only the strategy.
// Hoisted SMAs read directly, long when fast > slow and short otherwise,
// fills at the close with a proportional fee, and the Sharpe ratio from a
// running sum and sum of squares of the bar returns. Benchmark code only.

#include <Kokkos_Core.hpp>

#include <cmath>

namespace kbt::bench {

// Sharpe ratio per bar (not annualised) of one combo. `fast` and `slow` are
// the combo's SMA rows (NaN before the window is full; the position is kept
// until both exist), read with their strides.
KOKKOS_INLINE_FUNCTION double independent_sma_cross(const double* close, const double* fast, long fast_stride,
                                                    const double* slow, long slow_stride, int n, double fee) {
  double cash = 10000, units = 0, side = 0, prev_equity = 10000;
  double sum = 0, sum_sq = 0;
  for (int t = 0; t < n; ++t) {
    const double price = close[t], f = fast[t * fast_stride], s = slow[t * slow_stride];
    double target = side;
    if (f == f && s == s) target = f > s ? 1.0 : -1.0;
    if (target != side) {
      const double equity = cash + units * price;
      const double new_units = target * equity / price, traded = new_units - units;
      const double abs_traded = traded < 0 ? -traded : traded;
      cash -= traded * price + abs_traded * price * fee;
      units = new_units;
      side = target;
    }
    const double equity = cash + units * price, r = equity / prev_equity - 1;
    prev_equity = equity;
    sum += r;
    sum_sq += r * r;
  }
  const double mean = sum / n, variance = (sum_sq - sum * mean) / (n - 1);
  return mean / ::sqrt(variance);  // the C function: a device function under CUDA too
}

}  // namespace kbt::bench
