#pragma once
// Where a sweep runs (run_sweep's first decision).

#include <kbt/data/bar_data.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <optional>
#include <string>

namespace kbt::detail {

// "reference" or an enabled Kokkos space for `requested` ("auto" or a name).
// An explicitly requested space is never silently replaced; `auto` falls back
// to the reference engine with a stable `unsupported:<reason>`.
std::string choose_device(const std::string& requested, const Program& program, std::size_t n_combos,
                          const BarData& bars, const SimulationSettings& sim, const SweepRequest& request,
                          std::optional<std::string>& fallback_reason, RunProfile& profile);

}  // namespace kbt::detail
