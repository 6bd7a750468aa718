#pragma once
// `kbt run` of an action-driven simulation (job: simulate, docs/simulate.md).

#include <kbt/config/run_config.hpp>

#include "cli/job_run.hpp"

namespace kbt::cli {

// Loads the data, simulates the actions, writes the file atomically under
// the output's lock, and prints a summary (options as a labelling job's).
void run_simulate_config(const RunConfig& config, const JobRunOptions& options);

}  // namespace kbt::cli
