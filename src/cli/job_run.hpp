#pragma once
// What `kbt run` of a single-kernel job (a labelling job, an action-driven
// simulation) shares: its options, and the run profile's common entries and
// printout.

#include <kbt/config/run_config.hpp>
#include <kbt/output/results.hpp>

#include <cstddef>
#include <string>

namespace kbt::cli {

struct JobRunOptions {
  std::string device;     // empty: the config's job device (label.device, simulate.device)
  std::string out;        // empty: the config's output.path
  std::size_t show = 10;  // rows of the printed table
  bool profile = false;
};

// The profile entries every job has: job, device, config_path, data_path, seconds_load.
RunProfile job_profile(const char* job, const std::string& device, const RunConfig& config, double seconds_load);

// `--profile`'s printout: the profile, then the seconds the outputs took to write.
void print_job_profile(const RunProfile& profile, double seconds_write);

}  // namespace kbt::cli
