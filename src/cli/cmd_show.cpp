// `kbt show RESULTS.h5`: the best rows of a results file as a table, or as
// JSON (--json) for scripts.

#include <CLI/CLI.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/top_k.hpp>
#include <kbt/validation/validation.hpp>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/json_writer.hpp"
#include "cli/table_format.hpp"

namespace kbt::cli {
namespace {

struct ShowArgs {
  std::string path, sort_metric, direction;
  std::size_t rows = 20;
  bool json = false;
};

std::string rows_json(const std::string& path, const SweepResults& r, const RowTable& rows,
                      const Objective& order, const std::string& order_source) {
  JsonWriter j;
  j.begin_object();
  j.key("results").value(path);
  j.key("combos").value(static_cast<std::uint64_t>(r.n_rows()));
  j.key("sort").begin_object();
  j.key("metric").value(order.metric);
  j.key("direction").value(order.maximize ? "max" : "min");
  j.key("source").value(order_source);
  j.end_object();
  j.key("params").begin_array();
  for (const auto& p : r.param_names) j.value(p);
  j.end_array();
  j.key("rows").begin_array();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    j.begin_object();
    j.key("rank").value(static_cast<std::uint64_t>(i + 1));
    j.key("combo").value(static_cast<std::uint64_t>(rows.combo_ids[i]));
    j.key("params").begin_object();
    for (std::size_t p = 0; p < r.param_names.size(); ++p) j.key(r.param_names[p]).value(rows.params_of(i)[p]);
    j.end_object();
    // Only the metrics these rows hold (docs/metrics.md "Metric sets"), in
    // the documented order; NaN is null.
    j.key("metrics").begin_object();
    for (std::size_t m = 0; m < n_metrics; ++m)
      if (has_metric(rows.metric_mask, static_cast<int>(m))) j.key(metric_names()[m]).value(rows.metrics_of(i)[m]);
    j.end_object();
    j.end_object();
  }
  j.end_array();
  j.end_object();
  return j.text();
}

void show(const ShowArgs& a) {
  const auto loaded = read_results_hdf5(a.path);
  const auto& r = loaded.results;
  RowTable rows;
  Objective order;
  order.metric = r.objective_metric;
  order.maximize = r.maximize;
  std::string source = "the run's objective";
  // --direction alone ranks every row by the run's objective that way.
  const std::string sort_metric = a.sort_metric.empty() && !a.direction.empty() ? r.objective_metric : a.sort_metric;
  if (sort_metric.empty()) {
    rows = r.best.first(a.rows);
  } else {
    const int m = metric_index(sort_metric);
    if (m < 0) throw Error(ErrorCategory::config, "--sort: " + unknown_metric_message(sort_metric));
    order.metric = sort_metric;
    order.maximize = a.direction.empty() ? metric_higher_is_better(m) : a.direction == "max";
    source = a.direction.empty() ? "the metric's natural direction" : "--direction";
    require_metric(*r.rows, sort_metric, "--sort");
    rows = select_top_rows(*r.rows, order, a.rows);  // a block of rows at a time
  }
  if (a.json) {
    std::fputs(rows_json(a.path, r, rows, order, source).c_str(), stdout);
    return;
  }
  auto metrics = default_table_metrics();
  if (std::find(metrics.begin(), metrics.end(), order.metric) == metrics.end())
    metrics.insert(metrics.begin(), order.metric);
  std::printf("%s: %llu combos, showing %zu by %s (%s, %s)\n", a.path.c_str(),
              static_cast<unsigned long long>(r.n_rows()), rows.size(), order.metric.c_str(),
              order.maximize ? "max" : "min", source.c_str());
  std::fputs(format_result_table(r.param_names, rows, metrics).c_str(), stdout);
  if (loaded.validation)
    std::fputs(format_validation_summary(*loaded.validation, std::min<std::size_t>(a.rows, 10)).c_str(), stdout);
}

}  // namespace

void add_show_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("show", "Print the best rows of a results file");
  static ShowArgs args;
  cmd->add_option("results", args.path, "Results HDF5 file written by kbt run")->required();
  cmd->add_option("--rows,--top", args.rows, "Number of rows to show")->capture_default_str();
  cmd->add_option("--sort", args.sort_metric,
                  "Rank every row by this metric (default: the run's top-K, by its objective)");
  cmd->add_option("--direction", args.direction,
                  "max or min for --sort (default: the metric's natural direction, docs/metrics.md)")
      ->check(CLI::IsMember({"max", "min"}));
  cmd->add_flag("--json", args.json, "Print the rows as one JSON document (docs/cli.md)");
  cmd->footer("\nExamples:\n  kbt show results/sma_cross.h5 --rows 5\n  kbt show results/sma_cross.h5 --sort ulcer_index"
              "\n  kbt show results/sma_cross.h5 --json | jq '.rows[0].params'");
  cmd->callback([] { show(args); });
}

}  // namespace kbt::cli
