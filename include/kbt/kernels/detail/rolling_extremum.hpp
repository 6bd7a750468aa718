#pragma once
// Exact rolling min / max in O(1) per bar, parallel over blocks of bars: the
// van Herk / Gil-Werman algorithm, arranged so that it needs no scratch memory.
//
// Cut the bars into blocks B_k = [k w, (k+1) w). A window [s, s + w - 1] that
// starts in B_k is the suffix of B_k from s joined with the prefix of B_{k+1}
// up to s + w - 1. Work item (task, symbol, k) owns the outputs of the windows
// starting in B_k, t in [(k+1) w - 1, (k+2) w - 1):
//   1. forward over B_{k+1}: prefix extremum g[t], stored in out[t];
//   2. backward over B_k: suffix extremum h[s], out[s + w - 1] = ext(h, g).
// Items write disjoint outputs, so there are no races; every bar is read twice.
// ext is nan_max / nan_min (window_ops.hpp), always called as ext(older,
// newer): NaN-propagating, a tie keeps the older value; that makes it
// associative, so the result has the bits of the sequential scan. Item k = 0 also writes the
// warm-up NaNs of bars [0, w - 1).

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <kbt/kernels/detail/fold_task.hpp>
#include <kbt/kernels/detail/window_ops.hpp>

namespace kbt::kernels {

// Blocks per symbol series for window w over n bars (at least 1, for warm-up).
KOKKOS_INLINE_FUNCTION std::int64_t extremum_blocks(int n_bars, int w) {
  if (n_bars < w) return 1;
  // Window starts 0 .. n - w fall in blocks 0 .. floor((n - w) / w), i.e.
  // ceil((n - w + 1) / w) = floor(n / w) blocks.
  return n_bars / w;
}

template <class ExecSpace, class Real>
struct RollingExtremumFold {
  using views = FoldViews<ExecSpace, Real>;

  typename views::input_view inputs;
  typename views::series_view series;
  typename views::task_view tasks;      // rolling_min / rolling_max only
  typename views::offset_view offsets;  // [n_tasks + 1]: first work item of each task
  int n_sym = 0;
  int n_bars = 0;

  template <bool IsMax>
  KOKKOS_INLINE_FUNCTION static Real ext(Real a, Real b) {
    return IsMax ? nan_max(a, b) : nan_min(a, b);
  }

  template <bool IsMax>
  KOKKOS_INLINE_FUNCTION void block(const Real* x, Real* out, int w, std::int64_t k) const {
    const std::int64_t n = n_bars;
    if (k == 0) {
      const std::int64_t warm = w - 1 < n ? w - 1 : n;
      for (std::int64_t t = 0; t < warm; ++t) out[t] = kbt::math::quiet_nan<Real>();
    }
    if (n < w) return;
    const std::int64_t first = k * w;                    // first window start in B_k
    std::int64_t last = first + w - 1;                   // last window start in B_k
    if (last > n - w) last = n - w;
    // 1. prefix extremum over B_{k+1}, up to the last output this item owns.
    Real g = Real(0);
    for (std::int64_t t = first + w; t <= last + w - 1; ++t) {
      g = t == first + w ? x[t] : ext<IsMax>(g, x[t]);
      out[t] = g;
    }
    // 2. suffix extremum over all of B_k (its end, first + w - 1 <= n - 1, is
    //    inside every window starting in B_k), joined with the stored prefix
    //    for the windows that exist (s <= last).
    Real h = Real(0);
    for (std::int64_t s = first + w - 1; s >= first; --s) {
      h = s == first + w - 1 ? x[s] : ext<IsMax>(x[s], h);  // x[s] is older
      if (s > last) continue;
      const std::int64_t t = s + w - 1;
      out[t] = s == first ? h : ext<IsMax>(h, out[t]);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    // Binary search: the task whose item range holds i (offsets increase).
    int lo = 0;
    int hi = static_cast<int>(tasks.extent(0)) - 1;
    while (lo < hi) {
      const int mid = (lo + hi + 1) / 2;
      if (offsets(mid) <= i) lo = mid; else hi = mid - 1;
    }
    const FoldTask task = tasks(lo);
    const std::int64_t nb = extremum_blocks(n_bars, task.window);
    const std::int64_t rest = i - offsets(lo);
    const int s = static_cast<int>(rest / nb);
    const std::int64_t k = rest - s * nb;
    const Real* x = &inputs(task.input, s, 0);
    Real* out = &series(task.series, s, 0);
    if (task.op == FoldOp::rolling_max) {
      block<true>(x, out, task.window, k);
    } else {
      block<false>(x, out, task.window, k);
    }
  }
};

}  // namespace kbt::kernels
