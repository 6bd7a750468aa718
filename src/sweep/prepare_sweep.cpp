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

// Refuses, before allocating, `n` combos whose `what` takes `per_combo` bytes
// each when that does not fit in the host memory this process may still use.
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

}  // namespace

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
  // Before anything grid-sized is allocated (docs/sweep.md "Host memory"): the
  // ids the constraints keep (at most one per combo of the grid) ...
  check_host_memory(config, grid.n_combos(), 8, "the combo ids (before constraints)");
  try {
    p.combo_ids = filter_combos(grid, [&](const double* values) { return constraints_hold(p.program, values); });
  } catch (const Error& e) {  // every combo rejected: point at the (first) constraint
    if (e.category() != ErrorCategory::grid || config.strategy.constraints.empty()) throw;
    throw Error(e.category(), config.strategy.constraints.front().where() + ": " + e.what());
  }
  if (options.sample) p.combo_ids = sample_combos(p.combo_ids, *options.sample, options.sample_seed);
  const std::size_t n_params = grid.n_params();
  // ... then what each kept combo holds until the results are written.
  check_host_memory(config, p.combo_ids.size(), resident_bytes_per_combo(n_params),
                    "the params and metrics");
  for (std::size_t k = 0; k < n_params; ++k) p.param_names.push_back(grid.axis(k).name);
  p.params.assign(p.combo_ids.size() * n_params, 0.0);
  for (std::size_t i = 0; i < p.combo_ids.size(); ++i) grid.combo_values(p.combo_ids[i], &p.params[i * n_params]);
  p.sim = resolve_simulation(config, bars);
  return p;
}

PreparedSweep PreparedSweep::subset(const std::vector<std::size_t>& rows) const {
  PreparedSweep s;
  s.program = program;
  s.param_names = param_names;
  s.combos_in_grid = combos_in_grid;
  s.sim = sim;
  for (const std::size_t row : rows) {
    s.combo_ids.push_back(combo_ids.at(row));
    s.params.insert(s.params.end(), params_of(row), params_of(row) + n_params());
  }
  return s;
}

}  // namespace kbt
