// Action-driven simulation (docs/simulate.md): a combo's own positions as
// actions reproduce its simulation exactly; every enabled space equals the
// host reference by bits (metrics, equity, units, drawdown, unrealised PnL,
// every reward) on
// every compiled portfolio step; actions that are not actions are refused
// before any work, naming the trial, symbol and bar.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/simulate/action_simulator.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "support/execution_spaces.hpp"
#include "support/synthetic.hpp"
#include "unit/test_reference_sim_fixtures.hpp"

namespace {

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

// Random actions with runs (a policy holds a while), per trial, symbol, bar.
std::vector<double> random_actions(std::size_t trials, std::size_t symbols, std::size_t bars, bool discrete,
                                   std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<double> a(trials * symbols * bars);
  double current = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (i % bars == 0 || rng() % 20 == 0)
      current = discrete ? static_cast<double>(rng() % 3) : std::round(u(rng) * 4) / 4;
    a[i] = discrete && rng() % 3 != 0 ? 0.0 : current;  // discrete: mostly hold
  }
  return a;
}

kbt::SimulationSettings general_settings() {
  kbt::SimulationSettings s;
  s.fee_bps = 4;
  s.slippage_bps = 1;
  s.borrow_rate = 0.05;
  s.stop_loss = 0.03;
  s.take_profit = 0.05;
  s.fill = kbt::SimulationSettings::Fill::next_open;
  s.max_gross_leverage = 1.5;
  s.score_start_bar = 100;
  return s;
}

template <class Space>
class SimulateActions : public ::testing::Test {};
TYPED_TEST_SUITE(SimulateActions, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

// The SMA cross's positions for one combo, NaN carried forward (0 before the
// first), as exposures: the same simulation as the combo's own.
TYPED_TEST(SimulateActions, ACombosOwnPositionsReproduceItsMetrics) {
  const kbt::BarData bars = kbt::test::synthetic_bars(1, 3000, 11);
  const kbt::RunConfig config = kbt::parse_run_config(kbt::test::sma_cross_yaml({10, 10, 1}, {40, 40, 1}, 5), "c.yaml", "");
  const kbt::Program program = kbt::compile_strategy(config.strategy, kbt::schema_of(bars));
  const std::vector<double> params = {10, 40};
  const kbt::StrategyOutputs outputs = kbt::evaluate_strategy_reference(program, bars, params.data());
  const kbt::ResolvedSimulation sim = kbt::resolve_simulation(config, bars);
  const kbt::SimulationResult combo = kbt::simulate_reference(bars, sim, outputs);
  ASSERT_GT(combo.metrics[int(kbt::Metric::n_trades)], 10) << "a case without trades proves nothing";

  std::vector<double> actions(outputs.target.size());
  double carried = 0;
  for (std::size_t i = 0; i < actions.size(); ++i) {
    if (!std::isnan(outputs.target[i])) carried = outputs.target[i];
    actions[i] = carried;
  }
  const kbt::ActionMatrix matrix{actions.data(), 1, 1, bars.n_bars()};
  const auto ref = kbt::simulate_actions_reference(bars, sim, matrix, {});
  const std::vector<double> expected(combo.metrics.begin(), combo.metrics.end());
  EXPECT_TRUE(same_bits(ref.metrics, expected));
  kbt::ActionSimulator<TypeParam> device(bars, sim);
  EXPECT_TRUE(same_bits(device.run(matrix, {}, false).metrics, expected));
}

TYPED_TEST(SimulateActions, EveryStepKindEqualsTheReferenceByBits) {
  kbt::BarData bars = kbt::test::synthetic_bars(3, 1200, 5, true);
  kbt::test::add_gap(bars, 1, 400, 30);
  struct Case {
    const char* name;
    kbt::SimulationSettings settings;
    kbt::ActionSettings actions;
    kbt::RewardSettings reward;
  };
  kbt::SimulationSettings close_fills;  // no carry costs: the close-fills step
  close_fills.fee_bps = 2;
  kbt::SimulationSettings carry = close_fills;  // borrow: the step with carrying costs
  carry.borrow_rate = 0.1;
  const Case cases[] = {
      {"close_fills", close_fills, {}, {kbt::RewardKind::log_return, 0.01}},
      {"carry", carry, {kbt::ActionKind::exposure, 0.2, 10}, {kbt::RewardKind::pnl, 0.01}},
      {"general", general_settings(), {}, {kbt::RewardKind::differential_sharpe, 0.05}},
      {"general_discrete", general_settings(), {kbt::ActionKind::discrete, 0.1, 4},
       {kbt::RewardKind::differential_sharpe, 0.01}},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const kbt::ResolvedSimulation sim =
        kbt::resolve_simulation(kbt::with_spread(c.settings, c.actions.spread_bps), bars);
    const std::size_t trials = 9;
    const auto actions =
        random_actions(trials, 3, bars.n_bars(), c.actions.kind == kbt::ActionKind::discrete, 17);
    const kbt::ActionMatrix matrix{actions.data(), trials, 3, bars.n_bars()};
    const auto ref = kbt::simulate_actions_reference(bars, sim, matrix, c.actions, true, c.reward);
    double trades = 0;
    for (std::size_t t = 0; t < trials; ++t) trades += ref.metrics[t * kbt::n_metrics + int(kbt::Metric::n_trades)];
    ASSERT_GT(trades, 50) << "too few trades to compare";
    kbt::ActionSimulator<TypeParam> device(bars, sim);
    for (int call = 0; call < 2; ++call) {  // the object is reused: a second call gives the same
      const auto got = device.run(matrix, c.actions, true, c.reward);
      EXPECT_TRUE(same_bits(got.metrics, ref.metrics));
      EXPECT_TRUE(same_bits(got.equity, ref.equity));
      EXPECT_TRUE(same_bits(got.units, ref.units));
      EXPECT_TRUE(same_bits(got.drawdown, ref.drawdown));
      EXPECT_TRUE(same_bits(got.open_pnl, ref.open_pnl));
      EXPECT_TRUE(same_bits(got.reward, ref.reward));
      ASSERT_EQ(got.equity.size(), trials * (bars.n_bars() - (c.settings.score_start_bar ? 100 : 0)));
    }
  }
}

// docs/simulate.md "Worked example", and the discrete actions on the same
// closes, by hand: closes 100, 110, 121, 121; fee 10 bps; capital 1000.
// The differential Sharpe against the recursion written out independently:
// R from the equity, no reward while the moments rest on fewer than
// n = ceil(1 / eta) returns, then A and B start as the batch mean and mean
// square of those n returns and move at rate eta. Before the warm-up the
// moving averages started at 0 and the second bar divided by a variance of
// eta * R1^2: rewards of 1e5 where the rest of the series summed to -12.
TEST(SimulateActionsRewards, DifferentialSharpeFollowsMoodyAndSaffellFromItsWarmUp) {
  const kbt::BarData bars = kbt::test::synthetic_bars(1, 2000, 23);
  kbt::SimulationSettings settings;
  settings.fee_bps = 3;
  const kbt::ResolvedSimulation sim = kbt::resolve_simulation(settings, bars);
  const auto actions = random_actions(2, 1, bars.n_bars(), false, 29);
  const kbt::ActionMatrix matrix{actions.data(), 2, 1, bars.n_bars()};
  for (const double eta : {0.01, 0.05, 0.3}) {
    SCOPED_TRACE(eta);
    const auto ref = kbt::simulate_actions_reference(bars, sim, matrix, {}, true,
                                                     {kbt::RewardKind::differential_sharpe, eta});
    const std::size_t nw = ref.n_window_bars, n = static_cast<std::size_t>(std::ceil(1 / eta));
    ASSERT_GT(nw, 4 * n);
    for (std::size_t t = 0; t < 2; ++t) {
      const double* equity = &ref.equity[t * nw];
      const double* got = &ref.reward[t * nw];
      std::vector<double> r(nw);
      for (std::size_t k = 0; k < nw; ++k) r[k] = equity[k] / (k ? equity[k - 1] : settings.initial_capital) - 1;
      double a = 0, b = 0;
      for (std::size_t k = 0; k < n; ++k) a += r[k], b += r[k] * r[k];
      a /= static_cast<double>(n), b /= static_cast<double>(n);
      std::size_t nonzero = 0;
      double largest = 0;
      for (std::size_t k = 0; k < nw; ++k) {
        if (k < n) {
          EXPECT_EQ(got[k], 0.0) << "bar " << k << " of the warm-up";
          continue;
        }
        const double expected = (b * (r[k] - a) - 0.5 * a * (r[k] * r[k] - b)) / std::pow(b - a * a, 1.5);
        EXPECT_NEAR(got[k], expected, 1e-9 * (1 + std::abs(expected))) << "bar " << k;
        a += eta * (r[k] - a);
        b += eta * (r[k] * r[k] - b);
        nonzero += got[k] != 0;
        largest = std::max(largest, std::abs(got[k]));
      }
      EXPECT_GT(nonzero, (nw - n) / 2) << "a flat trial proves nothing";
      EXPECT_LT(largest, 1e3 / std::sqrt(eta)) << "a reward that explodes";
    }
  }
}

TYPED_TEST(SimulateActions, HandWorkedExposureAndDiscreteTrials) {
  const kbt::BarData bars = kbt::test::make_data({kbt::test::flat_bars({100, 110, 121, 121})});
  kbt::SimulationSettings settings = kbt::test::base_settings();
  settings.fee_bps = 10;
  const kbt::ResolvedSimulation sim = kbt::resolve_simulation(settings, bars);
  kbt::ActionSimulator<TypeParam> device(bars, sim);
  // Exposure 1, 1, 0, 0: buy 10 units at 100 (fee 1): E 999, open PnL -1; held: 1099, 99;
  // target 0 sells 10 at 121 (fee 1.21): 1207.79, nothing open; flat: 1207.79.
  const std::vector<double> exposure = {1, 1, 0, 0};
  kbt::RewardSettings pnl{kbt::RewardKind::pnl, 0.01};
  const auto e = device.run(kbt::ActionMatrix{exposure.data(), 1, 1, 4}, {}, true, pnl);
  const std::vector<double> e_equity = {999, 1099, 1207.79, 1207.79}, e_open = {-1, 99, 0, 0};
  const std::vector<double> e_reward = {-1, 100, 108.79, 0};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(e.equity[k], e_equity[k], 1e-9) << k;
    EXPECT_NEAR(e.open_pnl[k], e_open[k], 1e-9) << k;
    EXPECT_NEAR(e.reward[k], e_reward[k], 1e-9) << k;
  }
  EXPECT_EQ(e.units[0], 10.0);
  EXPECT_EQ(e.units[2], 0.0);
  EXPECT_EQ(e.metrics[int(kbt::Metric::n_trades)], 1);
  // Discrete buy, hold, sell, hold: the sell reverses at 121, sized by the equity
  // marked before the bar's fills (-1 + 10 x 121 = 1209) — close 10 (fee 1.21, cash
  // 1207.79), then short 1209 / 121 units (fee 1.209, cash 2415.581): E 1206.581,
  // the short's open PnL 1209 - 1.209 - 1209 = -1.209; the last bar decides nothing.
  const std::vector<double> discrete = {1, 0, 2, 0};
  kbt::ActionSettings d;
  d.kind = kbt::ActionKind::discrete;
  const auto r = device.run(kbt::ActionMatrix{discrete.data(), 1, 1, 4}, d, true, pnl);
  const std::vector<double> d_equity = {999, 1099, 1206.581, 1206.581}, d_open = {-1, 99, -1.209, -1.209};
  for (std::size_t k = 0; k < 4; ++k) {
    EXPECT_NEAR(r.equity[k], d_equity[k], 1e-9) << k;
    EXPECT_NEAR(r.open_pnl[k], d_open[k], 1e-9) << k;
  }
  EXPECT_EQ(r.units[1], 10.0);
  EXPECT_NEAR(r.units[2], -1209.0 / 121, 1e-12);
  EXPECT_EQ(r.metrics[int(kbt::Metric::n_trades)], 2);
  // A cash reserve of 0.5 buys half as much: 5 units, fee 0.5.
  d.cash_reserve = 0.5;
  EXPECT_NEAR(device.run(kbt::ActionMatrix{discrete.data(), 1, 1, 4}, d, true, pnl).open_pnl[0], -0.5, 1e-12);
}

// While one trade stays open, nothing is realised: equity = initial capital +
// unrealised PnL at every close (fees, slippage, borrow and funding included),
// and a flat trial's unrealised PnL is 0.
TYPED_TEST(SimulateActions, UnrealisedPnlIsTheEquityGainWhileOneTradeStaysOpen) {
  const kbt::BarData bars = kbt::test::synthetic_bars(2, 800, 9, true);
  kbt::SimulationSettings settings;
  settings.fee_bps = 5;
  settings.slippage_bps = 2;
  settings.borrow_rate = 0.1;
  const kbt::ResolvedSimulation sim = kbt::resolve_simulation(settings, bars);
  std::vector<double> actions(3 * 2 * 800, 0.0);
  for (std::size_t b = 0; b < 800; ++b) {
    actions[0 * 1600 + b] = 0.5;          // trial 0: long the first symbol throughout
    actions[0 * 1600 + 800 + b] = -0.25;  // and short the second (borrow)
    actions[1 * 1600 + 800 + b] = b < 10 ? 0.0 : 1.0;  // trial 1: long the second from bar 10
  }                                                    // trial 2: flat
  const kbt::ActionMatrix matrix{actions.data(), 3, 2, 800};
  kbt::ActionSimulator<TypeParam> device(bars, sim);
  const auto got = device.run(matrix, {}, true);
  ASSERT_EQ(got.open_pnl.size(), 3u * 800);
  double moved = 0;
  for (std::size_t t = 0; t < 2; ++t)
    for (std::size_t k = 0; k < 800; ++k) {
      const double gain = got.equity[t * 800 + k] - sim.initial_capital;
      EXPECT_NEAR(got.open_pnl[t * 800 + k], gain, 1e-9 * sim.initial_capital) << "trial " << t << ", bar " << k;
      moved = std::max(moved, std::fabs(gain));
    }
  EXPECT_GT(moved, 10.0) << "positions that never move prove nothing";
  for (std::size_t k = 0; k < 800; ++k) EXPECT_EQ(got.open_pnl[2 * 800 + k], 0.0);
  EXPECT_EQ(got.open_pnl[1 * 800 + 5], 0.0) << "no trade is open before bar 10";
  EXPECT_GT(got.metrics[0 * kbt::n_metrics + int(kbt::Metric::fees_paid)], 0.0);
}

// A cash reserve scales every target; a spread is half of it more slippage
// on every fill: each equals the run without it but with its effect spelt out.
TYPED_TEST(SimulateActions, ReserveScalesTargetsAndSpreadIsHalfMoreSlippage) {
  const kbt::BarData bars = kbt::test::synthetic_bars(1, 1000, 4);
  const auto actions = random_actions(4, 1, 1000, false, 3);
  kbt::SimulationSettings plain;
  plain.fee_bps = 3;
  plain.slippage_bps = 1;
  kbt::SimulationSettings wider = plain;
  wider.slippage_bps = 1 + 6.0 / 2;
  kbt::ActionSettings reserve_and_spread{kbt::ActionKind::exposure, 0.25, 6};
  std::vector<double> scaled(actions);
  for (double& a : scaled) a *= 0.75;
  kbt::ActionSimulator<TypeParam> with(bars, kbt::resolve_simulation(kbt::with_spread(plain, 6), bars));
  kbt::ActionSimulator<TypeParam> spelt_out(bars, kbt::resolve_simulation(wider, bars));
  const auto a = with.run(kbt::ActionMatrix{actions.data(), 4, 1, 1000}, reserve_and_spread, true);
  const auto b = spelt_out.run(kbt::ActionMatrix{scaled.data(), 4, 1, 1000}, {}, true);
  EXPECT_TRUE(same_bits(a.metrics, b.metrics));
  EXPECT_TRUE(same_bits(a.equity, b.equity));
  EXPECT_GT(a.metrics[int(kbt::Metric::n_trades)], 5);
  const auto unscaled = spelt_out.run(kbt::ActionMatrix{actions.data(), 4, 1, 1000}, {}, false);
  EXPECT_FALSE(same_bits(a.metrics, unscaled.metrics)) << "the reserve changed nothing: a vacuous case";
}

// Kokkos' allocations, counted through its tools interface.
std::size_t g_allocations = 0;
void count_allocation(const Kokkos_Profiling_SpaceHandle, const char*, const void*, const std::uint64_t) {
  ++g_allocations;
}
void no_tool(const int, const std::uint64_t, const std::uint32_t, Kokkos_Profiling_KokkosPDeviceInfo*) {}

// A training loop's second call allocates nothing: the bars stay on the device,
// the scratch keeps its size, the actions and outputs are the caller's.
TYPED_TEST(SimulateActions, RepeatedCallsAllocateNothing) {
  const kbt::BarData bars = kbt::test::synthetic_bars(2, 500, 8);
  const kbt::ResolvedSimulation sim = kbt::resolve_simulation(general_settings(), bars);
  kbt::ActionSimulator<TypeParam> device(bars, sim);
  using Mem = typename TypeParam::memory_space;
  const auto host = random_actions(6, 2, 500, false, 5);
  const auto actions = Kokkos::create_mirror_view_and_copy(
      Mem(), Kokkos::View<const double***, Kokkos::LayoutRight, Kokkos::HostSpace,
                          Kokkos::MemoryTraits<Kokkos::Unmanaged>>(host.data(), 6, 2, 500));
  typename kbt::ActionSimulator<TypeParam>::Outputs out;
  out.metrics = decltype(out.metrics)("m", 6, kbt::n_metrics);
  out.equity = decltype(out.equity)("e", 6, device.n_window_bars());
  out.reward = decltype(out.reward)("r", 6, device.n_window_bars());
  Kokkos::Tools::Experimental::set_init_callback(no_tool);  // marks a tool as loaded
  Kokkos::Tools::Experimental::set_allocate_data_callback(count_allocation);
  g_allocations = 0;
  device.run(actions, {}, out);
  const std::size_t first = g_allocations;
  for (int epoch = 0; epoch < 3; ++epoch) device.run(actions, {}, out, {kbt::RewardKind::pnl, 0.01});
  const std::size_t later = g_allocations - first;
  Kokkos::Tools::Experimental::set_allocate_data_callback(nullptr);
  Kokkos::Tools::Experimental::set_init_callback(nullptr);
  EXPECT_GT(first, 0u) << "the first call sizes the scratch: no allocation seen means the counter is not hooked";
  EXPECT_EQ(later, 0u);
  // Only some per-bar views (equity, reward): those are the reference's.
  const auto ref = kbt::simulate_actions_reference(bars, sim, kbt::ActionMatrix{host.data(), 6, 2, 500}, {}, true,
                                                   {kbt::RewardKind::pnl, 0.01});
  const auto reward = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.reward);
  const auto metrics = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out.metrics);
  EXPECT_TRUE(same_bits(std::vector<double>(reward.data(), reward.data() + reward.size()), ref.reward));
  EXPECT_TRUE(same_bits(std::vector<double>(metrics.data(), metrics.data() + metrics.size()), ref.metrics));
}

TYPED_TEST(SimulateActions, ActionsThatAreNotActionsAreRefusedBeforeAnyWork) {
  const kbt::BarData bars = kbt::test::synthetic_bars(2, 300, 3);
  const kbt::ResolvedSimulation sim = kbt::resolve_simulation(kbt::SimulationSettings{}, bars);
  kbt::ActionSimulator<TypeParam> device(bars, sim);
  const auto message = [&](std::vector<double> actions, kbt::ActionSettings s, std::size_t symbols, bool on_device) {
    const kbt::ActionMatrix m{actions.data(), actions.size() / (symbols * 300), symbols, 300};
    try {
      if (on_device) {
        using Mem = typename TypeParam::memory_space;
        const auto dev = Kokkos::create_mirror_view_and_copy(
            Mem(), Kokkos::View<const double***, Kokkos::LayoutRight, Kokkos::HostSpace,
                                Kokkos::MemoryTraits<Kokkos::Unmanaged>>(actions.data(), m.n_trials, symbols, 300));
        typename kbt::ActionSimulator<TypeParam>::Outputs out;
        out.metrics = decltype(out.metrics)("m", m.n_trials, kbt::n_metrics);
        device.run(dev, s, out);
      } else {
        kbt::simulate_actions_reference(bars, sim, m, s);
      }
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), kbt::ErrorCategory::config);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::vector<double> a(2 * 2 * 300, 0.5);
  a[600 + 300 + 7] = NAN;  // trial 1, second symbol, bar 7
  for (const bool on_device : {false, true}) {
    SCOPED_TRACE(on_device ? "device" : "reference");
    EXPECT_NE(message(a, {}, 2, on_device).find("actions: trial 1, symbol " + bars.symbols[1] + ", bar 7 ("),
              std::string::npos)
        << message(a, {}, 2, on_device);
    EXPECT_NE(message(a, {}, 2, on_device).find("NaN is not an action: a target exposure is a number in [-1, 1]"),
              std::string::npos);
    a[907] = 1.25;
    EXPECT_NE(message(a, {}, 2, on_device).find("1.25 is not an action"), std::string::npos);
    a[907] = 1;  // every action an exposure
    EXPECT_EQ(message(a, {}, 2, on_device), "no error");
    kbt::ActionSettings discrete;
    discrete.kind = kbt::ActionKind::discrete;
    EXPECT_NE(message(a, discrete, 2, on_device).find("0.5 is not an action: a discrete action is 0 (hold), 1 (buy) or 2 (sell)"),
              std::string::npos)
        << message(a, discrete, 2, on_device);
    EXPECT_NE(message(std::vector<double>(300, 0), {}, 1, on_device).find("do not match the data's 2 symbols x 300 bars"),
              std::string::npos)
        << message(std::vector<double>(300, 0), {}, 1, on_device);
    kbt::ActionSettings reserve;
    reserve.cash_reserve = 1;
    EXPECT_NE(message(a, reserve, 2, on_device).find("cash_reserve must be in [0, 1)"), std::string::npos);
    a[907] = NAN;
  }
}

}  // namespace
