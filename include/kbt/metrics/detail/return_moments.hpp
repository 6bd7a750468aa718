#pragma once
// The mean and the sum of squared deviations of a series of bar returns, one
// return at a time (docs/metrics.md "Moments in blocks"); the returns group
// of the metrics accumulator holds one. Two rules, one interface:
//  * BlockMoments (fp64): no division per bar. The bars of a block of
//    `moment_block` add to two plain sums shifted by the running mean; at the
//    end of each block (and in result()) the block is merged into the running
//    mean and sum of squared deviations by Chan, Golub and LeVeque's pairwise
//    formula, both added with compensation (Knuth's two-sum).
//  * WelfordMoments (fp32): Welford's running update, a division per bar but
//    two values of state, not six: an fp32 sweep is checked by its ranking,
//    not by bits, and on a GPU its registers are what bounds it
//    (docs/kernels.md "CUDA: registers and spills").
// Callable on host and device; a fixed sequence of IEEE operations, so the
// reference engine and every kernel get the same bits.

#include <Kokkos_Core.hpp>

#include <type_traits>

namespace kbt::detail {

inline constexpr int moment_block = 32;  // a power of two: a block ends when (n & (moment_block - 1)) == 1

template <class Real>
struct MeanAndM2 {
  Real mean;
  Real m2;  // sum of squared deviations from the mean, >= 0 (or NaN)
};

// s + x as the pair (s, err): s the rounded sum, err gathering what rounding
// dropped (Knuth's two-sum, exact in IEEE arithmetic without contraction).
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION void add_compensated(Real& s, Real& err, Real x) {
  const Real t = s + x;
  const Real x_part = t - s;
  err += (s - (t - x_part)) + (x - x_part);
  s = t;
}

template <class Real>
struct BlockMoments {
  Real mean = 0;       // running mean of the merged blocks; the shift of the open block
  Real mean_err = 0;   // its compensation: the mean is mean + mean_err
  Real m2 = 0;         // sum of squared deviations of the merged blocks
  Real m2_err = 0;     // its compensation: the sum is m2 + m2_err
  Real block_sum = 0;  // open block: sum of (r - mean)
  Real block_sq = 0;   // open block: sum of (r - mean)^2

  // Return r, the n-th (n counts r). The first bar is a block of its own (it
  // sets the shift); then every moment_block bars, the same test for every
  // combo of a sweep.
  KOKKOS_FORCEINLINE_FUNCTION void add(Real r, int n) {
    const Real shifted = r - mean;
    block_sum += shifted;
    block_sq += shifted * shifted;
    if ((n & (moment_block - 1)) == 1) {
      const int block_bars = n == 1 ? 1 : moment_block;
      merge(n - block_bars, block_bars);
    }
  }

  // The moments of the n returns added (the open block merged into a copy).
  KOKKOS_FORCEINLINE_FUNCTION MeanAndM2<Real> result(int n) const {
    BlockMoments all = *this;
    const int open_bars = n > 0 ? (n - 1) & (moment_block - 1) : 0;
    if (open_bars > 0) all.merge(n - open_bars, open_bars);
    // Rounding can leave returns that are all equal a sum of squares a few
    // ulps under 0; that is 0 (a NaN stays NaN).
    const Real m2_sum = all.m2 + all.m2_err;
    return {all.mean + all.mean_err, m2_sum < Real(0) ? Real(0) : m2_sum};
  }

 private:
  // Merges the open block of `block_bars` bars into the running moments of
  // the `merged_bars` before it: two divisions per block.
  KOKKOS_FORCEINLINE_FUNCTION void merge(int merged_bars, int block_bars) {
    const Real nb = Real(block_bars);
    const Real block_shifted_mean = block_sum / nb;
    const Real delta = block_shifted_mean - mean_err;  // block mean - running mean
    const Real block_m2 = block_sq - block_sum * block_shifted_mean;
    const Real weight = nb / Real(merged_bars + block_bars);
    add_compensated(mean, mean_err, delta * weight);
    add_compensated(m2, m2_err, block_m2 + delta * delta * Real(merged_bars) * weight);
    block_sum = 0;
    block_sq = 0;
  }
};

template <class Real>
struct WelfordMoments {
  Real mean = 0;
  Real m2 = 0;

  KOKKOS_FORCEINLINE_FUNCTION void add(Real r, int n) {
    const Real delta = r - mean;
    mean += delta / Real(n);
    m2 += delta * (r - mean);
  }
  KOKKOS_FORCEINLINE_FUNCTION MeanAndM2<Real> result(int) const { return {mean, m2 < Real(0) ? Real(0) : m2}; }
};

template <class Real>
using ReturnMomentsOf = std::conditional_t<std::is_same<Real, float>::value, WelfordMoments<Real>, BlockMoments<Real>>;

}  // namespace kbt::detail
