#pragma once
// The statistics `kbt backtest` prints beside the 21 metrics: the window in
// time and bars, buy-and-hold of the same data, exposure, expectancy, SQN,
// and every drawdown with its depth and duration (docs/cli.md "kbt backtest").
// Built on host from one reference simulation kept with its equity curve.

#include <kbt/data/bar_data.hpp>
#include <kbt/reference/simulator.hpp>

#include <cstddef>
#include <cstdint>
#include <vector>

namespace kbt {

// One run of consecutive window bars with E_k < peak_k (peak_k = max(E_0, ...,
// E_k), E_0 the initial capital): the runs whose longest is the
// max_drawdown_duration metric and whose deepest is max_drawdown.
struct DrawdownRun {
  std::size_t first = 0;   // window-relative index of the first bar under water
  std::size_t bars = 0;    // bars in the run
  double depth = 0;        // min over the run of E_k / peak_k - 1 (< 0)
};

// E_k / peak_k - 1 per window bar, and the runs under water.
struct DrawdownPath {
  std::vector<double> drawdown;
  std::vector<DrawdownRun> runs;
};
DrawdownPath drawdown_path(double initial_capital, const std::vector<double>& equity);

// Buying every symbol at its first valid close in the window with an equal
// share of the capital and holding to the last window bar, without costs: the
// equity per window bar and its total return. A symbol without any valid close
// in the window holds its share as cash.
struct BuyAndHold {
  std::vector<double> equity;
  double total_return = 0;
};
BuyAndHold buy_and_hold(const BarData& bars, const ScoringWindow& window, double initial_capital);

struct BacktestReport {
  std::int64_t start_ns = 0, end_ns = 0;  // first and last window bar
  std::size_t bars = 0;
  double equity_peak = 0;
  double expectancy = 0;        // mean PnL per closed trade (currency); NaN without trades
  double sqn = 0;               // sqrt(n) * mean(pnl) / stdev(pnl) (n - 1 in the stdev); NaN for n < 2 or stdev 0
  double avg_drawdown = 0;      // mean depth of the runs (0 without any)
  double avg_drawdown_bars = 0; // mean run length (0 without any)
  // Drawdown runs in time (the longest and the mean; the longest in bars is
  // the max_drawdown_duration metric).
  std::int64_t max_drawdown_ns = 0, avg_drawdown_ns = 0;
  std::int64_t avg_trade_ns = 0;                         // mean exit - entry time of closed trades
  DrawdownPath drawdowns;
  BuyAndHold hold;  // its total_return is the buy-and-hold return
};

// `result` must hold its equity curve (SimulationOptions::keep_equity) and its
// ledger (keep_ledger); kbt::Error(internal) otherwise. A drawdown run's time
// is from its first bar to the bar that regains the peak (to the last window
// bar when none does).
BacktestReport backtest_report(const BarData& bars, const SimulationResult& result, double initial_capital);

}  // namespace kbt
