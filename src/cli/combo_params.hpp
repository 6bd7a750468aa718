#pragma once
// The param values of one combo id, for `kbt plot --combo` and
// `kbt backtest --combo`: its stored row when the run simulated it, else the
// grid's enumeration (docs/cli.md "Combo ids").

#include <kbt/config/run_config.hpp>
#include <kbt/verify/verify.hpp>

#include <cstdint>
#include <map>
#include <string>

namespace kbt::cli {

struct ComboParams {
  std::map<std::string, double> params;
  std::string described;  // "fast=10, slow=50" in the strategy's param order
};

// From a results file (its rows first, then the grid of its stored config).
ComboParams combo_params(const ResultsRerun& rerun, std::uint64_t combo);

// From the grid of `config`; kbt::Error(config) when `combo` is out of range.
ComboParams combo_params(const RunConfig& config, std::uint64_t combo);

// "fast=10, slow=50" of named values in the given order.
std::string describe_params(const std::vector<std::string>& names, const std::vector<double>& values);

}  // namespace kbt::cli
