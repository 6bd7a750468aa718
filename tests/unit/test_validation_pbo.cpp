// PBO by CSCV (include/kbt/validation/pbo.hpp) against a brute-force
// computation written here from the definition (every split enumerated with
// std::next_permutation, Sharpe ratios from the concatenated returns), a
// hand-worked 4-block case, and its behaviour on constructed matrices: pure
// noise ~ 0.5, one dominant candidate ~ 0. On every enabled space.

#include <gtest/gtest.h>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/validation/pbo.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "support/brute_force_pbo.hpp"

namespace {

using kbt::test::brute_force_pbo;

std::vector<double> noise(std::size_t periods, std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::normal_distribution<double> d(0.0, 0.01);
  std::vector<double> m(periods * n);
  for (double& x : m) x = d(rng);
  return m;
}

}  // namespace

TEST(Pbo, EqualsTheBruteForceDefinitionOnEverySpace) {
  for (const auto& space : kbt::enabled_execution_spaces())
    for (const std::uint64_t seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(space.name + " seed " + std::to_string(seed));
      const std::size_t periods = 83, n = 7, blocks = 8;  // 3 periods left out
      const auto m = noise(periods, n, seed);
      const kbt::PboResult r = kbt::probability_of_backtest_overfitting(m, periods, n, blocks, space.name);
      EXPECT_EQ(r.splits, 70u);  // C(8, 4)
      EXPECT_EQ(r.periods_used, 80u);
      EXPECT_DOUBLE_EQ(r.pbo, brute_force_pbo(m, periods, n, blocks));
    }
}

TEST(Pbo, HandWorkedFourBlocks) {
  // Two candidates, four periods, one per block. A: 1, 3, 2, 4; B: 2, 2, 3, 1 (x0.01).
  // Splits (in-sample blocks): {0,1} {0,2} {0,3} {1,2} {1,3} {2,3}. A 2-period Sharpe
  // is mean / (|a - b| / sqrt 2). In-sample best and its OOS side:
  //   {0,1}: A 2/1.41 vs B inf (2,2: zero std, mean > 0) -> B; OOS B (3,1) 2/1.41 vs A (2,4) 3/1.41: B below: w = 1/3, logit < 0
  //   {0,2}: A (1,2) 1.5/0.71 vs B (2,3) 2.5/0.71 -> B; OOS B (2,1) 1.5/0.71 vs A (3,4) 3.5/0.71: w = 1/3
  //   {0,3}: A (1,4) 2.5/2.12 vs B (2,1) 1.5/0.71 -> B; OOS B (2,3) 2.5/0.71 vs A (3,2) 2.5/0.71: tie, w = 1.5/3 = 0.5, logit 0
  //   {1,2}: A (3,2) 2.5/0.71 vs B (2,3) 2.5/0.71 -> tie, A (first); OOS A (1,4) 1.18 vs B (2,1) 2.12: w = 1/3
  //   {1,3}: A (3,4) 3.5/0.71 vs B (2,1) 1.5/0.71 -> A; OOS A (1,2) 2.12 vs B (2,3) 3.54: w = 1/3
  //   {2,3}: A (2,4) 3/1.41 vs B (3,1) 2/1.41 -> A; OOS A (1,3) 2/1.41 vs B (2,2) inf: w = 1/3
  // Every logit <= 0: PBO = 1.
  const std::vector<double> m{0.01, 0.02, 0.03, 0.02, 0.02, 0.03, 0.04, 0.01};
  const kbt::PboResult r = kbt::probability_of_backtest_overfitting(m, 4, 2, 4, "reference");
  EXPECT_EQ(r.splits, 6u);
  EXPECT_DOUBLE_EQ(r.pbo, 1.0);
  EXPECT_DOUBLE_EQ(r.pbo, brute_force_pbo(m, 4, 2, 4));
}

TEST(Pbo, NoiseIsAboutOneHalfAndADominantCandidateAboutZero) {
  double sum = 0;
  const int seeds = 12;
  for (int seed = 0; seed < seeds; ++seed)
    sum += kbt::probability_of_backtest_overfitting(noise(320, 40, 100 + seed), 320, 40, 16, "reference").pbo;
  // Noise: the in-sample winner is a random candidate out of sample. The mean
  // over 12 independent matrices lies within 0.15 of 1/2 (a broken ranking
  // gives ~0 or ~1).
  EXPECT_NEAR(sum / seeds, 0.5, 0.15);
  auto m = noise(320, 40, 7);
  for (std::size_t t = 0; t < 320; ++t) m[t * 40 + 17] += 0.02;  // candidate 17 earns 2 % more every period
  const kbt::PboResult r = kbt::probability_of_backtest_overfitting(m, 320, 40, 16, "reference");
  EXPECT_EQ(r.splits, 12870u);
  EXPECT_LT(r.pbo, 0.01);
  EXPECT_LT(r.prob_oos_loss, 0.01);
}

TEST(Pbo, BadInputIsAConfigErrorNamingTheKey) {
  const auto m = noise(40, 4, 1);
  const auto error = [&](std::size_t periods, std::size_t n, std::size_t blocks) {
    try {
      kbt::probability_of_backtest_overfitting(std::vector<double>(m.begin(), m.begin() + long(periods * n)), periods, n,
                                               blocks, "reference");
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), kbt::ErrorCategory::config);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error(40, 4, 7).find("validation.pbo_blocks: the number of blocks must be even"), std::string::npos);
  EXPECT_NE(error(10, 4, 16).find("16 blocks need at least as many periods"), std::string::npos);
  EXPECT_NE(error(40, 1, 4).find("needs at least 2"), std::string::npos);
}

// The validation stage feeds configurations a chunk at a time
// (add_pbo_returns): the same sums, hence the same bits, as one matrix.
TEST(Pbo, ChunkedBlockSumsEqualTheWholeMatrix) {
  const std::size_t periods = 83, n = 11, blocks = 8;
  const auto m = noise(periods, n, 5);
  const kbt::PboResult whole = kbt::probability_of_backtest_overfitting(m, periods, n, blocks, "reference");
  kbt::PboBlocks b = kbt::pbo_blocks_for(periods, blocks, n);
  for (std::size_t first = 0; first < n; first += 4) {
    const std::size_t count = std::min<std::size_t>(4, n - first);
    std::vector<double> chunk(periods * count);
    for (std::size_t t = 0; t < periods; ++t)
      for (std::size_t j = 0; j < count; ++j) chunk[t * count + j] = m[t * n + first + j];
    kbt::add_pbo_returns(b, chunk.data(), count, first);
  }
  const kbt::PboResult chunked = kbt::pbo_of_blocks(b, "reference");
  ASSERT_EQ(chunked.logits.size(), whole.logits.size());
  for (std::size_t s = 0; s < whole.logits.size(); ++s) {
    EXPECT_EQ(chunked.logits[s], whole.logits[s]) << s;
    EXPECT_EQ(chunked.oos_sharpe[s], whole.oos_sharpe[s]) << s;
  }
  EXPECT_EQ(chunked.pbo, whole.pbo);
  EXPECT_GT(whole.pbo, 0.0);
}
