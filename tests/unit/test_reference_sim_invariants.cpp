// Accounting identities of the reference simulator on random multi-asset paths with
// every feature on (fees, slippage, borrow, funding, stops, NaN gaps, both fill modes,
// both forms). They hold in exact arithmetic whatever the semantics' details:
//   final equity = initial capital + sum of trade pnl (every cash flow belongs to a trade)
//   fees_paid = sum of trade fees, funding_paid = sum of trade funding
//   metrics agree with the returned equity curve and ledger.

#include "unit/test_reference_sim_fixtures.hpp"

#include <kbt/reference/simulator.hpp>

#include <gtest/gtest.h>

#include <cstdint>

namespace kbt {
namespace {

using namespace kbt::test;

// A tiny portable generator (std distributions differ between standard libraries).
struct SplitMix {
  std::uint64_t x;
  double uniform() {  // [0, 1)
    std::uint64_t z = (x += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    z ^= z >> 31;
    return static_cast<double>(z >> 11) * 0x1.0p-53;
  }
};

struct Scenario {
  BarData data;
  StrategyOutputs positions;
  StrategyOutputs signals;
};

Scenario random_scenario(std::uint64_t seed, std::size_t n_sym, std::size_t n_bars) {
  SplitMix rng{seed};
  std::vector<std::vector<Bar>> bars(n_sym);
  std::vector<std::vector<double>> funding(n_sym), target(n_sym);
  Scenario sc;
  sc.signals.form = StrategyOutputs::Form::entries_exits;
  sc.signals.n_symbols = n_sym;
  sc.signals.n_bars = n_bars;
  for (auto* v : {&sc.signals.long_entry, &sc.signals.long_exit, &sc.signals.short_entry,
                  &sc.signals.short_exit})
    v->assign(n_sym * n_bars, 0.0);
  for (std::size_t s = 0; s < n_sym; ++s) {
    double price = 50 + 100 * rng.uniform();
    for (std::size_t b = 0; b < n_bars; ++b) {
      const double open = price * (1 + 0.01 * (rng.uniform() - 0.5));  // small gaps
      const double close = open * (1 + 0.04 * (rng.uniform() - 0.5));
      const double high = (open > close ? open : close) * (1 + 0.01 * rng.uniform());
      const double low = (open < close ? open : close) * (1 - 0.01 * rng.uniform());
      const bool missing = rng.uniform() < 0.02;
      bars[s].push_back(missing ? Bar{NaN, NaN, NaN, NaN} : Bar{open, high, low, close});
      if (!missing) price = close;
      funding[s].push_back(b % 8 == 0 ? 0.0004 * (rng.uniform() - 0.3) : NaN);
      const double u = rng.uniform();
      target[s].push_back(u < 0.9 ? NaN : (u < 0.93 ? 0.0 : (u < 0.965 ? 0.8 : -0.6)));
      const std::size_t i = s * n_bars + b;
      sc.signals.long_entry[i] = rng.uniform() < 0.05 ? 1.0 : (rng.uniform() < 0.1 ? NaN : 0.0);
      sc.signals.long_exit[i] = rng.uniform() < 0.05 ? 1.0 : 0.0;
      sc.signals.short_entry[i] = rng.uniform() < 0.04 ? 1.0 : 0.0;
      sc.signals.short_exit[i] = rng.uniform() < 0.05 ? 1.0 : NaN;
    }
  }
  sc.data = make_data(bars);
  set_funding(sc.data, funding);
  sc.positions = targets(target);
  return sc;
}

void check_identities(const BarData& data, const SimulationSettings& sim, const StrategyOutputs& sig) {
  SimulationOptions opts;
  opts.keep_ledger = true;
  opts.keep_equity = true;
  const SimulationResult r = simulate_reference(data, sim, sig, opts);
  ASSERT_FALSE(r.trades.empty());
  double pnl = 0, fees = 0, funding = 0, wins = 0, duration = 0;
  for (const Trade& t : r.trades) {
    pnl += t.pnl;
    fees += t.fees;
    funding += t.funding;
    wins += t.trade_return > 0;
    duration += static_cast<double>(t.exit_bar - t.entry_bar);
    EXPECT_LE(t.entry_bar, t.exit_bar);
    EXPECT_GE(t.entry_bar, r.window.begin);
    EXPECT_LT(t.exit_bar, r.window.end);
    EXPECT_NEAR(t.trade_return, t.pnl / (std::fabs(t.units) * t.entry_price), 1e-12);
  }
  const double n = static_cast<double>(r.trades.size());
  const double final_equity = metric(r.metrics, Metric::final_equity);
  EXPECT_NEAR(final_equity, sim.initial_capital + pnl, 1e-7 * sim.initial_capital);
  EXPECT_EQ(final_equity, r.equity.back());
  EXPECT_EQ(r.equity.size(), r.window.end - r.window.begin);
  EXPECT_NEAR(metric(r.metrics, Metric::fees_paid), fees, 1e-9);
  EXPECT_NEAR(metric(r.metrics, Metric::funding_paid), funding, 1e-9);
  EXPECT_EQ(metric(r.metrics, Metric::n_trades), n);
  EXPECT_NEAR(metric(r.metrics, Metric::win_rate), wins / n, 1e-12);
  EXPECT_NEAR(metric(r.metrics, Metric::avg_trade_duration), duration / n, 1e-9);
  // Only the last trade of each symbol can end at the end of the window.
  std::size_t end_of_data = 0;
  for (const Trade& t : r.trades) end_of_data += t.exit_reason == ExitReason::end_of_data;
  EXPECT_LE(end_of_data, data.n_symbols());
  int reasons[5] = {0, 0, 0, 0, 0};
  for (const Trade& t : r.trades) reasons[static_cast<int>(t.exit_reason)]++;
  // The scenario exercises every exit (end_of_data depends on the last bars).
  for (int reason = 0; reason < 4; ++reason)
    EXPECT_GT(reasons[reason], 0) << to_string(static_cast<ExitReason>(reason));
}

class ReferenceSimInvariants : public ::testing::TestWithParam<int> {};

TEST_P(ReferenceSimInvariants, AccountingIdentitiesHold) {
  const int variant = GetParam();
  const Scenario sc = random_scenario(1000 + static_cast<std::uint64_t>(variant), 3, 1500);
  SimulationSettings sim = base_settings();
  sim.fee_bps = 7.5;
  sim.slippage_bps = 3;
  sim.borrow_rate = 0.08;
  sim.stop_loss = 0.03;
  sim.take_profit = 0.06;
  sim.trailing_stop = 0.04;
  sim.max_gross_leverage = 1.5;
  sim.fill = variant % 2 ? SimulationSettings::Fill::next_open : SimulationSettings::Fill::close;
  sim.sltp_priority = variant % 3 ? SimulationSettings::SltpPriority::stop_first
                                  : SimulationSettings::SltpPriority::target_first;
  sim.weighting = variant % 4 < 2 ? SimulationSettings::Weighting::raw : SimulationSettings::Weighting::equal;
  if (variant >= 4) sim.score_start_bar = 300;
  check_identities(sc.data, sim, sc.positions);
  check_identities(sc.data, sim, sc.signals);
}

INSTANTIATE_TEST_SUITE_P(Variants, ReferenceSimInvariants, ::testing::Range(0, 8));

}  // namespace
}  // namespace kbt
