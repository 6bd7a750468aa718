#include <kbt/sweep/backtest.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>

#include <cmath>

#include "config/number_text.hpp"
#include <cstdlib>

namespace kbt {

namespace {

std::string trimmed(const std::string& s) {
  const auto b = s.find_first_not_of(" \t");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t") - b + 1);
}

}  // namespace

std::map<std::string, double> parse_param_assignments(const std::vector<std::string>& args, const std::string& flag) {
  std::map<std::string, double> out;
  for (const std::string& text : args) {
    std::size_t start = 0;
    while (start <= text.size()) {
      std::size_t end = text.find(',', start);
      if (end == std::string::npos) end = text.size();
      const std::string item = trimmed(text.substr(start, end - start));
      start = end + 1;
      if (item.empty()) continue;
      const auto eq = item.find('=');
      const std::string name = trimmed(item.substr(0, eq));
      if (eq == std::string::npos || name.empty())
        throw Error(ErrorCategory::config, flag + " '" + item + "': expected name=value, e.g. " + flag + " fast=10,slow=50");
      const std::string value = trimmed(item.substr(eq + 1));
      char* parse_end = nullptr;
      const double v = std::strtod(value.c_str(), &parse_end);
      if (value.empty() || *parse_end != '\0' || !std::isfinite(v))
        throw Error(ErrorCategory::config, flag + " " + name + ": '" + value + "' is not a finite number");
      if (!out.emplace(name, v).second) throw Error(ErrorCategory::config, flag + " " + name + " is given twice");
    }
  }
  return out;
}

OneComboStrategy one_combo_strategy(const StrategySpec& strategy, const std::map<std::string, double>& params) {
  OneComboStrategy one{strategy, {}};
  for (auto& p : one.spec.params) {
    const auto it = params.find(p.name);
    if (it == params.end()) throw Error(ErrorCategory::config, "missing value for parameter '" + p.name + "'");
    p.values = {it->second};
    p.is_integer = it->second == std::floor(it->second);
    one.values.push_back(it->second);
  }
  for (const auto& kv : params) {
    bool known = false;
    for (const auto& p : one.spec.params) known = known || p.name == kv.first;
    if (!known) throw Error(ErrorCategory::config, "unknown parameter '" + kv.first + "' (not in strategy.params)");
  }
  return one;
}

OneExpression compile_one_expression(const SourceText& expression, const DataSchema& schema,
                                     const std::map<std::string, double>& params, const std::string& params_origin) {
  OneExpression one;
  std::vector<ParamSpec> axes;
  for (const auto& [name, value] : params) {
    ParamSpec p;
    p.name = name;
    p.kind = ParamSpec::Kind::values;
    p.values = {value};
    p.is_integer = value == std::floor(value);
    p.origin = SourceText{name + "=" + detail::format_number(value), params_origin, 0, 0};
    one.values.push_back(value);
    axes.push_back(std::move(p));
  }
  one.program = compile_expression(expression, schema, axes);
  return one;
}

SimulationResult run_backtest(const RunConfig& config, const BarData& bars,
                              const std::map<std::string, double>& params, const SimulationOptions& options) {
  const auto [spec, values] = one_combo_strategy(config.strategy, params);
  const Program program = compile_strategy(spec, schema_of(bars));
  if (!constraints_hold(program, values.data()))
    throw Error(ErrorCategory::grid, "these parameter values violate the strategy's constraints");
  const StrategyOutputs signals = evaluate_strategy_reference(program, bars, values.data());
  // The combo's own settings where some are swept (docs/semantics.md "Swept settings").
  // The window the sweep scored (the train window with a holdout) unless the
  // caller gives an end: a stored row comes back bit for bit.
  const ResolvedSimulation sim = combo_simulation(
      resolve_simulation(config, bars, ScoreEnd{options.score_end_bar, options.score_end_time_ns}),
      program.param_names, values.data());
  SimulationOptions recording = options;
  recording.score_end_bar.reset();
  recording.score_end_time_ns.reset();
  return simulate_reference(bars, sim, signals, recording);
}

}  // namespace kbt
