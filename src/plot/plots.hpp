#pragma once
// Pictures of results (`kbt plot`, `output.heatmap` of `kbt run`), drawn by
// gnuplot (pngcairo terminal). kbt writes the data to a temporary directory,
// runs gnuplot from PATH, and moves the PNG into place only when gnuplot
// succeeded (docs/verify.md "Plots").

#include <kbt/data/bar_data.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/report/backtest_report.hpp>
#include <kbt/output/results.hpp>
#include <kbt/report/heatmap_grid.hpp>
#include <kbt/validation/validation.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt::plot {

// Full path of the gnuplot executable found on PATH, or "" when there is none.
std::string find_gnuplot();

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
