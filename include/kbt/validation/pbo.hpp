#pragma once
// Probability of Backtest Overfitting by combinatorially symmetric
// cross-validation (Bailey, Borwein, López de Prado & Zhu; docs/validation.md
// "PBO"). The T x N matrix of N candidates' returns over T periods is cut into
// S equal blocks of rows; for every one of the C(S, S/2) ways to pick half of
// the blocks as in-sample (the rest out-of-sample), the candidate with the best
// in-sample Sharpe ratio is found and its out-of-sample relative rank w gives
// the logit ln(w / (1 - w)). PBO is the share of logits <= 0. The splits run
// in parallel on a Kokkos space; each is computed on its own, so the result
// never depends on the thread count.

#include <kbt/core/detail/scalar_math.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbt {

struct PboResult {
  std::size_t blocks = 0, splits = 0, candidates = 0, periods_used = 0;
  double pbo = 0;                  // share of logits <= 0
  double prob_oos_loss = 0;        // share of splits whose chosen candidate's OOS Sharpe is < 0
  double degradation_slope = 0;    // least squares: OOS Sharpe = a + slope * IS Sharpe (chosen candidates)
  double degradation_intercept = 0;
  std::vector<double> logits, is_sharpe, oos_sharpe;  // per split, in split order
};

// `returns`: [periods][candidates], row-major, on the host. S (`blocks`) must
// be even, at least 2 and at most the number of periods, and there must be at
// least 2 candidates; kbt::Error(config) naming `what` otherwise. The first
// periods % S periods are left out, so that the blocks are equal.
PboResult probability_of_backtest_overfitting(const std::vector<double>& returns, std::size_t periods,
                                              std::size_t candidates, std::size_t blocks,
                                              const std::string& device, const std::string& what = "validation.pbo_blocks");

// The same in pieces, for candidates that arrive in chunks (the validation
// stage's every configuration): only S x 2 sums a candidate are kept.
struct PboBlocks {
  std::size_t blocks = 0, len = 0, skip = 0;  // S blocks of `len` periods after the first `skip`
  std::size_t candidates = 0;
  std::vector<double> sum, sum_sq;            // [block][candidate]
};
// The layout for `periods` periods and `candidates` candidates (zero sums);
// kbt::Error(config) naming `what` as probability_of_backtest_overfitting.
PboBlocks pbo_blocks_for(std::size_t periods, std::size_t blocks, std::size_t candidates,
                         const std::string& what = "validation.pbo_blocks");
// Adds candidates [first, first + count) from their returns [periods][count].
void add_pbo_returns(PboBlocks& b, const double* returns, std::size_t count, std::size_t first);
// PBO from the complete sums.
PboResult pbo_of_blocks(const PboBlocks& b, const std::string& device);

namespace detail {

// C(n, k) for the small n of a split count (exact in 64 bits for n <= 62).
KOKKOS_INLINE_FUNCTION std::uint64_t binomial(int n, int k) {
  if (k < 0 || k > n) return 0;
  if (k > n - k) k = n - k;
  std::uint64_t c = 1;
  for (int i = 1; i <= k; ++i) c = c * std::uint64_t(n - k + i) / std::uint64_t(i);
  return c;
}

// The split with index `rank` (combinatorial number system): in_sample[b] = 1
// for the S/2 in-sample blocks.
KOKKOS_INLINE_FUNCTION void unrank_split(std::uint64_t rank, int blocks, int* in_sample) {
  int k = blocks / 2;
  for (int b = blocks - 1; b >= 0; --b) {
    const std::uint64_t c = binomial(b, k);
    if (k > 0 && rank >= c) {
      in_sample[b] = 1;
      rank -= c;
      --k;
    } else {
      in_sample[b] = 0;
    }
  }
}

// One split per work item: reads per-block sums [block][candidate] of r and
// r^2 (every block has `block_len` periods).
template <class ExecSpace>
struct CscvSplits {
  using Mem = typename ExecSpace::memory_space;
  Kokkos::View<const double**, Kokkos::LayoutRight, Mem> sum, sum_sq;
  Kokkos::View<double*, Mem> logit, is_sharpe, oos_sharpe;
  int blocks = 0, candidates = 0;
  double half_len = 0;  // periods on each side: blocks / 2 * block_len

  KOKKOS_INLINE_FUNCTION double sharpe(const int* in_sample, int want, int j) const {
    double s = 0, q = 0;
    for (int b = 0; b < blocks; ++b)
      if (in_sample[b] == want) s += sum(b, j), q += sum_sq(b, j);
    const double mean = s / half_len;
    const double var = (q - s * mean) / (half_len - 1.0);
    return var > 0 ? mean / math::sqrt(var) : (mean > 0 ? 1e300 : (mean < 0 ? -1e300 : 0.0));
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t split) const {
    int in_sample[64];
    unrank_split(static_cast<std::uint64_t>(split), blocks, in_sample);
    int best = 0;
    double best_is = sharpe(in_sample, 1, 0);
    for (int j = 1; j < candidates; ++j) {
      const double v = sharpe(in_sample, 1, j);
      if (v > best_is) best_is = v, best = j;  // ties: the first candidate
    }
    const double chosen = sharpe(in_sample, 0, best);
    // Relative rank of the chosen candidate out of sample: 1 + those below it
    // (ties counted half), over N + 1.
    double below = 0;
    for (int j = 0; j < candidates; ++j) {
      if (j == best) continue;
      const double v = sharpe(in_sample, 0, j);
      below += v < chosen ? 1.0 : (v == chosen ? 0.5 : 0.0);
    }
    const double w = (below + 1.0) / (double(candidates) + 1.0);
    logit(split) = math::log(w / (1.0 - w));
    is_sharpe(split) = best_is;
    oos_sharpe(split) = chosen;
  }
};

}  // namespace detail
}  // namespace kbt
