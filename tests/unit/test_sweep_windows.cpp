// Several scoring windows in one kernel pass (docs/sweep.md "Several windows
// in one pass") and the validation stage's candidate runs. Independent
// checks: each window of the one pass against the reference engine, which
// simulates every window as a run of its own, bit for bit, for every portfolio
// step kind and metric set, one and several symbols, evaluation blocks that
// end inside windows and hoisted series spread over several tiles; the
// candidates' period returns against a bucketing, written here, of the
// equity of their own reference backtests.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/sweep_engine.hpp>
#include <kbt/sweep/top_k.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "support/synthetic.hpp"

namespace {

struct Case {
  const char* name;
  const char* simulation;  // the config's simulation section
  const char* sweep;       // its sweep section
  std::size_t symbols;
  bool funding;
  kbt::PortfolioStepKind step;
  unsigned groups;  // the metric set the sweep compiles
};

// The step kind follows from the simulation settings, the metric set from the
// objective and sweep.metrics; both are checked before the comparison.
const Case kCases[] = {
    {"close fills, returns set, one symbol", "{fee_bps: 3}", "{objective: {metric: sharpe}}", 1, false,
     kbt::PortfolioStepKind::close_fills, kbt::metric_group::returns},
    {"carry, drawdown set, two symbols", "{fee_bps: 2, borrow_rate: 0.03}",
     "{objective: {metric: calmar}}", 2, true, kbt::PortfolioStepKind::close_fills_with_carry,
     kbt::metric_group::returns | kbt::metric_group::drawdown},
    {"general, every metric, one symbol", "{fee_bps: 4, slippage_bps: 1, fill: next_open, stop_loss: 0.03}",
     "{objective: {metric: sharpe, min_trades: 2}, metrics: [win_rate]}", 1, false, kbt::PortfolioStepKind::general,
     kbt::metric_group::all},
    {"close fills, no moments, two symbols", "{fee_bps: 1}", "{objective: {metric: total_return}}", 2, false,
     kbt::PortfolioStepKind::close_fills, 0u},
};

// Inside the band around the slow average the target is NaN: the position
// form carries the last target, so a window's start depends on the bars before it.
std::string config_yaml(const Case& c) {
  return std::string("data: unused.h5\nstrategy:\n  params:\n    fast: {range: [3, 15, 4]}\n"
                     "    slow: {values: [20, 35, 50]}\n  signals:\n    f: sma(close, fast)\n    s: sma(close, slow)\n"
                     "  position: where(f > s * 1.002, 1, where(f < s * 0.998, -0.5, 0 / 0))\nsimulation: ") +
         c.simulation + "\nsweep: " + c.sweep + "\n";
}

// Walk-forward shapes: rolling train windows that overlap, an anchored one,
// a short one that ends long before the others, one that ends at the data's end.
const std::vector<kbt::ScoringWindow> kWindows = {{0, 400}, {200, 600}, {400, 800}, {0, 800}, {50, 121}, {650, 900}};

void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t k = 0; k < a.size(); ++k)
    ASSERT_EQ(std::memcmp(&a[k], &b[k], sizeof(double)), 0) << what << ": value " << k << ": " << a[k] << " vs " << b[k];
}

double trades_in(const std::vector<double>& metrics) {
  double trades = 0;
  for (std::size_t r = 0; r < metrics.size() / kbt::n_metrics; ++r) {
    const double t = metrics[r * kbt::n_metrics + static_cast<std::size_t>(kbt::Metric::n_trades)];
    if (t == t) trades += t;
  }
  return trades;
}

}  // namespace

TEST(SweepWindows, OnePassGivesEachWindowsReferenceBitsForEveryStepKindAndMetricSet) {
  for (const Case& c : kCases) {
    SCOPED_TRACE(c.name);
    const kbt::RunConfig config = kbt::parse_run_config(config_yaml(c), "<windows>", "");
    const kbt::BarData bars = kbt::test::synthetic_bars(c.symbols, 900, 21, c.funding);
    const kbt::PreparedSweep sweep = kbt::prepare_sweep(config, bars);
    ASSERT_EQ(sweep.sim.step, c.step);
    ASSERT_EQ(sweep.metric_groups, c.groups);
    const std::size_t n = sweep.n_combos();
    ASSERT_GE(n, 9u);
    const kbt::EngineTopK top_k{config.sweep.objective, 4};
    const kbt::EngineOutput ref = kbt::make_reference_engine(sweep, bars, 2)->run(0, n, kWindows, top_k);
    ASSERT_EQ(ref.metrics.size(), kWindows.size() * n * kbt::n_metrics);
    EXPECT_GT(trades_in(ref.metrics), 0.0) << "vacuous case: no trades";
    for (const auto& space : kbt::enabled_execution_spaces()) {
      // The space's defaults; then blocks of 7 bars (window ends fall inside
      // blocks) and room for 2 hoisted series (every combo in a tile of its own).
      for (const bool small : {false, true}) {
        SCOPED_TRACE(space.name + (small ? " small blocks and tiles" : ""));
        kbt::KernelSweepOptions options;
        if (small) options.block_bars = 7, options.hoist_rows = 2;
        const auto kernel = kbt::make_kernel_engine(sweep, bars, space.name, false, options);
        const kbt::EngineOutput k = kernel->run(0, n, kWindows, top_k);
        EXPECT_EQ(k.phases.passes, 1u);
        expect_same_bits(k.metrics, ref.metrics, "one pass vs reference");
        EXPECT_EQ(k.top_k, ref.top_k);
        if (small) EXPECT_GT(k.phases.hoist_tiles_computed, 1u);
        // A range of the combos, two windows.
        const std::vector<kbt::ScoringWindow> two = {kWindows[1], kWindows[4]};
        const kbt::EngineOutput part = kernel->run(2, n - 1, two, top_k);
        const kbt::EngineOutput part_ref = kbt::make_reference_engine(sweep, bars, 1)->run(2, n - 1, two, top_k);
        expect_same_bits(part.metrics, part_ref.metrics, "range");
        EXPECT_EQ(part.top_k, part_ref.top_k);
      }
    }
  }
}

TEST(SweepWindows, CandidatesGetEveryMetricAndTheirPeriodReturnsOnEveryEngine) {
  const Case& c = kCases[2];  // the general step with stops: the richest bar outcome
  const kbt::RunConfig config = kbt::parse_run_config(config_yaml(c), "<candidates>", "");
  const kbt::BarData bars = kbt::test::synthetic_bars(1, 900, 5);
  const kbt::PreparedSweep sweep = kbt::prepare_sweep(config, bars);
  const std::vector<std::uint64_t> rows = {0, 4, 7};
  const std::vector<double> params = sweep.combos.subset(rows).params(0, rows.size());
  const kbt::ScoringWindow window{100, 880};
  // Periods of 50 bars and a short last one: the last bars of each.
  std::vector<std::size_t> last;
  for (std::size_t t = window.begin + 49; t < window.end; t += 50) last.push_back(t);
  last.push_back(window.end - 1);
  const std::size_t p = last.size(), k = rows.size();

  // Each candidate's own backtest, its equity bucketed here.
  std::vector<double> expected(p * k), expected_metrics;
  for (std::size_t j = 0; j < k; ++j) {
    const kbt::StrategyOutputs signals = kbt::evaluate_strategy_reference(sweep.program, bars, &params[j * 2]);
    kbt::ResolvedSimulation sim = sweep.sim;
    sim.window = window;
    kbt::SimulationOptions keep;
    keep.keep_equity = true;
    const kbt::SimulationResult r = kbt::simulate_reference(bars, sim, signals, keep);
    ASSERT_EQ(r.equity.size(), window.end - window.begin);
    double previous = sim.initial_capital;
    for (std::size_t q = 0; q < p; ++q) {
      const double e = r.equity[last[q] - window.begin];
      expected[q * k + j] = e / previous - 1.0;
      previous = e;
    }
    expected_metrics.insert(expected_metrics.end(), r.metrics.begin(), r.metrics.end());
  }
  EXPECT_GT(trades_in(expected_metrics), 0.0) << "vacuous case: no trades";

  std::vector<std::unique_ptr<kbt::SweepEngine>> engines;
  engines.push_back(kbt::make_reference_engine(sweep, bars, 2));
  for (const auto& space : kbt::enabled_execution_spaces())
    engines.push_back(kbt::make_kernel_engine(sweep, bars, space.name, false));
  for (const auto& e : engines) {
    SCOPED_TRACE(e->device());
    const kbt::CandidateRuns runs = e->run_candidates(params, window, last);
    expect_same_bits(runs.period_returns, expected, "period returns");
    expect_same_bits(runs.metrics, expected_metrics, "metrics");
    // Without periods: the metrics alone; the sweep's own rows agree.
    const kbt::CandidateRuns plain = e->run_candidates(params, window, {});
    EXPECT_TRUE(plain.period_returns.empty());
    expect_same_bits(plain.metrics, expected_metrics, "metrics without periods");
    expect_same_bits(e->all_metrics(rows, window), expected_metrics, "all_metrics");
  }
}
