#include "output/dataset_descriptions.hpp"

#include <kbt/metrics/metrics.hpp>

#include <cstring>
#include <map>
#include <vector>

#include "output/results_io.hpp"

namespace kbt::detail {
namespace {

// Groups whose members are metrics / params by name.
bool is_metric_group(const std::string& g) {
  return g == "metrics" || g == "test_metrics" || g == "train_metrics" || g == "stitched_metrics";
}
bool is_param_group(const std::string& g) { return g == "params" || g == "chosen_params"; }

// Datasets by their own name (the same name means the same thing in every group).
const std::map<std::string, DatasetText>& named() {
  static const std::map<std::string, DatasetText> table = {
      {"combo_id", {"combo number in the full parameter grid (first param slowest)", "id", ""}},
      {"row", {"row of /combo_id, /params and /metrics", "row", ""}},
      {"config", {"the YAML config as run", "text", ""}},
      {"rank_before", {"rank by the objective on the sweep's metrics (1 = best)", "rank", ""}},
      {"rank_after", {"rank by the objective on the reference engine's metrics (1 = best)", "rank", ""}},
      {"mismatch", {"1 when a metric of the reference engine differs from the sweep's", "flag", ""}},
      {"rank_moved", {"1 when the rank moved by more than the threshold", "flag", ""}},
      {"sharpe", {"Sharpe ratio of the candidate's period returns (not annualised)", "1 per period", ""}},
      {"skewness", {"skewness of the candidate's period returns", "1", ""}},
      {"kurtosis", {"kurtosis (non-excess) of the candidate's period returns", "1", ""}},
      {"psr", {"probabilistic Sharpe ratio against 0", "probability", ""}},
      {"dsr", {"deflated Sharpe ratio: the PSR against the expected maximum of the trials", "probability", ""}},
      {"min_trl", {"minimum track record length for the PSR to reach 95 %", "periods", ""}},
      {"period_start_ns", {"first bar of each return period", "ns since 1970-01-01 UTC", ""}},
      {"period_returns", {"each candidate's return per period, [period][candidate]", "fraction", ""}},
      {"rank_in_sample", {"rank on the train window among the candidates eligible on both", "rank", ""}},
      {"rank_out_of_sample", {"rank on the test window among the candidates eligible on both", "rank", ""}},
      {"pbo_logits", {"logit of the out-of-sample relative rank of the in-sample best, per CSCV split", "1", ""}},
      {"pbo_is_sharpe", {"in-sample Sharpe ratio of the in-sample best, per CSCV split", "1 per period", ""}},
      {"pbo_oos_sharpe", {"out-of-sample Sharpe ratio of the in-sample best, per CSCV split", "1 per period", ""}},
      {"train_begin", {"first bar of each fold's train window", "bar", ""}},
      {"train_end", {"end (exclusive) of each fold's train window", "bar", ""}},
      {"test_begin", {"first bar of each fold's test window", "bar", ""}},
      {"test_end", {"end (exclusive) of each fold's test window", "bar", ""}},
      {"chosen_row", {"row of the combo each fold chose (0 when none was eligible)", "row", ""}},
      {"chosen_combo_id", {"combo id each fold chose (0 when none was eligible)", "id", ""}},
      {"rank_correlation", {"Spearman correlation of train and test ranks in each fold", "1", ""}},
      {"stitched_equity", {"equity of the folds' test windows run one after another", "currency", ""}},
      {"param_drift", {"mean absolute change of each param between consecutive folds' choices", "as configured", ""}},
  };
  return table;
}

std::vector<std::string> split_path(const std::string& path) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  while (start <= path.size()) {
    const std::size_t slash = path.find('/', start);
    const std::string part = path.substr(start, slash == std::string::npos ? std::string::npos : slash - start);
    if (!part.empty()) parts.push_back(part);
    if (slash == std::string::npos) break;
    start = slash + 1;
  }
  return parts;
}

void set_text_attribute(hid_t obj, const char* name, const std::string& value, const std::string& path) {
  if (H5Aexists(obj, name) > 0) check_write(H5Adelete(obj, name), std::string("attribute ") + name, path);
  write_string(obj, name, value, path, true);
}

struct Visit {
  std::vector<std::string> datasets;
};

herr_t collect(hid_t root, const char* name, const H5L_info_t*, void* data) {
  const hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
  if (obj < 0) return -1;
  if (H5Iget_type(obj) == H5I_DATASET) static_cast<Visit*>(data)->datasets.push_back(std::string("/") + name);
  H5Oclose(obj);
  return 0;
}

}  // namespace

std::optional<DatasetText> results_dataset_text(const std::string& path) {
  const std::vector<std::string> parts = split_path(path);
  if (parts.empty()) return std::nullopt;
  const std::string& name = parts.back();
  const std::string group = parts.size() >= 2 ? parts[parts.size() - 2] : "";
  if (is_metric_group(group)) {
    for (std::size_t m = 0; m < n_metrics; ++m)
      if (name == metric_names()[m]) {
        const int i = static_cast<int>(m);
        return DatasetText{metric_description(i), metric_unit(i), natural_direction(i)};
      }
    return std::nullopt;
  }
  if (is_param_group(group)) return DatasetText{"value of strategy parameter " + name, "as configured", ""};
  const auto it = named().find(name);
  if (it == named().end()) return std::nullopt;
  return it->second;
}

void describe_results_datasets(hid_t file, const std::string& path) {
  Visit visit;
  check_write(H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, collect, &visit), "(walk) datasets", path);
  for (const std::string& dataset : visit.datasets) {
    const auto text = results_dataset_text(dataset);
    if (!text) continue;
    H5Id set(checked_create(H5Dopen2(file, dataset.c_str(), H5P_DEFAULT), "dataset " + dataset, path), H5Dclose);
    set_text_attribute(set, "description", text->description, path);
    set_text_attribute(set, "unit", text->unit, path);
    if (!text->direction.empty()) set_text_attribute(set, "direction", text->direction, path);
  }
}

}  // namespace kbt::detail
