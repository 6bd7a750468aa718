#pragma once
// The counts behind cs_rank in O(N log N) a bar (docs/kernels.md
// "Cross-sectional ranks"): the cross-section's valid values sorted in place
// (heap sort: no recursion, no allocation, the same on host and device), then
// for each value the number of values below it and not above it by binary
// search. These are the same integers as the reference's pairwise comparison
// (src/reference/evaluator_series_ops.cpp cs_rank), so the ranks computed
// from them have the same bits. The values hold no NaN (the caller leaves
// them out); -0 and +0 compare equal here as there.

#include <Kokkos_Core.hpp>

namespace kbt::detail {

// `keys(k)` is a Real& for k in [0, n).
template <class Keys>
KOKKOS_INLINE_FUNCTION void sift_down(const Keys& keys, int root, int n) {
  while (true) {
    int largest = root;
    const int left = 2 * root + 1, right = left + 1;
    if (left < n && keys(largest) < keys(left)) largest = left;
    if (right < n && keys(largest) < keys(right)) largest = right;
    if (largest == root) return;
    const auto held = keys(root);
    keys(root) = keys(largest);
    keys(largest) = held;
    root = largest;
  }
}

// Sorts keys(0..n) ascending.
template <class Keys>
KOKKOS_INLINE_FUNCTION void heap_sort(const Keys& keys, int n) {
  for (int root = n / 2 - 1; root >= 0; --root) sift_down(keys, root, n);
  for (int end = n - 1; end > 0; --end) {
    const auto top = keys(0);
    keys(0) = keys(end);
    keys(end) = top;
    sift_down(keys, 0, end);
  }
}

// Of the n sorted keys: how many are < x (`less`) and how many are <= x.
template <class Keys, class Real>
KOKKOS_INLINE_FUNCTION int count_below(const Keys& keys, int n, Real x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (keys(mid) < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
template <class Keys, class Real>
KOKKOS_INLINE_FUNCTION int count_not_above(const Keys& keys, int n, Real x) {
  int lo = 0, hi = n;
  while (lo < hi) {
    const int mid = lo + (hi - lo) / 2;
    if (x < keys(mid)) hi = mid;
    else lo = mid + 1;
  }
  return lo;
}

}  // namespace kbt::detail
