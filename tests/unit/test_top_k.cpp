#include <gtest/gtest.h>
#include <kbt/core/error.hpp>
#include <kbt/sweep/top_k.hpp>

#include <cmath>

namespace {

// Builds a metrics matrix where only sharpe and n_trades are set.
std::vector<double> rows_with(const std::vector<double>& sharpe, const std::vector<double>& trades) {
  std::vector<double> m(sharpe.size() * kbt::n_metrics, 0.0);
  for (std::size_t r = 0; r < sharpe.size(); ++r) {
    m[r * kbt::n_metrics + static_cast<int>(kbt::Metric::sharpe)] = sharpe[r];
    m[r * kbt::n_metrics + static_cast<int>(kbt::Metric::n_trades)] = trades[r];
  }
  return m;
}

}  // namespace

TEST(TopK, MaximiseBreaksTiesByComboIdAndSkipsNaN) {
  const double nan = std::nan("");
  const auto m = rows_with({1.0, 3.0, nan, 3.0, -2.0}, {20, 20, 20, 20, 20});
  const std::vector<std::uint64_t> ids{10, 11, 12, 9, 13};
  kbt::Objective obj;
  obj.metric = "sharpe";
  const auto top = kbt::select_top_k(m, ids, obj, 3);
  // sharpe 3.0 twice: combo 9 (row 3) before combo 11 (row 1); then 1.0 (row 0).
  ASSERT_EQ(top.size(), 3u);
  EXPECT_EQ(top[0], 3u);
  EXPECT_EQ(top[1], 1u);
  EXPECT_EQ(top[2], 0u);
}

TEST(TopK, MinimiseAndMinTrades) {
  const auto m = rows_with({1.0, 3.0, 0.5, -1.0}, {20, 20, 5, 9});
  const std::vector<std::uint64_t> ids{0, 1, 2, 3};
  kbt::Objective obj;
  obj.metric = "sharpe";
  obj.maximize = false;
  obj.min_trades = 10;
  const auto top = kbt::select_top_k(m, ids, obj, 10);
  // rows 2 and 3 have too few trades.
  ASSERT_EQ(top.size(), 2u);
  EXPECT_EQ(top[0], 0u);
  EXPECT_EQ(top[1], 1u);
}

TEST(TopK, UnknownMetricIsAConfigError) {
  kbt::Objective obj;
  obj.metric = "sharp";
  try {
    kbt::select_top_k({}, {}, obj, 1);
    FAIL();
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::config);
  }
}
