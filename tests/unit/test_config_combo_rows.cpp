// ComboRows (include/kbt/config/combo_rows.hpp): rows generated on demand
// equal the eager lists they replace — the grid walked by hand with its
// mixed-radix numbering, filtered, sampled — for every range of rows,
// across anchor boundaries.

#include <gtest/gtest.h>
#include <kbt/config/combo_rows.hpp>
#include <kbt/core/error.hpp>

#include "support/synthetic.hpp"

#include <cstdint>
#include <random>
#include <vector>

namespace {

const auto axis = kbt::test::param_axis;

// a in 0..299, b in 0..199 (60,000 combos): ids by hand, first axis slowest.
kbt::ParamGrid grid() {
  std::vector<double> a(300), b(200);
  for (int i = 0; i < 300; ++i) a[static_cast<std::size_t>(i)] = i;
  for (int i = 0; i < 200; ++i) b[static_cast<std::size_t>(i)] = i;
  return kbt::ParamGrid({axis("a", a), axis("b", b)});
}

// The kept (id, a, b) by hand: a loop over a, then b.
struct Expected {
  std::vector<std::uint64_t> ids;
  std::vector<double> params;
};
Expected by_hand(bool (*keep)(double, double)) {
  Expected e;
  for (int a = 0; a < 300; ++a)
    for (int b = 0; b < 200; ++b)
      if (keep(a, b)) {
        e.ids.push_back(static_cast<std::uint64_t>(a * 200 + b));
        e.params.push_back(a);
        e.params.push_back(b);
      }
  return e;
}

bool sparse(double a, double b) { return static_cast<int>(a + b) % 3 == 0 && a != b; }

void expect_range(const kbt::ComboRows& rows, const Expected& e, std::uint64_t first, std::uint64_t count) {
  SCOPED_TRACE("rows [" + std::to_string(first) + ", +" + std::to_string(count) + ")");
  const auto ids = rows.ids(first, count);
  const auto params = rows.params(first, count);
  ASSERT_EQ(ids.size(), count);
  for (std::uint64_t i = 0; i < count; ++i) {
    ASSERT_EQ(ids[i], e.ids[first + i]) << i;
    ASSERT_EQ(params[2 * i], e.params[2 * (first + i)]);
    ASSERT_EQ(params[2 * i + 1], e.params[2 * (first + i) + 1]);
  }
}

}  // namespace

TEST(ComboRows, EveryComboOfTheGridWithoutConstraints) {
  const kbt::ComboRows rows = kbt::ComboRows::of_grid(grid());
  const Expected e = by_hand([](double, double) { return true; });
  ASSERT_EQ(rows.size(), 60000u);
  for (const auto& [first, count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {0, 60000}, {0, 1}, {199, 2}, {59999, 1}, {4095, 4098}, {12345, 0}})
    expect_range(rows, e, first, count);
}

TEST(ComboRows, ConstrainedRowsEqualTheFilteredListInAnyRange) {
  const kbt::ComboRows rows = kbt::ComboRows::of_grid(grid(), [](const double* v) { return sparse(v[0], v[1]); });
  const Expected e = by_hand(sparse);
  ASSERT_GT(e.ids.size(), 2u * kbt::ComboRows::kAnchorRows) << "the case must cross anchors";
  ASSERT_EQ(rows.size(), e.ids.size());
  const std::uint64_t n = rows.size(), a = kbt::ComboRows::kAnchorRows;
  for (const auto& [first, count] : std::vector<std::pair<std::uint64_t, std::uint64_t>>{
           {0, n}, {0, 1}, {a - 1, 2}, {a, 1}, {a + 7, a}, {n - 1, 1}, {n - 3, 3}})
    expect_range(rows, e, first, count);
  std::mt19937_64 rng(3);
  for (int k = 0; k < 50; ++k) {
    const std::uint64_t first = rng() % n, count = rng() % (n - first + 1);
    expect_range(rows, e, first, count);
  }
  EXPECT_THROW(rows.ids(n - 1, 2), kbt::Error);
}

TEST(ComboRows, SubsetsAndSamplesEqualTheEagerRules) {
  const kbt::ComboRows rows = kbt::ComboRows::of_grid(grid(), [](const double* v) { return sparse(v[0], v[1]); });
  const Expected e = by_hand(sparse);
  // A sample is sample_combos over the filtered list (its documented rule).
  for (const std::uint64_t seed : {1u, 9u}) {
    const kbt::ComboRows s = rows.sample(500, seed);
    EXPECT_EQ(s.ids(0, s.size()), kbt::sample_combos(e.ids, 500, seed));
  }
  EXPECT_EQ(rows.sample(1u << 30, 1).ids(0, rows.size()), e.ids);  // n >= size: every row
  // A subset of rows spread over every anchor block, and one in a single block.
  std::vector<std::uint64_t> wanted;
  for (std::uint64_t r = 5; r < rows.size(); r += 997) wanted.push_back(r);
  const kbt::ComboRows sub = rows.subset(wanted);
  ASSERT_EQ(sub.size(), wanted.size());
  const auto ids = sub.ids(0, sub.size());
  const auto params = sub.params(0, sub.size());
  for (std::size_t i = 0; i < wanted.size(); ++i) {
    EXPECT_EQ(ids[i], e.ids[wanted[i]]);
    EXPECT_EQ(params[2 * i + 1], e.params[2 * wanted[i] + 1]);
  }
  EXPECT_THROW(rows.subset({3, 2}), kbt::Error);  // not ascending
}

TEST(ComboRows, ConstraintsThatRejectEverythingAreAGridError) {
  try {
    kbt::ComboRows::of_grid(grid(), [](const double*) { return false; });
    FAIL() << "expected an error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::grid);
    EXPECT_NE(std::string(e.what()).find("60,000 combos"), std::string::npos) << e.what();
  }
}
