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

#include "kbt/detail/scalar_math.hpp"
#include "kbt/kernels/window_ops.hpp"

namespace kbt::kernels {

// ema(x, span): alpha = 2 / (span + 1); e = x at the first non-NaN bar, then
// e = alpha * x[t] + (1 - alpha) * e.
template <class Real>
KOKKOS_INLINE_FUNCTION void ema_series(const Real* x, Real* out, int n, int span) {
  const Real alpha = Real(2) / (static_cast<Real>(span) + Real(1));
  const Real keep = Real(1) - alpha;
  bool seeded = false;
  Real e = Real(0);
  for (int t = 0; t < n; ++t) {
    const Real v = x[t];
    if (kbt::math::isnan(v)) {
      out[t] = kbt::math::quiet_nan<Real>();
      continue;
    }
    if (seeded) {
      e = alpha * v + keep * e;
    } else {
      e = v;
      seeded = true;
    }
    out[t] = e;
  }
}

// Wilder averaging shared by rsi and atr: the first average is the plain mean
// of the first w valid samples (sum from 0, left to right, / w); after it,
// avg = (avg * (w - 1) + sample) / w.
template <class Real>
struct WilderAverage {
  int w;
  int count = 0;
  Real sum = Real(0);
  Real avg = Real(0);

  KOKKOS_INLINE_FUNCTION explicit WilderAverage(int window) : w(window) {}

  // Feeds one valid sample; true once the average is defined.
  KOKKOS_INLINE_FUNCTION bool add(Real sample) {
    ++count;
    if (count < w) {
      sum += sample;
      return false;
    }
    if (count == w) {
      sum += sample;
      avg = sum / static_cast<Real>(w);
    } else {
      avg = (avg * static_cast<Real>(w - 1) + sample) / static_cast<Real>(w);
    }
    return true;
  }
};

// rsi(x, w), Wilder: d = x[t] - x[t-1] (NaN when either is NaN, and at t = 0);
// gain = d > 0 ? d : 0, loss = d < 0 ? -d : 0, each Wilder-averaged over the
// valid deltas; rsi = 100 * avg_gain / (avg_gain + avg_loss), NaN when both
// averages are 0 (a flat window).
template <class Real>
KOKKOS_INLINE_FUNCTION void rsi_series(const Real* x, Real* out, int n, int w) {
  WilderAverage<Real> gains(w);
  WilderAverage<Real> losses(w);
  for (int t = 0; t < n; ++t) {
    const Real d = t == 0 ? kbt::math::quiet_nan<Real>() : x[t] - x[t - 1];
    if (kbt::math::isnan(d)) {
      out[t] = kbt::math::quiet_nan<Real>();
      continue;
    }
    const bool ready = gains.add(d > Real(0) ? d : Real(0));
    losses.add(d < Real(0) ? -d : Real(0));
    out[t] = ready ? safe_divide(Real(100) * gains.avg, gains.avg + losses.avg)
                   : kbt::math::quiet_nan<Real>();
  }
}

// atr(w), Wilder: true range tr = high - low at t = 0, else
// max(high - low, |high - close[t-1]|, |low - close[t-1]|) (NaN if any input is
// NaN, including the previous close); Wilder-averaged over the valid true ranges.
template <class Real>
KOKKOS_INLINE_FUNCTION void atr_series(const Real* high, const Real* low, const Real* close,
                                       Real* out, int n, int w) {
  WilderAverage<Real> ranges(w);
  for (int t = 0; t < n; ++t) {
    const Real span = high[t] - low[t];
    Real tr = span;
    if (t > 0) {
      const Real prev = close[t - 1];
      tr = nan_max(span, nan_max(kbt::math::fabs(high[t] - prev), kbt::math::fabs(low[t] - prev)));
    }
    if (kbt::math::isnan(tr)) {
      out[t] = kbt::math::quiet_nan<Real>();
      continue;
    }
    out[t] = ranges.add(tr) ? ranges.avg : kbt::math::quiet_nan<Real>();
  }
}

}  // namespace kbt::kernels
