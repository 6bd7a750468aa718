#pragma once
// One bar's cross-sectional op (cs_rank, cs_zscore, cs_demean; docs/language.md),
// written once for both places the kernels compute them: in a combo's thread
// (sweep/detail/block_evaluator.hpp) and hoisted, once per distinct input series
// (cross_section_fold.hpp; docs/kernels.md "Hoisted cross-sections"). Operation
// for operation as the reference (src/reference/evaluator_series_ops.cpp), so
// fp64 results have its bits; the parity tests compare them.
//
// `get(s)` reads symbol s's value and `put(s, y)` writes its result. Every pass
// reads symbol s before it writes s, so both may address the same memory (the
// hoisted fold transforms a series in place). `keys` is room for cs_rank's sort:
// 2 * n_sym Reals (sorted_counts.hpp).

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/kernels/detail/sorted_counts.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/lang/scalar_ops.hpp>

#include <Kokkos_Core.hpp>

namespace kbt::kernels::detail {

// The ranks of the `valid` sorted entries of `keys`, by one walk over the tie
// groups: the reference's pairwise counts (`less` below, `equal` within).
template <class Real, class Put, class Keys>
KOKKOS_INLINE_FUNCTION void put_ranks(int valid, const Put& put, const Keys& keys) {
  kbt::detail::for_each_tie_group(keys, valid, [&](int less, int equal) {
    Real y = Real(0.5);  // a lone valid value
    if (valid > 1) {
      const Real rank = Real(less) + (Real(equal) + Real(1)) / Real(2);
      y = (rank - Real(1)) / Real(valid - 1);
    }
    for (int k = less; k < less + equal; ++k) put(int(keys.symbol(k)), y);
  });
}

// The valid values with their symbols sorted, then their ranks: O(N log N) a bar.
// Returns the number of valid values (the sorted entries left in `keys`).
template <class Real, class Get, class Put, class Keys>
KOKKOS_INLINE_FUNCTION int cs_rank_of(int n_sym, const Get& get, const Put& put, const Keys& keys) {
  int valid = 0;
  for (int s = 0; s < n_sym; ++s) {
    const Real v = get(s);
    put(s, ops::nan<Real>());
    if (math::isnan(v)) continue;
    keys.value(valid) = v;
    keys.symbol(valid) = Real(s);
    ++valid;
  }
  kbt::detail::heap_sort(keys, valid);
  put_ranks<Real>(valid, put, keys);
  return valid;
}

// cs_demean and cs_zscore: the mean of the valid values in symbol order, then
// (cs_zscore) their sample standard deviation about it.
template <class Real, class Get, class Put>
KOKKOS_INLINE_FUNCTION void cs_moment_op(OpCode op, int n_sym, const Get& get, const Put& put) {
  const Real nan = ops::nan<Real>();
  Real sum = 0;
  int count = 0;
  for (int s = 0; s < n_sym; ++s) {
    const Real v = get(s);
    if (math::isnan(v)) continue;
    sum = count == 0 ? v : sum + v;
    ++count;
  }
  const Real mean = count == 0 ? nan : sum / Real(count);
  if (op == OpCode::cs_demean) {
    for (int s = 0; s < n_sym; ++s) {
      const Real v = get(s);
      put(s, math::isnan(v) ? nan : v - mean);
    }
    return;
  }
  Real sd = nan;
  if (count >= 2) {
    Real ss = 0;
    bool first_valid = true;
    for (int s = 0; s < n_sym; ++s) {
      const Real v = get(s);
      if (math::isnan(v)) continue;
      const Real d = v - mean;
      ss = first_valid ? d * d : ss + d * d;
      first_valid = false;
    }
    sd = math::sqrt(ss / Real(count - 1));
  }
  for (int s = 0; s < n_sym; ++s) {
    const Real v = get(s);
    put(s, (count < 2 || math::isnan(v)) ? nan : ops::div<Real>(v - mean, sd));
  }
}

template <class Real, class Get, class Put, class Keys>
KOKKOS_INLINE_FUNCTION void cross_section_op(OpCode op, int n_sym, const Get& get, const Put& put, const Keys& keys) {
  if (op == OpCode::cs_rank) cs_rank_of<Real>(n_sym, get, put, keys);
  else cs_moment_op<Real>(op, n_sym, get, put);
}

}  // namespace kbt::kernels::detail
