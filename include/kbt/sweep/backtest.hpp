#pragma once
// One combo of a run config, simulated with its trade ledger and equity curve
// (`kbt backtest`, and the verify stage's building block).

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/reference/simulator.hpp>

#include <map>
#include <string>

namespace kbt {

// Simulates the strategy of `config` with one value per param on the reference
// engine. Every param of the strategy must be given (kbt::Error(config) names
// the missing or unknown ones); window params must be integers >= 1.
SimulationResult run_backtest(const RunConfig& config, const BarData& bars,
                              const std::map<std::string, double>& params,
                              const SimulationOptions& options = {});

// Parses "fast=10,slow=50" (also accepts several arguments joined by commas).
std::map<std::string, double> parse_param_assignments(const std::string& text);

}  // namespace kbt
