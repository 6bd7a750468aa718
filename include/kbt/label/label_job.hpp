#pragma once
// The labelling job (`job: label`, docs/label.md "The label job"): the
// volatility, side and events expressions of a config evaluated on the bars,
// then triple-barrier labels for every setting of its barrier grid, on one
// engine. The entry point of `kbt run` for labelling configs and of C++ codes
// that link kbt.

#include <kbt/config/run_config.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/label/triple_barrier.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbt {

struct LabelJobResult {
  std::vector<BarrierSetting> settings;  // the grid, profit_take slowest, horizon fastest
  BarrierLabels labels;                  // [setting][symbol][bar]
  std::vector<double> volatility;        // [symbol][bar] the barrier width per bar
  // [symbol][bar] the side each bar was labelled with: the side expression
  // (1 without one), NaN where the events expression is false or NaN.
  std::vector<double> side;
  std::vector<std::uint64_t> events;     // per setting: bars labelled (barrier != none)
  std::string device;                    // reference, serial, openmp or cuda
  double seconds_expressions = 0, seconds_labels = 0;
};

// The barrier grid of `label`, in file order (profit_take slowest).
std::vector<BarrierSetting> barrier_grid(const LabelSettings& label);

// Compiles the config's label expressions against `schema` (lead allowed),
// as `kbt check --data` does before any work; language errors name their
// config line.
void check_label_expressions(const RunConfig& config, const BarData& bars);

// Runs the labelling job of `config` (RunConfig::job == Job::label) on
// `bars`; `device` empty: the config's label.device. Output larger than
// max_label_cells (settings x symbols x bars) is refused before any work.
LabelJobResult run_label_job(const RunConfig& config, const BarData& bars, const std::string& device = {});

inline constexpr std::uint64_t max_label_cells = 2000000000;

// Triple-barrier labels on the engine named `device` (reference or an
// enabled Kokkos space).
BarrierLabels triple_barrier_on_device(const std::string& device, const BarrierInputs& in,
                                       const std::vector<BarrierSetting>& settings);

}  // namespace kbt
