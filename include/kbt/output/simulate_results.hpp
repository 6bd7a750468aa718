#pragma once
// The file of an action-driven simulation (docs/results.md "Simulate files").

#include <kbt/core/atomic_output.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/output/results.hpp>
#include <kbt/simulate/simulate_job.hpp>

#include <string>

namespace kbt {

// Into out.temp_path(); the caller commits. `window_begin`: the first scoring
// bar (the per-bar datasets' bar 0). Root attribute complete = 1 last.
void write_simulate_hdf5(AtomicOutput& out, const BarData& bars, std::size_t window_begin,
                         const SimulateJobResult& result, const std::string& config_yaml, const RunProfile& profile);

}  // namespace kbt
