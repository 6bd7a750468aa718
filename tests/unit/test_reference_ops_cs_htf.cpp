// Cross-sectional ops on three symbols and higher-timeframe resampling on a tiny grid.
#include "test_lang_support.hpp"

using namespace kbt;
using namespace kbt::test;

namespace {
// Bars (symbol-major AAA, BBB, CCC), three bars each.
//   bar 0: 1, 3, 2       bar 1: 5, NaN, 5       bar 2: NaN, 4, NaN
BarData three_symbols() {
  return make_bars({"AAA", "BBB", "CCC"}, {{"close", {{1, 5, NaN}, {3, NaN, 4}, {2, 5, NaN}}}});
}
}  // namespace

TEST(ReferenceCrossSectional, RankIsScaledFromZeroToOneWithAveragedTies) {
  // bar 0: ranks 1, 3, 2 of 3 -> (r-1)/(3-1) = 0, 1, 0.5. bar 1: a tie for ranks 1-2,
  // average 1.5 -> 0.5 each. bar 2: one valid value -> 0.5.
  expect_series(eval(three_symbols(), "cs_rank(close)"), {0, 0.5, NaN, 1, NaN, 0.5, 0.5, 0.5, NaN});
}

TEST(ReferenceCrossSectional, DemeanAndZscore) {
  // bar 0: mean 2 -> -1, 1, 0; sample std sqrt((1+1+0)/2) = 1 -> z = -1, 1, 0.
  // bar 1: mean 5 -> 0, NaN, 0; std 0 -> z NaN. bar 2: one value -> demean 0, z NaN.
  expect_series(eval(three_symbols(), "cs_demean(close)"), {-1, 0, NaN, 1, NaN, 0, 0, 0, NaN});
  expect_series(eval(three_symbols(), "cs_zscore(close)"), {-1, NaN, NaN, 1, NaN, NaN, 0, NaN, NaN});
}

TEST(ReferenceCrossSectional, ComposesWithSeriesOps) {
  // lag then rank: bar 0 all NaN; bar 1 ranks of (1, 3, 2); bar 2 of (5, NaN, 5).
  expect_series(eval(three_symbols(), "cs_rank(lag(close, 1))"),
                {NaN, 0, 0.5, NaN, 1, NaN, NaN, 0.5, 0.5});
}

TEST(ReferenceHtf, BucketsAreCalendarAlignedAndOnlyCompletedOnesAreVisible) {
  // Hourly bars at 00:00 .. 04:00, "2h" buckets [00,02) [02,04) [04,06):
  // bar 0-1 see nothing, bars 2-3 see bucket 0, bar 4 sees bucket 1.
  const TimeframeGrid g = timeframe_grid({0, hour_ns, 2 * hour_ns, 3 * hour_ns, 4 * hour_ns}, 2 * hour_ns);
  EXPECT_EQ(g.begin, (std::vector<std::size_t>{0, 2, 4}));
  EXPECT_EQ(g.end, (std::vector<std::size_t>{2, 4, 5}));
  EXPECT_EQ(g.visible, (std::vector<long>{-1, -1, 0, 0, 1}));
}

TEST(ReferenceHtf, OhlcvResampling) {
  const BarData d = make_bars({"AAA"}, {{"open", {{7, 8, 9, 10, 11}}},
                                        {"high", {{1, 5, 2, 3, 9}}},
                                        {"low", {{4, 2, 6, 5, 1}}},
                                        {"close", {{1, 2, 3, 4, 5}}},
                                        {"volume", {{1, 2, 3, 4, 5}}}});
  expect_series(eval(d, "htf(open, \"2h\")"), {NaN, NaN, 7, 7, 9});
  expect_series(eval(d, "htf(high, \"2h\")"), {NaN, NaN, 5, 5, 3});
  expect_series(eval(d, "htf(low, \"2h\")"), {NaN, NaN, 2, 2, 5});
  expect_series(eval(d, "htf(close, \"2h\")"), {NaN, NaN, 2, 2, 4});
  expect_series(eval(d, "htf(volume, \"2h\")"), {NaN, NaN, 3, 3, 7});
  // Ops inside htf run on the higher-timeframe bars: closes 2, 4, 5 -> sma2 = NaN, 3, 4.5.
  expect_series(eval(d, "htf(sma(close, 2), \"2h\")"), {NaN, NaN, NaN, NaN, 3});
  expect_series(eval(d, "htf(close - open, \"2h\")"), {NaN, NaN, 2 - 7, 2 - 7, 4 - 9});
  // A scalar is the same on every timeframe.
  expect_series(eval(d, "htf(2, \"2h\")"), {2, 2, 2, 2, 2});
}

TEST(ReferenceHtf, NaNBarsAreSkippedInsideABucket) {
  const BarData d = make_bars({"AAA"}, {{"close", {{1, NaN, NaN, NaN, 5}}}, {"volume", {{1, NaN, NaN, NaN, 1}}}});
  expect_series(eval(d, "htf(close, \"2h\")"), {NaN, NaN, 1, 1, NaN});
  expect_series(eval(d, "htf(volume, \"2h\")"), {NaN, NaN, 1, 1, NaN});
}

TEST(ReferenceHtf, DaysStartAtMidnightUtc) {
  // Bars at 22:00, 23:00 of day 0 and 00:00, 01:00 of day 1.
  const BarData d = make_bars({"AAA"}, {{"close", {{1, 2, 3, 4}}}},
                              {22 * hour_ns, 23 * hour_ns, 24 * hour_ns, 25 * hour_ns});
  expect_series(eval(d, "htf(close, \"1d\")"), {NaN, NaN, 2, 2});
  // Signals referenced inside htf are recomputed on the higher timeframe.
  StrategySpec s;
  s.signals = {{"c2", SourceText{"close * 2", "cfg.yaml", 3, 5}}};
  s.position = SourceText{"htf(c2, \"1d\") - c2", "cfg.yaml", 4, 5};
  const Program p = compile_strategy(s, schema_of(d));
  expect_series(evaluate_strategy_reference(p, d, nullptr).target, {NaN, NaN, 4 - 6, 4 - 8});
}

TEST(ReferenceHtf, WeeksStartOnMonday) {
  // 1970-01-05 is a Monday: bars on Sunday 1970-01-04 and Monday 1970-01-05.
  const std::int64_t day = 24 * hour_ns;
  const TimeframeGrid g = timeframe_grid({3 * day, 4 * day, 5 * day, 11 * day}, 7 * day);
  EXPECT_EQ(g.begin, (std::vector<std::size_t>{0, 1, 3}));
  EXPECT_EQ(g.visible, (std::vector<long>{-1, 0, 0, 1}));
}
