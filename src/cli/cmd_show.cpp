// `kbt show RESULTS.h5`: the best rows of a results file as a table.

#include <CLI/CLI.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/top_k.hpp>
#include <kbt/validation/validation.hpp>

#include <cstdio>

#include "cli/commands.hpp"
#include "cli/table_format.hpp"

namespace kbt::cli {

void add_show_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("show", "Print the best rows of a results file");
  static std::string path, sort_metric, direction;
  static std::size_t top = 20;
  cmd->add_option("results", path, "Results HDF5 file written by kbt run")->required();
  cmd->add_option("--top", top, "Number of rows to show")->capture_default_str();
  cmd->add_option("--sort", sort_metric, "Metric to sort by (default: the run's objective)");
  cmd->add_option("--direction", direction, "max or min (default: max, or the run's direction)")
      ->check(CLI::IsMember({"max", "min"}));
  cmd->callback([] {
    const auto loaded = read_results_hdf5(path);
    const auto& r = loaded.results;
    RowTable rows;
    std::string metric = r.objective_metric;
    if (sort_metric.empty()) {
      rows = r.best.first(top);
    } else {
      if (metric_index(sort_metric) < 0) throw Error(ErrorCategory::config, "unknown metric '" + sort_metric + "'");
      Objective objective;
      objective.metric = metric = sort_metric;
      objective.maximize = direction.empty() ? true : direction == "max";
      require_metric(*r.rows, sort_metric, "--sort");
      rows = select_top_rows(*r.rows, objective, top);  // a block of rows at a time
    }
    auto metrics = default_table_metrics();
    if (std::find(metrics.begin(), metrics.end(), metric) == metrics.end()) metrics.insert(metrics.begin(), metric);
    std::printf("%s: %llu combos, showing %zu by %s\n", path.c_str(), static_cast<unsigned long long>(r.n_rows()),
                rows.size(), metric.c_str());
    std::fputs(format_result_table(r.param_names, rows, metrics).c_str(), stdout);
    if (loaded.validation) std::fputs(format_validation_summary(*loaded.validation, std::min<std::size_t>(top, 10)).c_str(), stdout);
  });
}

}  // namespace kbt::cli
