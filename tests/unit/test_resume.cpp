// Checkpoint chunks, the progress line, checkpoints and --resume
// (docs/sweep.md "Checkpoint chunks", docs/results.md "Incomplete runs").

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


#include "unit/test_resume_support.hpp"


// ---- the progress line ----

TEST(ResumeProgress, LineShowsCountsRateAndEta) {
  kbt::SweepProgress p;
  p.done = 2500, p.total = 10000, p.seconds = 5;
  EXPECT_EQ(kbt::format_progress_line(p), "2,500 / 10,000 combos (25.0%), 500 combos/s, ETA 15s");
  p.done = 1000000, p.total = 100000000, p.seconds = 10;
  EXPECT_EQ(kbt::format_progress_line(p), "1,000,000 / 100,000,000 combos (1.0%), 100,000 combos/s, ETA 16m30s");
  p.done = 3, p.total = 10, p.seconds = 2;
  EXPECT_EQ(kbt::format_progress_line(p), "3 / 10 combos (30.0%), 1.5 combos/s, ETA 5s");
  p.done = 174, p.total = 174, p.seconds = 0.5;
  EXPECT_EQ(kbt::format_progress_line(p), "174 / 174 combos (100.0%), 348 combos/s, ETA 0s");
}

TEST(ResumeProgress, RateCountsOnlyCombosSimulatedByThisProcess) {
  kbt::SweepProgress p;
  p.total = 10000, p.done = 6000, p.resumed = 5000, p.seconds = 10;
  EXPECT_EQ(kbt::format_progress_line(p), "6,000 / 10,000 combos (60.0%), 100 combos/s, ETA 40s");
  p.done = 5000, p.seconds = 3;  // nothing simulated yet
  EXPECT_EQ(kbt::format_progress_line(p), "5,000 / 10,000 combos (50.0%), -- combos/s, ETA --");
  p.resumed = 0, p.done = 0, p.seconds = 0;
  EXPECT_EQ(kbt::format_progress_line(p), "0 / 10,000 combos (0.0%), -- combos/s, ETA --");
}

TEST(ResumeProgress, Durations) {
  EXPECT_EQ(kbt::format_duration(0), "0s");
  EXPECT_EQ(kbt::format_duration(59.4), "59s");
  EXPECT_EQ(kbt::format_duration(125), "2m05s");
  EXPECT_EQ(kbt::format_duration(3 * 3600 + 7 * 60 + 5), "3h07m");
  EXPECT_EQ(kbt::format_duration(-1), "--");
  EXPECT_EQ(kbt::format_duration(std::nan("")), "--");
}

// ---- chunk size ----

TEST(ResumeChunks, AutoChunkSizeFollowsTheWork) {
  EXPECT_EQ(kbt::resolve_checkpoint_combos(100, 1000000, 10, "serial", 1), 100u);
  EXPECT_EQ(kbt::resolve_checkpoint_combos(0, 4096, 1, "serial", 8), std::uint64_t(1) << 14);  // 2^26 / 2^12
  EXPECT_EQ(kbt::resolve_checkpoint_combos(0, 1024, 4, "reference", 2), std::uint64_t(1) << 15);
  EXPECT_EQ(kbt::resolve_checkpoint_combos(0, 4096, 1, "openmp", 4), std::uint64_t(1) << 16);
  EXPECT_EQ(kbt::resolve_checkpoint_combos(0, 4096, 1, "cuda", 1), std::uint64_t(1) << 21);    // 2^33 / 2^12
  EXPECT_EQ(kbt::resolve_checkpoint_combos(0, 10, 1, "cuda", 1), std::uint64_t(1) << 22);      // at most 2^22
  EXPECT_EQ(kbt::resolve_checkpoint_combos(0, 100000000, 50, "serial", 1), 256u);              // at least 256
}

TEST(ResumeChunks, ConfigKeyIsValidatedAtItsLine) {
  const std::string pre = "data: d.h5\nstrategy:\n  params: {a: [1, 2]}\n  position: 1\n";
  EXPECT_EQ(kbt::parse_run_config(pre + "sweep: {checkpoint_combos: 512}\n", "cfg.yaml", "").sweep.checkpoint_combos, 512u);
  EXPECT_EQ(kbt::parse_run_config(pre + "sweep: {checkpoint_combos: auto}\n", "cfg.yaml", "").sweep.checkpoint_combos, 0u);
  EXPECT_EQ(kbt::parse_run_config(pre, "cfg.yaml", "").sweep.checkpoint_combos, 0u);
  for (const std::string bad : {"0", "-3", "1.5", "many", "[1]"}) {
    try {
      kbt::parse_run_config(pre + "sweep: {checkpoint_combos: " + bad + "}\n", "cfg.yaml", "");
      ADD_FAILURE() << bad << " accepted";
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), kbt::ErrorCategory::config);
      const std::string msg = e.what();
      EXPECT_NE(msg.find("cfg.yaml:5:28: "), std::string::npos) << msg;
      EXPECT_NE(msg.find("sweep.checkpoint_combos must be auto or an integer >= 1"), std::string::npos) << msg;
    }
  }
}

// Chunked and unchunked sweeps: the same metrics (bits) and top-K, on the
// reference engine and the Serial kernel, with chunks that do not divide the
// combos and a top-K smaller than a chunk.
TEST(ResumeChunks, ChunkedEqualsUnchunkedBits) {
  const kbt::RunConfig config = sma_config();
  const kbt::BarData bars = kbt::load_run_data(config);
  for (const auto& device : result_devices()) {
    SCOPED_TRACE(device);
    const auto whole = kbt::run_sweep(config, bars, request_on(device, 1u << 30));
    ASSERT_EQ(whole.device_used, device);
    EXPECT_EQ(profile_number(whole.profile, "chunks"), 1);
    ASSERT_EQ(whole.results.top_k, 7u);
    for (const std::uint64_t chunk : {1u, 5u, 13u, 173u}) {
      SCOPED_TRACE(chunk);
      std::vector<kbt::SweepProgress> seen;
      auto req = request_on(device, chunk);
      req.progress = [&](const kbt::SweepProgress& p) { seen.push_back(p); };
      const auto chunked = kbt::run_sweep(config, bars, req);
      expect_same_results(whole.results, chunked.results);
      const std::size_t n = whole.results.n_rows(), chunks = (n + chunk - 1) / chunk;
      EXPECT_EQ(profile_number(chunked.profile, "chunks"), static_cast<double>(chunks));
      // Once before the first chunk, then after each.
      ASSERT_EQ(seen.size(), chunks + 1);
      EXPECT_EQ(seen.front().done, 0u);
      EXPECT_EQ(seen.back().done, n);
      for (std::size_t i = 1; i < seen.size(); ++i) EXPECT_EQ(seen[i].done, std::min<std::size_t>(n, i * chunk));
    }
  }
}

// Ties and ineligible combos across chunk boundaries: min_trades excludes
// many, and total_return ties (flat combos) are broken by combo id.
TEST(ResumeChunks, ChunkedTopKWithTiesAndIneligibleCombos) {
  kbt::RunConfig config = sma_config(40);
  config.sweep.objective.metric = "n_trades";
  config.sweep.objective.min_trades = 30;
  config.sweep.objective.maximize = false;
  const kbt::BarData bars = kbt::load_run_data(config);
  for (const auto& device : result_devices()) {
    SCOPED_TRACE(device);
    const auto whole = kbt::run_sweep(config, bars, request_on(device, 1u << 30));
    ASSERT_GT(whole.results.top_k, 0u);
    for (const std::uint64_t chunk : {3u, 16u}) expect_same_results(whole.results, kbt::run_sweep(config, bars, request_on(device, chunk)).results);
  }
}

// fp32 sweeps: the chunks' float metrics and top-K are the unchunked ones too.
TEST(ResumeChunks, ChunkedEqualsUnchunkedInFp32) {
  kbt::RunConfig config = sma_config(9);
  config.sweep.precision = "fp32";
  const kbt::BarData bars = kbt::load_run_data(config);
  for (const auto& s : kbt::enabled_execution_spaces()) {
    SCOPED_TRACE(s.name);
    const auto whole = kbt::run_sweep(config, bars, request_on(s.name, 1u << 30));
    const auto chunked = kbt::run_sweep(config, bars, request_on(s.name, 11));
    expect_same_results(whole.results, chunked.results);
    EXPECT_EQ(profile_number(chunked.profile, "fp32_spearman_vs_fp64"),
              profile_number(whole.profile, "fp32_spearman_vs_fp64"));
  }
}

// ---- checkpoints and resume in the library ----

namespace {

struct Interrupted {};

// Runs with a checkpoint and stops (an exception from the progress callback)
// once `stop_after` combos are done.
void run_until(const kbt::RunConfig& config, const kbt::BarData& bars, kbt::SweepRequest req, std::size_t stop_after) {
  req.progress = [&](const kbt::SweepProgress& p) {
    if (p.done >= stop_after) throw Interrupted{};
  };
  EXPECT_THROW(kbt::run_sweep(config, bars, req), Interrupted);
}

}  // namespace

TEST(ResumeCheckpoint, InterruptedRunResumesToTheSameBits) {
  const auto dir = scratch("lib");
  const kbt::RunConfig config = sma_config();
  const kbt::BarData bars = kbt::load_run_data(config);
  for (const auto& device : result_devices()) {
    SCOPED_TRACE(device);
    const auto whole = kbt::run_sweep(config, bars, request_on(device, 1u << 30));
    const std::string ckpt = (dir / (device + ".h5.partial.h5")).string();
    auto req = request_on(device, 16);
    req.checkpoint_path = ckpt;
    req.results_path = (dir / (device + ".h5")).string();
    req.resume_command = "kbt run sma.yaml --resume";
    run_until(config, bars, req, 48);
    ASSERT_TRUE(fs::exists(ckpt));
    const auto status = kbt::read_checkpoint_status(ckpt);
    EXPECT_EQ(status.combos_done, 48u);
    EXPECT_EQ(status.combos_total, whole.results.n_rows());
    EXPECT_EQ(status.results_path, req.results_path);
    // No results reader takes it for a finished run.
    try {
      kbt::read_results_hdf5(ckpt);
      ADD_FAILURE() << "checkpoint read as results";
    } catch (const kbt::Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(ckpt + ": incomplete results"), std::string::npos) << msg;
      EXPECT_NE(msg.find("48 of 174 combos done"), std::string::npos) << msg;
      EXPECT_NE(msg.find("'kbt run sma.yaml --resume'"), std::string::npos) << msg;
    }
    // A new run must not start over it.
    auto fresh = req;
    EXPECT_THROW(kbt::run_sweep(config, bars, fresh), kbt::Error);
    // Resume (in chunks of another size): only the remaining combos are simulated.
    std::vector<kbt::SweepProgress> seen;
    req.resume = true;
    req.checkpoint_combos = 5;
    req.progress = [&](const kbt::SweepProgress& p) { seen.push_back(p); };
    const auto resumed = kbt::run_sweep(config, bars, req);
    expect_same_results(whole.results, resumed.results);
    EXPECT_EQ(profile_number(resumed.profile, "resumed_combos"), 48);
    ASSERT_FALSE(seen.empty());
    EXPECT_EQ(seen.front().done, 48u);
    EXPECT_EQ(seen.front().resumed, 48u);
    EXPECT_EQ(kbt::read_checkpoint_status(ckpt).combos_done, 174u);
    // A second resume of a finished checkpoint simulates nothing and gives the same results.
    const auto again = kbt::run_sweep(config, bars, req);
    expect_same_results(whole.results, again.results);
    EXPECT_EQ(profile_number(again.profile, "chunks"), 0);
  }
}

TEST(ResumeCheckpoint, ResumeRefusesAnotherRunsCheckpoint) {
  const auto dir = scratch("identity");
  // A private copy of the data (the run names its path).
  const auto data = dir / "data.h5";
  fs::copy_file(std::string(KBT_SOURCE_DIR) + "/data/sample.h5", data);
  const auto cfg_path = dir / "cfg.yaml";
  const std::string yaml = "data: data.h5\nstrategy:\n  params:\n    fast: {range: [5, 50, 5]}\n"
                           "    slow: {range: [20, 200, 10]}\n  constraints: [\"fast < slow\"]\n"
                           "  signals:\n    f: sma(close, fast)\n    s: sma(close, slow)\n"
                           "  position: where(f > s, 1, -1)\nsweep: {top_k: 5}\n";
  std::ofstream(cfg_path) << yaml;
  const kbt::RunConfig config = kbt::load_run_config(cfg_path.string());
  const kbt::BarData bars = kbt::load_run_data(config);
  const std::string ckpt = (dir / "r.h5.partial.h5").string();
  auto req = request_on("reference", 20);
  req.checkpoint_path = ckpt;
  run_until(config, bars, req, 20);
  ASSERT_TRUE(fs::exists(ckpt));
  req.resume = true;
  const auto refused = [&](const kbt::RunConfig& c, const kbt::SweepRequest& r, const std::string& what,
                           const kbt::BarData* other_data = nullptr) {
    try {
      kbt::run_sweep(c, other_data ? *other_data : bars, r);
      ADD_FAILURE() << what << ": resumed";
    } catch (const kbt::Error& e) {
      const std::string msg = e.what();
      EXPECT_NE(msg.find(ckpt + ": cannot resume: "), std::string::npos) << msg;
      EXPECT_NE(msg.find(what), std::string::npos) << msg;
      EXPECT_NE(msg.find("delete it to start over"), std::string::npos) << msg;
    }
  };
  if (space_enabled("serial")) {
    auto r = req;
    r.device = "serial";
    refused(config, r, "the checkpoint's device is 'reference', this run's is 'serial'");
  }
  {
    auto r = req;
    r.sample = 50;
    r.sample_seed = 1;
    refused(config, r, "the checkpoint's sample is 'none', this run's is '50'");
  }
  {
    const kbt::RunConfig other = kbt::parse_run_config(yaml + "# edited\n", cfg_path.string(), dir.string());
    refused(other, req, "the config text differs");
  }
  {
    // The data is identified by content (docs/results.md "Identity of the data").
    kbt::BarData edited = bars;
    edited.columns.at("close").back() *= 1.01;
    refused(config, req, "the checkpoint's data_digest is", &edited);
  }
}

// Creation is exclusive: a checkpoint that appears between the check and the
// creation (two runs on one output at once) is not overwritten.
TEST(ResumeCheckpoint, CreationNeverOverwritesAnotherCheckpoint) {
  const auto dir = scratch("exclusive");
  kbt::ParamSpec a;
  a.name = "a";
  a.values = {1, 2, 3};
  const kbt::ComboRows combos = kbt::ComboRows::of_grid(kbt::ParamGrid({a}));
  kbt::CheckpointIdentity id = kbt::CheckpointIdentity::for_data(std::string(KBT_SOURCE_DIR) + "/data/sample.h5", "0123456789abcdef");
  id.n_combos = 3;
  const std::string path = (dir / "r.h5.partial.h5").string();
  auto first = kbt::Checkpoint::create(path, id, {"a"}, combos, kbt::all_metrics_mask, "r.h5", "kbt run first --resume");
  const std::vector<double> rows(2 * kbt::n_metrics, 2.0);  // whole: counts are stored as int64
  first->commit(0, 2, rows.data());
  try {
    kbt::Checkpoint::create(path, id, {"a"}, combos, kbt::all_metrics_mask, "r.h5", "kbt run second --resume");
    ADD_FAILURE() << "overwritten";
  } catch (const kbt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("appeared meanwhile"), std::string::npos) << e.what();
  }
  const auto status = kbt::read_checkpoint_status(path);
  EXPECT_EQ(status.combos_done, 2u);
  EXPECT_EQ(status.resume_command, "kbt run first --resume");
  // No temporary left behind.
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir)) files.push_back(e.path().filename().string());
  EXPECT_EQ(files, std::vector<std::string>{"r.h5.partial.h5"});
  // Commits go in order.
  EXPECT_THROW(first->commit(0, 1, rows.data()), kbt::Error);
  EXPECT_THROW(first->commit(2, 2, rows.data()), kbt::Error);  // past the end
}

