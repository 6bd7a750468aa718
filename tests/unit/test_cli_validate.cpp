// `kbt validate`: the validation stage again on a finished run, through the
// real binary. Its /validation equals, value for value, the one `kbt run`
// writes with the same settings in the config; the rest of the file is kept;
// settings are checked by the config's own rules (docs/validation.md
// "kbt validate").

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/output/results.hpp>
#include <kbt/validation/validation.hpp>

#include <cmath>
#include <cstring>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/scratch_dir.hpp"

namespace {

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_validate") {}
};

std::string write_config(const Scratch& s, const std::string& name, const std::string& validation) {
  const std::string path = s / (name + ".yaml");
  std::ofstream(path) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\nsymbols: [AAA]\n"
                      << "strategy:\n  params:\n    fast: {range: [5, 50, 5]}\n    slow: {range: [20, 200, 20]}\n"
                         "  constraints: [\"fast < slow\"]\n"
                         "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                         "simulation: {fee_bps: 5}\nsweep: {device: reference, objective: sharpe, top_k: 30}\n"
                      << validation << "output: {path: " << (s / (name + ".h5")) << ", csv: false}\n";
  return path;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0);
}

TEST(CliValidate, GivesTheValidationOfARunWithTheSameSettings) {
  const Scratch s;
  ASSERT_EQ(kbt::test::run_kbt("run " + write_config(s, "plain", "") + " --quiet").exit_code, 0);
  ASSERT_EQ(kbt::test::run_kbt("run " + write_config(s, "validated", "validation: {period: week, pbo_blocks: 8, top_k: 20}\n") +
                               " --quiet")
                .exit_code,
            0);
  EXPECT_FALSE(kbt::read_results_hdf5(s / "plain.h5").validation) << "the plain run has no /validation";
  const auto r = kbt::test::run_kbt("validate " + (s / "plain.h5") + " --period week --pbo-blocks 8 --top-k 20 -o " +
                                    (s / "v.h5"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("validation: 20 candidates by sharpe, returns per week"), std::string::npos) << r.output;

  const auto want = kbt::read_results_hdf5(s / "validated.h5");
  const auto got = kbt::read_results_hdf5(s / "v.h5");
  ASSERT_TRUE(want.validation && got.validation);
  const kbt::ValidationResults& a = *want.validation;
  const kbt::ValidationResults& b = *got.validation;
  ASSERT_EQ(b.n(), 20u);
  EXPECT_EQ(b.combo_ids, a.combo_ids);
  EXPECT_TRUE(same_bits(b.psr, a.psr));
  EXPECT_TRUE(same_bits(b.dsr, a.dsr));
  EXPECT_TRUE(same_bits(b.sharpe, a.sharpe));
  EXPECT_TRUE(same_bits(b.min_trl, a.min_trl));
  EXPECT_EQ(b.period_start_ns, a.period_start_ns);
  ASSERT_TRUE(a.pbo && b.pbo);
  EXPECT_EQ(b.pbo->pbo, a.pbo->pbo);
  EXPECT_GT(b.pbo->splits, 1u);
  EXPECT_EQ(b.n_trials, a.n_trials);
  // The rest of the file is the plain run's: same rows and top-K.
  const auto plain = kbt::read_results_hdf5(s / "plain.h5");
  EXPECT_EQ(got.results.top_k_rows().combo_ids, plain.results.top_k_rows().combo_ids);
  EXPECT_EQ(got.results.n_rows(), plain.results.n_rows());

  // In place: the plain file now has the same /validation.
  ASSERT_EQ(kbt::test::run_kbt("validate " + (s / "plain.h5") + " --period week --pbo-blocks 8 --top-k 20").exit_code, 0);
  const auto updated = kbt::read_results_hdf5(s / "plain.h5");
  ASSERT_TRUE(updated.validation);
  EXPECT_TRUE(same_bits(updated.validation->dsr, a.dsr));
}

TEST(CliValidate, SettingsAreCheckedByTheConfigsRules) {
  const Scratch s;
  ASSERT_EQ(kbt::test::run_kbt("run " + write_config(s, "r", "") + " --quiet").exit_code, 0);
  struct Bad {
    std::string args, message;
  };
  for (const Bad& b : {Bad{"--period fortnight", "validation.period must be one of day, week, month"},
                       Bad{"--pbo-blocks 7", "validation.pbo_blocks must be an even number of blocks from 2 to 26"},
                       Bad{"--top-k 31", "--top-k 31: " + (s / "r.h5") + " holds its best 30 rows"},
                       Bad{"--device warp-drive", "--device 'warp-drive': this build runs on reference"}}) {
    const auto r = kbt::test::run_kbt("validate " + (s / "r.h5") + " " + b.args);
    EXPECT_EQ(r.exit_code, 1) << b.args;
    EXPECT_NE(r.output.find(b.message), std::string::npos) << b.args << "\n" << r.output;
  }
  EXPECT_FALSE(kbt::read_results_hdf5(s / "r.h5").validation) << "a refused validate leaves the file alone";
}

}  // namespace

// A held-out window too short for min_trades leaves every candidate without
// a held-out rank: the report says so, and why, instead of a column of '-'.
TEST(CliValidate, ARankHeldOutThatNoCandidateCanHaveIsExplained) {
  const Scratch s;
  const std::string path = s / "short_holdout.yaml";
  std::ofstream(path) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\nsymbols: [AAA]\n"
                      << "strategy:\n  params:\n    fast: {values: [5, 10, 20]}\n    slow: {values: [40, 80]}\n"
                         "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                         "sweep: {device: reference, objective: {metric: sharpe, min_trades: 60}}\nverify: {top_n: 0}\n"
                         "validation: {holdout: 0.05, top_k: 6}\noutput: {path: "
                      << (s / "short_holdout.h5") << "}\n";
  const auto r = kbt::test::run_kbt("run " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("rank held out '-': 6 of 6 candidates are not eligible in the held-out window (6 with "
                          "fewer than min_trades = 60 trades there, 0 with a NaN sharpe); lower "
                          "sweep.objective.min_trades or hold out more"),
            std::string::npos)
      << r.output;
}
