// The verification stage end to end: `kbt run` writes /verify, `kbt verify`
// re-verifies an existing file; the /verify schema is read back with h5dump
// (an independent reader).

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/data/time_format.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <unistd.h>
#include <map>
#include <regex>

#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

std::string config(const std::string& name) { return std::string(KBT_SOURCE_DIR) + "/configs/" + name; }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// One `kbt run` of 60 combos of configs/sma_cross.yaml for every test here.
class VerifyCli : public ::testing::Test {
 protected:
  // Per process: ctest runs every test in its own process, in parallel.
  static fs::path dir() { return fs::temp_directory_path() / ("kbt_verify_cli_" + std::to_string(::getpid())); }
  static void TearDownTestSuite() { fs::remove_all(dir()); }
  static std::string results() { return (dir() / "run.h5").string(); }
  static std::string& run_output() {
    static std::string out;
    return out;
  }
  static void SetUpTestSuite() {
    fs::remove_all(dir());
    fs::create_directories(dir());
    const auto r = kbt::test::run_kbt("run " + config("sma_cross.yaml") +
                                      " --device reference --threads 2 --quiet --sample 60 --seed 3 --out " + results());
    run_output() = r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
};

// Candidates the sweep ranks: finite sharpe and n_trades >= 10 (the config's min_trades).
std::size_t eligible_rows(const kbt::SweepResults& results) {
  const kbt::RowTable r = kbt::read_all_rows(*results.rows);
  std::size_t n = 0;
  for (std::size_t i = 0; i < r.size(); ++i) {
    const double* m = r.metrics_of(i);
    n += !std::isnan(m[int(kbt::Metric::sharpe)]) && m[int(kbt::Metric::n_trades)] >= 10;
  }
  return n;
}

}  // namespace

// verify.top_n: auto on 60 rows: the best 20 (1 % of the rows, at least 20).
TEST_F(VerifyCli, RunVerifiesTheAutomaticShareWithoutMismatch) {
  const auto loaded = kbt::read_results_hdf5(results());
  ASSERT_TRUE(loaded.verification.has_value());
  const auto& v = *loaded.verification;
  ASSERT_GT(eligible_rows(loaded.results), 20u);
  const std::size_t n = 20;
  EXPECT_EQ(v.n(), n);
  EXPECT_NE(run_output().find("verified:  the best 20 of 60 rows by sharpe (verify.top_n: auto"), std::string::npos)
      << run_output();
  EXPECT_EQ(v.n_mismatches(), 0u);
  EXPECT_TRUE(v.mismatch_checked);
  EXPECT_EQ(v.rank_after, v.rank_before);
  EXPECT_EQ(v.objective.metric, "sharpe");
  EXPECT_NE(run_output().find("verification: " + std::to_string(n) + " candidates"), std::string::npos)
      << run_output();
  EXPECT_NE(run_output().find("mismatches: 0 of " + std::to_string(n)), std::string::npos) << run_output();
  // The summary comes after the top-K table.
  EXPECT_LT(run_output().find("top 10 by sharpe"), run_output().find("verification:"));
}

TEST_F(VerifyCli, VerifyGroupSchemaReadByH5dump) {
  const std::size_t n = 20;  // verify.top_n: auto on 60 rows
  const std::string dump = kbt::test::run_command("h5dump -H -g /verify " + results()).output;
  ASSERT_NE(dump.find("GROUP \"/verify\""), std::string::npos) << dump;
  std::vector<std::string> datasets{"combo_id", "rank_before", "rank_after", "mismatch", "rank_moved", "row"};
  for (const auto* m : kbt::metric_names()) datasets.push_back(m);  // in /verify/metrics
  datasets.push_back("fast");  // in /verify/params
  datasets.push_back("slow");
  const std::string shape = "SIMPLE { ( " + std::to_string(n) + " ) / ( " + std::to_string(n) + " ) }";
  for (const auto& name : datasets) {
    const std::regex block("DATASET \"" + name + "\" \\{\\s*DATATYPE\\s+(\\S+)\\s*DATASPACE\\s+([^\\n]*)");
    std::smatch m;
    ASSERT_TRUE(std::regex_search(dump, m, block)) << name << "\n" << dump;
    EXPECT_EQ(m[2].str(), shape) << name;
    const std::string type = m[1].str();
    if (name == "mismatch" || name == "rank_moved") EXPECT_EQ(type, "H5T_STD_U8LE") << name;
    else if (name == "combo_id" || name == "row" || name.rfind("rank_", 0) == 0) EXPECT_EQ(type, "H5T_STD_U64LE") << name;
    // Counts and integer params (fast, slow) are int64 (docs/results.md "Types").
    else if (name == "n_trades" || name == "max_drawdown_duration" || name == "fast" || name == "slow")
      EXPECT_EQ(type, "H5T_STD_I64LE") << name;
    else EXPECT_EQ(type, "H5T_IEEE_F64LE") << name;
  }
  for (const char* attr : {"window", "objective", "direction", "window_begin", "window_end", "same_window"})
    EXPECT_NE(dump.find("ATTRIBUTE \"" + std::string(attr) + "\""), std::string::npos) << attr;
  const std::string objective = kbt::test::run_command("h5dump -a /verify/objective " + results()).output;
  EXPECT_NE(objective.find("\"sharpe\""), std::string::npos) << objective;
  const std::string window = kbt::test::run_command("h5dump -a /verify/window " + results()).output;
  EXPECT_NE(window.find("bars [0, 20000)"), std::string::npos) << window;
}

TEST_F(VerifyCli, NoVerifyLeavesTheGroupOut) {
  const auto out = (dir() / "noverify.h5").string();
  const auto r = kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device reference --quiet --no-verify --sample 20 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("verification:"), std::string::npos);
  EXPECT_FALSE(kbt::read_results_hdf5(out).verification.has_value());
}

TEST_F(VerifyCli, VerifyOnAnotherWindowWritesACopyEqualToBacktests) {
  const auto copy = (dir() / "window.h5").string();
  const auto r = kbt::test::run_kbt("verify " + results() + " --top-n 6 --score-start 5000 --score-end 2022-01-01 --threads 2 --out " + copy);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("verification: 6 candidates"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("not checked (the window differs"), std::string::npos) << r.output;
  const auto original = kbt::read_results_hdf5(results());
  const auto loaded = kbt::read_results_hdf5(copy);
  ASSERT_TRUE(loaded.verification.has_value());
  const auto& v = *loaded.verification;
  ASSERT_EQ(v.n(), 6u);
  EXPECT_FALSE(v.same_window);
  EXPECT_EQ(v.window_begin, 5000u);
  EXPECT_EQ(kbt::read_all_rows(*loaded.results.rows).combo_ids,
            kbt::read_all_rows(*original.results.rows).combo_ids);  // the rest is copied
  EXPECT_EQ(original.verification->window_begin, 0u);                // the original is untouched

  // Independent one-combo backtests on the same window.
  kbt::RunConfig cfg = kbt::load_run_config(config("sma_cross.yaml"));
  const kbt::BarData bars = kbt::load_run_data(cfg);
  cfg.simulation.score_start_bar = 5000;
  kbt::SimulationOptions options;
  options.score_end_time_ns = kbt::parse_iso8601_ns("2022-01-01");
  for (std::size_t i = 0; i < v.n(); ++i) {
    const kbt::RowTable row = kbt::read_rows(*loaded.results.rows, {v.rows[i]});
    const std::map<std::string, double> params{{"fast", row.params[0]}, {"slow", row.params[1]}};
    const auto sim = kbt::run_backtest(cfg, bars, params, options);
    EXPECT_EQ(v.window_end, sim.window.end);
    for (std::size_t m = 0; m < kbt::n_metrics; ++m)
      EXPECT_TRUE(same_bits(sim.metrics[m], v.metrics[i * kbt::n_metrics + m])) << i << " " << kbt::metric_names()[m];
  }
}

TEST_F(VerifyCli, VerifyInPlaceReplacesTheGroup) {
  const auto file = (dir() / "inplace.h5").string();
  fs::copy_file(results(), file, fs::copy_options::overwrite_existing);
  const auto before = kbt::read_results_hdf5(file).verification;
  ASSERT_TRUE(before.has_value());
  const auto r = kbt::test::run_kbt("verify " + file + " --top-n 4 --threads 1 --objective total_return");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  // It says what it replaced.
  EXPECT_NE(r.output.find("verification written to " + file + " (/verify; it replaced the earlier /verify of " +
                          std::to_string(before->combo_ids.size()) + " candidates by " + before->objective.metric),
            std::string::npos)
      << r.output;
  const auto loaded = kbt::read_results_hdf5(file);
  ASSERT_TRUE(loaded.verification.has_value());
  EXPECT_EQ(loaded.verification->n(), 4u);
  EXPECT_EQ(loaded.verification->objective.metric, "total_return");
  EXPECT_EQ(loaded.verification->n_mismatches(), 0u);
  for (const auto& entry : fs::directory_iterator(dir()))
    EXPECT_EQ(entry.path().string().find(".partial."), std::string::npos) << entry.path();
}

TEST_F(VerifyCli, VerifyErrorsAreClear) {
  auto r = kbt::test::run_kbt("verify " + (dir() / "missing.h5").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("missing.h5: no such file"), std::string::npos) << r.output;
  r = kbt::test::run_kbt("verify " + results() + " --score-end yesterday --out " + (dir() / "bad.h5").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("--score-end: 'yesterday'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir() / "bad.h5"));
  r = kbt::test::run_kbt("verify " + results() + " --score-start 30000 --out " + (dir() / "bad.h5").string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("verification window"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(dir() / "bad.h5"));
}

namespace {

bool space_enabled(const std::string& name) {
  const std::string spaces = std::string(",") + KBT_TEST_KOKKOS_DEVICES + ",";
  return spaces.find("," + name + ",") != std::string::npos;
}

}  // namespace

TEST_F(VerifyCli, KernelSweepsAreVerifiedByBitsInFp64AndByRanksInFp32) {
  if (!space_enabled("serial")) GTEST_SKIP() << "no Serial space in this Kokkos build";
  const auto fp64 = (dir() / "serial64.h5").string();
  auto r = kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device serial --quiet --sample 30 --seed 9 --out " + fp64);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto a = kbt::read_results_hdf5(fp64);
  ASSERT_TRUE(a.verification.has_value());
  EXPECT_EQ(a.profile_text("device"), "serial");
  EXPECT_TRUE(a.verification->mismatch_checked);
  EXPECT_GT(a.verification->n(), 10u);
  EXPECT_EQ(a.verification->n_mismatches(), 0u) << r.output;  // the kernel equals the reference, bit for bit

  // fp32: the same config with sweep.precision: fp32 (data path made absolute).
  const auto yaml = dir() / "fp32.yaml";
  {
    std::ifstream in(config("sma_cross.yaml"));
    std::ofstream out(yaml);
    std::string line;
    while (std::getline(in, line)) {
      if (line.rfind("data:", 0) == 0) line = std::string("data: ") + KBT_SOURCE_DIR + "/data/sample.h5";
      if (line.rfind("sweep:", 0) == 0) line += "\n  precision: fp32";
      if (line.rfind("output:", 0) == 0) continue;
      out << line << "\n";
    }
  }
  const auto fp32 = (dir() / "serial32.h5").string();
  r = kbt::test::run_kbt("run " + yaml.string() + " --device serial --quiet --sample 30 --seed 9 --out " + fp32);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto b = kbt::read_results_hdf5(fp32);
  ASSERT_TRUE(b.verification.has_value());
  EXPECT_EQ(b.verification->sweep_precision, "fp32");
  EXPECT_FALSE(b.verification->mismatch_checked);
  EXPECT_TRUE(b.verification->rank_checked);
  EXPECT_NE(r.output.find("rank moved by more than 10: "), std::string::npos) << r.output;
  // The fp64 verification of the same combos equals the fp64 sweep's values.
  ASSERT_GT(b.verification->n(), 0u);
  for (std::size_t i = 0; i < b.verification->n(); ++i) {
    const auto row = kbt::find_combo_row(*a.results.rows, b.verification->combo_ids[i]);
    ASSERT_TRUE(row.has_value());
    const kbt::RowTable fp64 = kbt::read_rows(*a.results.rows, {*row});  // the metrics of its metric set
    ASSERT_TRUE(kbt::has_metric(fp64.metric_mask, int(kbt::Metric::sharpe)));
    for (std::size_t m = 0; m < kbt::n_metrics; ++m)
      if (kbt::has_metric(fp64.metric_mask, static_cast<int>(m)))
        EXPECT_TRUE(same_bits(b.verification->metrics[i * kbt::n_metrics + m], fp64.metrics[m]));
  }
}

TEST_F(VerifyCli, ABadVerifyWindowFailsBeforeTheSweep) {
  const auto yaml = dir() / "badwindow.yaml";
  const auto out = dir() / "badwindow.h5";
  std::ofstream(yaml) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\n"
                      << "strategy:\n"
                         "  params: {w: {range: [5, 10, 5]}}\n"
                         "  signals: {m: 'sma(close, w)'}\n"
                         "  position: where(close > m, 1, 0)\n"
                         "verify:\n"
                         "  score_start: 25000\n";
  const auto r = kbt::test::run_kbt("run " + yaml.string() + " --device reference --quiet --out " + out.string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("badwindow.yaml:7:16: verification window"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bar index 25000 is outside the data's 20000 bars"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}
