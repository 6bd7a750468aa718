// Ruin (docs/semantics.md "Ruin", docs/metrics.md "Ruined combos"): a combo
// whose equity at a close reaches <= 0 is floored to 0 there and halts. The
// kernels against the reference engine by the bits of every metric, with
// ruined and unruined combos side by side, on every enabled space and every
// portfolio step kind; the action simulation likewise; one ruined combo
// against a loop written here from the definition; a walk-forward window pass
// and the candidates' period returns after a ruin.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/simulate/action_simulator.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/sweep_engine.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support/execution_spaces.hpp"
#include "support/sweep_parity.hpp"
#include "support/synthetic.hpp"
#include "unit/test_reference_sim_fixtures.hpp"

using namespace kbt::test::parity;

namespace {

double metric(const kbt::MetricRow& m, kbt::Metric which) { return m[static_cast<std::size_t>(which)]; }

// Leverage from the target itself (`lev` up to 3000, the cap far above it):
// the levered combos are ruined, the others not.
std::string levered_yaml(const std::string& simulation) {
  return R"(data: unused.h5
strategy:
  params:
    n: {values: [5, 12]}
    lev: {values: [0.5, 1, 30, 300, 3000]}
  signals:
    d: close - sma(close, n)
  position: clip(sign(d) + cs_zscore(d) * 0.2, -1, 1) * lev
simulation:
  max_gross_leverage: 1000000
)" + simulation;
}

// How many of the case's combos the reference engine ruins; checks on the way
// what docs/metrics.md "Ruined combos" promises of each.
std::size_t ruined_by_reference(const Case& c) {
  const kbt::ResolvedSimulation sim = kbt::resolve_simulation(c.config.simulation, c.bars);
  const std::size_t np = c.program.n_params();
  std::size_t ruined = 0;
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    const auto signals = kbt::evaluate_strategy_reference(c.program, c.bars, &c.params[i * np]);
    kbt::SimulationOptions keep;
    keep.keep_equity = true;
    const auto r = kbt::simulate_reference(c.bars, kbt::combo_simulation(sim, c.program.param_names, &c.params[i * np]),
                                           signals, keep);
    const bool flagged = metric(r.metrics, kbt::Metric::final_equity) == 0.0;
    EXPECT_EQ(flagged, r.ruin_bar.has_value()) << "combo " << c.ids[i];
    for (const double e : r.equity) EXPECT_GE(e, 0.0) << "combo " << c.ids[i];
    if (!flagged) continue;
    ruined += 1;
    SCOPED_TRACE("combo " + std::to_string(c.ids[i]));
    EXPECT_EQ(metric(r.metrics, kbt::Metric::total_return), -1.0);
    EXPECT_EQ(metric(r.metrics, kbt::Metric::cagr), -1.0);
    EXPECT_EQ(metric(r.metrics, kbt::Metric::max_drawdown), -1.0);
    EXPECT_EQ(metric(r.metrics, kbt::Metric::calmar), -1.0);
    EXPECT_LE(r.ruin_equity, 0.0);
    // Scored up to the ruin bar: the equity is 0 from there on.
    const std::size_t k = *r.ruin_bar - sim.window.begin;
    for (std::size_t j = k; j < r.equity.size(); ++j) EXPECT_EQ(r.equity[j], 0.0);
    if (k > 0) EXPECT_GT(r.equity[k - 1], 0.0);
    for (const kbt::Metric m : {kbt::Metric::ann_volatility, kbt::Metric::ulcer_index, kbt::Metric::exposure,
                                kbt::Metric::turnover, kbt::Metric::fees_paid})
      EXPECT_TRUE(std::isfinite(metric(r.metrics, m))) << kbt::metric_names()[static_cast<int>(m)];
  }
  return ruined;
}

}  // namespace

TEST(Ruin, RuinedCombosGiveTheReferenceBitsOnEverySpaceAndStepKind) {
  kbt::BarData bars = kbt::test::synthetic_bars(3, 700, 9, true);
  kbt::test::add_gap(bars, 1, 300, 12);
  const char* simulations[] = {
      "  fee_bps: 5\n",                                           // close fills
      "  fee_bps: 5\n  borrow_rate: 0.1\n",                       // close fills with carry
      "  fee_bps: 5\n  slippage_bps: 2\n  fill: next_open\n  stop_loss: 0.03\n  trailing_stop: 0.05\n",  // general
  };
  for (const char* simulation : simulations) {
    SCOPED_TRACE(simulation);
    const Case c = prepare_yaml(levered_yaml(simulation), bars, 10);
    ASSERT_EQ(c.ids.size(), 10u);
    const std::size_t ruined = ruined_by_reference(c);
    EXPECT_GE(ruined, 4u) << "the levered combos must be ruined";
    EXPECT_LE(ruined, 6u) << "the unlevered ones must not";
    for (const auto& d : devices()) expect_parity(c, d);
    // Blocks of 7 bars: a halted account crosses block boundaries.
    for (const auto& d : devices()) expect_parity(c, d, 0, 7);
  }
}

// One long at twice the equity, by hand from the definition: closes 100, 104,
// 95, 45, 60, 300, fee 10 bps: 20 units bought for 2000 + 2 at bar 0, equity
// 998, 1078, 898, then -1002 + 20 * 45 = -102 at bar 3: ruined there.
TEST(Ruin, ARuinedCombosCurveAndMetricsFollowTheDefinition) {
  const std::vector<double> closes = {100, 104, 95, 45, 60, 300};
  const kbt::BarData bars = kbt::test::make_data({kbt::test::flat_bars(closes)});
  const double capital = 1000, fee = 0.001, ppy = 252;

  // The definition, written out: target 2 held from bar 0 (one fill), equity
  // at each close, ruin at the first close <= 0, then 0 and unscored.
  std::vector<double> equity;
  double cash = capital, units = 0, flow = 0, notional = 0, fees = 0;
  std::size_t ruin_bar = 0, exposed = 0, scored = 0;
  bool ruined = false;
  for (std::size_t t = 0; t < closes.size(); ++t) {
    if (ruined) {
      equity.push_back(0);
      continue;
    }
    scored += 1;
    if (units != 0) exposed += 1;
    double e = cash + units * closes[t];
    if (t == 0) {
      units = 2 * e / closes[t];
      const double paid = units * closes[t], f = paid * fee;
      cash -= paid + f, flow -= paid + f, notional += paid, fees += f;
      e = cash + units * closes[t];
    }
    if (e <= 0) {
      ruined = true, ruin_bar = t;
      flow += units * closes[t];  // closed at the mark, no cost
      e = 0;
    }
    equity.push_back(e);
  }
  ASSERT_TRUE(ruined);
  ASSERT_EQ(ruin_bar, 3u);
  std::vector<double> r;
  double prev = capital, peak = capital, max_dd = 0, dd_sq = 0, mean = 0;
  for (std::size_t k = 0; k < scored; ++k) {
    r.push_back(equity[k] / prev - 1), prev = equity[k];
    peak = std::max(peak, equity[k]);
    const double dd = equity[k] / peak - 1;
    max_dd = std::min(max_dd, dd), dd_sq += dd * dd;
    mean += r.back() / static_cast<double>(scored);
  }
  double var = 0, down = 0, equity_sum = 0;
  for (std::size_t k = 0; k < scored; ++k) {
    var += (r[k] - mean) * (r[k] - mean) / static_cast<double>(scored - 1);
    down += std::min(r[k], 0.0) * std::min(r[k], 0.0) / static_cast<double>(scored);
    equity_sum += equity[k];
  }
  const double trade_return = flow / (units * 100.0);

  const auto expect_definition = [&](const std::vector<double>& m, const std::string& who) {
    SCOPED_TRACE(who);
    const auto at = [&](kbt::Metric which) { return m.at(static_cast<std::size_t>(which)); };
    EXPECT_EQ(at(kbt::Metric::final_equity), 0.0);
    EXPECT_EQ(at(kbt::Metric::total_return), -1.0);
    EXPECT_EQ(at(kbt::Metric::cagr), -1.0);
    EXPECT_EQ(at(kbt::Metric::calmar), -1.0);
    EXPECT_EQ(at(kbt::Metric::max_drawdown), max_dd);
    EXPECT_EQ(max_dd, -1.0);
    EXPECT_EQ(at(kbt::Metric::n_trades), 1.0);
    EXPECT_DOUBLE_EQ(at(kbt::Metric::worst_trade), trade_return);
    EXPECT_EQ(at(kbt::Metric::avg_trade_duration), 3.0);  // bar 0 to the ruin bar
    EXPECT_EQ(at(kbt::Metric::exposure), static_cast<double>(exposed) / static_cast<double>(scored));
    EXPECT_EQ(at(kbt::Metric::max_drawdown_duration), 2.0);  // bars 2 and 3 under 1040-ish peak
    EXPECT_DOUBLE_EQ(at(kbt::Metric::ulcer_index), std::sqrt(dd_sq / static_cast<double>(scored)));
    EXPECT_DOUBLE_EQ(at(kbt::Metric::ann_volatility), std::sqrt(var) * std::sqrt(ppy));
    EXPECT_DOUBLE_EQ(at(kbt::Metric::sharpe), mean / std::sqrt(var) * std::sqrt(ppy));
    EXPECT_DOUBLE_EQ(at(kbt::Metric::sortino), mean / std::sqrt(down) * std::sqrt(ppy));
    EXPECT_DOUBLE_EQ(at(kbt::Metric::turnover), notional / (equity_sum / static_cast<double>(scored)));
    EXPECT_DOUBLE_EQ(at(kbt::Metric::fees_paid), fees);
  };

  // The reference engine, with its curve and ledger.
  kbt::SimulationSettings s;
  s.initial_capital = capital;
  s.fee_bps = 10;
  s.max_gross_leverage = 2;
  s.periods_per_year = ppy;
  kbt::SimulationOptions keep;
  keep.keep_equity = keep.keep_ledger = true;
  const auto ref = kbt::simulate_reference(bars, s, kbt::test::targets({{2, NAN, NAN, NAN, NAN, NAN}}), keep);
  expect_definition(std::vector<double>(ref.metrics.begin(), ref.metrics.end()), "reference");
  ASSERT_TRUE(ref.ruin_bar.has_value());
  EXPECT_EQ(*ref.ruin_bar, ruin_bar);
  EXPECT_DOUBLE_EQ(ref.ruin_equity, cash + units * closes[ruin_bar]);
  ASSERT_EQ(ref.equity.size(), equity.size());
  for (std::size_t t = 0; t < equity.size(); ++t) EXPECT_DOUBLE_EQ(ref.equity[t], equity[t]) << "bar " << t;
  for (std::size_t t = ruin_bar; t < equity.size(); ++t) {
    EXPECT_EQ(ref.cash[t], 0.0);
    EXPECT_EQ(ref.units[t], 0.0);
  }
  ASSERT_EQ(ref.trades.size(), 1u);
  EXPECT_EQ(ref.trades[0].exit_reason, kbt::ExitReason::ruin);
  EXPECT_EQ(ref.trades[0].exit_bar, ruin_bar);
  EXPECT_EQ(ref.trades[0].exit_price, closes[ruin_bar]);

  // The kernels, from a config with the same settings.
  const Case c = prepare_yaml("data: unused.h5\nstrategy:\n  params:\n    k: {values: [2]}\n  position: "
                              "where(close == 100, k, 0 / 0)\nsimulation:\n  initial_capital: 1000\n  fee_bps: 10\n  max_gross_leverage: 2\n"
                              "  periods_per_year: 252\n",
                              bars, 1);
  for (const auto& d : devices()) {
    const kbt::SweepPlan plan = kbt::make_sweep_plan(c.program, c.bars);
    const auto kernel = kbt::run_sweep_kernel_on(d, false, c.program, plan, c.bars,
                                                 kbt::resolve_simulation(c.config.simulation, c.bars), c.params, {});
    expect_definition(kernel, d);
  }
}

// The walk-forward's window pass and the validation's candidates (one window,
// period returns): a ruined candidate returns -1 in its ruin period and 0
// after it, on every engine, as the reference buckets its equity.
TEST(Ruin, WindowPassesAndPeriodReturnsAfterARuin) {
  const kbt::RunConfig config = kbt::parse_run_config(levered_yaml("  fee_bps: 5\n"), "<ruin windows>", "");
  const kbt::BarData bars = kbt::test::synthetic_bars(3, 600, 4);
  const kbt::PreparedSweep sweep = kbt::prepare_sweep(config, bars);
  const std::size_t n = sweep.n_combos();
  const std::vector<kbt::ScoringWindow> windows = {{0, 300}, {100, 600}, {250, 400}};
  const kbt::EngineTopK top_k{config.sweep.objective, 3};
  const kbt::EngineOutput ref = kbt::make_reference_engine(sweep, bars, 2)->run(0, n, windows, top_k);
  std::size_t ruined = 0;
  for (std::size_t i = 0; i < ref.metrics.size() / kbt::n_metrics; ++i)
    ruined += ref.metrics[i * kbt::n_metrics + static_cast<std::size_t>(kbt::Metric::final_equity)] == 0.0 ? 1 : 0;
  EXPECT_GE(ruined, 6u) << "vacuous case: too few ruined windows";
  for (const auto& space : kbt::enabled_execution_spaces()) {
    SCOPED_TRACE(space.name);
    const kbt::EngineOutput k = kbt::make_kernel_engine(sweep, bars, space.name, false)->run(0, n, windows, top_k);
    ASSERT_EQ(k.metrics.size(), ref.metrics.size());
    EXPECT_EQ(std::memcmp(k.metrics.data(), ref.metrics.data(), k.metrics.size() * sizeof(double)), 0);
  }

  // Candidates: every combo, periods of 40 bars over [50, 600).
  std::vector<std::uint64_t> rows;
  for (std::uint64_t i = 0; i < n; ++i) rows.push_back(i);
  const std::vector<double> params = sweep.combos.subset(rows).params(0, n);
  const kbt::ScoringWindow window{50, 600};
  std::vector<std::size_t> last;
  for (std::size_t t = window.begin + 39; t + 1 < window.end; t += 40) last.push_back(t);
  last.push_back(window.end - 1);
  std::vector<double> expected(last.size() * n);
  std::size_t after_ruin = 0;
  for (std::size_t j = 0; j < n; ++j) {
    const auto signals = kbt::evaluate_strategy_reference(sweep.program, bars, &params[j * 2]);
    kbt::ResolvedSimulation sim = sweep.sim;
    sim.window = window;
    kbt::SimulationOptions keep;
    keep.keep_equity = true;
    const auto r = kbt::simulate_reference(bars, sim, signals, keep);
    double previous = sim.initial_capital;
    bool gone = false;
    for (std::size_t q = 0; q < last.size(); ++q) {
      const double e = r.equity[last[q] - window.begin];
      expected[q * n + j] = gone ? 0.0 : e / previous - 1.0;  // docs/validation.md "Periods"
      after_ruin += gone ? 1 : 0;
      gone = gone || e == 0.0;
      previous = e;
    }
  }
  EXPECT_GT(after_ruin, 0u) << "vacuous case: no period after a ruin";
  std::vector<std::unique_ptr<kbt::SweepEngine>> engines;
  engines.push_back(kbt::make_reference_engine(sweep, bars, 2));
  for (const auto& space : kbt::enabled_execution_spaces())
    engines.push_back(kbt::make_kernel_engine(sweep, bars, space.name, false));
  for (const auto& e : engines) {
    SCOPED_TRACE(e->device());
    const kbt::CandidateRuns runs = e->run_candidates(params, window, last);
    ASSERT_EQ(runs.period_returns.size(), expected.size());
    for (std::size_t i = 0; i < expected.size(); ++i)
      EXPECT_EQ(std::memcmp(&runs.period_returns[i], &expected[i], sizeof(double)), 0)
          << i << ": " << runs.period_returns[i] << " vs " << expected[i];
  }
}

template <class Space>
class RuinActions : public ::testing::Test {};
TYPED_TEST_SUITE(RuinActions, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

// Short exposures on a rising market ruin some trials: the action simulation
// equals its reference by bits (metrics, equity, units, drawdown, unrealised
// PnL, PnL rewards), the equity 0 from the ruin on.
TYPED_TEST(RuinActions, ActionSimulationEqualsTheReferenceAfterARuin) {
  // Closes tripling over 60 bars, then falling back.
  std::vector<kbt::test::Bar> path;
  for (int t = 0; t < 120; ++t) {
    const double c = t < 60 ? 100.0 * std::pow(3.0, t / 59.0) : 300.0 * std::pow(0.5, (t - 60) / 59.0);
    path.push_back({c * 0.999, c * 1.01, c * 0.99, c});
  }
  const kbt::BarData bars = kbt::test::make_data({path, path});
  kbt::SimulationSettings s;
  s.fee_bps = 3;
  s.max_gross_leverage = 2;
  for (const auto fill : {kbt::SimulationSettings::Fill::close, kbt::SimulationSettings::Fill::next_open}) {
    s.fill = fill;
    const kbt::ResolvedSimulation sim = kbt::resolve_simulation(s, bars);
    // Trials: both short, one short, long, flat.
    const std::vector<std::vector<double>> exposures = {{-1, -1}, {-1, 0}, {1, 1}, {0, 0}};
    std::vector<double> actions;
    for (const auto& e : exposures)
      for (const double x : e) actions.insert(actions.end(), bars.n_bars(), x);
    const kbt::ActionMatrix matrix{actions.data(), exposures.size(), 2, bars.n_bars()};
    const kbt::RewardSettings pnl{kbt::RewardKind::pnl, 0.01};
    const auto ref = kbt::simulate_actions_reference(bars, sim, matrix, {}, true, pnl);
    EXPECT_EQ(ref.metrics[int(kbt::Metric::final_equity)], 0.0) << "both short: ruined";
    EXPECT_GT(ref.metrics[2 * kbt::n_metrics + int(kbt::Metric::final_equity)], 0.0) << "long: not ruined";
    kbt::ActionSimulator<TypeParam> device(bars, sim);
    const auto got = device.run(matrix, {}, true, pnl);
    const auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
      return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
    };
    EXPECT_TRUE(same(got.metrics, ref.metrics));
    EXPECT_TRUE(same(got.equity, ref.equity));
    EXPECT_TRUE(same(got.units, ref.units));
    EXPECT_TRUE(same(got.drawdown, ref.drawdown));
    EXPECT_TRUE(same(got.open_pnl, ref.open_pnl));
    EXPECT_TRUE(same(got.reward, ref.reward));
    EXPECT_EQ(ref.equity[bars.n_bars() - 1], 0.0);
  }
}
