#pragma once
// `kbt run` of a labelling config (job: label, docs/label.md "The label job").

#include <kbt/config/run_config.hpp>

#include <cstddef>
#include <string>

namespace kbt::cli {

struct LabelRunOptions {
  std::string device;  // empty: the config's label.device
  std::string out;     // empty: the config's output.path
  std::size_t show = 10;  // rows of the per-setting table
  bool profile = false;
};

// Loads the data, labels it, writes the labels file (and the CSV when
// output.csv) atomically under the output's lock, and prints a summary.
void run_label_config(const RunConfig& config, const LabelRunOptions& options);

}  // namespace kbt::cli
