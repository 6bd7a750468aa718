#pragma once
// Shared by the checkpoint/--resume tests (test_resume.cpp, test_resume_cli.cpp).

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/output/checkpoint.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/sweep/progress.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <chrono>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>
#include <unistd.h>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string config_file(const std::string& name) { return std::string(KBT_SOURCE_DIR) + "/configs/" + name; }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// Scratch folders of this test process, removed when it exits: the suite
// leaves nothing behind in the temporary directory.
struct ScratchFolders {
  std::vector<fs::path> paths;
  ~ScratchFolders() {
    for (const auto& p : paths) {
      std::error_code ignored;
      fs::remove_all(p, ignored);
    }
  }
};

fs::path scratch(const std::string& name) {
  static ScratchFolders folders;
  const auto dir = fs::temp_directory_path() / ("kbt_resume_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  folders.paths.push_back(dir);
  return dir;
}

bool space_enabled(const std::string& name) {
  for (const auto& s : kbt::enabled_execution_spaces())
    if (s.name == name) return true;
  return false;
}

// Metrics by their bits, row by row, and the top-K rows in order.
void expect_same_results(const kbt::SweepResults& ra, const kbt::SweepResults& rb) {
  ASSERT_TRUE(ra.rows && rb.rows);
  const kbt::RowTable a = kbt::read_all_rows(*ra.rows), b = kbt::read_all_rows(*rb.rows);
  ASSERT_GT(a.size(), 0u);
  ASSERT_EQ(a.combo_ids, b.combo_ids);
  ASSERT_EQ(a.params.size(), b.params.size());
  for (std::size_t i = 0; i < a.params.size(); ++i) ASSERT_TRUE(same_bits(a.params[i], b.params[i])) << i;
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  std::size_t differ = 0;
  for (std::size_t i = 0; i < a.metrics.size(); ++i) differ += !same_bits(a.metrics[i], b.metrics[i]);
  EXPECT_EQ(differ, 0u);
  EXPECT_EQ(ra.top_k_rows().rows, rb.top_k_rows().rows);
}

// configs/sma_cross.yaml with a small top-K (so that chunks' top-Ks must be merged).
kbt::RunConfig sma_config(std::size_t top_k = 7) {
  kbt::RunConfig c = kbt::load_run_config(config_file("sma_cross.yaml"));
  c.sweep.top_k = static_cast<std::int64_t>(top_k);
  return c;
}

kbt::SweepRequest request_on(const std::string& device, std::uint64_t chunk) {
  kbt::SweepRequest r;
  r.device = device;
  r.quiet = true;
  r.threads = 2;
  r.checkpoint_combos = chunk;
  return r;
}

double profile_number(const kbt::RunProfile& p, const std::string& key) {
  for (const auto& [k, v] : p.numbers)
    if (k == key) return v;
  return -1;
}

// The reference engine and every enabled kernel space.
std::vector<std::string> result_devices() {
  std::vector<std::string> d{"reference"};
  for (const auto& s : kbt::enabled_execution_spaces()) d.push_back(s.name);
  return d;
}

}  // namespace
