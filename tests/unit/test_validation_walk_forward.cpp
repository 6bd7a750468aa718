// Walk-forward (docs/validation.md "Walk-forward"): the folds against a
// hand-made list, each fold's choice and its metrics against separate
// reference runs on its train and test windows (by bits, on every engine), and
// the stitched run against a splice of the choices built here.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/validation/validation.hpp>

#include <cstring>

#include "support/synthetic.hpp"
#include <map>

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

std::string yaml(const std::string& walk_forward) {
  return "data: unused.h5\nstrategy:\n  params:\n    fast: {range: [4, 20, 4]}\n    slow: {range: [30, 90, 15]}\n"
         "  signals:\n    f: sma(close, fast)\n    s: sma(close, slow)\n  position: where(f > s, 1, -1)\n"
         "simulation: {fee_bps: 3}\nsweep: {objective: {metric: sharpe, min_trades: 2}, top_k: 10}\n"
         "validation: {top_k: 4, walk_forward: " + walk_forward + "}\n";
}

kbt::BarData hourly_bars() { return kbt::test::synthetic_bars(1, 3000, 9); }

std::vector<std::pair<std::size_t, std::size_t>> tests_of(const std::vector<kbt::TrainTest>& folds) {
  std::vector<std::pair<std::size_t, std::size_t>> out;
  for (const auto& f : folds) out.emplace_back(f.test.begin, f.test.end);
  return out;
}

}  // namespace

TEST(WalkForward, FoldsByHand) {
  const kbt::BarData bars = hourly_bars();
  const auto folds = [&](const std::string& wf) {
    return kbt::resolve_walk_forward(kbt::parse_run_config(yaml(wf), "wf.yaml", ""), bars);
  };
  // Rolling: train 1000, test 500, step 500 (the default: test).
  auto f = folds("{train: 1000, test: 500}");
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[0].train, (kbt::ScoringWindow{0, 1000}));
  EXPECT_EQ(f[3].train, (kbt::ScoringWindow{1500, 2500}));
  EXPECT_EQ(tests_of(f), (std::vector<std::pair<std::size_t, std::size_t>>{{1000, 1500}, {1500, 2000}, {2000, 2500}, {2500, 3000}}));
  // Anchored, with a purge: the last fold no longer fits.
  f = folds("{train: 1000, test: 500, anchored: true, purge: 10}");
  ASSERT_EQ(f.size(), 3u);
  EXPECT_EQ(f[2].train, (kbt::ScoringWindow{0, 2000}));
  EXPECT_EQ(f[2].test, (kbt::ScoringWindow{2010, 2510}));
  // Spans of time on hourly bars: 40 days = 960 bars, 10 days = 240, step 20 days;
  // a fifth fold's test would end at bar 3120, past the 125 days of data.
  f = folds("{train: 40d, test: 10d, step: 20d}");
  ASSERT_EQ(f.size(), 4u);
  EXPECT_EQ(f[3].test, (kbt::ScoringWindow{2400, 2640}));
  EXPECT_EQ(f[1].train, (kbt::ScoringWindow{480, 1440}));
  EXPECT_EQ(f[1].test, (kbt::ScoringWindow{1440, 1680}));
  // The embargo: a train window does not start right after an earlier test window.
  f = folds("{train: 500, test: 500, step: 1000, embargo: 100}");
  ASSERT_GE(f.size(), 2u);
  EXPECT_EQ(f[1].train.begin, 1100u);  // it would start at 1000, where the first test ended
  // Errors name the key.
  const auto error = [&](const std::string& wf) {
    try {
      folds(wf);
    } catch (const kbt::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(error("{train: 1000, test: 500, step: 200}").find("validation.walk_forward.step: the test windows would overlap"),
            std::string::npos);
  EXPECT_NE(error("{train: 2800, test: 500}").find("holds no whole fold"), std::string::npos);
  EXPECT_THROW(kbt::parse_run_config(yaml("{train: 1000}"), "wf.yaml", ""), kbt::Error);
  EXPECT_THROW(kbt::parse_run_config(yaml("{train: 10mins, test: 5}"), "wf.yaml", ""), kbt::Error);
}

// Calendar spans on data with gaps: exchange days (no weekends, a holiday
// every 23rd weekday). Before, a span was moved to a bar at every step, the
// steps no longer added up, and `{train: 60d, test: 20d}` (daily FX) or
// `{train: 1y, test: 3mo}` (GOOG) failed with "the test windows would
// overlap" though no step was set. Folds go by timestamps: fold f tests from
// the first bar at or after start + f x 20 days + 60 days, each test starts
// where the last ended.
TEST(WalkForward, CalendarSpansOnWeekdayDataAreFoldsByTimestamps) {
  kbt::BarData bars = kbt::test::synthetic_bars(1, 1500, 4);
  const std::int64_t day = 86400LL * 1000000000LL;
  std::int64_t t = 1262563200LL * 1000000000LL;  // Monday 2010-01-04
  for (std::size_t b = 0, weekday = 0; b < bars.n_bars(); t += day) {
    const std::int64_t dow = (t / day + 4) % 7;  // 0 = Sunday
    if (dow == 0 || dow == 6 || ++weekday % 23 == 0) continue;
    bars.timestamps[b++] = t;
  }
  const auto folds = [&](const std::string& wf) {
    return kbt::resolve_walk_forward(kbt::parse_run_config(yaml(wf), "wf.yaml", ""), bars);
  };
  const auto first_at_or_after = [&](std::int64_t time) {
    std::size_t b = 0;
    while (b < bars.n_bars() && bars.timestamps[b] < time) ++b;
    return b;
  };
  const auto f = folds("{train: 60d, test: 20d}");
  ASSERT_GT(f.size(), 50u);
  for (std::size_t i = 0; i < f.size(); ++i) {
    SCOPED_TRACE("fold " + std::to_string(i));
    const std::int64_t start = bars.timestamps[0] + static_cast<std::int64_t>(i) * 20 * day;
    EXPECT_EQ(f[i].train.begin, first_at_or_after(start));
    EXPECT_EQ(f[i].test.begin, first_at_or_after(start + 60 * day));
    EXPECT_EQ(f[i].test.end, first_at_or_after(start + 80 * day));
    if (i > 0) EXPECT_EQ(f[i].test.begin, f[i - 1].test.end);
  }
  for (const std::string wf : {"{train: 1y, test: 3mo}", "{train: 6mo, test: 1mo}", "{train: 13w, test: 4w}"}) {
    SCOPED_TRACE(wf);
    const auto g = folds(wf);
    ASSERT_GT(g.size(), 3u);
    for (std::size_t i = 1; i < g.size(); ++i) EXPECT_EQ(g[i].test.begin, g[i - 1].test.end) << "fold " << i;
  }
}

TEST(WalkForward, EachFoldEqualsSeparateRunsOnItsWindows) {
  const kbt::BarData bars = hourly_bars();
  const kbt::RunConfig config = kbt::parse_run_config(yaml("{train: 1000, test: 500}"), "wf.yaml", "");
  std::vector<std::string> devices{"reference"};
  for (const auto& s : kbt::enabled_execution_spaces()) devices.push_back(s.name);
  for (const auto& device : devices) {
    SCOPED_TRACE(device);
    const kbt::WalkForwardResults wf = kbt::run_walk_forward(config, bars, device, 2);
    ASSERT_EQ(wf.folds.size(), 4u);
    for (const kbt::WalkForwardFold& fold : wf.folds) {
      // The fold's choice: the best of a sweep scored on its train window.
      kbt::RunConfig train = config;
      train.validation = {};
      train.simulation.score_start_bar = static_cast<std::int64_t>(fold.train.begin);
      train.simulation.score_end_bar = static_cast<std::int64_t>(fold.train.end);
      train.sweep.all_metrics = true;
      kbt::SweepRequest request;
      request.device = "reference";
      request.quiet = true;
      const kbt::RowTable expected = kbt::run_sweep(train, bars, request).results.top_k_rows().first(4);
      ASSERT_EQ(fold.best.rows, expected.rows);
      for (std::size_t k = 0; k < expected.metrics.size(); ++k) ASSERT_TRUE(same_bits(fold.best.metrics[k], expected.metrics[k])) << k;
      // Its metrics on the test window: a backtest scored there.
      for (std::size_t j = 0; j < fold.best.size(); ++j) {
        kbt::RunConfig test = config;
        test.validation = {};
        test.simulation.score_start_bar = static_cast<std::int64_t>(fold.test.begin);
        test.simulation.score_end_bar = static_cast<std::int64_t>(fold.test.end);
        const std::map<std::string, double> params{{"fast", fold.best.params_of(j)[0]}, {"slow", fold.best.params_of(j)[1]}};
        const auto r = kbt::run_backtest(test, bars, params);
        for (std::size_t m = 0; m < kbt::n_metrics; ++m)
          ASSERT_TRUE(same_bits(r.metrics[m], fold.test_metrics[j * kbt::n_metrics + m])) << j << " " << m;
      }
    }
  }
}

TEST(WalkForward, TheStitchedRunIsTheChoicesSplicedOverTheirTestWindows) {
  const kbt::BarData bars = hourly_bars();
  const kbt::RunConfig config = kbt::parse_run_config(yaml("{train: 1000, test: 500}"), "wf.yaml", "");
  const kbt::WalkForwardResults wf = kbt::run_walk_forward(config, bars, "reference", 1);
  ASSERT_EQ(wf.stitched, (kbt::ScoringWindow{1000, 3000}));
  // The splice, written out: each fold's choice's target in its test window, 0 elsewhere.
  const kbt::PreparedSweep sweep = kbt::prepare_sweep(config, bars);
  kbt::StrategyOutputs splice;
  splice.n_symbols = 1;
  splice.n_bars = bars.n_bars();
  splice.target.assign(bars.n_bars(), 0.0);
  for (const kbt::WalkForwardFold& fold : wf.folds) {
    const kbt::StrategyOutputs own = kbt::evaluate_strategy_reference(sweep.program, bars, fold.best.params_of(0));
    for (std::size_t b = fold.test.begin; b < fold.test.end; ++b) splice.target[b] = own.target[b];
  }
  kbt::ResolvedSimulation sim = kbt::resolve_simulation(config, bars);
  sim.window = wf.stitched;
  kbt::SimulationOptions keep;
  keep.keep_equity = true;
  const auto r = kbt::simulate_reference(bars, sim, splice, keep);
  ASSERT_EQ(wf.stitched_metrics.size(), kbt::n_metrics);
  for (std::size_t m = 0; m < kbt::n_metrics; ++m) EXPECT_TRUE(same_bits(r.metrics[m], wf.stitched_metrics[m])) << m;
  EXPECT_EQ(r.equity, wf.stitched_equity);
  EXPECT_GT(r.metrics[int(kbt::Metric::n_trades)], 0) << "vacuous: the stitched run trades";
  EXPECT_GE(wf.stability, 0.0);
  EXPECT_LE(wf.stability, 1.0);
}
