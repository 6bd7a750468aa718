#pragma once
// cs_rank in O(N log N) a bar (docs/kernels.md "Cross-sectional ranks"): the
// cross-section's valid values, each with its symbol, sorted in place by heap
// sort (no recursion, no allocation, the same on host and device); then one
// walk over the sorted values gives each tie group its count of values below
// (its start) and its size. These are the same integers as the reference's
// pairwise comparison (src/reference/evaluator_series_ops.cpp cs_rank), so the
// ranks computed from them have the same bits. The values hold no NaN (the
// caller leaves them out); -0 and +0 compare equal here as there.

#include <Kokkos_Core.hpp>

namespace kbt::detail {

// `keys(k)` / `symbols(k)` are Real& for k in [0, n): a value and its symbol,
// swapped together.
template <class Keys>
KOKKOS_INLINE_FUNCTION void swap_entries(const Keys& keys, int a, int b) {
  const auto value = keys.value(a), symbol = keys.symbol(a);
  keys.value(a) = keys.value(b);
  keys.symbol(a) = keys.symbol(b);
  keys.value(b) = value;
  keys.symbol(b) = symbol;
}

template <class Keys>
KOKKOS_INLINE_FUNCTION void sift_down(const Keys& keys, int root, int n) {
  while (true) {
    int largest = root;
    const int left = 2 * root + 1, right = left + 1;
    if (left < n && keys.value(largest) < keys.value(left)) largest = left;
    if (right < n && keys.value(largest) < keys.value(right)) largest = right;
    if (largest == root) return;
    swap_entries(keys, root, largest);
    root = largest;
  }
}

// Sorts entries 0..n by value, ascending (ties in any order).
template <class Keys>
KOKKOS_INLINE_FUNCTION void heap_sort(const Keys& keys, int n) {
  for (int root = n / 2 - 1; root >= 0; --root) sift_down(keys, root, n);
  for (int end = n - 1; end > 0; --end) {
    swap_entries(keys, 0, end);
    sift_down(keys, 0, end);
  }
}

// Sorts entries 0..n by value, ascending, by insertion: O(n + inversions), for
// entries nearly in order already (the previous bar's order of a slowly
// changing cross-section, docs/kernels.md "Hoisted cross-sections"). Gives up
// once it has shifted more than `budget` entries, leaving a permutation of
// them, and returns false: the caller sorts them another way.
template <class Keys>
KOKKOS_INLINE_FUNCTION bool insertion_sort(const Keys& keys, int n, long budget) {
  long shifted = 0;
  for (int k = 1; k < n; ++k) {
    if (shifted > budget) return false;
    const auto value = keys.value(k), symbol = keys.symbol(k);
    int j = k;
    for (; j > 0 && value < keys.value(j - 1); --j) {
      keys.value(j) = keys.value(j - 1);
      keys.symbol(j) = keys.symbol(j - 1);
    }
    shifted += k - j;
    keys.value(j) = value;
    keys.symbol(j) = symbol;
  }
  return true;
}

// Calls group(first, size) for each run of equal values of the n sorted
// entries: `first` values lie below the run.
template <class Keys, class Group>
KOKKOS_INLINE_FUNCTION void for_each_tie_group(const Keys& keys, int n, const Group& group) {
  for (int first = 0; first < n;) {
    int end = first + 1;
    while (end < n && !(keys.value(first) < keys.value(end))) ++end;
    group(first, end - first);
    first = end;
  }
}

}  // namespace kbt::detail
