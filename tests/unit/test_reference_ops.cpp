// Every op of the language on small series, against values worked by hand
// (the arithmetic is written out in the comments).
#include "test_lang_support.hpp"

using namespace kbt;
using namespace kbt::test;

namespace {
const std::vector<double> x5{1, 2, 4, 7, 11};
}

TEST(ReferenceOps, ArithmeticAndDivisionByZero) {
  const BarData d = close_only({1, 2, 0, NaN});
  expect_series(eval(d, "close + 1"), {2, 3, 1, NaN});
  expect_series(eval(d, "close - 3"), {-2, -1, -3, NaN});
  expect_series(eval(d, "close * 2"), {2, 4, 0, NaN});
  expect_series(eval(d, "-close"), {-1, -2, -0.0, NaN});
  expect_series(eval(d, "1 / close"), {1, 0.5, NaN, NaN});         // 1/0 -> NaN, not inf
  expect_series(eval(d, "close / (close - close)"), {NaN, NaN, NaN, NaN});  // x/0 and 0/0
  expect_series(eval(d, "1 / 0"), {NaN, NaN, NaN, NaN});            // a scalar, broadcast
  expect_series(eval(d, "2 * 3 - 1"), {5, 5, 5, 5});
}

TEST(ReferenceOps, ComparisonsAreThreeValuedAndEqualityUsesEpsilon) {
  const BarData d = close_only({1, 2, 3, NaN});
  expect_series(eval(d, "close < 2"), {1, 0, 0, NaN});
  expect_series(eval(d, "close <= 2"), {1, 1, 0, NaN});
  expect_series(eval(d, "close > 2"), {0, 0, 1, NaN});
  expect_series(eval(d, "close >= 2"), {0, 1, 1, NaN});
  expect_series(eval(d, "close == 2"), {0, 1, 0, NaN});
  expect_series(eval(d, "close != 2"), {1, 0, 1, NaN});
  // 0.1 + 0.2 differs from 0.3 by 5.55e-17 < DBL_EPSILON (2.22e-16): equal.
  expect_series(eval(d, "0.1 + 0.2 == 0.3"), {1, 1, 1, 1});
  expect_series(eval(d, "0.1 + 0.2 != 0.3"), {0, 0, 0, 0});
  // 1 + 4.4e-16 differs from 1 by 2 ulps > DBL_EPSILON: not equal.
  expect_series(eval(d, "1.00000000000000044 == 1"), {0, 0, 0, 0});
}

TEST(ReferenceOps, KleeneLogicTruthTables) {
  // p and q run through every pair of (false, true, unknown).
  const BarData d = make_bars({"AAA"}, {{"open", {{0, 0, 0, 1, 1, 1, NaN, NaN, NaN}}},
                                        {"close", {{0, 1, NaN, 0, 1, NaN, 0, 1, NaN}}}});
  const std::string p = "(open > 0.5)", q = "(close > 0.5)";
  expect_series(eval(d, p + " and " + q), {0, 0, 0, 0, 1, NaN, 0, NaN, NaN});
  expect_series(eval(d, p + " or " + q), {0, 1, NaN, 1, 1, 1, NaN, 1, NaN});
  expect_series(eval(d, "not " + p), {1, 1, 1, 0, 0, 0, NaN, NaN, NaN});
  expect_series(eval(d, "where(" + p + ", 1, -1)"), {-1, -1, -1, 1, 1, 1, NaN, NaN, NaN});
}

TEST(ReferenceOps, ScalarFunctions) {
  const BarData d = close_only({-4, 0, 4, NaN});
  expect_series(eval(d, "abs(close)"), {4, 0, 4, NaN});
  expect_series(eval(d, "sqrt(close)"), {NaN, 0, 2, NaN});
  expect_series(eval(d, "log(close)"), {NaN, NaN, std::log(4.0), NaN});  // log(x <= 0) -> NaN
  expect_series(eval(d, "exp(close * 0)"), {1, 1, 1, NaN});
  expect_series(eval(d, "sign(close)"), {-1, 0, 1, NaN});
  expect_series(eval(d, "min(close, 1)"), {-4, 0, 1, NaN});
  expect_series(eval(d, "max(close, 1)"), {1, 1, 4, NaN});
  expect_series(eval(d, "clip(close, -1, 2)"), {-1, 0, 2, NaN});
  expect_series(eval(d, "isnan(close)"), {0, 0, 0, 1});
  expect_series(eval(d, "isnan(log(close))"), {1, 1, 0, 1});
  expect_series(eval(d, "fillna(close, 7)"), {-4, 0, 4, 7});
  expect_series(eval(d, "where(close > 0, close, 0)"), {0, 0, 4, NaN});
}

TEST(ReferenceOps, LagAndRollingFolds) {
  const BarData d = close_only(x5);
  expect_series(eval(d, "lag(close, 2)"), {NaN, NaN, 1, 2, 4});
  expect_series(eval(d, "lag(close, 0)"), x5);
  expect_series(eval(d, "rolling_sum(close, 3)"), {NaN, NaN, 7, 13, 22});
  expect_series(eval(d, "sma(close, 3)"), {NaN, NaN, 7.0 / 3, 13.0 / 3, 22.0 / 3});
  expect_series(eval(d, "rolling_mean(close, 1)"), x5);
  expect_series(eval(d, "rolling_min(close, 2)"), {NaN, 1, 2, 4, 7});
  expect_series(eval(d, "rolling_max(close, 2)"), {NaN, 2, 4, 7, 11});
  // Windows [1,2,4], [2,4,7], [4,7,11]: sum of squared deviations 42/9, 114/9, 222/9,
  // divided by w - 1 = 2: variances 7/3, 19/3, 37/3.
  expect_series(eval(d, "rolling_std(close, 3)"),
                {NaN, NaN, std::sqrt(7.0 / 3), std::sqrt(19.0 / 3), std::sqrt(37.0 / 3)}, 1e-15);
  expect_series(eval(d, "zscore(close, 3)"),
                {NaN, NaN, (5.0 / 3) / std::sqrt(7.0 / 3), (8.0 / 3) / std::sqrt(19.0 / 3),
                 (11.0 / 3) / std::sqrt(37.0 / 3)},
                1e-15);
  expect_series(eval(d, "roc(close, 1)"), {NaN, 1, 1, 0.75, 4.0 / 7});
  expect_series(eval(d, "roc(close, 2)"), {NaN, NaN, 3, 2.5, 11.0 / 4 - 1});
}

TEST(ReferenceOps, AWindowWithANaNIsNaN) {
  const BarData d = close_only({1, 2, NaN, 4, 5, 6});
  expect_series(eval(d, "rolling_sum(close, 2)"), {NaN, 3, NaN, NaN, 9, 11});
  expect_series(eval(d, "sma(close, 2)"), {NaN, 1.5, NaN, NaN, 4.5, 5.5});
  expect_series(eval(d, "rolling_min(close, 2)"), {NaN, 1, NaN, NaN, 4, 5});
  expect_series(eval(d, "rolling_max(close, 2)"), {NaN, 2, NaN, NaN, 5, 6});
  // [4,5,6]: mean 5, squared deviations 1+0+1 = 2, / 2 = 1.
  expect_series(eval(d, "rolling_std(close, 3)"), {NaN, NaN, NaN, NaN, NaN, 1});
  expect_series(eval(d, "zscore(close, 3)"), {NaN, NaN, NaN, NaN, NaN, 1});
  expect_series(eval(d, "lag(close, 1)"), {NaN, 1, 2, NaN, 4, 5});
  expect_series(eval(d, "roc(close, 1)"), {NaN, 1, NaN, NaN, 0.25, 0.2});
}

TEST(ReferenceOps, ZscoreOfAConstantWindowIsNaN) {
  const BarData d = close_only({3, 3, 3, 4});
  expect_series(eval(d, "rolling_std(close, 3)"), {NaN, NaN, 0, std::sqrt(1.0 / 3)}, 1e-15);
  expect_series(eval(d, "zscore(close, 3)"), {NaN, NaN, NaN, (4 - 10.0 / 3) / std::sqrt(1.0 / 3)}, 1e-15);
}

TEST(ReferenceOps, EmaIsSeededWithTheFirstValueAndSkipsNaN) {
  // span 3: alpha = 0.5. e = 1; 0.5*2+0.5*1 = 1.5; 0.5*4+0.5*1.5 = 2.75;
  // 0.5*7+0.5*2.75 = 4.875; 0.5*11+0.5*4.875 = 7.9375.
  expect_series(eval(close_only(x5), "ema(close, 3)"), {1, 1.5, 2.75, 4.875, 7.9375});
  // Leading NaN: seeded at the first value. A NaN after the seed: NaN out, state kept.
  expect_series(eval(close_only({NaN, 2, 4, NaN, 6}), "ema(close, 3)"), {NaN, 2, 3, NaN, 4.5});
  // span 1: alpha = 1, the series itself.
  expect_series(eval(close_only(x5), "ema(close, 1)"), x5);
}

TEST(ReferenceOps, RsiUsesWilderSmoothing) {
  // diffs 2, -1, 2, 0. Seed at bar 2: avg gain (2+0)/2 = 1, avg loss (0+1)/2 = 0.5, rs 2,
  // rsi 100 - 100/3. Bar 3: gain (1*1+2)/2 = 1.5, loss (0.5*1+0)/2 = 0.25, rs 6, 100-100/7.
  // Bar 4: gain 0.75, loss 0.125, rs 6.
  expect_series(eval(close_only({1, 3, 2, 4, 4}), "rsi(close, 2)"),
                {NaN, NaN, 100 - 100.0 / 3, 100 - 100.0 / 7, 100 - 100.0 / 7}, 1e-12);
  expect_series(eval(close_only({1, 2, 3}), "rsi(close, 2)"), {NaN, NaN, 100});  // no losses
  expect_series(eval(close_only({5, 5, 5}), "rsi(close, 2)"), {NaN, NaN, 50});   // flat
  // A NaN before the seed restarts it: diffs NaN(b1), NaN(b2), 1 (b3), 1 (b4) -> seed at b4.
  expect_series(eval(close_only({1, NaN, 2, 3, 4}), "rsi(close, 2)"), {NaN, NaN, NaN, NaN, 100});
  // After the seed a NaN diff gives NaN and keeps the averages: diffs 1, 1, NaN, NaN, -2.
  // Seed b2: gain 1, loss 0. b5: gain (1+0)/2 = 0.5, loss (0+2)/2 = 1, rs 0.5, rsi 100-100/1.5.
  expect_series(eval(close_only({1, 2, 3, NaN, 5, 3}), "rsi(close, 2)"),
                {NaN, NaN, 100, NaN, NaN, 100 - 100 / 1.5}, 1e-12);
}

TEST(ReferenceOps, AtrUsesTrueRangeAndWilderSmoothing) {
  // TR1 = max(12-9, |12-9|, |9-9|) = 3; TR2 = max(11-9, |11-11|, |9-11|) = 2;
  // TR3 = max(14-10, |14-10|, |10-10|) = 4. Seed (3+2)/2 = 2.5; then (2.5*1+4)/2 = 3.25.
  const BarData d = make_bars({"AAA"}, {{"high", {{10, 12, 11, 14}}},
                                        {"low", {{8, 9, 9, 10}}},
                                        {"close", {{9, 11, 10, 12}}}});
  expect_series(eval(d, "atr(2)"), {NaN, NaN, 2.5, 3.25});
  expect_series(eval(d, "atr(1)"), {NaN, 3, 2, 4});
}

TEST(ReferenceOps, CrossAboveAndBelow) {
  const BarData d = make_bars({"AAA"}, {{"open", {{2, 2, 2, 2, 2}}}, {"close", {{1, 2, 3, 2, 3}}}});
  expect_series(eval(d, "cross_above(close, open)"), {0, 0, 1, 0, 1});
  // Below: 1 < 2 at bar 0 with no previous bar -> unknown; equal is not below.
  expect_series(eval(d, "cross_below(close, open)"), {NaN, 0, 0, 0, 0});
  expect_series(eval(close_only({3, 1, 3, 1}), "cross_below(close, 2)"), {0, 1, 0, 1});
  expect_series(eval(d, "cross_above(close, 2)"), {0, 0, 1, 0, 1});
  // The first bar has no previous bar: true now and unknown before -> unknown.
  expect_series(eval(close_only({3, 1, 3}), "cross_above(close, 2)"), {NaN, 0, 1});
  expect_series(eval(close_only({3, 1, 3}), "cross_below(close, 2)"), {0, 1, 0});
}

TEST(ReferenceOps, WindowsFromParams) {
  const BarData d = close_only(x5);
  const std::vector<ParamSpec> params{param("w", {2, 3})};
  expect_series(eval(d, "sma(close, w)", params, {2}), {NaN, 1.5, 3, 5.5, 9});
  expect_series(eval(d, "sma(close, w)", params, {3}), {NaN, NaN, 7.0 / 3, 13.0 / 3, 22.0 / 3});
  expect_series(eval(d, "close * w", params, {3}), {3, 6, 12, 21, 33});
}

TEST(ReferenceOps, DerivedSeriesWork) {
  // zscore over close - sma(close, 2): close-sma = [NaN, 0.5, 1, 1.5, 2];
  // window 2 over it: [1,1.5]->(1.5-1.25)/sqrt(0.125) ...
  const BarData d = close_only(x5);
  const double s = std::sqrt(0.125);  // std of any two values 0.5 apart
  expect_series(eval(d, "zscore(close - sma(close, 2), 2)"), {NaN, NaN, 0.25 / s, 0.25 / s, 0.25 / s}, 1e-15);
  expect_series(eval(d, "sma(sma(close, 2), 2)"), {NaN, NaN, 2.25, 4.25, 7.25});
}

TEST(ReferenceOps, SymbolReadsAnotherSymbolsSeries) {
  const BarData d = make_bars({"AAA", "BBB"}, {{"close", {{1, 2, 3}, {10, 20, 30}}}});
  // Symbol-major: AAA's three bars, then BBB's.
  expect_series(eval(d, "close@BBB - close"), {9, 18, 27, 0, 0, 0});
  expect_series(eval(d, "close@AAA"), {1, 2, 3, 1, 2, 3});
}
