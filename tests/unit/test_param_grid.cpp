// ParamGrid numbering, constraint filtering and deterministic sampling.

#include <gtest/gtest.h>
#include <kbt/core/error.hpp>
#include <kbt/config/param_grid.hpp>

#include "support/synthetic.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <set>
#include <string>
#include <vector>

namespace {

const auto axis = kbt::test::param_axis;

kbt::ErrorCategory category_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const kbt::Error& e) {
    return e.category();
  }
  ADD_FAILURE() << "no kbt::Error thrown";
  return kbt::ErrorCategory::internal;
}

}  // namespace

TEST(ParamGrid, MixedRadixNumberingFirstParamSlowest) {
  // a: 2 values, b: 3 values, c: 2 values -> 12 combos.
  const kbt::ParamGrid grid({axis("a", {1, 2}), axis("b", {10, 20, 30}), axis("c", {0.5, 0.25})});
  ASSERT_EQ(grid.n_combos(), 12u);
  ASSERT_EQ(grid.n_params(), 3u);
  // Hand-written enumeration: c changes fastest, then b, then a.
  const double expected[12][3] = {{1, 10, 0.5}, {1, 10, 0.25}, {1, 20, 0.5}, {1, 20, 0.25},
                                  {1, 30, 0.5}, {1, 30, 0.25}, {2, 10, 0.5}, {2, 10, 0.25},
                                  {2, 20, 0.5}, {2, 20, 0.25}, {2, 30, 0.5}, {2, 30, 0.25}};
  for (std::uint64_t id = 0; id < 12; ++id) {
    double v[3];
    grid.combo_values(id, v);
    for (int k = 0; k < 3; ++k) EXPECT_EQ(v[k], expected[id][k]) << "id " << id << " param " << k;
  }
  // id 7 = (1*3 + 0)*2 + 1 -> indices (1, 0, 1).
  std::size_t idx[3];
  grid.combo_indices(7, idx);
  EXPECT_EQ(idx[0], 1u);
  EXPECT_EQ(idx[1], 0u);
  EXPECT_EQ(idx[2], 1u);
  EXPECT_EQ(grid.index_of("b"), 1);
  EXPECT_EQ(grid.index_of("zz"), -1);
}

TEST(ParamGrid, IdIndicesRoundTrip) {
  const kbt::ParamGrid grid({axis("a", {1, 2, 3, 4, 5}), axis("b", {1, 2, 3, 4, 5, 6, 7}), axis("c", {1, 2, 3})});
  ASSERT_EQ(grid.n_combos(), 105u);
  std::set<std::vector<std::size_t>> seen;
  for (std::uint64_t id = 0; id < grid.n_combos(); ++id) {
    std::vector<std::size_t> idx(3);
    grid.combo_indices(id, idx.data());
    EXPECT_EQ(grid.combo_id(idx.data()), id);
    EXPECT_TRUE(seen.insert(idx).second) << "indices repeat at id " << id;
  }
}

TEST(ParamGrid, NoParamsIsOneCombo) {
  const kbt::ParamGrid grid({});
  EXPECT_EQ(grid.n_combos(), 1u);
  EXPECT_EQ(kbt::filter_combos(grid, [](const double*) { return true; }), std::vector<std::uint64_t>{0});
}

TEST(ParamGrid, OutOfRangeIdAndIndexAreErrors) {
  const kbt::ParamGrid grid({axis("a", {1, 2})});
  double v[1];
  EXPECT_EQ(category_of([&] { grid.combo_values(2, v); }), kbt::ErrorCategory::grid);
  const std::size_t bad[1] = {2};
  EXPECT_EQ(category_of([&] { (void)grid.combo_id(bad); }), kbt::ErrorCategory::grid);
}

TEST(ParamGrid, EmptyAxisIsAGridError) {
  EXPECT_EQ(category_of([] { kbt::ParamGrid g({axis("a", {1}), axis("b", {})}); }), kbt::ErrorCategory::grid);
}

TEST(ParamGrid, CountOverflowIsALimitError) {
  // 5 axes of 10,000 values: 10^20 > 2^64 - 1 (about 1.8e19).
  std::vector<double> many(10000);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = static_cast<double>(i);
  std::vector<kbt::ParamSpec> axes;
  for (int k = 0; k < 5; ++k) axes.push_back(axis("p" + std::to_string(k), many));
  EXPECT_FALSE(kbt::checked_combo_count(axes).has_value());
  EXPECT_EQ(category_of([&] { kbt::ParamGrid g(axes); }), kbt::ErrorCategory::limit);
  axes.pop_back();  // 10^16 fits
  ASSERT_TRUE(kbt::checked_combo_count(axes).has_value());
  EXPECT_EQ(*kbt::checked_combo_count(axes), 10000000000000000ull);
}

TEST(ParamGrid, FilterKeepsSurvivorsInIdOrder) {
  // fast in {5,10,15}, slow in {10,20}: fast < slow keeps (5,10) id 0, (5,20) id 1,
  // (10,20) id 3, (15,20) id 5.
  const kbt::ParamGrid grid({axis("fast", {5, 10, 15}), axis("slow", {10, 20})});
  const auto kept = kbt::filter_combos(grid, [](const double* v) { return v[0] < v[1]; });
  EXPECT_EQ(kept, (std::vector<std::uint64_t>{0, 1, 3, 5}));
}

TEST(ParamGrid, FilterRejectingEverythingIsAGridError) {
  const kbt::ParamGrid grid({axis("fast", {5, 10}), axis("slow", {1, 2})});
  try {
    kbt::filter_combos(grid, [](const double* v) { return v[0] < v[1]; });
    FAIL() << "expected an error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::grid);
    EXPECT_NE(std::string(e.what()).find("4 combos"), std::string::npos) << e.what();
  }
}

TEST(Sampling, SplitMix64MatchesPublishedVectors) {
  // Reference outputs of SplitMix64 for seed 1234567 (as in Vigna's reference code
  // test vectors) and seed 0 (computed independently in Python).
  std::uint64_t s = 1234567;
  EXPECT_EQ(kbt::splitmix64_next(s), 6457827717110365317ull);
  EXPECT_EQ(kbt::splitmix64_next(s), 3203168211198807973ull);
  EXPECT_EQ(kbt::splitmix64_next(s), 9817491932198370423ull);
  s = 0;
  EXPECT_EQ(kbt::splitmix64_next(s), 16294208416658607535ull);
  EXPECT_EQ(kbt::splitmix64_next(s), 7960286522194355700ull);
}

TEST(Sampling, FixedSeedGivesFixedIds) {
  // Expected ids computed by an independent Python implementation of the
  // documented algorithm (SplitMix64, rejection below 2^64 mod bound, Floyd).
  std::vector<std::uint64_t> ids(100);
  for (std::uint64_t i = 0; i < 100; ++i) ids[i] = i;
  EXPECT_EQ(kbt::sample_combos(ids, 5, 42), (std::vector<std::uint64_t>{6, 45, 50, 84, 85}));
  std::vector<std::uint64_t> sparse(1000);
  for (std::uint64_t i = 0; i < 1000; ++i) sparse[i] = 3 * i + 1;
  EXPECT_EQ(kbt::sample_combos(sparse, 7, 2026), (std::vector<std::uint64_t>{19, 130, 709, 1903, 2413, 2599, 2722}));
}

TEST(Sampling, SortedWithoutDuplicatesAndAllWhenNTooLarge) {
  std::vector<std::uint64_t> ids;
  for (std::uint64_t i = 0; i < 5000; ++i) ids.push_back(i * 7);
  const auto a = kbt::sample_combos(ids, 1000, 9);
  ASSERT_EQ(a.size(), 1000u);
  EXPECT_TRUE(std::is_sorted(a.begin(), a.end()));
  EXPECT_EQ(std::set<std::uint64_t>(a.begin(), a.end()).size(), 1000u);
  for (auto id : a) EXPECT_EQ(id % 7, 0u);
  EXPECT_EQ(kbt::sample_combos(ids, 1000, 9), a);    // same seed, same sample
  EXPECT_NE(kbt::sample_combos(ids, 1000, 10), a);   // another seed, another sample
  EXPECT_EQ(kbt::sample_combos(ids, 5000, 1), ids);  // n >= m: everything
  EXPECT_EQ(kbt::sample_combos(ids, 9000, 1), ids);
  EXPECT_TRUE(kbt::sample_combos(ids, 0, 1).empty());
}

TEST(Sampling, RoughlyUniform) {
  // One of 10 ids over 20,000 seeds: each id expected 2,000 times, sd ~42;
  // a bound of +-250 (6 sd) fails only for a broken sampler.
  std::vector<std::uint64_t> ids{0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
  int counts[10] = {};
  for (std::uint64_t seed = 0; seed < 20000; ++seed) counts[kbt::sample_combos(ids, 1, seed)[0]]++;
  for (int i = 0; i < 10; ++i) EXPECT_NEAR(counts[i], 2000, 250) << "id " << i;
}

TEST(Sampling, UniformBelowStaysInRange) {
  std::uint64_t state = 3;
  for (std::uint64_t bound : {1ull, 2ull, 3ull, 1000000007ull, 0x8000000000000001ull}) {
    for (int i = 0; i < 100; ++i) EXPECT_LT(kbt::uniform_below(state, bound), bound);
  }
}
