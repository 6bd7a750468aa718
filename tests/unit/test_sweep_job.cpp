// The sweep job (include/kbt/job/sweep_job.hpp, docs/api.md "The whole job of
// kbt run"): in memory, nothing is written; with an output path, the results
// file holds the in-memory run's rows, the checkpoint rules hold, and the
// rows read afterwards come from the written file; warnings reach the sink.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/job/sweep_job.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/output/result_rows.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "support/synthetic.hpp"

namespace {

namespace fs = std::filesystem;

kbt::RunConfig sma_config(const std::string& position = "where(f > s, 1, -1)") {
  return kbt::parse_run_config(
      "data: unused.h5\n"
      "strategy:\n"
      "  params: {fast: {range: [3, 15, 3]}, slow: {values: [20, 30]}}\n"
      "  signals:\n"
      "    f: sma(close, fast)\n"
      "    s: sma(close, slow)\n"
      "  position: " + position + "\n"
      "sweep: {objective: {metric: sharpe}, top_k: 3}\n",
      "job.yaml", "");
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

struct TempDir {
  fs::path path = fs::temp_directory_path() / ("kbt_sweep_job_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                               "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
  TempDir() { fs::remove_all(path), fs::create_directories(path); }
  ~TempDir() { fs::remove_all(path); }
};

}  // namespace

TEST(SweepJob, InMemoryWritesNothingAndAFileHoldsTheSameRows) {
  const kbt::RunConfig config = sma_config();
  const kbt::BarData bars = kbt::test::synthetic_bars(1, 800, 11);
  kbt::SweepJobOptions options;
  options.device = "reference";
  options.quiet = true;
  const kbt::SweepJobResult memory = kbt::run_sweep_job(config, bars, options);
  EXPECT_TRUE(memory.out.empty() && memory.csv.empty());
  ASSERT_NE(dynamic_cast<const kbt::MemoryRows*>(memory.sweep.results.rows.get()), nullptr);
  ASSERT_TRUE(memory.verification.has_value());
  EXPECT_GT(memory.verification->n(), 0u);
  EXPECT_EQ(memory.verification->n_mismatches(), 0u);
  const kbt::RowTable expected = kbt::read_all_rows(*memory.sweep.results.rows);
  ASSERT_EQ(expected.size(), 10u);

  TempDir dir;
  options.out = (dir.path / "r.h5").string();
  const kbt::SweepJobResult written = kbt::run_sweep_job(config, bars, options);
  EXPECT_EQ(written.out, options.out);
  EXPECT_TRUE(fs::exists(options.out));
  EXPECT_FALSE(fs::exists(kbt::checkpoint_path_for(options.out)));
  // The rows now read from the written file: the in-memory run's, by bits.
  EXPECT_EQ(dynamic_cast<const kbt::MemoryRows*>(written.sweep.results.rows.get()), nullptr);
  const kbt::RowTable rows = kbt::read_all_rows(*written.sweep.results.rows);
  EXPECT_EQ(rows.combo_ids, expected.combo_ids);
  EXPECT_TRUE(same_bits(rows.metrics, expected.metrics));
  const kbt::RowTable reread = kbt::read_all_rows(*kbt::read_results_hdf5(options.out).results.rows);
  EXPECT_TRUE(same_bits(reread.metrics, expected.metrics));

  // Resume without a checkpoint, and a checkpoint left without resume.
  options.resume = true;
  EXPECT_THROW(kbt::run_sweep_job(config, bars, options), kbt::Error);
  options.resume = false;
  std::ofstream(kbt::checkpoint_path_for(options.out)) << "left by a killed run";
  try {
    kbt::run_sweep_job(config, bars, options);
    ADD_FAILURE() << "a checkpoint without resume ran";
  } catch (const kbt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("continue it with --resume"), std::string::npos) << e.what();
  }
  options.out.clear();
  options.resume = true;
  EXPECT_THROW(kbt::run_sweep_job(config, bars, options), kbt::Error);  // nothing to resume in memory
}

TEST(SweepJob, WarningsGoToTheSink) {
  // A param-dependent higher-timeframe series: the kernel cannot run it, auto falls back.
  const kbt::RunConfig config = sma_config("where(htf(sma(close, fast) - sma(close, slow), \"4h\") > 0, 1, -1)");
  const kbt::BarData bars = kbt::test::synthetic_bars(1, 800, 11);
  std::vector<std::string> warnings;
  kbt::SweepJobOptions options;
  options.device = "auto";
  options.quiet = true;
  options.verify = false;
  options.warn = [&](const std::string& w) { warnings.push_back(w); };
  const kbt::SweepJobResult job = kbt::run_sweep_job(config, bars, options);
  EXPECT_EQ(job.sweep.device_used, "reference");
  EXPECT_FALSE(job.verification.has_value());
  ASSERT_EQ(warnings.size(), 1u);
  EXPECT_NE(warnings[0].find("runs on the reference engine: unsupported:param_dependent_expression_in_higher_timeframe"),
            std::string::npos)
      << warnings[0];
}
