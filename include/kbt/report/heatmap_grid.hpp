#pragma once
// The cells of a heatmap of one metric over two params of a sweep's rows
// (docs/verify.md "Plots"): which combos give a cell its value, and which
// cells hold only combos that are not eligible. `kbt plot heatmap`,
// `output.heatmap` of `kbt run` and `Results.heatmap()` of the Python module
// draw this grid.

#include <kbt/output/results.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

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

}  // namespace kbt
