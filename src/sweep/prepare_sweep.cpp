// prepare_sweep: compile, grid, constraints, sample, resolved settings.

#include <kbt/sweep/prepared_sweep.hpp>

#include <kbt/config/param_grid.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>

namespace kbt {

PreparedSweep prepare_sweep(const RunConfig& config, const BarData& bars, const PrepareOptions& options) {
  PreparedSweep p;
  p.program = compile_strategy(config.strategy, schema_of(bars));
  const ParamGrid grid(config.strategy.params);
  p.combos_in_grid = grid.n_combos();
  try {
    p.combo_ids = filter_combos(grid, [&](const double* values) { return constraints_hold(p.program, values); });
  } catch (const Error& e) {  // every combo rejected: point at the (first) constraint
    if (e.category() != ErrorCategory::grid || config.strategy.constraints.empty()) throw;
    throw Error(e.category(), config.strategy.constraints.front().where() + ": " + e.what());
  }
  if (options.sample) p.combo_ids = sample_combos(p.combo_ids, *options.sample, options.sample_seed);
  const std::size_t n_params = grid.n_params();
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
