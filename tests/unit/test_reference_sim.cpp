// Reference simulator, single symbol: fills, costs, NaN targets, window, end of data.
// Every expected number is worked by hand in the comments (docs/semantics.md).

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

TEST(ReferenceSim, CloseFillWithFee) {
  // closes 100, 110, 121, 121; target 1, NaN, 0, NaN; fee 10 bps.
  // bar 0: buy 1*1000/100 = 10 units at 100: cash 1000 - 1000 - fee 1 = -1; E0 = -1 + 1000 = 999
  // bar 1: E1 = -1 + 10*110 = 1099
  // bar 2: sell 10 at 121 = 1210, fee 1.21: cash = 1207.79; E2 = 1207.79
  // bar 3: flat, E3 = 1207.79.  Trade pnl = -1000 - 1 + 1210 - 1.21 = 207.79, return 0.20779.
  const BarData data = make_data({flat_bars({100, 110, 121, 121})});
  SimulationSettings sim = base_settings();
  sim.fee_bps = 10;
  const auto r = run(data, sim, targets({{1, NaN, 0, NaN}}));
  ASSERT_EQ(r.equity.size(), 4u);
  expect_close(r.equity[0], 999);
  expect_close(r.equity[1], 1099);
  expect_close(r.equity[2], 1207.79);
  expect_close(r.equity[3], 1207.79);
  ASSERT_EQ(r.trades.size(), 1u);
  const Trade& t = r.trades[0];
  EXPECT_EQ(t.side, 1);
  EXPECT_EQ(t.entry_bar, 0u);
  EXPECT_EQ(t.exit_bar, 2u);
  expect_close(t.units, 10);
  expect_close(t.entry_price, 100);
  expect_close(t.exit_price, 121);
  expect_close(t.fees, 2.21);
  expect_close(t.pnl, 207.79);
  expect_close(t.trade_return, 0.20779);
  EXPECT_EQ(t.exit_reason, ExitReason::signal);
  expect_close(metric(r.metrics, Metric::fees_paid), 2.21);
  expect_close(metric(r.metrics, Metric::final_equity), 1207.79);
  expect_close(metric(r.metrics, Metric::total_return), 0.20779);
  EXPECT_EQ(metric(r.metrics, Metric::n_trades), 1);
  EXPECT_EQ(metric(r.metrics, Metric::win_rate), 1);
  expect_close(metric(r.metrics, Metric::avg_trade_duration), 2);
  // Position held during bars 1 and 2 of 4.
  expect_close(metric(r.metrics, Metric::exposure), 0.5);
  // Traded notional 1000 + 1210 over mean equity (999+1099+1207.79+1207.79)/4.
  expect_close(metric(r.metrics, Metric::turnover), 2210 / (4513.58 / 4));
}

TEST(ReferenceSim, SlippageMovesThePriceAgainstTheTrader) {
  // Same path, slippage 100 bps, fee 10 bps. Units are sized on the reference price.
  // bar 0: buy 10 at 101: cash = 1000 - 1010 - 1.01 = -11.01; E0 = -11.01 + 1000 = 988.99
  // bar 2: sell 10 at 121*0.99 = 119.79: +1197.9, fee 1.1979: cash = 1185.6921
  // Trade pnl 185.6921 on notional 10*101 = 1010: return 0.18385356435643564.
  const BarData data = make_data({flat_bars({100, 110, 121, 121})});
  SimulationSettings sim = base_settings();
  sim.fee_bps = 10;
  sim.slippage_bps = 100;
  const auto r = run(data, sim, targets({{1, NaN, 0, NaN}}));
  expect_close(r.equity[0], 988.99);
  expect_close(r.equity[1], -11.01 + 1100);
  expect_close(r.equity[3], 1185.6921);
  ASSERT_EQ(r.trades.size(), 1u);
  expect_close(r.trades[0].entry_price, 101);
  expect_close(r.trades[0].exit_price, 119.79);
  expect_close(r.trades[0].trade_return, 185.6921 / 1010);
  expect_close(metric(r.metrics, Metric::fees_paid), 1.01 + 1.1979);
}

TEST(ReferenceSim, LongPaysPositiveFundingShortReceivesIt) {
  // closes 100 flat; rate 0.5 on bar 0 (position not yet held: not charged), 0.001 on bars 1, 2.
  // Long 10 units: pays 10*100*0.001 = 1 per bar: E = 1000, 999, 998.
  // Short -10 units: receives 1 per bar: E = 1000, 1001, 1002.
  for (double side : {1.0, -1.0}) {
    BarData data = make_data({flat_bars({100, 100, 100})});
    set_funding(data, {{0.5, 0.001, 0.001}});
    const auto r = run(data, base_settings(), targets({{side, NaN, NaN}}));
    expect_close(r.equity[0], 1000);
    expect_close(r.equity[1], 1000 - side * 1);
    expect_close(r.equity[2], 1000 - side * 2);
    expect_close(metric(r.metrics, Metric::funding_paid), side * 2);
    ASSERT_EQ(r.trades.size(), 1u);
    expect_close(r.trades[0].funding, side * 2);
  }
}

TEST(ReferenceSim, NaNFundingRateChargesNothing) {
  BarData data = make_data({flat_bars({100, 100, 100})});
  set_funding(data, {{NaN, NaN, 0.001}});
  const auto r = run(data, base_settings(), targets({{1, NaN, NaN}}));
  expect_close(r.equity[1], 1000);
  expect_close(r.equity[2], 999);
}

TEST(ReferenceSim, BorrowIsChargedOnShortsOnly) {
  // borrow_rate 0.365 a year at 365 bars a year = 0.001 per bar on |units| * close.
  // Short 10 at 100: cash 2000, E0 = 2000 - 1000 = 1000; then -1 per bar: 999, 998.
  const BarData data = make_data({flat_bars({100, 100, 100})});
  SimulationSettings sim = base_settings();
  sim.borrow_rate = 0.365;
  auto r = run(data, sim, targets({{-1, NaN, NaN}}));
  expect_close(r.equity[1], 999);
  expect_close(r.equity[2], 998);
  expect_close(r.trades.at(0).borrow, 2);
  EXPECT_EQ(metric(r.metrics, Metric::funding_paid), 0);  // borrow is not funding
  r = run(data, sim, targets({{1, NaN, NaN}}));
  expect_close(r.equity[2], 1000);
}

TEST(ReferenceSim, NextOpenFillsAtTheFollowingOpen) {
  // (open, close): (100,100) (104,110) (112,120) (125,130); target 1 on bar 0 only.
  // close fill: 10 units at 100 -> final 1300.
  // next_open: fills at open of bar 1 = 104, units 1000/104; E1 = 1000*110/104,
  //   final 1000*130/104 = 1250; the open trade ends at the last close (end_of_data,
  //   no fee): return 130/104 - 1 = 0.25 over 3 - 1 = 2 bars.
  const BarData data = make_data({{{100, 100, 100, 100}, {104, 111, 103, 110},
                                   {112, 121, 111, 120}, {125, 131, 124, 130}}});
  SimulationSettings sim = base_settings();
  sim.fee_bps = 10;
  const auto sig = targets({{1, NaN, NaN, NaN}});
  auto r = run(data, sim, sig);
  expect_close(r.equity[3], 1300 - 1);
  sim.fill = SimulationSettings::Fill::next_open;
  r = run(data, sim, sig);
  expect_close(r.equity[0], 1000);
  // Fee 1000 * 0.001 = 1 on the fill at the open.
  expect_close(r.equity[1], 1000.0 * 110 / 104 - 1);
  expect_close(r.equity[3], 1250 - 1);
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].entry_bar, 1u);
  EXPECT_EQ(r.trades[0].exit_bar, 3u);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::end_of_data);
  expect_close(r.trades[0].exit_price, 130);
  expect_close(r.trades[0].trade_return, (1250.0 - 1000 - 1) / 1000);
  expect_close(metric(r.metrics, Metric::fees_paid), 1);  // no fee on the end-of-data close
  expect_close(metric(r.metrics, Metric::avg_trade_duration), 2);
  // Held during bars 1..3 of 4.
  expect_close(metric(r.metrics, Metric::exposure), 0.75);
}

TEST(ReferenceSim, NoDecisionOnTheLastBar) {
  // A target change on the last window bar trades in neither fill mode.
  const BarData data = make_data({flat_bars({100, 100, 100})});
  SimulationSettings sim = base_settings();
  for (auto fill : {SimulationSettings::Fill::close, SimulationSettings::Fill::next_open}) {
    sim.fill = fill;
    const auto r = run(data, sim, targets({{0, 0, 1}}));
    EXPECT_EQ(metric(r.metrics, Metric::n_trades), 0);
    EXPECT_EQ(metric(r.metrics, Metric::final_equity), 1000);
    EXPECT_EQ(metric(r.metrics, Metric::exposure), 0);
  }
}

TEST(ReferenceSim, NaNTargetKeepsThePosition) {
  // closes 100, 100, 200, 200, 200; target 1, NaN, NaN, 0.5, NaN.
  // bar 0: 10 units. bar 2: E = 2000. bar 3: 0.5*2000/200 = 5 units: sell 5 at 200,
  // cash 0 + 1000 = 1000, E3 = 1000 + 5*200 = 2000. One trade (a resize is not a new
  // trade) that ends at the last close: pnl -1000 + 1000 + 5*200 = 1000, return 1.
  const BarData data = make_data({flat_bars({100, 100, 200, 200, 200})});
  const auto r = run(data, base_settings(), targets({{1, NaN, NaN, 0.5, NaN}}));
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::end_of_data);
  expect_close(r.trades[0].units, 10);
  expect_close(r.trades[0].pnl, 1000);
  expect_close(r.trades[0].trade_return, 1.0);
  expect_close(r.equity[4], 2000);
  expect_close(metric(r.metrics, Metric::turnover), 2000 / ((1000 + 1000 + 2000 + 2000 + 2000) / 5.0));
}

TEST(ReferenceSim, WarmUpNaNHoldsNothing) {
  const BarData data = make_data({flat_bars({100, 50, 100, 200})});
  const auto r = run(data, base_settings(), targets({{NaN, NaN, 1, NaN}}));
  // Enters at close of bar 2 (100): 10 units, final 2000.
  expect_close(r.equity[1], 1000);
  expect_close(r.equity[3], 2000);
}

TEST(ReferenceSim, RepeatedEqualTargetDoesNotTrade) {
  // The target is traded to only when it changes: exposure drifts with price.
  const BarData data = make_data({flat_bars({100, 200, 100, 100})});
  SimulationSettings sim = base_settings();
  sim.fee_bps = 10;
  const auto r = run(data, sim, targets({{1, 1, 1, 1}}));
  expect_close(metric(r.metrics, Metric::fees_paid), 1);
  expect_close(r.equity[1], 1999);
}

TEST(ReferenceSim, ReversalPaysFeesOnBothLegs) {
  // closes 100, 100, 100; target 1 then -1; fee 10 bps.
  // bar 0: buy 10 (fee 1), cash -1, E0 = 999.
  // bar 1: E = 999. Close leg: sell 10 at 100 (fee 1) -> cash 998; trade 1 pnl -2.
  //   Open leg sized on the pre-trade equity 999: -9.99 units, sell at 100 (+999,
  //   fee 0.999) -> cash 1996.001; E1 = 1996.001 - 999 = 997.001.
  const BarData data = make_data({flat_bars({100, 100, 100})});
  SimulationSettings sim = base_settings();
  sim.fee_bps = 10;
  const auto r = run(data, sim, targets({{1, -1, NaN}}));
  expect_close(r.equity[1], 997.001);
  ASSERT_EQ(r.trades.size(), 2u);
  expect_close(r.trades[0].pnl, -2);
  expect_close(r.trades[0].trade_return, -0.002);
  EXPECT_EQ(r.trades[1].side, -1);
  expect_close(r.trades[1].units, -9.99);
  expect_close(r.trades[1].pnl, -0.999);
  expect_close(metric(r.metrics, Metric::fees_paid), 2.999);
}

TEST(ReferenceSim, ScoringWindowStartsFlatWithWarmedUpTargets) {
  // closes 100, 200, 100, 150; target 1 on bar 0 then NaN; score_start = bar 2.
  // The carried target (1) is in force at bar 2: buy 10 at 100, final 1500.
  const BarData data = make_data({flat_bars({100, 200, 100, 150})});
  SimulationSettings sim = base_settings();
  sim.score_start_bar = 2;
  const auto sig = targets({{1, NaN, NaN, NaN}});
  auto r = run(data, sim, sig);
  EXPECT_EQ(r.window.begin, 2u);
  EXPECT_EQ(r.window.end, 4u);
  ASSERT_EQ(r.equity.size(), 2u);
  expect_close(r.equity[0], 1000);
  expect_close(r.equity[1], 1500);
  expect_close(metric(r.metrics, Metric::total_return), 0.5);
  // The same window by timestamp: the first bar at or after a time between bars 1 and 2.
  sim.score_start_bar.reset();
  sim.score_start_time_ns = data.timestamps[1] + 1;
  r = run(data, sim, sig);
  EXPECT_EQ(r.window.begin, 2u);
  expect_close(metric(r.metrics, Metric::final_equity), 1500);
  // And an end: [2, 3) holds one bar, where no decision is taken.
  SimulationOptions opts;
  opts.score_end_bar = 3;
  r = simulate_reference(data, sim, sig, opts);
  EXPECT_EQ(metric(r.metrics, Metric::final_equity), 1000);
}

TEST(ReferenceSim, NaNBarDoesNotTradeAndKeepsTheLastMark) {
  // closes 100, NaN, 120, 120; target 1 on bar 1 (no price: waits) -> trades at bar 2.
  const BarData data = make_data({{flat(100), {NaN, NaN, NaN, NaN}, flat(120), flat(120)}});
  auto r = run(data, base_settings(), targets({{0, 1, NaN, NaN}}));
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].entry_bar, 2u);
  // Held from bar 0 through a NaN bar: marked at 100 on bar 1.
  r = run(data, base_settings(), targets({{1, NaN, NaN, NaN}}));
  expect_close(r.equity[1], 1000);
  expect_close(r.equity[2], 1200);
}

TEST(ReferenceSim, RuinedAccountGoesFlat) {
  // closes 100, 40, 40, 40; target 2 (cap 2): 20 units, cash -1000.
  // bar 1: E = -1000 + 20*40 = -200 <= 0: ruined (docs/semantics.md "Ruin"):
  // the 20 units close at the mark 40 without costs, cash and equity become 0.
  // Trade return (-2000 + 800) / 2000 = -0.6; no new position afterwards.
  const BarData data = make_data({flat_bars({100, 40, 40, 40})});
  SimulationSettings sim = base_settings();
  sim.max_gross_leverage = 2;
  const auto r = run(data, sim, targets({{2, NaN, NaN, NaN}}));
  ASSERT_EQ(r.trades.size(), 1u);
  EXPECT_EQ(r.trades[0].exit_bar, 1u);
  EXPECT_EQ(r.trades[0].exit_reason, ExitReason::ruin);
  expect_close(r.trades[0].trade_return, -0.6);
  ASSERT_TRUE(r.ruin_bar.has_value());
  EXPECT_EQ(*r.ruin_bar, 1u);
  expect_close(r.ruin_equity, -200);
  EXPECT_EQ(metric(r.metrics, Metric::final_equity), 0);
  EXPECT_EQ(metric(r.metrics, Metric::total_return), -1);
  EXPECT_EQ(metric(r.metrics, Metric::cagr), -1);
  EXPECT_EQ(metric(r.metrics, Metric::max_drawdown), -1);
}

TEST(ReferenceSim, ZeroReturnsGiveNaNSharpe) {
  const BarData data = make_data({flat_bars({100, 100, 100, 100})});
  const auto r = run(data, base_settings(), targets({{1, NaN, NaN, NaN}}));
  EXPECT_TRUE(std::isnan(metric(r.metrics, Metric::sharpe)));
  EXPECT_TRUE(std::isnan(metric(r.metrics, Metric::sortino)));
  EXPECT_EQ(metric(r.metrics, Metric::ann_volatility), 0);
  EXPECT_EQ(metric(r.metrics, Metric::max_drawdown), 0);
}

// docs/metrics.md "Annualisation": the scoring window's bar density.
TEST(ReferenceSim, PeriodsPerYearOfEvenlySpacedBarsIsTheSpacingRule) {
  BarData data = make_data({flat_bars({1, 1, 1, 1})});
  SimulationSettings sim;
  EXPECT_EQ(resolve_periods_per_year(data, sim), 365.0);
  for (std::size_t i = 0; i < 4; ++i) data.timestamps[i] = static_cast<std::int64_t>(i) * 3600LL * 1000000000LL;
  EXPECT_EQ(resolve_periods_per_year(data, sim), 8760.0);  // 24/7 hourly
  sim.periods_per_year = 252;
  EXPECT_EQ(resolve_periods_per_year(data, sim), 252.0);
}

namespace {

// Days since 1970-01-01 of a civil date (Howard Hinnant's days_from_civil),
// written out here so that the expected density does not reuse kbt's clock.
long days_from_civil(long y, unsigned m, unsigned d) {
  y -= m <= 2;
  const long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long>(doe) - 719468;
}

// An exchange's daily bars: weekdays of 2010-2012 without nine holidays a year
// (fixed dates near NYSE's; some fall on weekends), at 21:00 UTC; a close that
// grows by 0.03 % a bar.
BarData weekday_daily_bars(long& first_day, long& last_day) {
  std::vector<long> days;
  for (long day = days_from_civil(2010, 1, 4); day <= days_from_civil(2012, 12, 31); ++day) {
    const long weekday = (day + 4) % 7;  // 1970-01-01 was a Thursday (4); 0 = Sunday
    if (weekday == 0 || weekday == 6) continue;
    bool holiday = false;
    for (long y = 2010; y <= 2012; ++y)
      for (const auto& [m, d] : {std::pair<unsigned, unsigned>{1, 1}, {1, 18}, {2, 15}, {4, 2}, {5, 31}, {7, 4},
                                 {9, 6}, {11, 25}, {12, 25}})
        holiday = holiday || day == days_from_civil(y, m, d);
    if (!holiday) days.push_back(day);
  }
  std::vector<double> closes;
  for (std::size_t i = 0; i < days.size(); ++i) closes.push_back(100.0 * std::pow(1.0003, static_cast<double>(i)));
  BarData data = make_data({flat_bars(closes)});
  for (std::size_t i = 0; i < days.size(); ++i) data.timestamps[i] = (days[i] * 86400LL + 21 * 3600LL) * 1000000000LL;
  first_day = days.front(), last_day = days.back();
  return data;
}

}  // namespace

// Weekday-only daily data with holidays: about 252 bars a year, not 365; CAGR
// over the calendar span (the 8.53 years of GOOG gave 13.6 % at 365 a year
// where its calendar CAGR is 9.2 %), and a warning that the spacing disagrees.
TEST(ReferenceSim, PeriodsPerYearOfWeekdayBarsIsTheirDensity) {
  long first = 0, last = 0;
  const BarData data = weekday_daily_bars(first, last);
  const double n = static_cast<double>(data.n_bars()), days = static_cast<double>(last - first);
  SimulationSettings settings;
  settings.initial_capital = 1000;
  const ResolvedSimulation sim = resolve_simulation(settings, data);
  EXPECT_NEAR(sim.periods_per_year, (n - 1) / (days / 365.0), 1e-9);
  EXPECT_NEAR(sim.periods_per_year, 252, 3);
  EXPECT_EQ(sim.periods_per_year_by_spacing, 365.0);
  const auto warning = annualisation_warning(sim);
  ASSERT_TRUE(warning.has_value());
  EXPECT_NE(warning->find("simulation.periods_per_year"), std::string::npos) << *warning;

  // Buy at the first close, hold: CAGR is the growth per calendar year of the
  // window's span, n returns over (days) * n / (n - 1).
  std::vector<double> target(data.n_bars(), NaN);
  target[0] = 1;
  const SimulationResult r = simulate_reference(data, sim, targets({target}));
  const double growth = metric(r.metrics, Metric::final_equity) / 1000;
  ASSERT_GT(growth, 1.2) << "a flat series proves nothing";
  expect_close(metric(r.metrics, Metric::cagr), std::pow(growth, 365.0 / (days * n / (n - 1))) - 1, "cagr");
  EXPECT_EQ(r.periods_per_year, sim.periods_per_year);

  // The override wins, says so, and does not warn.
  settings.periods_per_year = 252;
  const ResolvedSimulation given = resolve_simulation(settings, data);
  EXPECT_EQ(given.periods_per_year, 252.0);
  EXPECT_EQ(given.periods_per_year_source, "simulation.periods_per_year");
  EXPECT_FALSE(annualisation_warning(given).has_value());
}

// 24/7 hourly data with one two-day outage: the density is a little under
// 8,760 and, within 10 % of the spacing, gives no warning.
TEST(ReferenceSim, PeriodsPerYearOfHourlyBarsWithAnOutage) {
  BarData data = make_data({flat_bars(std::vector<double>(2000, 1.0))});
  for (std::size_t i = 0; i < 2000; ++i)
    data.timestamps[i] = (static_cast<std::int64_t>(i) + (i >= 1000 ? 48 : 0)) * 3600LL * 1000000000LL;
  const ResolvedSimulation sim = resolve_simulation(SimulationSettings{}, data);
  EXPECT_NEAR(sim.periods_per_year, 1999.0 / (2047.0 / 8760.0), 1e-9);
  EXPECT_EQ(sim.periods_per_year_by_spacing, 8760.0);
  EXPECT_FALSE(annualisation_warning(sim).has_value());
  EXPECT_NE(sim.periods_per_year_source.find("2000 bars"), std::string::npos) << sim.periods_per_year_source;
}

TEST(ReferenceSim, InvalidSettingsAreConfigErrors) {
  const BarData data = make_data({flat_bars({100, 100})});
  const auto sig = targets({{1, NaN}});
  auto expect_config_error = [&](const SimulationSettings& sim, const char* needle) {
    try {
      simulate_reference(data, sim, sig);
      ADD_FAILURE() << "no error for " << needle;
    } catch (const Error& e) {
      EXPECT_EQ(e.category(), ErrorCategory::config);
      EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    }
  };
  SimulationSettings sim = base_settings();
  sim.stop_loss = -0.1;
  expect_config_error(sim, "stop_loss");
  sim = base_settings();
  sim.score_start_bar = 2;
  expect_config_error(sim, "score_start");
  sim = base_settings();
  sim.initial_capital = 0;
  expect_config_error(sim, "initial_capital");
  sim.initial_capital = 1e308;  // every metric NaN before: units x price overflowed
  expect_config_error(sim, "at most 1e18");
  sim = base_settings();
  sim.fee_bps_by_venue = {{"binance", 7.5}};
  expect_config_error(sim, "venues");
}

TEST(ReferenceSim, MismatchedSignalsAreRejected) {
  const BarData data = make_data({flat_bars({100, 100})});
  EXPECT_THROW(simulate_reference(data, base_settings(), targets({{1, NaN, NaN}})), Error);
}

}  // namespace
}  // namespace kbt
