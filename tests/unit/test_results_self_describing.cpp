// Results files describe themselves (docs/results.md "Self-describing
// datasets"): every dataset has a description and a unit, every metric its
// natural direction; counts and integer params are int64 with the same values;
// groups list their members in the documented order; text is UTF-8. Checked on
// files of real runs with verification, a holdout with PBO, and a walk-forward.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <hdf5.h>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/results.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/scratch_dir.hpp"

namespace {

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("results_self_describing") {}
};

std::string run(const Scratch& s, const std::string& name, const std::string& validation) {
  const std::string cfg = s / (name + ".yaml"), out = s / (name + ".h5");
  std::ofstream(cfg) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\nsymbols: [AAA]\n"
                     << "strategy:\n  params:\n    fast: {values: [5, 10, 20]}\n    slow: {values: [40, 80]}\n"
                        "    k: {values: [0.5, 1]}\n"
                        "  position: where(sma(close, fast) > k * sma(close, slow), 1, -1)\n"
                        "simulation: {fee_bps: 5}\nsweep: {device: reference, objective: sharpe, top_k: 6}\n"
                        "verify: {top_n: 6}\n"
                     << validation << "output: {path: " << out << "}\n";
  const auto r = kbt::test::run_kbt("run " + cfg + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return out;
}

std::vector<std::string> datasets_of(hid_t file) {
  std::vector<std::string> out;
  const auto visit = [](hid_t root, const char* name, const H5L_info_t*, void* data) -> herr_t {
    const hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
    if (H5Iget_type(obj) == H5I_DATASET) static_cast<std::vector<std::string>*>(data)->push_back(std::string("/") + name);
    H5Oclose(obj);
    return 0;
  };
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &out);
  return out;
}

// The text attribute `name` of `obj`, "" when absent; `utf8` says its character set.
std::string text_attribute(hid_t obj, const char* name, bool* utf8 = nullptr) {
  if (H5Aexists(obj, name) <= 0) return "";
  const hid_t attr = H5Aopen(obj, name, H5P_DEFAULT);
  const hid_t type = H5Aget_type(attr);
  std::string value(H5Tget_size(type), '\0');
  H5Aread(attr, type, value.data());
  if (utf8) *utf8 = H5Tget_cset(type) == H5T_CSET_UTF8;
  H5Tclose(type);
  H5Aclose(attr);
  while (!value.empty() && value.back() == '\0') value.pop_back();
  return value;
}

bool is_metric_path(const std::string& path, std::string* metric) {
  const std::size_t slash = path.find_last_of('/');
  const std::string name = path.substr(slash + 1), parent = path.substr(0, slash);
  if (parent.size() < 7 || parent.compare(parent.size() - 7, 7, "metrics") != 0) return false;
  *metric = name;
  return true;
}

void expect_every_dataset_described(const std::string& path, std::size_t at_least,
                                    const std::vector<std::string>& required) {
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0) << path;
  const auto datasets = datasets_of(file);
  EXPECT_GE(datasets.size(), at_least) << path;
  for (const auto& r : required)
    EXPECT_NE(std::find(datasets.begin(), datasets.end(), r), datasets.end()) << path << " has no " << r;
  std::size_t metrics = 0;
  for (const auto& d : datasets) {
    const hid_t set = H5Dopen2(file, d.c_str(), H5P_DEFAULT);
    bool utf8 = false;
    EXPECT_FALSE(text_attribute(set, "description", &utf8).empty()) << path << " " << d;
    EXPECT_TRUE(utf8) << d;
    EXPECT_FALSE(text_attribute(set, "unit").empty()) << path << " " << d;
    std::string metric;
    if (is_metric_path(d, &metric)) {
      ++metrics;
      const int m = static_cast<int>(std::find(kbt::metric_names().begin(), kbt::metric_names().end(), metric) -
                                     kbt::metric_names().begin());
      ASSERT_LT(m, static_cast<int>(kbt::n_metrics)) << d;
      EXPECT_EQ(text_attribute(set, "direction"), kbt::metric_higher_is_better(m) ? "max" : "min") << d;
      EXPECT_EQ(text_attribute(set, "unit"), kbt::metric_unit(m)) << d;
    }
    H5Dclose(set);
  }
  EXPECT_GE(metrics, 3 * kbt::n_metrics) << path;
  H5Fclose(file);
}

// The class of a dataset's stored type.
H5T_class_t stored_class(hid_t file, const std::string& d, std::size_t* size = nullptr) {
  const hid_t set = H5Dopen2(file, d.c_str(), H5P_DEFAULT);
  const hid_t type = H5Dget_type(set);
  const H5T_class_t c = H5Tget_class(type);
  if (size) *size = H5Tget_size(type);
  H5Tclose(type);
  H5Dclose(set);
  return c;
}

TEST(ResultsSelfDescribing, EveryDatasetOfEveryStageHasDescriptionUnitAndMetricsADirection) {
  const Scratch s;
  expect_every_dataset_described(run(s, "holdout", "validation: {holdout: 0.3, top_k: 6, pbo_blocks: 4}\n"), 100,
                                 {"/config", "/verify/rank_moved", "/validation/pbo_logits", "/validation/period_returns",
                                  "/validation/test_metrics/sharpe", "/validation/rank_out_of_sample"});
  expect_every_dataset_described(run(s, "walk", "validation: {walk_forward: {train: 180d, test: 90d}, top_k: 4}\n"), 100,
                                 {"/validation/walk_forward/stitched_equity", "/validation/walk_forward/chosen_params/k",
                                  "/validation/walk_forward/param_drift", "/validation/walk_forward/train_begin"});
}

TEST(ResultsSelfDescribing, CountsAndIntegerParamsAreInt64WithTheSameValues) {
  const Scratch s;
  const std::string path = run(s, "types", "");
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  std::size_t size = 0;
  for (const std::string group : {"", "/topk", "/verify"}) {
    EXPECT_EQ(stored_class(file, group + "/params/fast", &size), H5T_INTEGER) << group;
    EXPECT_EQ(size, 8u);
    EXPECT_EQ(stored_class(file, group + "/params/slow"), H5T_INTEGER) << group;
    EXPECT_EQ(stored_class(file, group + "/params/k"), H5T_FLOAT) << group;  // 0.5 is not an integer
    EXPECT_EQ(stored_class(file, group + "/metrics/n_trades"), H5T_INTEGER) << group;
  }
  EXPECT_EQ(stored_class(file, "/topk/metrics/max_drawdown_duration"), H5T_INTEGER);
  EXPECT_EQ(stored_class(file, "/topk/metrics/sharpe"), H5T_FLOAT);
  // Read back through kbt: the params of every row are the grid's, the counts whole and not all 0.
  H5Fclose(file);
  const auto loaded = kbt::read_results_hdf5(path);
  const auto& rows = *loaded.results.rows;
  ASSERT_EQ(rows.size(), 12u);
  std::vector<std::uint64_t> ids(12);
  std::vector<double> params(12 * 3), metrics(12 * kbt::n_metrics);
  rows.read(0, 12, ids.data(), params.data(), metrics.data());
  const double fast[] = {5, 10, 20}, slow[] = {40, 80}, k[] = {0.5, 1};
  double trades = 0;
  for (std::size_t i = 0; i < 12; ++i) {
    EXPECT_EQ(ids[i], i);
    EXPECT_EQ(params[i * 3 + 0], fast[i / 4]);
    EXPECT_EQ(params[i * 3 + 1], slow[i / 2 % 2]);
    EXPECT_EQ(params[i * 3 + 2], k[i % 2]);
    const double n = metrics[i * kbt::n_metrics + static_cast<int>(kbt::Metric::n_trades)];
    EXPECT_EQ(n, std::floor(n));
    trades += n;
  }
  EXPECT_GT(trades, 0);
  EXPECT_EQ(loaded.results.integer_params, (std::vector<bool>{true, true, false}));
}

TEST(ResultsSelfDescribing, GroupsListTheirMembersInTheDocumentedOrder) {
  const Scratch s;
  const std::string path = run(s, "order", "");
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  ASSERT_GE(file, 0);
  const auto names_by_creation = [&](const char* group) {
    std::vector<std::string> out;
    const hid_t g = H5Gopen2(file, group, H5P_DEFAULT);
    H5G_info_t info;
    H5Gget_info(g, &info);
    for (hsize_t i = 0; i < info.nlinks; ++i) {
      char name[256] = {};
      H5Lget_name_by_idx(g, ".", H5_INDEX_CRT_ORDER, H5_ITER_INC, i, name, sizeof name, H5P_DEFAULT);
      out.push_back(name);
    }
    H5Gclose(g);
    return out;
  };
  const std::vector<std::string> all(kbt::metric_names().begin(), kbt::metric_names().end());
  EXPECT_EQ(names_by_creation("/topk/metrics"), all);
  EXPECT_EQ(names_by_creation("/verify/metrics"), all);
  EXPECT_EQ(names_by_creation("/params"), (std::vector<std::string>{"fast", "slow", "k"}));
  H5Fclose(file);
}

}  // namespace
