// `kbt plot --validation` and the walk-forward read back from a results file
// (docs/validation.md "Pictures"), through the real binary.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/output/results.hpp>
#include <kbt/validation/validation.hpp>

#include <fstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/scratch_dir.hpp"

namespace {

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_validation_plots") {}
};

std::string run(const Scratch& s, const std::string& name, const std::string& validation) {
  const std::string cfg = s / (name + ".yaml"), out = s / (name + ".h5");
  std::ofstream(cfg) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\nsymbols: [AAA]\n"
                     << "strategy:\n  params:\n    fast: {range: [5, 50, 5]}\n    slow: {range: [20, 200, 20]}\n"
                        "  constraints: [\"fast < slow\"]\n"
                        "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                        "simulation: {fee_bps: 5}\nsweep: {device: reference, objective: sharpe, top_k: 30}\n"
                     << validation << "output: {path: " << out << ", csv: false}\n";
  const auto r = kbt::test::run_kbt("run " + cfg + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  return out;
}

bool is_png(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[4] = {};
  f.read(head, 4);
  return std::string(head + 1, 3) == "PNG";
}

TEST(CliValidationPlots, WalkForwardReadBackIsConsistentWithItsRun) {
  const Scratch s;
  const auto loaded = kbt::read_results_hdf5(run(s, "wf", "validation: {walk_forward: {train: 180d, test: 60d}, top_k: 10}\n"));
  ASSERT_TRUE(loaded.validation && loaded.validation->walk_forward);
  const kbt::WalkForwardResults& wf = *loaded.validation->walk_forward;
  ASSERT_GE(wf.folds.size(), 5u);
  // The folds' test windows tile the stitched window, and its equity has one value per bar.
  EXPECT_EQ(wf.folds.front().test.begin, wf.stitched.begin);
  EXPECT_EQ(wf.folds.back().test.end, wf.stitched.end);
  for (std::size_t f = 1; f < wf.folds.size(); ++f) EXPECT_EQ(wf.folds[f].test.begin, wf.folds[f - 1].test.end) << f;
  EXPECT_EQ(wf.stitched_equity.size(), wf.stitched.end - wf.stitched.begin);
  ASSERT_EQ(wf.stitched_metrics.size(), kbt::n_metrics);
  // Each choice is a row of the run: its params are that row's.
  const auto& rows = *loaded.results.rows;
  for (const auto& fold : wf.folds) {
    ASSERT_EQ(fold.best.size(), 1u);
    std::vector<double> params(2);
    std::uint64_t id = 0;
    rows.read(fold.best.rows[0], 1, &id, params.data(), nullptr);
    EXPECT_EQ(id, fold.best.combo_ids[0]);
    EXPECT_EQ(params[0], fold.best.params_of(0)[0]);
    EXPECT_EQ(params[1], fold.best.params_of(0)[1]);
    EXPECT_EQ(fold.test_metrics.size(), kbt::n_metrics);
  }
}

TEST(CliValidationPlots, DrawsWhatTheRunHas) {
  if (kbt::test::run_command("command -v gnuplot").exit_code != 0) GTEST_SKIP() << "gnuplot is not installed";
  const Scratch s;
  const std::string holdout = run(s, "ho", "validation: {holdout: 0.3, top_k: 20}\n");
  const auto r = kbt::test::run_kbt("plot " + holdout + " --validation -o " + (s / "ho.png"));
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("(20 points)"), std::string::npos) << r.output;
  EXPECT_TRUE(is_png(s / "ho_is_oos.png"));
  EXPECT_TRUE(is_png(s / "ho_pbo.png"));
  EXPECT_FALSE(std::ifstream(s / "ho_walk_forward.png").good()) << "no walk-forward in this run";

  const std::string walk = run(s, "wf", "validation: {walk_forward: {train: 180d, test: 60d}, top_k: 10}\n");
  const auto w = kbt::test::run_kbt("plot " + walk + " --validation -o " + (s / "wf"));
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_TRUE(is_png(s / "wf_is_oos.png"));
  EXPECT_TRUE(is_png(s / "wf_walk_forward.png"));

  const std::string plain = run(s, "plain", "");
  const auto none = kbt::test::run_kbt("plot " + plain + " --validation -o " + (s / "p"));
  EXPECT_EQ(none.exit_code, 1);
  EXPECT_NE(none.output.find("has no /validation"), std::string::npos) << none.output;
}

}  // namespace
