// inspect_bars / summarize_market_data on hand-made data.

#include <gtest/gtest.h>
#include <kbt/data/data_io.hpp>

#include <cmath>

#include "unit/test_data_support.hpp"

namespace {

using kbt::test::kHourNs;
using kbt::test::k2021Ns;

kbt::MarketData hand_made() {
  const double N = std::nan("");
  kbt::MarketData d;
  auto& b = d.bars;
  // Spacings 1h, 1h, 2h, 1h: median 1h.
  b.timestamps = {k2021Ns, k2021Ns + kHourNs, k2021Ns + 2 * kHourNs, k2021Ns + 4 * kHourNs, k2021Ns + 5 * kHourNs};
  b.symbols = {"AAA", "BBB"};
  b.venues = {"binance", "okx"};
  for (const auto& name : kbt::required_bar_columns()) b.columns[name].assign(10, 1.0);
  b.columns["close"][1] = N;  // AAA: 1 NaN
  b.columns["close"][7] = N;  // BBB: 2 NaN
  b.columns["close"][9] = N;
  b.columns["funding_rate"] = {N, N, N, N, 0.1, N, N, N, N, N};  // AAA 4, BBB 5
  // Exo first point at bar 2's time: covers bars 2, 3, 4.
  d.exo["hashrate"] = {{k2021Ns + 2 * kHourNs, k2021Ns + 3 * kHourNs}, {1.0, 2.0}};
  return d;
}

TEST(DataInspect, SummarizesCountsRangeFrequencyAndCoverage) {
  const auto s = kbt::summarize_market_data(hand_made());
  EXPECT_EQ(s.symbols, (std::vector<std::string>{"AAA", "BBB"}));
  EXPECT_EQ(s.venues, (std::vector<std::string>{"binance", "okx"}));
  EXPECT_EQ(s.n_bars, 5u);
  EXPECT_EQ(s.first_ns, k2021Ns);
  EXPECT_EQ(s.last_ns, k2021Ns + 5 * kHourNs);
  EXPECT_EQ(s.median_spacing_ns, kHourNs);
  EXPECT_EQ(s.columns, (std::vector<std::string>{"open", "high", "low", "close", "volume", "funding_rate"}));
  EXPECT_EQ(s.nan_counts.at("close"), (std::vector<std::size_t>{1, 2}));
  EXPECT_EQ(s.nan_counts.at("open"), (std::vector<std::size_t>{0, 0}));
  EXPECT_EQ(s.nan_counts.at("funding_rate"), (std::vector<std::size_t>{4, 5}));
  ASSERT_EQ(s.exo.size(), 1u);
  EXPECT_EQ(s.exo[0].name, "hashrate");
  EXPECT_EQ(s.exo[0].points, 2u);
  EXPECT_EQ(s.exo[0].bars_covered, 3u);
}

TEST(DataInspect, FileSummaryAndReport) {
  kbt::test::TempDir dir;
  const auto d = hand_made();
  kbt::write_bars_hdf5(d.bars, d.exo, dir.file("x.h5"));
  const auto s = kbt::inspect_bars(dir.file("x.h5"));
  EXPECT_EQ(s.path, dir.file("x.h5"));
  EXPECT_EQ(s.nan_counts.at("close"), (std::vector<std::size_t>{1, 2}));
  const std::string text = kbt::format_summary(s);
  for (const char* want : {"symbols:    2: AAA (binance), BBB (okx)", "bars:       5",
                           "range:      2021-01-01T00:00:00Z .. 2021-01-01T05:00:00Z", "frequency:  1h",
                           "columns:    open, high, low, close, volume, funding_rate",
                           "hashrate: 2 points, 2021-01-01T02:00:00Z .. 2021-01-01T03:00:00Z; covers 3 of 5 bars (60.00%)"})
    EXPECT_NE(text.find(want), std::string::npos) << want << "\n" << text;
}

}  // namespace
