// `kbt plot RESULTS.h5`: a heatmap of a metric over two params (--x, --y), or
// the equity curve and drawdown of one combo (--combo), drawn by gnuplot.

#include <CLI/CLI.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/core/error.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/output/results.hpp>
#include <kbt/validation/validation.hpp>
#include <kbt/verify/verify.hpp>

#include <algorithm>
#include <cstdio>
#include <map>

#include "cli/combo_params.hpp"
#include "cli/commands.hpp"
#include "plot/plots.hpp"

namespace kbt::cli {
namespace {

struct PlotArgs {
  std::string results_path, x, y, metric, agg = "best", out, score_start, score_end;
  std::uint64_t combo = 0;
  bool has_combo = false;
  bool validation = false;
};

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

void plot_heatmap(const PlotArgs& a) {
  const LoadedResults loaded = read_results_hdf5(a.results_path);
  HeatmapRequest request;
  request.x = a.x;
  request.y = a.y;
  request.metric = a.metric;
  request.agg = a.agg;
  // The run's own eligibility rule, from the config stored in the file.
  request.min_trades = parse_run_config(loaded.config_yaml, a.results_path + " /config", "").sweep.objective.min_trades;
  const HeatmapGrid grid = heatmap_grid(loaded.results, request);
  plot::write_heatmap_png(grid, a.out, a.results_path + ": " + grid.metric + " over " + a.x + " x " + a.y);
  std::printf("heatmap: %s (%zu x %zu cells)\n", a.out.c_str(), grid.xs.size(), grid.ys.size());
}

void plot_equity(const PlotArgs& a) {
  const ResultsRerun rerun = open_results_for_rerun(a.results_path);
  const ComboParams combo = combo_params(rerun, a.combo);
  const auto& params = combo.params;
  const std::string& described = combo.described;
  SimulationOptions options;
  options.keep_equity = true;
  options.keep_ledger = true;
  RunConfig config = rerun.config;
  if (!a.score_start.empty()) {
    parse_window_bound(a.score_start, "--score-start", config.simulation.score_start_bar,
                       config.simulation.score_start_time_ns);
  }
  if (!a.score_end.empty())
    parse_window_bound(a.score_end, "--score-end", options.score_end_bar, options.score_end_time_ns);
  const SimulationResult sim = run_backtest(config, rerun.bars, params, options);
  const auto metric = [&](Metric m) { return number_text(sim.metrics[static_cast<int>(m)]); };
  const std::string title = "combo " + std::to_string(a.combo) + ": " + described + "\nsharpe " +
                            metric(Metric::sharpe) + ", total return " + metric(Metric::total_return) +
                            ", max drawdown " + metric(Metric::max_drawdown) + ", trades " +
                            metric(Metric::n_trades);
  const BacktestReport report = backtest_report(rerun.bars, sim, config.simulation.initial_capital);
  plot::write_equity_png(rerun.bars, sim, report, a.out, title);
  std::printf("equity: %s (combo %llu: %s, bars [%zu, %zu))\n", a.out.c_str(),
              static_cast<unsigned long long>(a.combo), described.c_str(), sim.window.begin, sim.window.end);
}

// The validation pictures that the run's /validation supports, named
// <prefix>_is_oos.png, <prefix>_pbo.png, <prefix>_walk_forward.png.
void plot_validation(const PlotArgs& a) {
  const LoadedResults loaded = read_results_hdf5(a.results_path);
  if (!loaded.validation)
    throw Error(ErrorCategory::config, a.results_path + " has no /validation: add a validation: section to the config "
                                                        "and run again, or run kbt validate " + a.results_path);
  const ValidationResults& v = *loaded.validation;
  std::string prefix = a.out;
  if (prefix.size() > 4 && prefix.compare(prefix.size() - 4, 4, ".png") == 0) prefix.resize(prefix.size() - 4);
  const std::string name = a.results_path + ": ";
  if (v.test || v.walk_forward) {
    const std::string out = prefix + "_is_oos.png";
    const std::size_t points = plot::write_is_oos_png(v, out, name + v.objective.metric + " in and out of sample");
    std::printf("in vs out of sample: %s (%zu points)\n", out.c_str(), points);
  }
  if (v.pbo) {
    const std::string out = prefix + "_pbo.png";
    char pbo[32];
    std::snprintf(pbo, sizeof pbo, "%.1f %%", 100 * v.pbo->pbo);
    const std::size_t n = plot::write_pbo_logits_png(
        v, out, name + "PBO " + pbo + " over " + std::to_string(v.pbo->splits) + " splits");
    std::printf("PBO logits: %s (%zu splits)\n", out.c_str(), n);
  } else {
    std::printf("PBO: none (%s)\n", v.pbo_skipped.c_str());
  }
  if (v.walk_forward) {
    const ResultsRerun rerun = open_results_for_rerun(a.results_path);  // the bar times
    const std::string out = prefix + "_walk_forward.png";
    const std::size_t folds =
        plot::write_walk_forward_png(v, rerun.bars, out, name + "walk-forward, out of sample");
    std::printf("walk-forward: %s (%zu folds)\n", out.c_str(), folds);
  }
}

}  // namespace

void add_plot_command(CLI::App& app) {
  static PlotArgs args;
  auto* cmd = app.add_subcommand("plot", "Draw a heatmap (--x, --y) or one combo's equity curve (--combo) as PNG");
  cmd->add_option("results", args.results_path, "Results HDF5 file written by kbt run")->required();
  cmd->add_option("--out,-o", args.out, "PNG file to write")->required();
  auto* x = cmd->add_option("--x", args.x, "Heatmap: parameter on the x axis");
  auto* y = cmd->add_option("--y", args.y, "Heatmap: parameter on the y axis");
  cmd->add_option("--metric", args.metric, "Heatmap: metric to colour by (default: the run's objective)");
  cmd->add_option("--agg", args.agg, "Heatmap: best (other params at the best combo's values), max or median")
      ->capture_default_str();
  auto* combo = cmd->add_option("--combo", args.combo, "Equity plot of this combo id (re-simulated)");
  cmd->add_option("--score-start", args.score_start, "Equity plot: window start (bar index or UTC timestamp)");
  cmd->add_option("--score-end", args.score_end, "Equity plot: window end, exclusive (bar index or UTC timestamp)");
  auto* validation = cmd->add_flag("--validation", args.validation,
                                   "The validation pictures: in vs out of sample, PBO logits, walk-forward "
                                   "(-o is the prefix of their names)");
  x->needs(y);
  y->needs(x);
  combo->excludes(x);
  combo->excludes(y);
  validation->excludes(x);
  validation->excludes(combo);
  cmd->footer("\nExamples:\n  kbt plot results/sma_cross.h5 --x fast --y slow -o heatmap.png"
              "\n  kbt plot results/sma_cross.h5 --combo 42 -o equity.png"
              "\n  kbt plot results/sma_cross.h5 --validation -o pictures/sma   # sma_is_oos.png, sma_pbo.png, ...");
  cmd->callback([=] {
    if (combo->count() > 0) return plot_equity(args);
    if (args.validation) return plot_validation(args);
    if (x->count() == 0)
      throw Error(ErrorCategory::config,
                  "kbt plot needs --x and --y (heatmap), --combo ID (equity curve) or --validation");
    plot_heatmap(args);
  });
}

}  // namespace kbt::cli
