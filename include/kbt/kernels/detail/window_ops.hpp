#pragma once
// The value of each windowed op at one bar, written as the plain definition so
// that every engine computes the same bits (docs/kernels.md, "Bit parity"):
//  * sums run over the window oldest -> newest, left to right, starting from
//    the oldest value (x[t-w+1] + x[t-w+2] + ... + x[t]);
//  * mean = sum / w; variance = (sum of (x_i - mean)^2, left to right) / (w - 1);
//    std = kbt::math::sqrt(variance);
//  * any NaN in the window gives NaN (it propagates through the sums; min/max
//    test for it); a bar with fewer than w values before it (warm-up) is NaN;
//  * x / 0 is NaN (the language rule), never +-inf.
// Callable on host and device. `row` is bar 0 of one (input, symbol) series:
// a pointer to contiguous bars (the fold kernels) or any accessor with
// operator[](bar) (the sweep kernel's per-thread ring buffer, which keeps the
// last bars only); t is the bar, w the window (w <= t + 1 unless stated). The
// one definition of these ops for every kernel.

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <utility>

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/lang/scalar_ops.hpp>

namespace kbt::kernels {

// The value type of a row accessor.
template <class Row>
using RowReal = std::remove_cv_t<std::remove_reference_t<decltype(std::declval<const Row&>()[0])>>;

// ---- scalar helpers --------------------------------------------------------
// (x / 0 -> NaN is kbt::ops::div, the language's one division.)

// The running extremum of a window: `earlier` is the extremum of the older
// values, `later` a newer value (or the extremum of newer values). NaN if either
// is NaN; on a tie the earlier value is kept (this matters only for +0 vs -0),
// exactly as a sequential scan `m = x > m ? x : m` does. That rule is the max
// under the total order (value, then earliest position), so it is associative
// and every exact algorithm (scan, block algorithm) gives the same bits.
template <class Real>
KOKKOS_INLINE_FUNCTION Real nan_max(Real earlier, Real later) {
  if (kbt::math::isnan(earlier) || kbt::math::isnan(later)) return kbt::math::quiet_nan<Real>();
  return later > earlier ? later : earlier;
}

template <class Real>
KOKKOS_INLINE_FUNCTION Real nan_min(Real earlier, Real later) {
  if (kbt::math::isnan(earlier) || kbt::math::isnan(later)) return kbt::math::quiet_nan<Real>();
  return later < earlier ? later : earlier;
}

// ---- windowed sums (t >= w - 1 required) -----------------------------------

template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real window_sum(const Row& row, int t, int w) {
  Real sum = row[t - w + 1];
  for (int i = t - w + 2; i <= t; ++i) sum += row[i];
  return sum;
}

template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real window_mean(const Row& row, int t, int w) {
  return window_sum(row, t, w) / static_cast<Real>(w);
}

// Sample variance (ddof = 1) around a mean computed by window_mean; w = 1 gives
// 0 / 0 = NaN.
template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real window_variance(const Row& row, int t, int w, Real mean) {
  Real d = row[t - w + 1] - mean;
  Real ss = d * d;
  for (int i = t - w + 2; i <= t; ++i) {
    d = row[i] - mean;
    ss += d * d;
  }
  return ss / static_cast<Real>(w - 1);
}

// ---- the ops, warm-up included ---------------------------------------------

template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real rolling_sum_at(const Row& row, int t, int w) {
  return t < w - 1 ? kbt::math::quiet_nan<Real>() : window_sum(row, t, w);
}

template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real rolling_mean_at(const Row& row, int t, int w) {
  return t < w - 1 ? kbt::math::quiet_nan<Real>() : window_mean(row, t, w);
}

template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real rolling_std_at(const Row& row, int t, int w) {
  if (t < w - 1) return kbt::math::quiet_nan<Real>();
  const Real mean = window_mean(row, t, w);
  return kbt::math::sqrt(window_variance(row, t, w, mean));
}

// (x[t] - mean) / std over the window ending at t; std = 0 gives NaN.
template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real zscore_at(const Row& row, int t, int w) {
  if (t < w - 1) return kbt::math::quiet_nan<Real>();
  const Real mean = window_mean(row, t, w);
  const Real sd = kbt::math::sqrt(window_variance(row, t, w, mean));
  return kbt::ops::div<Real>(row[t] - mean, sd);
}

// (x[t] - x[t-w]) / x[t-w]; x[t-w] = 0 gives NaN.
template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real roc_at(const Row& row, int t, int w) {
  if (t < w) return kbt::math::quiet_nan<Real>();
  return kbt::ops::div<Real>(row[t] - row[t - w], row[t - w]);
}

template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real lag_at(const Row& row, int t, int k) {
  return t < k ? kbt::math::quiet_nan<Real>() : row[t - k];
}

// x[t+k]; NaN for the last k of n bars.
template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real lead_at(const Row& row, int t, int k, int n) {
  return t + k >= n ? kbt::math::quiet_nan<Real>() : row[t + k];
}

// Per-bar O(w) scans; the hoisting driver uses the O(1)-per-bar block
// algorithm (rolling_extremum.hpp) instead, with identical results.
template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real rolling_max_at(const Row& row, int t, int w) {
  if (t < w - 1) return kbt::math::quiet_nan<Real>();
  Real m = row[t - w + 1];
  for (int i = t - w + 2; i <= t; ++i) m = nan_max(m, row[i]);
  return kbt::math::isnan(m) ? kbt::math::quiet_nan<Real>() : m;
}

template <class Row, class Real = RowReal<Row>>
KOKKOS_INLINE_FUNCTION Real rolling_min_at(const Row& row, int t, int w) {
  if (t < w - 1) return kbt::math::quiet_nan<Real>();
  Real m = row[t - w + 1];
  for (int i = t - w + 2; i <= t; ++i) m = nan_min(m, row[i]);
  return kbt::math::isnan(m) ? kbt::math::quiet_nan<Real>() : m;
}

}  // namespace kbt::kernels
