#pragma once
// Pictures of results (`kbt plot`, `output.heatmap` of `kbt run`), drawn by
// gnuplot (pngcairo terminal). kbt writes the data to a temporary directory,
// runs gnuplot from PATH, and moves the PNG into place only when gnuplot
// succeeded (docs/verify.md "Plots").

#include <kbt/data/bar_data.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/report/backtest_report.hpp>
#include <kbt/output/results.hpp>
#include <kbt/validation/validation.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt::plot {

// Full path of the gnuplot executable found on PATH, or "" when there is none.
std::string find_gnuplot();

struct HeatmapRequest {
  std::string x, y;           // two distinct parameter names
  std::string metric;         // a metric name; empty: the run's objective
  std::string agg = "best";   // best: other params at the best combo's values; max | median over them
  double min_trades = 0;      // the run's sweep.objective.min_trades: fewer trades are not eligible
};

// The cells of a heatmap: z[iy * xs.size() + ix], NaN where no eligible combo
// (or only NaN values) falls. Only eligible combos (the top-K's rule: a finite
// objective and at least min_trades trades) give a cell its value; a cell with
// combos but none eligible is `excluded` (drawn grey, docs/verify.md "Plots").
struct HeatmapGrid {
  std::string x, y;            // the two params
  std::vector<double> xs, ys;  // sorted distinct values of the two params
  std::vector<double> z;
  std::vector<std::uint8_t> excluded;  // per cell: 1 when its combos are all not eligible
  std::string metric, agg, objective;
  double min_trades = 0;
  // The run's best combo (top-K rank 1), when there is one: its cell and value.
  std::optional<std::size_t> best_row;
  std::size_t best_ix = 0, best_iy = 0;
  std::uint64_t best_combo = 0;
  double best_value = 0;  // the best combo's own metric value (not the cell's aggregate)
  std::string fixed;  // "k=1.5, n=3": the other params' values (agg best)
};

// Throws kbt::Error(config) for an unknown or repeated param, an unknown metric
// or aggregation (the message lists what exists), and for agg best without a
// best combo.
HeatmapGrid heatmap_grid(const SweepResults& results, const HeatmapRequest& request);

// Draws the grid as a PNG at `out_path`. kbt::Error(unsupported) without gnuplot.
void write_heatmap_png(const HeatmapGrid& grid, const std::string& out_path,
                       const std::string& title);

// One simulated combo in three panels: its equity beside buy-and-hold, the
// price with the trades' entries and exits marked (one symbol: its close;
// several: each close over its first in the window), and the drawdown. The
// result must have been simulated with keep_equity and keep_ledger; `report`
// is backtest_report of it.
void write_equity_png(const BarData& bars, const SimulationResult& result, const BacktestReport& report,
                      const std::string& out_path, const std::string& title);

// The validation stage's pictures (docs/validation.md "Pictures"); each returns
// what it drew (points, logits, folds) and throws kbt::Error(config) when the
// run has nothing of the kind (no out-of-sample window, no PBO, no walk-forward).
// In-sample vs out-of-sample objective: every candidate on the holdout, or each
// fold's choice on its test window.
std::size_t write_is_oos_png(const ValidationResults& v, const std::string& out_path, const std::string& title);
// Histogram of the PBO logits, the overfit side (logit <= 0) in red.
std::size_t write_pbo_logits_png(const ValidationResults& v, const std::string& out_path, const std::string& title);
// The stitched out-of-sample equity over time, a dashed line at each fold's test start.
std::size_t write_walk_forward_png(const ValidationResults& v, const BarData& bars, const std::string& out_path,
                                   const std::string& title);

}  // namespace kbt::plot
