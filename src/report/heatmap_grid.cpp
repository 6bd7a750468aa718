// The cells of a heatmap of a sweep's rows (include/kbt/report/heatmap_grid.hpp).

#include <kbt/report/heatmap_grid.hpp>

#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>

#include "config/suggest.hpp"

namespace kbt {
namespace {

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

std::string join(const std::vector<std::string>& names) {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

[[noreturn]] void unknown(const std::string& what, const std::string& name, const std::vector<std::string>& known) {
  const std::string guess = kbt::detail::closest_match(name, known);
  throw Error(ErrorCategory::config, "unknown " + what + " '" + name + "'" +
                                         (guess.empty() ? "" : "; did you mean '" + guess + "'?") + " (" + what +
                                         "s: " + join(known) + ")");
}

std::size_t param_position(const SweepResults& r, const std::string& name, const std::string& option) {
  const auto it = std::find(r.param_names.begin(), r.param_names.end(), name);
  if (it == r.param_names.end()) {
    if (r.param_names.empty())
      throw Error(ErrorCategory::config, option + ": unknown parameter '" + name + "' (the run has no parameters)");
    unknown("parameter", name, r.param_names);
  }
  return static_cast<std::size_t>(it - r.param_names.begin());
}

std::size_t index_in(const std::vector<double>& sorted, double value) {
  return static_cast<std::size_t>(std::lower_bound(sorted.begin(), sorted.end(), value) - sorted.begin());
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

HeatmapGrid heatmap_grid(const SweepResults& r, const HeatmapRequest& request) {
  HeatmapGrid g;
  g.metric = request.metric.empty() ? r.objective_metric : request.metric;
  g.agg = request.agg;
  g.x = request.x;
  g.y = request.y;
  const int metric = metric_index(g.metric);
  if (metric < 0) {
    std::vector<std::string> names(metric_names().begin(), metric_names().end());
    unknown("metric", g.metric, names);
  }
  if (g.agg != "best" && g.agg != "max" && g.agg != "median")
    throw Error(ErrorCategory::config, "unknown aggregation '" + g.agg + "' (best, max or median)");
  const std::size_t px = param_position(r, request.x, "--x"), py = param_position(r, request.y, "--y");
  if (px == py) throw Error(ErrorCategory::config, "--x and --y both name '" + request.x + "'; give two parameters");
  const std::size_t n_params = r.param_names.size();
  if (!r.rows) throw Error(ErrorCategory::internal, "heatmap: results without rows");
  require_metric(*r.rows, g.metric, "heatmap of '" + g.metric + "'");
  // Eligibility, the top-K's rule (docs/results.md): a finite objective and
  // at least min_trades trades.
  g.objective = r.objective_metric;
  g.min_trades = request.min_trades;
  const int objective = metric_index(g.objective);
  if (objective < 0) throw Error(ErrorCategory::data_format, "heatmap: unknown objective '" + g.objective + "'");
  require_metric(*r.rows, g.objective, "heatmap eligibility");
  if (g.min_trades > 0) require_metric(*r.rows, "n_trades", "heatmap eligibility (min_trades)");
  const auto eligible = [&](const double* row_metrics) {
    return !std::isnan(row_metrics[objective]) &&
           (g.min_trades <= 0 || row_metrics[static_cast<int>(Metric::n_trades)] >= g.min_trades);
  };

  if (r.top_k > 0) g.best_row = r.best.rows.front();
  if (g.agg == "best" && !g.best_row)
    throw Error(ErrorCategory::config, "--agg best fixes the other parameters at the best combo's values, but the "
                                       "run has no eligible combo (empty top-K); use --agg max or --agg median");
  const double* best_params = g.best_row ? r.best.params_of(0) : nullptr;

  // The rows a block at a time: first the distinct values of the two
  // params, then each row's value into its cell (only the cells' values are
  // kept: one per cell for best and max, every finite one for median).
  const auto in_slice = [&](const double* params) {
    if (g.agg != "best") return true;
    for (std::size_t p = 0; p < n_params; ++p)
      if (p != px && p != py && params[p] != best_params[p]) return false;
    return true;
  };
  std::set<double> xs, ys;
  for_each_row_block(*r.rows, 65536, RowParts{false, true, false},
                     [&](std::uint64_t, std::uint64_t count, const std::uint64_t*, const double* params, const double*) {
                       for (std::uint64_t i = 0; i < count; ++i) {
                         xs.insert(params[i * n_params + px]);
                         ys.insert(params[i * n_params + py]);
                       }
                     });
  g.xs.assign(xs.begin(), xs.end());
  g.ys.assign(ys.begin(), ys.end());
  const std::size_t nx = g.xs.size();
  std::map<std::size_t, std::vector<double>> cells;  // cell -> finite values (median), or its maximum
  std::set<std::size_t> eligible_cells;               // cells with at least one eligible combo
  for_each_row_block(*r.rows, 65536, RowParts{false, true, true},
                     [&](std::uint64_t, std::uint64_t count, const std::uint64_t*, const double* params,
                         const double* metrics) {
                       for (std::uint64_t i = 0; i < count; ++i) {
                         const double* row = params + i * n_params;
                         if (!in_slice(row)) continue;
                         const double* m = metrics + i * n_metrics;
                         const double v = m[metric];
                         const std::size_t at = index_in(g.ys, row[py]) * nx + index_in(g.xs, row[px]);
                         auto& cell = cells[at];
                         if (!eligible(m)) continue;
                         eligible_cells.insert(at);
                         if (std::isnan(v)) continue;
                         if (g.agg == "median" || cell.empty())
                           cell.push_back(v);
                         else
                           cell[0] = std::max(cell[0], v);
                       }
                     });
  g.z.assign(nx * g.ys.size(), nan);
  g.excluded.assign(nx * g.ys.size(), 0);
  for (const auto& [cell, values] : cells) {
    if (!eligible_cells.count(cell)) g.excluded[cell] = 1;
    if (values.empty()) continue;
    g.z[cell] = g.agg == "median" ? median(values) : values[0];
  }
  if (g.best_row) {
    g.best_ix = index_in(g.xs, best_params[px]);
    g.best_iy = index_in(g.ys, best_params[py]);
    g.best_combo = r.best.combo_ids.front();
    g.best_value = r.best.metrics_of(0)[static_cast<std::size_t>(metric)];
    for (std::size_t p = 0; p < n_params; ++p)
      if (p != px && p != py)
        g.fixed += (g.fixed.empty() ? "" : ", ") + r.param_names[p] + "=" + number_text(best_params[p]);
  }
  return g;
}

}  // namespace kbt
