// PSR, DSR, MinTRL and the expected maximum Sharpe ratio against the worked
// examples of Bailey & López de Prado (the values below are the papers' cases,
// computed independently at full precision), the normal quantile against
// published values, and the sample moments against a hand computation.

#include <gtest/gtest.h>
#include <kbt/validation/sharpe_statistics.hpp>

#include <cmath>
#include <vector>

namespace st = kbt::stats;

TEST(SharpeStatistics, ExpectedMaximumOfOneHundredTrials) {
  // (1 - g) Phi^-1(1 - 1/N) + g Phi^-1(1 - 1/(N e)) at N = 100.
  EXPECT_NEAR(st::expected_max_sharpe(100), 2.5306028932016846, 1e-13);
  EXPECT_NEAR(st::expected_max_sharpe(100, 0.002), 0.113172, 1e-6);  // SR0 of the DSR example below
  EXPECT_EQ(st::expected_max_sharpe(1), 0.0);
}

TEST(SharpeStatistics, DeflatedSharpeOfThePapersExample) {
  // SR 2.5 and V[SR] 0.5 annualised, 250 periods a year, T = 1250, N = 100,
  // skewness -3, kurtosis 10 (non-excess).
  const double sr = 2.5 / std::sqrt(250.0), v = 0.5 / 250.0;
  EXPECT_NEAR(st::deflated_sharpe(sr, 100, v, 1250, -3, 10), 0.9003968344, 1e-9);
}

TEST(SharpeStatistics, ProbabilisticSharpeOfThePapersExample) {
  // Monthly returns: SR 1.585 annualised (/ sqrt 12), T = 24, skew -2.448, kurtosis 10.164.
  EXPECT_NEAR(st::probabilistic_sharpe(1.585 / std::sqrt(12.0), 0, 24, -2.448, 10.164), 0.9132343069, 1e-9);
  EXPECT_TRUE(std::isnan(st::probabilistic_sharpe(0.1, 0, 1, 0, 3)));  // one observation
}

TEST(SharpeStatistics, MinimumTrackRecordLength) {
  // SR 2 against SR* 1 (annualised), normal returns, 95 %, 250 days a year: 2.7311878 years.
  const double days = st::min_track_record_length(2 / std::sqrt(250.0), 1 / std::sqrt(250.0), 0, 3, 0.95);
  EXPECT_NEAR(days / 250.0, 2.7311878, 1e-7);
  EXPECT_TRUE(std::isinf(st::min_track_record_length(0.1, 0.2, 0, 3)));
}

TEST(SharpeStatistics, NormalQuantileAndCdf) {
  // Published percentage points.
  EXPECT_NEAR(st::normal_quantile(0.975), 1.959963984540054, 1e-14);
  EXPECT_NEAR(st::normal_quantile(0.95), 1.6448536269514722, 1e-14);
  EXPECT_NEAR(st::normal_quantile(1e-10), -6.361340902404056, 1e-12);
  EXPECT_NEAR(st::normal_quantile(0.5), 0.0, 1e-16);
  for (const double p : {1e-6, 0.01, 0.3, 0.7, 0.99, 1 - 1e-6}) EXPECT_NEAR(st::normal_cdf(st::normal_quantile(p)), p, 1e-13 + p * 1e-12);
}

TEST(SharpeStatistics, SampleMomentsByHand) {
  // 1, 2, 3, 10: mean 4; deviations -3 -2 -1 6; m2 = 50/4, m3 = (-27-8-1+216)/4 = 45,
  // m4 = (81+16+1+1296)/4 = 348.5.
  const std::vector<double> x{1, 2, 3, 10};
  const st::Moments m = st::moments(x.data(), x.size());
  EXPECT_DOUBLE_EQ(m.mean, 4.0);
  EXPECT_DOUBLE_EQ(m.std_dev, std::sqrt(50.0 / 3.0));
  EXPECT_DOUBLE_EQ(m.skewness, 45.0 / std::pow(12.5, 1.5));
  EXPECT_DOUBLE_EQ(m.kurtosis, 348.5 / (12.5 * 12.5));
}

TEST(SharpeStatistics, EffectiveTrialsFromTheMeanCorrelation) {
  EXPECT_DOUBLE_EQ(st::effective_trials_from_correlation(0.0, 100), 100.0);
  EXPECT_DOUBLE_EQ(st::effective_trials_from_correlation(1.0, 100), 1.0);
  EXPECT_DOUBLE_EQ(st::effective_trials_from_correlation(0.5, 100), 50.5);
}
