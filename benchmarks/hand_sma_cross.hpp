#pragma once
// The hand-written SMA-cross loop that does the sweep kernel's work, through
// kbt's own accumulator, which bench_sweep times beside the kernel
// (docs/benchmarks.md): plain code, hoisted SMAs, state in registers. The loop
// that shares nothing with kbt is independent_sma_cross.hpp. Benchmark code only.

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/metrics/metrics_accumulator.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstddef>

namespace kbt::bench {

// A call of its own on host builds, so that callgrind can count inside it
// (benchmarks/instructions_per_bar.sh); its loop is what is measured either way.
#if defined(__GNUC__) && !defined(__CUDACC__)
#define KBT_BENCH_NOINLINE __attribute__((noinline))
#else
#define KBT_BENCH_NOINLINE
#endif

// Hand-written SMA cross doing the kernel's whole work for this strategy:
// target carried through the warm-up, close fills with fees, trades closed on
// every flip and at the end, and the metrics of the set `Groups` through the
// same single-pass accumulator (all 21 by default). One combo, everything in
// registers. Its metrics equal the kernel's with the same set (checked by
// bench_sweep), so the ratio compares the same work.
template <unsigned Groups = kbt::metric_group::all>
KOKKOS_FUNCTION KBT_BENCH_NOINLINE void hand_sma_cross_full(const double* close, const double* f, const double* sl, long stride,
                                                int n, double fee, double ppy, double* out) {
  kbt::BasicMetricsAccumulator<double, Groups> acc(10000.0);
  double cash = 10000, units = 0, held = 0, carried = 0, mark = 0, flow = 0, entry_price = 0, open_units = 0;
  int entry_bar = 0;
  for (int t = 0; t < n; ++t) {
    const double c = close[t], fv = f[t * stride], sv = sl[t * stride];
    const bool exposed = units != 0;
    mark = c;
    if (fv == fv && sv == sv) carried = fv > sv ? 1.0 : -1.0;
    if (t + 1 < n) {
      const double equity = units != 0 ? cash + units * mark : cash;
      const double target = equity > 0 ? carried : 0.0;
      if (target != held) {
        held = target;
        const double new_units = target == 0 ? 0.0 : target * equity / c, old_units = units;
        const int new_side = (new_units > 0) - (new_units < 0), old_side = (units > 0) - (units < 0);
        if (units != 0 && new_side != old_side) {
          const double d = -units, notional = kbt::math::fabs(d) * c, fees = notional * fee;
          cash -= d * c;
          cash -= fees;
          flow -= d * c;
          flow -= fees;
          acc.add_fill(notional, fees);
          units = 0;
          acc.add_trade(flow / (kbt::math::fabs(open_units) * entry_price), double(t - entry_bar));
          flow = 0;
        }
        if (new_units != 0 && new_units != old_units) {
          const double d = new_units - units, notional = kbt::math::fabs(d) * c, fees = notional * fee;
          cash -= d * c;
          cash -= fees;
          flow -= d * c;
          flow -= fees;
          acc.add_fill(notional, fees);
          if (units == 0) entry_bar = t, entry_price = c, open_units = new_units;
          units = new_units;
        }
      }
    }
    acc.add_bar(units != 0 ? cash + units * mark : cash, exposed);
  }
  if (units != 0) {
    flow += units * mark;
    acc.add_trade(flow / (kbt::math::fabs(open_units) * entry_price), double(n - 1 - entry_bar));
  }
  acc.finish(out, {10000.0, ppy});
}

}  // namespace kbt::bench
