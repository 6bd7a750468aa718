// Reference simulator: entries/exits form, multi-asset leverage cap, equal weighting,
// per-venue fees, funding on several symbols.

#include "unit/test_reference_sim_fixtures.hpp"

#include <kbt/core/error.hpp>
#include <kbt/reference/simulator.hpp>

#include <gtest/gtest.h>

namespace kbt {
namespace {

using namespace kbt::test;

SimulationResult run(const BarData& data, const SimulationSettings& sim, const StrategyOutputs& sig) {
  SimulationOptions opts;
  opts.keep_ledger = true;
  opts.keep_equity = true;
  return simulate_reference(data, sim, sig, opts);
}

TEST(ReferenceSimEntries, ExitReverseAndReenter) {
  // closes 100, 110, 120, 110, 100, 90
  // le 1 0 0 0 1 0 / lx 0 0 1 0 0 0 / se 0 0 0 1 0 0
  // bar 0: flat & le -> long 10 at 100.          bar 2: lx -> sell at 120, cash 1200 (+0.2)
  // bar 3: flat & se -> short 1200/110 units, cash 2400.
  // bar 4: short & le -> buy back 1200/110 at 100 (pnl 1200 - 12000/11 = 1200/11,
  //        return 1/11), cash 2400 - 12000/11 = 14400/11; then long 14400/11/100 units.
  // bar 5 (last): E = 144/11 * 90 = 12960/11; the long ends at the close: return -0.1.
  const BarData data = make_data({flat_bars({100, 110, 120, 110, 100, 90})});
  const auto r = run(data, base_settings(),
                     entries(6, {1, 0, 0, 0, 1, 0}, {0, 0, 1, 0, 0, 0}, {0, 0, 0, 1, 0, 0}, {}));
  ASSERT_EQ(r.trades.size(), 3u);
  expect_close(r.trades[0].trade_return, 0.2);
  EXPECT_EQ(r.trades[1].side, -1);
  EXPECT_EQ(r.trades[1].entry_bar, 3u);
  expect_close(r.trades[1].trade_return, 1.0 / 11);
  EXPECT_EQ(r.trades[2].side, 1);
  EXPECT_EQ(r.trades[2].entry_bar, 4u);
  expect_close(r.trades[2].trade_return, -0.1);
  EXPECT_EQ(r.trades[2].exit_reason, ExitReason::end_of_data);
  expect_close(r.equity[5], 12960.0 / 11);
  expect_close(metric(r.metrics, Metric::win_rate), 2.0 / 3);
  // Returns 0.2, 1/11, -0.1: gross win 0.2 + 1/11 over gross loss 0.1.
  expect_close(metric(r.metrics, Metric::profit_factor), (0.2 + 1.0 / 11) / 0.1);
  expect_close(metric(r.metrics, Metric::best_trade), 0.2);
  expect_close(metric(r.metrics, Metric::worst_trade), -0.1);
}

TEST(ReferenceSimEntries, BothEntriesWhileFlatDoNothingAndUnknownIsNoSignal) {
  const BarData data = make_data({flat_bars({100, 110, 120})});
  auto r = run(data, base_settings(), entries(3, {1, 1, 0}, {}, {1, 1, 0}, {}));
  EXPECT_EQ(metric(r.metrics, Metric::n_trades), 0);
  EXPECT_TRUE(std::isnan(metric(r.metrics, Metric::win_rate)));
  // Unknown entries never fire; an unknown exit keeps the long.
  r = run(data, base_settings(), entries(3, {NaN, 1, NaN}, {NaN, NaN, NaN}, {}, {}));
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].entry_bar, 1u);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::end_of_data);
}

TEST(ReferenceSimEntries, ShortExitAndLongExitWhileShort) {
  // Short at bar 0 (100); bar 1: long_exit is ignored while short; bar 2: short_exit.
  const BarData data = make_data({flat_bars({100, 90, 80, 80})});
  const auto r = run(data, base_settings(), entries(4, {}, {0, 1, 0, 0}, {1, 0, 0, 0}, {0, 0, 1, 0}));
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].exit_bar, 2u);
  expect_close(r.trades[0].trade_return, 0.2);
  expect_close(r.equity[3], 1200);
}

TEST(ReferenceSimMulti, GrossLeverageCapScalesAllTargets) {
  // A: 100, 110, 120; B: 50, 50, 60. Targets A 1, 0, NaN; B 1, NaN, NaN; cap 1.
  // bar 0: gross 2 > 1: both 0.5 -> A 5 units, B 10 units, cash 0.
  // bar 1: E = 550 + 500 = 1050. Targets A 0, B 1 (gross 1): sell A (cash 550);
  //        B to 1*1050/50 = 21 units: buy 11 at 50 -> cash 0.
  // bar 2: E = 21 * 60 = 1260.
  // (Uncapped: A 10, B 20 units; E2 = 100 + 20 * 60 = 1300.)
  const BarData data = make_data({flat_bars({100, 110, 120}), flat_bars({50, 50, 60})});
  SimulationSettings sim = base_settings();
  const auto sig = targets({{1, 0, NaN}, {1, NaN, NaN}});
  auto r = run(data, sim, sig);
  expect_close(r.equity[1], 1050);
  expect_close(r.equity[2], 1260);
  ASSERT_EQ(r.trades.size(), 2u);
  EXPECT_EQ(r.trades[0].symbol, 0u);  // A closes at bar 1 (signal)
  expect_close(r.trades[0].units, 5);
  EXPECT_EQ(r.trades[1].symbol, 1u);  // B ends at the last close
  expect_close(r.trades[1].units, 10);
  sim.max_gross_leverage = 2;
  r = run(data, sim, sig);
  expect_close(r.equity[2], 1300);
}

TEST(ReferenceSimMulti, EqualWeightingDividesBySymbolCount) {
  // Targets A 1, B 0; equal weighting: A's exposure 1/2 -> 5 units. A 100 -> 120: E = 1100.
  const BarData data = make_data({flat_bars({100, 120}), flat_bars({50, 50})});
  SimulationSettings sim = base_settings();
  sim.weighting = SimulationSettings::Weighting::equal;
  auto r = run(data, sim, targets({{1, NaN}, {0, NaN}}));
  expect_close(r.equity[1], 1100);
  sim.weighting = SimulationSettings::Weighting::raw;
  r = run(data, sim, targets({{1, NaN}, {0, NaN}}));
  expect_close(r.equity[1], 1200);
}

TEST(ReferenceSimMulti, PerVenueFees) {
  // A on binance (10 bps), B on okx (20 bps); each gets 0.5 of 1000: fees 0.5 + 1.0.
  const BarData data = make_data({flat_bars({100, 100}), flat_bars({50, 50})}, {"binance", "okx"});
  SimulationSettings sim = base_settings();
  sim.fee_bps = 99;  // ignored when the map is given
  sim.fee_bps_by_venue = {{"binance", 10}, {"okx", 20}};
  const auto r = run(data, sim, targets({{0.5, NaN}, {0.5, NaN}}));
  expect_close(metric(r.metrics, Metric::fees_paid), 1.5);
  expect_close(r.trades.at(0).fees, 0.5);
  expect_close(r.trades.at(1).fees, 1.0);
  // A venue missing from the map is a config error naming it.
  sim.fee_bps_by_venue = {{"binance", 10}};
  try {
    simulate_reference(data, sim, targets({{0.5, NaN}, {0.5, NaN}}));
    ADD_FAILURE() << "missing venue accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), ErrorCategory::config);
    EXPECT_NE(std::string(e.what()).find("'okx'"), std::string::npos) << e.what();
  }
}

TEST(ReferenceSimMulti, FundingOnEverySymbol) {
  // Long A 5 units at 100 (rate 0.001 -> pays 0.5), short B -10 units at 50
  // (rate 0.002 -> pays -10*50*0.002 = -1, i.e. receives 1). Net funding -0.5.
  BarData data = make_data({flat_bars({100, 100}), flat_bars({50, 50})});
  set_funding(data, {{NaN, 0.001}, {NaN, 0.002}});
  const auto r = run(data, base_settings(), targets({{0.5, NaN}, {-0.5, NaN}}));
  expect_close(metric(r.metrics, Metric::funding_paid), -0.5);
  expect_close(r.equity[1], 1000.5);
}

TEST(ReferenceSimMulti, ASymbolWithoutPriceWaitsOthersTrade) {
  // B has no price on bar 0: A trades at bar 0, B at bar 1 (its target was carried).
  const BarData data = make_data({flat_bars({100, 100, 100}), {{NaN, NaN, NaN, NaN}, flat(50), flat(50)}});
  const auto r = run(data, base_settings(), targets({{0.5, NaN, NaN}, {0.5, NaN, NaN}}));
  ASSERT_EQ(r.trades.size(), 2u);
  EXPECT_EQ(r.trades[0].entry_bar, 0u);
  EXPECT_EQ(r.trades[1].entry_bar, 1u);
  expect_close(r.trades[1].units, 10);
}

TEST(ReferenceSimMulti, NextOpenSizesEveryFillOnTheEquityAtTheOpen) {
  // A: 100, (o 100, c 100), (o 120, c 120), 120; B: 50 throughout.
  // Targets A 0.5 from bar 0, B 0.5 from bar 1; next_open fills.
  // bar 1 open: A 0.5*1000/100 = 5 units, cash 500.
  // bar 2 open: E_open = 500 + 5*120 (A at this open, not its last close) = 1100:
  //   B 0.5*1100/50 = 11 units, cash 500 - 550 = -50; E2 = -50 + 600 + 550 = 1100.
  const BarData data = make_data({flat_bars({100, 100, 120, 120}), flat_bars({50, 50, 50, 50})});
  SimulationSettings sim = base_settings();
  sim.fill = SimulationSettings::Fill::next_open;
  const auto r = run(data, sim, targets({{0.5, NaN, NaN, NaN}, {0, 0.5, NaN, NaN}}));
  ASSERT_EQ(r.trades.size(), 2u);
  EXPECT_EQ(r.trades[1].symbol, 1u);
  EXPECT_EQ(r.trades[1].entry_bar, 2u);
  expect_close(r.trades[1].units, 11);
  expect_close(r.equity[2], 1100);
}

TEST(ReferenceSimMulti, NextOpenOrderWithoutAnOpenLapsesAndIsReissued) {
  // Bar 1 has no open: the order of bar 0 lapses; bar 1's decision re-issues it and it
  // fills at bar 2's open (110): 1000/110 units.
  const BarData data = make_data({{flat(100), {NaN, 100, 100, 100}, flat(110), flat(121)}});
  SimulationSettings sim = base_settings();
  sim.fill = SimulationSettings::Fill::next_open;
  const auto r = run(data, sim, targets({{1, NaN, NaN, NaN}}));
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].entry_bar, 2u);
  expect_close(r.equity[3], 1100);
}

}  // namespace
}  // namespace kbt
