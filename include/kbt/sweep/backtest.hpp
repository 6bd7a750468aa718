#pragma once
// One combo of a run config, simulated with its trade ledger and equity curve
// (`kbt backtest`, and the verify stage's building block).

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/simulator.hpp>

#include <map>
#include <string>
#include <vector>

namespace kbt {

// Simulates the strategy of `config` with one value per param on the reference
// engine, scored on the window its sweep scores (the train window with
// validation.holdout) unless `options` gives an end, so that a stored row comes
// back bit for bit. Every param of the strategy must be given (kbt::Error(config)
// names the missing or unknown ones); window params must be integers >= 1.
SimulationResult run_backtest(const RunConfig& config, const BarData& bars,
                              const std::map<std::string, double>& params,
                              const SimulationOptions& options = {});

// The strategy with every param a one-value axis at its value in `params`
// (every param given, none unknown, else kbt::Error(config)): the compiler then
// validates windows exactly as it does for a grid. `values` in the strategy's
// param order, as the evaluators take them.
struct OneComboStrategy {
  StrategySpec spec;
  std::vector<double> values;
};
OneComboStrategy one_combo_strategy(const StrategySpec& strategy, const std::map<std::string, double>& params);

// An expression without a strategy (`kbt eval --expr`, `kbt.eval`) compiled
// for `schema` with each of `params` a one-value axis (an integer value makes
// an integer param), and the values in the program's param order. Messages
// about a param name `params_origin` ("--params").
struct OneExpression {
  Program program;
  std::vector<double> values;
};
OneExpression compile_one_expression(const SourceText& expression, const DataSchema& schema,
                                     const std::map<std::string, double>& params, const std::string& params_origin);

// Param values as the command line gives them (docs/cli.md "Param values"):
// each argument a comma list of name=value ("fast=10,slow=50", "fast = 10,
// slow=50"), arguments from repeated flags joined. Spaces around names, values
// and commas are ignored; a missing '=', a value that is not a finite number or
// a name given twice is kbt::Error(config) naming `flag`.
std::map<std::string, double> parse_param_assignments(const std::vector<std::string>& args, const std::string& flag);

}  // namespace kbt
