// Reference simulator: stop-loss, take-profit, trailing stop, gaps, same-bar hits,
// re-entry after a stop. Long 10 units at 100 from the close of bar 0 unless noted.

#include "unit/test_reference_sim_fixtures.hpp"

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

TEST(ReferenceSimStops, StopLossInsideTheBarFillsAtTheLevel) {
  // stop_loss 0.05: level 95. Bar 1 (o 99, h 100, l 94, c 96) touches it: sell 10 at 95.
  const BarData data = make_data({{flat(100), {99, 100, 94, 96}, flat(96)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  const auto r = run(data, sim, targets({{1, NaN, NaN}}));
  expect_close(r.equity[1], 950);
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::stop_loss);
  EXPECT_EQ(r.trades[0].exit_bar, 1u);
  expect_close(r.trades[0].exit_price, 95);
  expect_close(r.trades[0].trade_return, -0.05);
  // Exposed on bar 1 (held until the stop), flat on bar 2.
  expect_close(metric(r.metrics, Metric::exposure), 1.0 / 3);
}

TEST(ReferenceSimStops, GapThroughTheStopFillsAtTheOpen) {
  // Bar 1 opens at 90, below the 95 level: sell 10 at 90 -> E1 = 900.
  const BarData data = make_data({{flat(100), {90, 92, 88, 91}, flat(91)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  const auto r = run(data, sim, targets({{1, NaN, NaN}}));
  expect_close(r.equity[1], 900);
  expect_close(r.trades.at(0).exit_price, 90);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::stop_loss);
}

TEST(ReferenceSimStops, GapThroughTheTargetFillsAtTheOpen) {
  // take_profit 0.1: level 110. Bar 1 opens at 115: sell at 115 -> E1 = 1150.
  const BarData data = make_data({{flat(100), {115, 118, 113, 116}, flat(116)}});
  SimulationSettings sim = base_settings();
  sim.take_profit = 0.1;
  const auto r = run(data, sim, targets({{1, NaN, NaN}}));
  expect_close(r.equity[1], 1150);
  EXPECT_EQ(r.trades.at(0).exit_reason, ExitReason::take_profit);
}

TEST(ReferenceSimStops, StopAndTargetInOneBarFollowThePriority) {
  // stop 95, target 110; bar 1 (o 100, h 112, l 94, c 100) touches both.
  const BarData data = make_data({{flat(100), {100, 112, 94, 100}, flat(100)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  sim.take_profit = 0.1;
  auto r = run(data, sim, targets({{1, NaN, NaN}}));  // stop_first (default)
  expect_close(r.equity[1], 950);
  EXPECT_EQ(r.trades.at(0).exit_reason, ExitReason::stop_loss);
  sim.sltp_priority = SimulationSettings::SltpPriority::target_first;
  r = run(data, sim, targets({{1, NaN, NaN}}));
  expect_close(r.equity[1], 1100);
  EXPECT_EQ(r.trades.at(0).exit_reason, ExitReason::take_profit);
}

TEST(ReferenceSimStops, ShortStopsAreMirrored) {
  // Short 10 at 100 (cash 2000). stop_loss 0.05: level 105; bar 1 (o 101, h 106, l 100)
  // touches it: buy 10 at 105 -> cash 950.
  const BarData data = make_data({{flat(100), {101, 106, 100, 104}, flat(104)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  const auto r = run(data, sim, targets({{-1, NaN, NaN}}));
  expect_close(r.equity[1], 950);
  EXPECT_EQ(r.trades.at(0).side, -1);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::stop_loss);
}

TEST(ReferenceSimStops, TrailingStopUsesTheBestPriceUpToThePreviousBar) {
  // trailing 0.1. Bar 1 (o 100, h 120, l 107, c 115): level from best 100 is 90 -> held,
  // even though 107 is below 120*0.9 = 108 (the bar's own high does not count yet).
  // Bar 2 (o 115, h 116, l 107, c 110): level 120*0.9 = 108 -> sell 10 at 108: E2 = 1080.
  const BarData data = make_data({{flat(100), {100, 120, 107, 115}, {115, 116, 107, 110}, flat(110)}});
  SimulationSettings sim = base_settings();
  sim.trailing_stop = 0.1;
  const auto r = run(data, sim, targets({{1, NaN, NaN, NaN}}));
  expect_close(r.equity[1], 1150);
  expect_close(r.equity[2], 1080);
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::trailing_stop);
  EXPECT_EQ(r.trades[0].exit_bar, 2u);
  expect_close(r.trades[0].exit_price, 108);
}

TEST(ReferenceSimStops, TighterOfStopLossAndTrailingNamesTheReason) {
  // stop_loss 0.05 (95) and trailing 0.1 (from best 120: 108). The trailing level is
  // tighter on bar 2, so the exit is a trailing stop at 108; on bar 1 the stop-loss
  // level 95 is tighter than 90.
  const BarData data = make_data({{flat(100), {100, 120, 107, 115}, {115, 116, 107, 110}, flat(110)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  sim.trailing_stop = 0.1;
  const auto r = run(data, sim, targets({{1, NaN, NaN, NaN}}));
  expect_close(r.equity[2], 1080);
  EXPECT_EQ(r.trades.at(0).exit_reason, ExitReason::trailing_stop);
}

TEST(ReferenceSimStops, StopPaysFeeAndSlippage) {
  // fee 10 bps, slippage 100 bps: buy 10 at 101 (fee 1.01): cash -11.01.
  // Stop level 101*0.95 = 95.95, touched by bar 1's low 94: sell at 95.95*0.99 = 94.9905,
  // proceeds 949.905, fee 0.949905 -> cash 937.945095.
  const BarData data = make_data({{flat(100), {99, 100, 94, 96}, flat(96)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  sim.fee_bps = 10;
  sim.slippage_bps = 100;
  const auto r = run(data, sim, targets({{1, NaN, NaN}}));
  expect_close(r.equity[1], 937.945095);
  expect_close(r.trades.at(0).exit_price, 94.9905);
}

TEST(ReferenceSimStops, NextOpenPositionIsCheckedOnItsFillBar) {
  // next_open: the order of bar 0 fills at bar 1's open 100 (10 units); bar 1's low 94
  // touches the 95 stop on the same bar: E1 = 950.
  const BarData data = make_data({{flat(100), {100, 101, 94, 96}, flat(96)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  sim.fill = SimulationSettings::Fill::next_open;
  const auto r = run(data, sim, targets({{1, NaN, NaN}}));
  expect_close(r.equity[1], 950);
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].entry_bar, 1u);
  EXPECT_EQ(r.trades[0].exit_bar, 1u);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::stop_loss);
}

TEST(ReferenceSimStops, CloseFillIsNotCheckedOnItsEntryBar) {
  // Entered at bar 0's close; bar 0's own low (50) is before the entry and is ignored.
  const BarData data = make_data({{{100, 100, 50, 100}, flat(100)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  const auto r = run(data, sim, targets({{1, NaN}}));
  EXPECT_EQ(r.trades.at(0).exit_reason, ExitReason::end_of_data);
}

TEST(ReferenceSimStops, PositionFormStaysFlatUntilTheTargetChanges) {
  // Target 1, 1, 1, 0.5, NaN. Stop at 95 on bar 1 (cash 950). Bars 2: target still 1
  // (re-stated, not changed): stays flat. Bar 3: target 0.5 -> 0.5*950/92 units.
  const BarData data = make_data({{flat(100), {99, 100, 90, 92}, flat(92), flat(92), flat(46)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  const auto r = run(data, sim, targets({{1, 1, 1, 0.5, NaN}}));
  ASSERT_EQ(r.trades.size(), 2u);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::stop_loss);
  EXPECT_EQ(r.trades[1].entry_bar, 3u);
  expect_close(r.trades[1].units, 0.5 * 950 / 92);
  expect_close(r.equity[2], 950);
  // Bar 4: price halves: E = 950 - 475/2.
  expect_close(r.equity[4], 950 - 237.5);
}

TEST(ReferenceSimStops, EntriesFormReentersOnASignalAfterTheStopBar) {
  // long_entry true on every bar (a level). Stop on bar 1: the signal of bar 1 is
  // ignored; bar 2's re-enters at 92.
  const BarData data = make_data({{flat(100), {99, 100, 90, 92}, flat(92), flat(92)}});
  SimulationSettings sim = base_settings();
  sim.stop_loss = 0.05;
  const auto r = run(data, sim, entries(4, {1, 1, 1, 1}, {}, {}, {}));
  ASSERT_EQ(r.trades.size(), 2u);
  EXPECT_EQ(r.trades[0].exit_bar, 1u);
  EXPECT_EQ(r.trades[1].entry_bar, 2u);
  expect_close(r.trades[1].entry_price, 92);
}

}  // namespace
}  // namespace kbt
