// The validation stage (docs/validation.md) against independent computations:
// the holdout's train window equals a sweep with simulation.score_end there,
// each candidate's held-out metrics equal a one-combo backtest on the test
// window, its period returns equal daily returns grouped here from the
// backtest's equity, the correlation matrix equals a plain Pearson
// correlation, and the per-candidate statistics follow from the period
// returns through the documented formulas.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/validation/correlation.hpp>
#include <kbt/validation/sharpe_statistics.hpp>
#include <kbt/validation/validation.hpp>

#include <cmath>
#include <cstring>

#include <kbt/config/param_grid.hpp>
#include <kbt/metrics/metric_set.hpp>
#include <kbt/output/result_rows.hpp>

#include <map>
#include <random>

#include "support/brute_force_pbo.hpp"
#include "support/synthetic.hpp"

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string yaml(const std::string& validation) {
  return "data: unused.h5\nstrategy:\n  params:\n    fast: {range: [4, 20, 4]}\n    slow: {range: [30, 90, 15]}\n"
         "  signals:\n    f: sma(close, fast)\n    s: sma(close, slow)\n  position: where(f > s, 1, -1)\n"
         "simulation: {fee_bps: 3}\nsweep: {objective: {metric: sharpe, min_trades: 3}, top_k: 10}\n" +
         validation;
}

// Hourly bars over 125 days.
kbt::BarData hourly_bars() { return kbt::test::synthetic_bars(1, 3000, 21); }

kbt::SweepOutcome sweep(const kbt::RunConfig& config, const kbt::BarData& bars) {
  kbt::SweepRequest request;
  request.device = "reference";
  request.quiet = true;
  request.best_rows = static_cast<std::size_t>(config.validation.top_k);
  return kbt::run_sweep(config, bars, request);
}

// The daily returns of one combo on the train window (bars [0, train_end)),
// from its backtest's equity grouped by UTC day here.
std::vector<double> daily_returns(const kbt::RunConfig& config, const kbt::BarData& bars,
                                  const std::map<std::string, double>& params, std::size_t train_end) {
  kbt::RunConfig train = config;
  train.validation = {};
  train.simulation.score_end_bar = static_cast<std::int64_t>(train_end);
  kbt::SimulationOptions keep;
  keep.keep_equity = true;
  const auto in = kbt::run_backtest(train, bars, params, keep);
  std::vector<double> daily;
  double previous = 10000.0;
  for (std::size_t t = 0; t < in.equity.size(); ++t) {
    const std::int64_t day = bars.timestamps[t] / 86400000000000LL;
    if (t + 1 == in.equity.size() || bars.timestamps[t + 1] / 86400000000000LL != day) {
      daily.push_back(in.equity[t] / previous - 1.0);
      previous = in.equity[t];
    }
  }
  return daily;
}

}  // namespace

TEST(ValidationHoldout, SplitsTheScoringWindowThreeWays) {
  const kbt::BarData bars = hourly_bars();
  const auto split = [&](const std::string& holdout) {
    return kbt::resolve_holdout(kbt::parse_run_config(yaml("validation: {holdout: " + holdout + "}\n"), "v.yaml", ""), bars);
  };
  EXPECT_EQ(split("0.25")->test, (kbt::ScoringWindow{2250, 3000}));  // floor(0.25 x 3000) bars held out
  EXPECT_EQ(split("0.25")->train, (kbt::ScoringWindow{0, 2250}));
  EXPECT_EQ(split("500")->test.begin, 2500u);
  EXPECT_EQ(split("'" + kbt::format_iso8601_utc(bars.timestamps[1234]) + "'")->test.begin, 1234u);
  EXPECT_FALSE(kbt::resolve_holdout(kbt::parse_run_config(yaml(""), "v.yaml", ""), bars).has_value());
  try {
    split("3000");
    FAIL() << "no error";
  } catch (const kbt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("v.yaml:12:23: validation.holdout:"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("leaves no train bar"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kbt::parse_run_config(yaml("validation: {holdout: 1.5}\n"), "v.yaml", ""), kbt::Error);
  EXPECT_THROW(kbt::parse_run_config(yaml("validation: {pbo_blocks: 7}\n"), "v.yaml", ""), kbt::Error);
}

TEST(ValidationHoldout, TheSweepRanksOnTheTrainWindow) {
  const kbt::BarData bars = hourly_bars();
  const kbt::RunConfig held = kbt::parse_run_config(yaml("validation: {holdout: 0.25, top_k: 6}\n"), "v.yaml", "");
  kbt::RunConfig cut = kbt::parse_run_config(yaml(""), "v.yaml", "");
  cut.simulation.score_end_bar = 2250;
  const auto a = kbt::read_all_rows(*sweep(held, bars).results.rows), b = kbt::read_all_rows(*sweep(cut, bars).results.rows);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  ASSERT_GT(a.size(), 10u);
  for (std::size_t i = 0; i < a.metrics.size(); ++i) ASSERT_TRUE(same_bits(a.metrics[i], b.metrics[i])) << i;
}

TEST(ValidationStage, HeldOutMetricsAndPeriodReturnsEqualBacktests) {
  const kbt::BarData bars = hourly_bars();
  const kbt::RunConfig config =
      kbt::parse_run_config(yaml("validation: {holdout: 0.25, top_k: 6, period: day, pbo_blocks: 4}\n"), "v.yaml", "");
  const kbt::SweepOutcome run = sweep(config, bars);
  const kbt::ValidationResults v = kbt::run_validation(config, bars, run.results, "reference", 2);
  ASSERT_EQ(v.n(), 6u);
  ASSERT_TRUE(v.test.has_value());
  const std::size_t k = v.n(), p = v.n_periods();
  EXPECT_EQ(p, 94u);  // hourly bars 0 .. 2249 from midnight: 93 whole days and 18 hours
  for (std::size_t j = 0; j < k; ++j) {
    const std::map<std::string, double> params{{"fast", v.params[2 * j]}, {"slow", v.params[2 * j + 1]}};
    // Held out: a backtest scoring from the test window's first bar.
    kbt::RunConfig test = config;
    test.validation = {};
    test.simulation.score_start_bar = static_cast<std::int64_t>(v.test->begin);
    const auto out = kbt::run_backtest(test, bars, params);
    for (std::size_t m = 0; m < kbt::n_metrics; ++m)
      ASSERT_TRUE(same_bits(out.metrics[m], v.test_metrics[j * kbt::n_metrics + m])) << j << " " << kbt::metric_names()[m];
    // In sample: the train window's equity, grouped by UTC day here.
    const std::vector<double> daily = daily_returns(config, bars, params, v.train.end);
    ASSERT_EQ(daily.size(), p);
    for (std::size_t t = 0; t < p; ++t) ASSERT_TRUE(same_bits(daily[t], v.period_returns[t * k + j])) << t;
    // The statistics from the returns, by the formulas of sharpe_statistics.hpp.
    const kbt::stats::Moments mo = kbt::stats::moments(daily.data(), daily.size());
    EXPECT_DOUBLE_EQ(v.sharpe[j], mo.sharpe());
    EXPECT_DOUBLE_EQ(v.psr[j], kbt::stats::probabilistic_sharpe(mo.sharpe(), 0, double(p), mo.skewness, mo.kurtosis));
    EXPECT_DOUBLE_EQ(v.dsr[j],
                     kbt::stats::probabilistic_sharpe(mo.sharpe(), v.expected_max_sharpe, double(p), mo.skewness, mo.kurtosis));
  }
  EXPECT_DOUBLE_EQ(v.expected_max_sharpe, kbt::stats::expected_max_sharpe(v.effective_trials, v.sharpe_variance));
  EXPECT_EQ(v.sharpe_variance_from, "every combo");
  ASSERT_TRUE(v.pbo.has_value());
  EXPECT_EQ(v.pbo->splits, 6u);  // C(4, 2)
  // Out-of-sample ranks: a permutation of the eligible candidates.
  std::vector<std::uint64_t> seen;
  for (const auto r : v.rank_out_of_sample)
    if (r > 0) seen.push_back(r);
  std::sort(seen.begin(), seen.end());
  for (std::size_t i = 0; i < seen.size(); ++i) EXPECT_EQ(seen[i], i + 1);
}

TEST(ValidationStage, CorrelationEqualsAPlainPearsonComputation) {
  std::mt19937_64 rng(4);
  std::normal_distribution<double> d(0, 1);
  const std::size_t p = 50, k = 5;
  std::vector<double> r(p * k);
  for (std::size_t t = 0; t < p; ++t) {
    const double common = d(rng);
    for (std::size_t j = 0; j < k; ++j) r[t * k + j] = 0.5 * common + d(rng) * (1 + j * 0.1);
  }
  for (std::size_t t = 0; t < p; ++t) r[t * k + 4] = 0.01;  // a constant candidate: a zero row and column
  const kbt::CorrelationSummary c = kbt::correlation_of(r, p, k, "reference");
  double off = 0, trace = 0, frob = 0;
  for (std::size_t a = 0; a < k; ++a)
    for (std::size_t b = 0; b < k; ++b) {
      double ma = 0, mb = 0;
      for (std::size_t t = 0; t < p; ++t) ma += r[t * k + a], mb += r[t * k + b];
      ma /= p, mb /= p;
      double sab = 0, saa = 0, sbb = 0;
      for (std::size_t t = 0; t < p; ++t) {
        sab += (r[t * k + a] - ma) * (r[t * k + b] - mb);
        saa += (r[t * k + a] - ma) * (r[t * k + a] - ma);
        sbb += (r[t * k + b] - mb) * (r[t * k + b] - mb);
      }
      const double pearson = saa > 0 && sbb > 0 ? sab / std::sqrt(saa * sbb) : 0.0;
      EXPECT_NEAR(c.matrix[a * k + b], pearson, 1e-12) << a << " " << b;
      frob += pearson * pearson;
      if (a == b) trace += pearson;
      else off += pearson;
    }
  EXPECT_NEAR(c.mean_off_diagonal, off / double(k * (k - 1)), 1e-12);
  EXPECT_NEAR(c.effective_rank, trace * trace / frob, 1e-12);
  EXPECT_GT(c.mean_off_diagonal, 0.05) << "vacuous: the common factor makes them correlated";
}

// docs/validation.md "PBO": CSCV ranks every configuration of the sweep (each
// one's daily returns from its own backtest here, PBO by the definition), and
// past validation.pbo_configs a uniform sample of the rows (sample_positions,
// seed 1), not the best rows.
TEST(ValidationStage, PboRanksEveryConfigurationOrAUniformSampleOfThem) {
  const kbt::BarData bars = hourly_bars();
  for (const std::int64_t limit : {10000, 7}) {
    SCOPED_TRACE("pbo_configs " + std::to_string(limit));
    const kbt::RunConfig config = kbt::parse_run_config(
        yaml("validation: {holdout: 0.25, top_k: 3, period: day, pbo_blocks: 4, pbo_configs: " + std::to_string(limit) + "}\n"),
        "v.yaml", "");
    const kbt::SweepOutcome run = sweep(config, bars);
    const kbt::ValidationResults v = kbt::run_validation(config, bars, run.results, "reference", 2);
    const kbt::RowTable rows = kbt::read_all_rows(*run.results.rows);
    const std::size_t n = rows.size();
    ASSERT_EQ(n, 25u);
    const std::vector<std::uint64_t> ranked =
        limit >= 25 ? kbt::sample_positions(n, n, 0) : kbt::sample_positions(n, static_cast<std::uint64_t>(limit), 1);
    ASSERT_EQ(v.pbo_configurations, ranked.size());
    EXPECT_EQ(v.pbo_sample_seed, limit >= 25 ? 0u : 1u);
    ASSERT_TRUE(v.pbo.has_value()) << v.pbo_skipped;
    EXPECT_EQ(v.pbo->candidates, ranked.size());
    const std::size_t p = v.n_periods(), c = ranked.size();
    std::vector<double> m(p * c);
    for (std::size_t j = 0; j < c; ++j) {
      const double* values = rows.params_of(static_cast<std::size_t>(ranked[j]));
      const auto daily = daily_returns(config, bars, {{"fast", values[0]}, {"slow", values[1]}}, v.train.end);
      ASSERT_EQ(daily.size(), p);
      for (std::size_t t = 0; t < p; ++t) m[t * c + j] = daily[t];
    }
    EXPECT_DOUBLE_EQ(v.pbo->pbo, kbt::test::brute_force_pbo(m, p, c, 4));
    EXPECT_NE(kbt::format_validation_summary(v).find(limit >= 25 ? "of all 25 combos" : "a uniform sample of 7 of 25 combos"),
              std::string::npos)
        << kbt::format_validation_summary(v);
  }
}

// docs/validation.md "The number of trials and their variance": with
// validation on, the sweep accumulates every combo's Sharpe whatever the
// objective, so V comes from every combo: the same bits with a total_return
// objective as with a Sharpe objective, and the sample variance of the rows'
// Sharpe ratios (two-pass, here) over the periods per year.
TEST(ValidationStage, TheTrialsSharpeVarianceCountsEveryComboWhateverTheObjective) {
  const kbt::BarData bars = hourly_bars();
  std::string text = yaml("validation: {holdout: 0.25, top_k: 4, period: day, pbo_blocks: 4}\n");
  const kbt::RunConfig by_sharpe = kbt::parse_run_config(text, "v.yaml", "");
  text.replace(text.find("metric: sharpe"), 14, "metric: total_return");
  const kbt::RunConfig by_return = kbt::parse_run_config(text, "v.yaml", "");
  const kbt::SweepOutcome a = sweep(by_sharpe, bars), b = sweep(by_return, bars);
  ASSERT_TRUE(kbt::has_metric(b.results.rows->metric_mask(), int(kbt::Metric::sharpe)));
  const kbt::ValidationResults va = kbt::run_validation(by_sharpe, bars, a.results, "reference", 2);
  const kbt::ValidationResults vb = kbt::run_validation(by_return, bars, b.results, "reference", 2);
  EXPECT_EQ(vb.sharpe_variance_from, "every combo");
  EXPECT_TRUE(same_bits(va.sharpe_variance, vb.sharpe_variance));
  const kbt::RowTable rows = kbt::read_all_rows(*b.results.rows);
  std::vector<double> s;
  for (std::size_t r = 0; r < rows.size(); ++r) s.push_back(rows.metrics_of(r)[int(kbt::Metric::sharpe)]);
  double mean = 0, ss = 0;
  for (const double x : s) mean += x;
  mean /= double(s.size());
  for (const double x : s) ss += (x - mean) * (x - mean);
  const double expected = ss / double(s.size() - 1) / vb.periods_per_year;
  EXPECT_NEAR(vb.sharpe_variance, expected, 1e-12 * expected);
  EXPECT_GT(expected, 0);
}
