#include <kbt/sweep/backtest.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>

#include <cmath>
#include <cstdlib>

namespace kbt {

std::map<std::string, double> parse_param_assignments(const std::string& text) {
  std::map<std::string, double> out;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find(',', start);
    if (end == std::string::npos) end = text.size();
    const std::string item = text.substr(start, end - start);
    start = end + 1;
    if (item.empty()) continue;
    const auto eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw Error(ErrorCategory::config, "bad parameter assignment '" + item + "'; expected name=value");
    const std::string name = item.substr(0, eq), value = item.substr(eq + 1);
    char* parse_end = nullptr;
    const double v = std::strtod(value.c_str(), &parse_end);
    if (value.empty() || *parse_end != '\0' || !std::isfinite(v))
      throw Error(ErrorCategory::config, "parameter '" + name + "': '" + value + "' is not a number");
    out[name] = v;
  }
  return out;
}

SimulationResult run_backtest(const RunConfig& config, const BarData& bars,
                              const std::map<std::string, double>& params, const SimulationOptions& options) {
  // A one-value axis per param: the compiler then validates windows exactly as
  // it does for a grid.
  StrategySpec spec = config.strategy;
  std::vector<double> values;
  for (auto& p : spec.params) {
    const auto it = params.find(p.name);
    if (it == params.end()) throw Error(ErrorCategory::config, "missing value for parameter '" + p.name + "'");
    p.values = {it->second};
    p.is_integer = it->second == std::floor(it->second);
    values.push_back(it->second);
  }
  for (const auto& [name, v] : params) {
    (void)v;
    bool known = false;
    for (const auto& p : spec.params) known = known || p.name == name;
    if (!known) throw Error(ErrorCategory::config, "unknown parameter '" + name + "' (not in strategy.params)");
  }
  const Program program = compile_strategy(spec, schema_of(bars));
  if (!constraints_hold(program, values.data()))
    throw Error(ErrorCategory::grid, "these parameter values violate the strategy's constraints");
  const StrategyOutputs signals = evaluate_strategy_reference(program, bars, values.data());
  // The combo's own settings where some are swept (docs/semantics.md "Swept settings").
  const ResolvedSimulation sim = combo_simulation(
      resolve_simulation(config.simulation, bars, ScoreEnd{options.score_end_bar, options.score_end_time_ns}),
      program.param_names, values.data());
  SimulationOptions recording = options;
  recording.score_end_bar.reset();
  recording.score_end_time_ns.reset();
  return simulate_reference(bars, sim, signals, recording);
}

}  // namespace kbt
