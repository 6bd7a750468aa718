// The single-pass metrics against closed forms on constructed equity paths and trades.

#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics_accumulator.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <vector>

namespace kbt {
namespace {

double m(const MetricRow& row, Metric metric) { return row[static_cast<int>(metric)]; }

void expect_close(double actual, double expected) {
  EXPECT_NEAR(actual, expected, 1e-12 * std::fmax(1.0, std::fabs(expected)));
}

MetricRow run_path(double initial, double ppy, const std::vector<double>& equity) {
  MetricsAccumulator acc(initial);
  for (double e : equity) acc.add_bar(e, true);
  return acc.finish_row({initial, ppy});
}

TEST(Metrics, FlatEquityHasNaNRatios) {
  const MetricRow r = run_path(100, 365, {100, 100, 100, 100});
  EXPECT_EQ(m(r, Metric::total_return), 0);
  EXPECT_EQ(m(r, Metric::cagr), 0);
  EXPECT_EQ(m(r, Metric::ann_volatility), 0);
  EXPECT_TRUE(std::isnan(m(r, Metric::sharpe)));
  EXPECT_TRUE(std::isnan(m(r, Metric::sortino)));
  EXPECT_TRUE(std::isnan(m(r, Metric::calmar)));
  EXPECT_EQ(m(r, Metric::max_drawdown), 0);
  EXPECT_EQ(m(r, Metric::max_drawdown_duration), 0);
  EXPECT_EQ(m(r, Metric::ulcer_index), 0);
  EXPECT_EQ(m(r, Metric::final_equity), 100);
}

TEST(Metrics, ConstantReturnHasZeroStdAndCompoundedTotal) {
  // Doubling every bar (r = 1 exactly) for n = 5 bars: total (1+r)^n - 1 = 31;
  // with 10 periods a year, cagr = 32^(10/5) - 1 = 1023; std 0 -> sharpe NaN.
  const MetricRow r = run_path(1, 10, {2, 4, 8, 16, 32});
  EXPECT_EQ(m(r, Metric::total_return), 31);
  expect_close(m(r, Metric::cagr), 1023);
  EXPECT_EQ(m(r, Metric::ann_volatility), 0);
  EXPECT_TRUE(std::isnan(m(r, Metric::sharpe)));
  EXPECT_TRUE(std::isnan(m(r, Metric::sortino)));  // no downside
  EXPECT_EQ(m(r, Metric::max_drawdown), 0);
}

TEST(Metrics, AlternatingReturnsClosedForm) {
  // Returns +0.2, -0.1, +0.2, -0.1 from 100: equity 120, 108, 129.6, 116.64.
  // mean 0.05; deviations +-0.15 -> sample var 4*0.0225/3 = 0.03, std sqrt(0.03).
  // ppy 4: ann vol 2*sqrt(0.03); sharpe 0.05/sqrt(0.03)*2.
  // downside dev sqrt((0.01 + 0.01)/4) = sqrt(0.005): sortino 0.05/sqrt(0.005)*2.
  // Drawdowns 0, -0.1, 0, -0.1: max -0.1, longest stretch 1 bar, ulcer sqrt(0.02/4).
  // total 0.1664 over 4 bars = 1 year: cagr 0.1664, calmar 1.664.
  const MetricRow r = run_path(100, 4, {120, 108, 129.6, 116.64});
  expect_close(m(r, Metric::total_return), 0.1664);
  expect_close(m(r, Metric::cagr), 0.1664);
  expect_close(m(r, Metric::ann_volatility), 2 * std::sqrt(0.03));
  expect_close(m(r, Metric::sharpe), 0.05 / std::sqrt(0.03) * 2);
  expect_close(m(r, Metric::sortino), 0.05 / std::sqrt(0.005) * 2);
  expect_close(m(r, Metric::max_drawdown), -0.1);
  EXPECT_EQ(m(r, Metric::max_drawdown_duration), 1);
  expect_close(m(r, Metric::ulcer_index), std::sqrt(0.005));
  expect_close(m(r, Metric::calmar), 1.664);
  EXPECT_EQ(m(r, Metric::exposure), 1);
}

TEST(Metrics, KnownDrawdownPath) {
  // From 100: 90, 80, 85, 100, 95. Peak stays 100 (recovered at bar 3, equal counts
  // as recovered). Drawdowns -0.1 -0.2 -0.15 0 -0.05: max -0.2; under water for
  // bars 0..2 (3 bars) then bar 4 (1): duration 3; ulcer sqrt(0.075/5).
  const MetricRow r = run_path(100, 252, {90, 80, 85, 100, 95});
  expect_close(m(r, Metric::max_drawdown), -0.2);
  EXPECT_EQ(m(r, Metric::max_drawdown_duration), 3);
  expect_close(m(r, Metric::ulcer_index), std::sqrt(0.015));
  expect_close(m(r, Metric::total_return), -0.05);
  // cagr 0.95^(252/5) - 1; calmar = cagr / 0.2.
  const double cagr = std::pow(0.95, 252.0 / 5) - 1;
  expect_close(m(r, Metric::cagr), cagr);
  expect_close(m(r, Metric::calmar), cagr / 0.2);
}

TEST(Metrics, UnrecoveredDrawdownCountsToTheEnd) {
  const MetricRow r = run_path(100, 252, {110, 100, 90, 95});
  EXPECT_EQ(m(r, Metric::max_drawdown_duration), 3);
  expect_close(m(r, Metric::max_drawdown), 90.0 / 110 - 1);
}

TEST(Metrics, RuinedAccountHasCagrMinusOne) {
  const MetricRow r = run_path(100, 252, {50, -10});
  EXPECT_EQ(m(r, Metric::cagr), -1);
  EXPECT_EQ(m(r, Metric::total_return), -1.1);
}

TEST(Metrics, TradeStatistics) {
  // Returns 0.1, -0.05, 0.2, -0.15 with durations 1, 2, 3, 4.
  MetricsAccumulator acc(100);
  acc.add_trade(0.1, 1);
  acc.add_trade(-0.05, 2);
  acc.add_trade(0.2, 3);
  acc.add_trade(-0.15, 4);
  acc.add_bar(100, false);
  const MetricRow r = acc.finish_row({100, 252});
  EXPECT_EQ(m(r, Metric::n_trades), 4);
  EXPECT_EQ(m(r, Metric::win_rate), 0.5);
  expect_close(m(r, Metric::profit_factor), 0.3 / 0.2);
  expect_close(m(r, Metric::avg_trade_return), 0.025);
  EXPECT_EQ(m(r, Metric::best_trade), 0.2);
  EXPECT_EQ(m(r, Metric::worst_trade), -0.15);
  EXPECT_EQ(m(r, Metric::avg_trade_duration), 2.5);
  EXPECT_EQ(m(r, Metric::exposure), 0);
}

TEST(Metrics, NoTradesAndNoLossesAreNaN) {
  MetricsAccumulator none(100);
  none.add_bar(100, false);
  MetricRow r = none.finish_row({100, 252});
  EXPECT_EQ(m(r, Metric::n_trades), 0);
  for (Metric x : {Metric::win_rate, Metric::profit_factor, Metric::avg_trade_return,
                   Metric::best_trade, Metric::worst_trade, Metric::avg_trade_duration})
    EXPECT_TRUE(std::isnan(m(r, x))) << metric_names()[static_cast<int>(x)];
  // One bar: no sample standard deviation.
  EXPECT_TRUE(std::isnan(m(r, Metric::ann_volatility)));
  EXPECT_TRUE(std::isnan(m(r, Metric::sharpe)));

  MetricsAccumulator winners(100);
  winners.add_trade(0.1, 1);
  winners.add_trade(0.0, 1);  // a flat trade is neither a win nor a loss
  winners.add_bar(110, true);
  r = winners.finish_row({100, 252});
  EXPECT_TRUE(std::isnan(m(r, Metric::profit_factor)));
  EXPECT_EQ(m(r, Metric::win_rate), 0.5);
}

TEST(Metrics, CostsAndTurnover) {
  // Fills of notional 1000 (fee 1) and 500 (fee 0.5); mean equity (1000 + 1000) / 2.
  MetricsAccumulator acc(1000);
  acc.add_fill(1000, 1);
  acc.add_fill(500, 0.5);
  acc.add_funding(2);
  acc.add_funding(-0.5);
  acc.add_bar(1000, true);
  acc.add_bar(1000, false);
  const MetricRow r = acc.finish_row({1000, 252});
  EXPECT_EQ(m(r, Metric::turnover), 1.5);
  EXPECT_EQ(m(r, Metric::fees_paid), 1.5);
  EXPECT_EQ(m(r, Metric::funding_paid), 1.5);
  EXPECT_EQ(m(r, Metric::exposure), 0.5);
}

TEST(Metrics, WritesEveryMetricInOrder) {
  // finish() must fill all 21 slots: poison the buffer first.
  MetricsAccumulator acc(100);
  acc.add_bar(101, true);
  acc.add_bar(102, true);
  acc.add_trade(0.02, 2);
  double out[n_metrics];
  for (double& x : out) x = 12345.678;
  acc.finish(out, {100, 252});
  for (std::size_t i = 0; i < n_metrics; ++i) EXPECT_NE(out[i], 12345.678) << metric_names()[i];
  EXPECT_EQ(out[static_cast<int>(Metric::final_equity)], 102);
}

TEST(Metrics, ASetKeepsOnlyItsGroupsState) {
  // Every set: the previous equity and two int counters (bars, trades);
  // returns adds, in fp64, the running mean and m2 with their compensations
  // and the open block's two sums, in fp32 Welford's mean and m2 (docs/metrics.md
  // "Moments in blocks"), and the downside sum; drawdown three sums and two
  // int runs. The several-window pass copies a set's accumulator per window
  // and block, so a field the set does not update must not exist.
  EXPECT_EQ(sizeof(BasicMetricsAccumulator<double, 0>), sizeof(double) + 2 * sizeof(int));
  EXPECT_EQ(sizeof(BasicMetricsAccumulator<double, metric_group::returns>), 8 * sizeof(double) + 2 * sizeof(int));
  EXPECT_EQ(sizeof(BasicMetricsAccumulator<double, metric_group::returns | metric_group::drawdown>),
            11 * sizeof(double) + 4 * sizeof(int));
  EXPECT_EQ(sizeof(BasicMetricsAccumulator<float, metric_group::returns>), 4 * sizeof(float) + 2 * sizeof(int));
  EXPECT_LT(sizeof(BasicMetricsAccumulator<double, metric_group::returns | metric_group::drawdown>),
            sizeof(MetricsAccumulator));
}

// fp32 keeps Welford's update (two floats of state where fp64's blocks keep
// six): its moments are those of the update written out here, bit for bit.
TEST(Metrics, Fp32ReturnsFollowWelfordsUpdate) {
  const float equity[] = {100.0f, 101.5f, 99.25f, 102.0f, 102.0f, 98.75f, 103.5f};
  BasicMetricsAccumulator<float, metric_group::returns> acc(100.0f);
  float mean = 0, m2 = 0, prev = 100.0f;
  int n = 0;
  for (float e : equity) {
    acc.add_bar(e, true);
    const float r = e / prev - 1.0f;
    prev = e;
    n += 1;
    const float delta = r - mean;
    mean += delta / float(n);
    m2 += delta * (r - mean);
  }
  float out[n_metrics];
  acc.finish(out, {100.0f, 1.0f});
  const float sd = std::sqrt(m2 / float(n - 1));
  ASSERT_GT(sd, 0.0f);
  EXPECT_EQ(out[int(Metric::ann_volatility)], sd);
  EXPECT_EQ(out[int(Metric::sharpe)], mean / sd);
}

TEST(Metrics, ASetWritesNaNOutsideItsGroups) {
  BasicMetricsAccumulator<double, metric_group::returns> acc(100);
  acc.add_bar(101, true);
  acc.add_bar(99, false);
  acc.add_trade(0.02, 2);
  acc.add_fill(100, 1);
  double out[n_metrics];
  for (double& x : out) x = 12345.678;
  acc.finish(out, {100, 252});
  const MetricMask kept = metrics_of_groups(metric_group::returns);
  for (std::size_t i = 0; i < n_metrics; ++i) {
    if ((kept >> i) & 1u) {
      EXPECT_FALSE(std::isnan(out[i])) << metric_names()[i];
    } else {
      EXPECT_TRUE(std::isnan(out[i])) << metric_names()[i];
    }
  }
  EXPECT_EQ(out[static_cast<int>(Metric::n_trades)], 1);
}

}  // namespace
}  // namespace kbt
