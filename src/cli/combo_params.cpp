#include "cli/combo_params.hpp"

#include <kbt/config/param_grid.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>

#include "config/number_text.hpp"

namespace kbt::cli {
namespace {

ComboParams named(const std::vector<std::string>& names, const std::vector<double>& values) {
  ComboParams out;
  for (std::size_t p = 0; p < values.size(); ++p) out.params[names[p]] = values[p];
  out.described = describe_params(names, values);
  return out;
}

}  // namespace

std::string describe_params(const std::vector<std::string>& names, const std::vector<double>& values) {
  std::string out;
  for (std::size_t p = 0; p < values.size(); ++p)
    out += (out.empty() ? "" : ", ") + names[p] + "=" + detail::format_number(values[p]);
  return out;
}

ComboParams combo_params(const RunConfig& config, std::uint64_t combo) {
  const ParamGrid grid(config.strategy.params);
  if (combo >= grid.n_combos())
    throw Error(ErrorCategory::config, "--combo " + std::to_string(combo) + ": the grid has only " +
                                           std::to_string(grid.n_combos()) + " combos (ids 0.." +
                                           std::to_string(grid.n_combos() - 1) + ")");
  std::vector<double> values(grid.n_params());
  grid.combo_values(combo, values.data());
  std::vector<std::string> names;
  for (const auto& p : grid.axes()) names.push_back(p.name);
  return named(names, values);
}

ComboParams combo_params(const ResultsRerun& rerun, std::uint64_t combo) {
  const SweepResults& r = rerun.loaded.results;
  if (const auto row = find_combo_row(*r.rows, combo)) {
    std::vector<double> values(r.param_names.size());
    r.rows->read(*row, 1, nullptr, values.data(), nullptr);
    return named(r.param_names, values);
  }
  return combo_params(rerun.config, combo);
}

}  // namespace kbt::cli
