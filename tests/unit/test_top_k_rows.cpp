// TopRows and select_top_rows (include/kbt/sweep/top_k.hpp): the best rows
// of rows offered in blocks, one at a time, in any order, equal a full sort
// of every row by the documented order (objective, then combo id; NaN and
// min_trades excluded), computed here by hand.

#include <gtest/gtest.h>
#include <kbt/output/result_rows.hpp>
#include <kbt/sweep/top_k.hpp>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>

namespace {

// 5,000 rows; sharpe drawn from few values (ties), some NaN, trades 0..19.
struct Rows {
  std::vector<std::uint64_t> ids;
  std::vector<double> params, metrics;
};
Rows random_rows(std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Rows r;
  for (std::uint64_t i = 0; i < 5000; ++i) {
    r.ids.push_back(3 * i + 1);
    r.params.push_back(static_cast<double>(i));
    std::vector<double> m(kbt::n_metrics, 0.0);
    m[int(kbt::Metric::sharpe)] = rng() % 17 == 0 ? NAN : static_cast<double>(rng() % 50) / 10.0;
    m[int(kbt::Metric::n_trades)] = static_cast<double>(rng() % 20);
    r.metrics.insert(r.metrics.end(), m.begin(), m.end());
  }
  return r;
}

// The expected rows by a full sort of the eligible ones.
std::vector<std::uint64_t> by_full_sort(const Rows& r, const kbt::Objective& o, std::size_t k) {
  std::vector<std::uint64_t> rows;
  for (std::uint64_t i = 0; i < r.ids.size(); ++i) {
    const double v = r.metrics[i * kbt::n_metrics + int(kbt::Metric::sharpe)];
    if (!std::isnan(v) && r.metrics[i * kbt::n_metrics + int(kbt::Metric::n_trades)] >= o.min_trades) rows.push_back(i);
  }
  std::sort(rows.begin(), rows.end(), [&](std::uint64_t a, std::uint64_t b) {
    const double va = r.metrics[a * kbt::n_metrics + int(kbt::Metric::sharpe)];
    const double vb = r.metrics[b * kbt::n_metrics + int(kbt::Metric::sharpe)];
    if (va != vb) return o.maximize ? va > vb : va < vb;
    return r.ids[a] < r.ids[b];
  });
  rows.resize(std::min(k, rows.size()));
  return rows;
}

}  // namespace

TEST(TopRows, BlocksInAnyOrderGiveTheFullSortsBest) {
  const Rows r = random_rows(11);
  for (const bool maximize : {true, false})
    for (const std::size_t k : {std::size_t(1), std::size_t(37), std::size_t(3000), std::size_t(9000)}) {
      SCOPED_TRACE("k " + std::to_string(k) + (maximize ? " max" : " min"));
      const kbt::Objective objective{"sharpe", maximize, 5};
      const auto expected = by_full_sort(r, objective, k);
      ASSERT_FALSE(expected.empty());
      // Blocks of varied sizes, offered in shuffled order.
      std::vector<std::pair<std::uint64_t, std::uint64_t>> blocks;
      for (std::uint64_t first = 0, size = 1; first < r.ids.size(); first += size, size = size * 3 % 997 + 1)
        blocks.emplace_back(first, std::min<std::uint64_t>(size, r.ids.size() - first));
      std::shuffle(blocks.begin(), blocks.end(), std::mt19937_64(k));
      kbt::TopRows top(objective, k, 1);
      for (const auto& [first, count] : blocks)
        top.offer_block(first, count, &r.ids[first], &r.params[first], &r.metrics[first * kbt::n_metrics]);
      const kbt::RowTable best = top.best();
      EXPECT_EQ(best.rows, expected);
      for (std::size_t i = 0; i < best.size(); ++i) {
        EXPECT_EQ(best.combo_ids[i], r.ids[best.rows[i]]);
        EXPECT_EQ(best.params[i], static_cast<double>(best.rows[i]));
      }
      // The same through a ResultRows, a block at a time.
      const kbt::MemoryRows rows({"p"}, r.ids, r.params, r.metrics);
      EXPECT_EQ(kbt::select_top_rows(rows, objective, k).rows, expected);
    }
}

TEST(TopRows, KeepsNothingForKZero) {
  const Rows r = random_rows(2);
  kbt::TopRows top({"sharpe", true, 0}, 0, 1);
  top.offer_block(0, r.ids.size(), r.ids.data(), r.params.data(), r.metrics.data());
  EXPECT_EQ(top.best().size(), 0u);
}

TEST(ResultRows, ReadRowsAndFindComboOverMemoryRows) {
  const Rows r = random_rows(5);
  const kbt::MemoryRows rows({"p"}, r.ids, r.params, r.metrics);
  const kbt::RowTable t = kbt::read_rows(rows, {4999, 0, 70, 71, 70, 2500});
  EXPECT_EQ(t.combo_ids, (std::vector<std::uint64_t>{3 * 4999 + 1, 1, 211, 214, 211, 7501}));
  EXPECT_EQ(t.params, (std::vector<double>{4999, 0, 70, 71, 70, 2500}));
  EXPECT_EQ(t.metrics_of(2)[int(kbt::Metric::n_trades)], r.metrics[70 * kbt::n_metrics + int(kbt::Metric::n_trades)]);
  for (const std::uint64_t row : {0u, 1u, 2499u, 4999u}) EXPECT_EQ(kbt::find_combo_row(rows, 3 * row + 1), row);
  EXPECT_FALSE(kbt::find_combo_row(rows, 0).has_value());
  EXPECT_FALSE(kbt::find_combo_row(rows, 3).has_value());
  EXPECT_FALSE(kbt::find_combo_row(rows, 15000).has_value());
}
