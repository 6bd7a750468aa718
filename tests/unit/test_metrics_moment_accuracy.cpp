// The return moments' accuracy (docs/metrics.md "Moments in blocks"): on
// adversarial return series, the accumulator's Sharpe, volatility and Sortino
// against an exact computation in binary128 (two passes), side by side with
// Welford's running update (the accumulator's former rule, written out here
// as the baseline). The accumulator's error must be no larger than Welford's
// on each series and metric; both are printed.

#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics_accumulator.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <random>
#include <string>
#include <vector>

namespace kbt {
namespace {

#if defined(__SIZEOF_FLOAT128__)

struct Ratios {  // ppy = 1: the annualisation factor is exactly 1
  long double volatility, sharpe, sortino;
};

// The returns the accumulator sees for an equity path: E_k / E_(k-1) - 1 in
// double, the same IEEE operations as add_bar.
std::vector<double> returns_of(const std::vector<double>& equity, double initial) {
  std::vector<double> r(equity.size());
  double prev = initial;
  for (std::size_t k = 0; k < equity.size(); ++k) {
    r[k] = equity[k] / prev - 1.0;
    prev = equity[k];
  }
  return r;
}

// Exact to far below double's rounding: binary128 sums, the mean first, then
// the squared deviations about it.
Ratios exact_ratios(const std::vector<double>& r) {
  const __float128 n = __float128(r.size());
  __float128 sum = 0, down = 0;
  for (double x : r) {
    sum += x;
    if (x < 0) down += __float128(x) * __float128(x);
  }
  const __float128 mean = sum / n;
  __float128 m2 = 0;
  for (double x : r) {
    const __float128 d = __float128(x) - mean;
    m2 += d * d;
  }
  const long double std_dev = std::sqrt(static_cast<long double>(m2 / (n - 1)));
  const long double down_dev = std::sqrt(static_cast<long double>(down / n));
  const long double mean_ld = static_cast<long double>(mean);
  return {std_dev, mean_ld / std_dev, mean_ld / down_dev};
}

// Welford's update as the accumulator did it before blocks, with the same
// finishing formulas (docs/metrics.md "Formulas").
Ratios welford_ratios(const std::vector<double>& r) {
  double mean = 0, m2 = 0, down = 0;
  int n = 0;
  for (double x : r) {
    n += 1;
    const double delta = x - mean;
    mean += delta / double(n);
    m2 += delta * (x - mean);
    const double d = x < 0 ? x : 0;
    down += d * d;
  }
  const double std_dev = std::sqrt(m2 / double(n - 1));
  return {std_dev, mean / std_dev, mean / std::sqrt(down / double(n))};
}

Ratios accumulator_ratios(const std::vector<double>& equity, double initial) {
  BasicMetricsAccumulator<double, metric_group::returns> acc(initial);
  for (double e : equity) acc.add_bar(e, true);
  const MetricRow row = acc.finish_row({initial, 1.0});
  return {row[int(Metric::ann_volatility)], row[int(Metric::sharpe)], row[int(Metric::sortino)]};
}

long double relative_error(long double value, long double exact) { return std::fabs((value - exact) / exact); }

// Checks one series: prints both errors per metric and expects the
// accumulator's to be no larger than Welford's (one unit of double rounding
// of slack: the final division and square root round in either).
void compare_on(const std::string& name, const std::vector<double>& equity, double initial) {
  const std::vector<double> r = returns_of(equity, initial);
  const Ratios exact = exact_ratios(r);
  const Ratios blocks = accumulator_ratios(equity, initial);
  const Ratios welford = welford_ratios(r);
  const char* metric_names[] = {"volatility", "sharpe", "sortino"};
  const long double exacts[] = {exact.volatility, exact.sharpe, exact.sortino};
  const long double ours[] = {blocks.volatility, blocks.sharpe, blocks.sortino};
  const long double theirs[] = {welford.volatility, welford.sharpe, welford.sortino};
  const long double ulp = 0x1p-53L;
  for (int i = 0; i < 3; ++i) {
    ASSERT_TRUE(std::isfinite(exacts[i]) && exacts[i] != 0) << name << " " << metric_names[i] << ": vacuous case";
    const long double e_ours = relative_error(ours[i], exacts[i]);
    const long double e_welford = relative_error(theirs[i], exacts[i]);
    std::printf("%-32s %-10s  blocks %.3Le   welford %.3Le\n", name.c_str(), metric_names[i], e_ours, e_welford);
    EXPECT_LE(e_ours, e_welford + ulp) << name << " " << metric_names[i];
  }
}

// Equity whose returns are `r` (to the rounding of the multiplications).
std::vector<double> equity_of(const std::vector<double>& returns, double initial) {
  std::vector<double> equity(returns.size());
  double e = initial;
  for (std::size_t k = 0; k < returns.size(); ++k) equity[k] = e = e * (1.0 + returns[k]);
  return equity;
}

TEST(MomentAccuracy, LargeConstantMeanWithTinyVariance) {
  // Mean 5e-5 a bar (equity stays finite over 10^6 bars), spread 1e-13: the
  // mean is ~10^8 standard deviations from zero.
  std::mt19937_64 gen(7);
  std::normal_distribution<double> noise(0.0, 1e-13);
  std::vector<double> r(1'000'000);
  for (double& x : r) x = 5e-5 + noise(gen);
  // Sortino needs a negative return: one bar at -1e-4 among a million.
  r[123'456] = -1e-4;
  compare_on("constant mean, tiny variance", equity_of(r, 100.0), 100.0);
}

TEST(MomentAccuracy, TenMillionBars) {
  std::mt19937_64 gen(11);
  std::normal_distribution<double> normal(1e-5, 1e-3);
  std::vector<double> r(10'000'000);
  for (double& x : r) x = normal(gen);
  compare_on("10^7 bars, mean 1e-5, sd 1e-3", equity_of(r, 1e6), 1e6);
}

TEST(MomentAccuracy, AlternatingSigns) {
  std::vector<double> r(1'000'000);
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = k % 2 == 0 ? 0.0101 : -0.01;
  compare_on("alternating signs", equity_of(r, 100.0), 100.0);
}

TEST(MomentAccuracy, LongFlatStretches) {
  // 50,000 flat bars (return exactly 0), then 50,000 trading bars, ten times.
  std::mt19937_64 gen(13);
  std::normal_distribution<double> normal(4e-4, 2e-3);
  std::vector<double> r(1'000'000);
  for (std::size_t k = 0; k < r.size(); ++k) r[k] = (k / 50'000) % 2 == 0 ? 0.0 : normal(gen);
  compare_on("long flat stretches", equity_of(r, 100.0), 100.0);
}

#else

TEST(MomentAccuracy, NeedsBinary128) { GTEST_SKIP() << "this compiler has no __float128 for the exact reference"; }

#endif

}  // namespace
}  // namespace kbt
