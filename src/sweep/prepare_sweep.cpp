// prepare_sweep: compile, grid, constraints, sample, resolved settings.

#include <kbt/sweep/prepared_sweep.hpp>

#include <kbt/config/param_grid.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include <cstdio>

namespace kbt {

namespace {

std::string gigabytes(double bytes) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f GB", bytes / 1e9);
  return buf;
}

}  // namespace

void check_host_memory(const RunConfig& config, std::uint64_t n, std::uint64_t per_combo, const std::string& what) {
  const double need = static_cast<double>(n) * static_cast<double>(per_combo);
  const double have = static_cast<double>(host_available_memory_bytes());
  if (need <= have) return;
  throw Error(ErrorCategory::limit,
              config.source_path + ": this run needs about " + gigabytes(need) + " of host memory for " + what +
                  " of its " + std::to_string(n) + " combos (" + std::to_string(per_combo) +
                  " bytes each), and " + gigabytes(have) +
                  " are available: sweep fewer combos (coarser ranges, constraints, --sample N) or lower "
                  "sweep.max_combos");
}

unsigned metric_groups_for(const RunConfig& config) {
  if (config.sweep.all_metrics) return metric_group::all;
  MetricMask needed = metric_mask_of(config.sweep.metrics);
  needed |= MetricMask(1) << metric_index(config.sweep.objective.metric);
  needed |= MetricMask(1) << int(Metric::n_trades);  // min_trades
  // The DSR's variance of the trials' Sharpe ratios counts every combo,
  // whatever the objective (docs/validation.md "DSR").
  if (config.validation.enabled) needed |= MetricMask(1) << int(Metric::sharpe);
  return compiled_set_for(needed);
}

std::uint64_t resident_bytes_per_combo(std::size_t n_params) {
  // The combo id, its params and its metrics, kept until the results are
  // written; one column copy at a time while writing.
  return 8 + 8 * n_params + 8 * n_metrics + 8;
}

PreparedSweep prepare_sweep(const RunConfig& config, const BarData& bars, const PrepareOptions& options) {
  PreparedSweep p;
  p.program = compile_strategy(config.strategy, schema_of(bars));
  const ParamGrid grid(config.strategy.params);
  p.combos_in_grid = grid.n_combos();
  ComboRows::Keep keep;
  if (!p.program.constraints.empty()) {
    // The rows regenerate combos after `p` is gone: the predicate owns a copy of the program.
    auto program = std::make_shared<const Program>(p.program);
    keep = [program](const double* values) { return constraints_hold(*program, values); };
  }
  try {
    p.combos = ComboRows::of_grid(grid, std::move(keep));
  } catch (const Error& e) {  // every combo rejected: point at the (first) constraint
    if (e.category() != ErrorCategory::grid || config.strategy.constraints.empty()) throw;
    throw Error(e.category(), config.strategy.constraints.front().where() + ": " + e.what());
  }
  if (options.sample) p.combos = p.combos.sample(*options.sample, options.sample_seed);
  for (std::size_t k = 0; k < grid.n_params(); ++k) p.param_names.push_back(grid.axis(k).name);
  p.sim = resolve_simulation(config, bars);
  p.metric_groups = metric_groups_for(config);
  p.metrics = metrics_of_groups(p.metric_groups);
  return p;
}

PreparedSweep PreparedSweep::subset(const std::vector<std::uint64_t>& rows) const {
  PreparedSweep s;
  s.program = program;
  s.param_names = param_names;
  s.combos_in_grid = combos_in_grid;
  s.sim = sim;
  s.metric_groups = metric_groups;
  s.metrics = metrics;
  s.combos = combos.subset(rows);
  return s;
}

}  // namespace kbt
