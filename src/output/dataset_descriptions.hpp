#pragma once
// What every dataset of a results file means (docs/results.md "Self-describing
// datasets"): written as attributes `description` and `unit` on each, and
// `direction` ("max" / "min", the natural one) on each metric dataset, so that
// h5dump, h5py or pandas users need not open the docs. Internal to src/output/.

#include <hdf5.h>

#include <optional>
#include <string>

namespace kbt::detail {

struct DatasetText {
  std::string description, unit, direction;  // direction: metrics only
};

// The text of the dataset at `path` ("/topk/metrics/sharpe"), or nullopt for
// a path no kbt writer produces.
std::optional<DatasetText> results_dataset_text(const std::string& path);

// Writes (or rewrites) the attributes on every dataset of `file` that
// results_dataset_text knows.
void describe_results_datasets(hid_t file, const std::string& path);

}  // namespace kbt::detail
