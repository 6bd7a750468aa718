#pragma once
// The recursive (scan-like) series ops over one whole (symbol) series, bar by
// bar: ema, rsi (Wilder), atr (Wilder). Each output depends on all earlier
// bars, so these run sequentially over bars; the kernels parallelise over
// (series, symbol). Callable on host and device; `x`, `out`, ... point at bar
// 0 of contiguous series of n bars. Definitions: docs/kernels.md.
//
// Common NaN rule: a bar whose input is NaN outputs NaN and leaves the state
// untouched (it is skipped); warm-up bars (not enough valid inputs yet) are NaN.

#include <Kokkos_Core.hpp>

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/kernels/detail/window_ops.hpp>

namespace kbt::kernels {

// ema(x, span): alpha = 2 / (span + 1); e = x at the first non-NaN bar, then
// e = alpha * x[t] + (1 - alpha) * e. One bar at a time, so that the fold
// kernels (ema_series) and the sweep kernel's streamed path share it.
template <class Real>
struct EmaState {
  bool seeded = false;
  Real e = Real(0);

  KOKKOS_INLINE_FUNCTION static Real alpha(int span) { return Real(2) / (static_cast<Real>(span) + Real(1)); }

  // The output at a bar with input v.
  KOKKOS_INLINE_FUNCTION Real step(Real v, Real alpha) {
    if (kbt::math::isnan(v)) return kbt::math::quiet_nan<Real>();
    if (seeded) {
      e = alpha * v + (Real(1) - alpha) * e;
    } else {
      e = v;
      seeded = true;
    }
    return e;
  }
};

template <class Real>
KOKKOS_INLINE_FUNCTION void ema_series(const Real* x, Real* out, int n, int span) {
  const Real alpha = EmaState<Real>::alpha(span);
  EmaState<Real> state;
  for (int t = 0; t < n; ++t) out[t] = state.step(x[t], alpha);
}

// Wilder smoothing shared by rsi and atr, over a series of samples where
// NaN marks an invalid bar. Before the seed, valid samples are counted in a run
// of consecutive ones (a NaN restarts the run); when the run reaches w the
// average is seeded with their plain mean (sum oldest -> newest, starting from
// the oldest, / w). After the seed, avg = (avg * (w - 1) + sample) / w, and an
// invalid bar outputs NaN and leaves avg alone.
template <class Real>
struct WilderAverage {
  int w;
  int run = 0;
  bool seeded = false;
  Real sum = Real(0);
  Real avg = Real(0);

  KOKKOS_INLINE_FUNCTION explicit WilderAverage(int window) : w(window) {}

  KOKKOS_INLINE_FUNCTION void skip() {
    if (!seeded) run = 0;
  }

  // Feeds one valid sample; true once the average is defined.
  KOKKOS_INLINE_FUNCTION bool add(Real sample) {
    const Real wr = static_cast<Real>(w);
    if (seeded) {
      avg = (avg * (wr - Real(1)) + sample) / wr;
      return true;
    }
    sum = run == 0 ? sample : sum + sample;
    ++run;
    if (run < w) return false;
    avg = sum / wr;
    seeded = true;
    return true;
  }
};

// rsi(x, w), Wilder: d = x[t] - x[t-1] (invalid at t = 0 and when either is
// NaN); gain = d > 0 ? d : 0 and loss = d < 0 ? -d : 0 are Wilder-averaged
// together; rsi = 100 - 100 / (1 + avg_gain / avg_loss), or, when
// avg_loss = 0, 100 (50 when avg_gain = 0 too: a flat window). The two
// averages are fed and skipped together, so they share one run and seed.
template <class Real>
struct RsiState {
  WilderAverage<Real> gains, losses;

  KOKKOS_INLINE_FUNCTION explicit RsiState(int w) : gains(w), losses(w) {}

  // The output at a bar whose difference to the previous bar is d.
  KOKKOS_INLINE_FUNCTION Real step(Real d) {
    if (kbt::math::isnan(d)) {
      gains.skip();
      losses.skip();
      return kbt::math::quiet_nan<Real>();
    }
    const bool ready = gains.add(d > Real(0) ? d : Real(0));
    losses.add(d < Real(0) ? -d : Real(0));
    if (!ready) return kbt::math::quiet_nan<Real>();
    if (losses.avg == Real(0)) return gains.avg == Real(0) ? Real(50) : Real(100);
    return Real(100) - Real(100) / (Real(1) + gains.avg / losses.avg);
  }
};

template <class Real>
KOKKOS_INLINE_FUNCTION void rsi_series(const Real* x, Real* out, int n, int w) {
  RsiState<Real> state(w);
  for (int t = 0; t < n; ++t) out[t] = state.step(t == 0 ? kbt::math::quiet_nan<Real>() : x[t] - x[t - 1]);
}

// atr(w), Wilder: true range tr = max(high - low, |high - close[t-1]|,
// |low - close[t-1]|) (invalid at t = 0 and when any input is NaN), Wilder-
// averaged.
template <class Real>
KOKKOS_INLINE_FUNCTION void atr_series(const Real* high, const Real* low, const Real* close,
                                       Real* out, int n, int w) {
  WilderAverage<Real> ranges(w);
  for (int t = 0; t < n; ++t) {
    Real tr = kbt::math::quiet_nan<Real>();
    if (t > 0) {
      const Real prev = close[t - 1];
      tr = kbt::ops::max<Real>(kbt::ops::max<Real>(high[t] - low[t], kbt::math::fabs(high[t] - prev)),
                             kbt::math::fabs(low[t] - prev));
    }
    if (kbt::math::isnan(tr)) {
      ranges.skip();
      out[t] = kbt::math::quiet_nan<Real>();
      continue;
    }
    out[t] = ranges.add(tr) ? ranges.avg : kbt::math::quiet_nan<Real>();
  }
}

}  // namespace kbt::kernels
