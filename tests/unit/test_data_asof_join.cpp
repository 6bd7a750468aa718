// ASOF join (docs/data-format.md) on hand-worked cases.

#include <gtest/gtest.h>
#include <kbt/data/data_io.hpp>

#include <cmath>

namespace {

// Compares with NaN == NaN.
void expect_series(const std::vector<double>& got, const std::vector<double>& want) {
  ASSERT_EQ(got.size(), want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    if (std::isnan(want[i])) EXPECT_TRUE(std::isnan(got[i])) << "bar " << i << ": " << got[i];
    else EXPECT_EQ(got[i], want[i]) << "bar " << i;
  }
}

const double N = std::nan("");

TEST(DataAsofJoin, LastValueAtOrBeforeEachBar) {
  // Points at 10 and 20; a bar exactly at a point takes that point.
  kbt::ExoSeries s{{10, 20}, {1.0, 2.0}};
  expect_series(kbt::asof_join({5, 10, 15, 20, 25}, s), {N, 1.0, 1.0, 2.0, 2.0});
}

TEST(DataAsofJoin, SeveralPointsBetweenBarsKeepTheLast) {
  kbt::ExoSeries s{{1, 2, 3, 11, 12}, {10, 20, 30, 40, 50}};
  expect_series(kbt::asof_join({0, 5, 10, 15}, s), {N, 30, 30, 50});
}

TEST(DataAsofJoin, SeriesAfterTheGridIsAllNaN) {
  kbt::ExoSeries s{{100}, {7.0}};
  expect_series(kbt::asof_join({1, 2, 3}, s), {N, N, N});
}

TEST(DataAsofJoin, EmptySeriesIsAllNaN) {
  expect_series(kbt::asof_join({1, 2}, kbt::ExoSeries{}), {N, N});
}

TEST(DataAsofJoin, NaNValuesArePropagatedNotSkipped) {
  // A NaN point is the last known value: it is not replaced by an earlier one.
  kbt::ExoSeries s{{1, 2}, {5.0, N}};
  expect_series(kbt::asof_join({1, 2, 3}, s), {5.0, N, N});
}

TEST(DataAsofJoin, NegativeTimesAndSparseGrid) {
  kbt::ExoSeries s{{-50, -10, 0, 40}, {1, 2, 3, 4}};
  expect_series(kbt::asof_join({-100, -20, -10, 39, 1000}, s), {N, 1, 2, 3, 4});
}

}  // namespace
