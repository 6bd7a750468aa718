#include <gtest/gtest.h>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "support/cli_runner.hpp"

#include <unistd.h>

namespace {

const std::vector<std::uint64_t> small_ids{3, 7, 8};
const std::vector<double> small_params{20, 5, 30, 5, 30, 10};

std::vector<double> small_metrics() {
  std::vector<double> m(3 * kbt::n_metrics, 0.0);
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t k = 0; k < kbt::n_metrics; ++k) m[i * kbt::n_metrics + k] = 100.0 * i + k;
  m[1 * kbt::n_metrics + 4] = std::nan("");
  return m;
}

// Three rows in memory; rows 2 and 0 are the top-K.
kbt::SweepResults small_results() {
  kbt::SweepResults r;
  r.param_names = {"slow", "fast"};  // declaration order, not alphabetical
  r.rows = std::make_shared<kbt::MemoryRows>(r.param_names, small_ids, small_params, small_metrics());
  r.best = kbt::read_rows(*r.rows, {2, 0});
  r.top_k = 2;
  r.objective_metric = "sharpe";
  r.maximize = true;
  return r;
}

std::string temp_path(const std::string& name) {
  return (std::filesystem::temp_directory_path() / ("kbt_test_" + std::to_string(::getpid()) + "_" + name)).string();
}

}  // namespace

TEST(ResultsFile, RoundTripKeepsOrderValuesAndTopK) {
  const auto path = temp_path("roundtrip.h5");
  const auto r = small_results();
  kbt::RunProfile profile;
  profile.set("device", "reference");
  profile.set("combos_per_second", 12.5);
  kbt::write_results_hdf5(path, r, "data: x.h5\n", profile);
  const auto loaded = kbt::read_results_hdf5(path);
  EXPECT_EQ(loaded.results.param_names, r.param_names);
  const kbt::RowTable rows = kbt::read_all_rows(*loaded.results.rows);
  EXPECT_EQ(rows.combo_ids, small_ids);
  EXPECT_EQ(rows.params, small_params);
  EXPECT_EQ(loaded.results.top_k_rows().rows, (std::vector<std::uint64_t>{2, 0}));
  EXPECT_EQ(loaded.results.top_k_rows().combo_ids, (std::vector<std::uint64_t>{8, 3}));
  EXPECT_EQ(loaded.results.top_k_rows().params, (std::vector<double>{30, 10, 20, 5}));
  EXPECT_EQ(loaded.results.objective_metric, "sharpe");
  EXPECT_EQ(loaded.config_yaml, "data: x.h5\n");
  const std::vector<double> metrics = small_metrics();
  ASSERT_EQ(rows.metrics.size(), metrics.size());
  for (std::size_t i = 0; i < metrics.size(); ++i) {
    if (std::isnan(metrics[i])) EXPECT_TRUE(std::isnan(rows.metrics[i]));
    else EXPECT_EQ(rows.metrics[i], metrics[i]);
  }
  std::filesystem::remove(path);
}

TEST(ResultsFile, IndependentReaderSeesTheDocumentedLayout) {
  const auto path = temp_path("h5dump.h5");
  kbt::write_results_hdf5(path, small_results(), "a: 1\n", {});
  // h5dump (hdf5-tools) reads the file without any kbt code.
  const auto dump = kbt::test::run_command("h5dump -d /params/slow -d /topk/combo_id -d /metrics/final_equity " + path).output;
  EXPECT_NE(dump.find("(0): 20, 30, 30"), std::string::npos) << dump;
  EXPECT_NE(dump.find("(0): 8, 3"), std::string::npos) << dump;  // top-K combo ids, best first
  EXPECT_NE(dump.find("(0): 20, 120, 220"), std::string::npos) << dump;
  std::filesystem::remove(path);
}

TEST(ResultsFile, FileWithoutCompleteMarkIsRefused) {
  const auto path = temp_path("incomplete.h5");
  {
    std::ofstream f(path);
    f << "not hdf5";
  }
  try {
    kbt::read_results_hdf5(path);
    FAIL();
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
  std::filesystem::remove(path);
}

TEST(ResultsFile, NoTemporaryLeftAfterWrite) {
  const auto dir = std::filesystem::temp_directory_path() / ("kbt_test_results_dir_" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  const auto path = (dir / "r.h5").string();
  kbt::write_results_hdf5(path, small_results(), "", {});
  std::size_t files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    ++files;
    EXPECT_EQ(e.path().filename(), "r.h5");
  }
  EXPECT_EQ(files, 1u);
  std::filesystem::remove_all(dir);
}
