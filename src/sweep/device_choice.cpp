// Where a sweep runs: an explicit device, or `auto` by the calibration
// (docs/calibration.md).

#include "sweep/device_choice.hpp"

#include <kbt/calibration/calibration.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <cstdio>

namespace kbt::detail {
namespace {

std::string enabled_space_list() {
  std::string list = "reference";
  for (const auto& s : enabled_execution_spaces()) list += ", " + s.name;
  return list;
}

bool space_enabled(const std::string& name) {
  for (const auto& s : enabled_execution_spaces())
    if (s.name == name) return true;
  return false;
}

std::vector<std::string> enabled_space_names() {
  std::vector<std::string> names;
  for (const auto& s : enabled_execution_spaces()) names.push_back(s.name);
  return names;
}

}  // namespace

// Decides where the sweep runs. An explicitly requested space is never
// silently replaced: when it cannot run the program the run fails with the
// reason; when the calibration predicts another space faster, a warning names
// both predictions and the break-even. `auto` picks the lowest predicted time
// (docs/calibration.md), or the conservative rule without a calibration of this
// machine, and falls back to the reference engine with a stable reason.
std::string choose_device(const std::string& requested, const Program& program, std::size_t n_combos,
                          const BarData& bars, const SimulationSettings& sim, const SweepRequest& request,
                          std::optional<std::string>& fallback_reason, RunProfile& profile) {
  if (requested == "reference") return requested;
  const auto unsupported = sweep_kernel_unsupported(program);
  if (requested == "auto" && unsupported) {
    fallback_reason = *unsupported;
    return "reference";
  }
  if (requested != "auto") {
    if (!space_enabled(requested))
      throw Error(ErrorCategory::unsupported, "device '" + requested + "' is not enabled in this build of kbt " +
                                                  "(enabled: " + enabled_space_list() + ")");
    if (unsupported)
      throw Error(ErrorCategory::unsupported, "device '" + requested + "' cannot run this strategy (" + *unsupported +
                                                  "); run with --device reference");
  }
  const CalibrationStatus status = load_calibration_status(request.calibration, this_machine_identity());
  const StrategyComplexity complexity = strategy_complexity(program, bars.n_symbols(), sim);
  const DeviceChoice choice = select_device(requested, enabled_space_names(), status, static_cast<double>(n_combos),
                                            static_cast<double>(bars.n_bars()), complexity.work);
  if (!request.quiet)
    for (const auto& line : choice.notes) std::fprintf(stderr, "kbt: %s\n", line.c_str());
  if (choice.warning) request.warning(*choice.warning);
  profile.set("device_rule", choice.rule);
  profile.set("calibration", status.describe());
  profile.set("complexity_instructions", complexity.work.instructions);
  profile.set("complexity_window_reads", complexity.work.window_reads);
  for (const auto& [space, seconds] : choice.predicted_seconds) {
    profile.set("predicted_seconds_" + space, seconds);
    // To compare with seconds_hoist + seconds_sweep (the whole sweep, as calibrated).
    if (space == choice.device) profile.set("seconds_predicted", seconds);
  }
  if (choice.warning) profile.set("device_warning", *choice.warning);
  return choice.device;
}

}  // namespace kbt::detail
