#pragma once
// `kbt run` of a labelling config (job: label, docs/label.md "The label job").

#include <kbt/config/run_config.hpp>

#include "cli/job_run.hpp"

namespace kbt::cli {

// Loads the data, labels it, writes the labels file (and the CSV when
// output.csv) atomically under the output's lock, and prints a summary.
void run_label_config(const RunConfig& config, const JobRunOptions& options);

}  // namespace kbt::cli
