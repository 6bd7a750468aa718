// `kbt run` and `kbt check` of an action-driven simulation (docs/simulate.md
// "The simulate job"), through the real binary: an actions file read back
// into the described layout (docs/results.md "Simulate files"), what flat and
// held trials must show, the engines agreeing by bits, and the job's errors
// naming the file, dataset, trial, symbol and bar.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <hdf5.h>
#include <kbt/data/data_io.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/metrics/metrics.hpp>

#include <cmath>
#include <fstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/hdf5_file.hpp"
#include "support/scratch_dir.hpp"

namespace {

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_simulate") {}
};

const std::string kSample = std::string(KBT_SOURCE_DIR) + "/data/sample.h5";

// A float64 dataset `name` of shape `dims` in a new file `path`.
void write_actions(const std::string& path, const std::string& name, const std::vector<hsize_t>& dims,
                   const std::vector<double>& values) {
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t links = H5Pcreate(H5P_LINK_CREATE);
  H5Pset_create_intermediate_group(links, 1);  // "policy/actions": the group too
  const hid_t set = H5Dcreate2(file, name.c_str(), H5T_IEEE_F64LE, space, links, H5P_DEFAULT, H5P_DEFAULT);
  H5Pclose(links);
  H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(set);
  H5Sclose(space);
  H5Fclose(file);
}

using File = kbt::test::Hdf5File;

// A config simulating `simulate` (the section's body) on AAA and BBB from 2021-03-01.
std::string write_config(const Scratch& s, const std::string& simulate) {
  const std::string path = s / "sim.yaml";
  std::ofstream(path) << "job: simulate\ndata: " << kSample
                      << "\nsymbols: [AAA, BBB]\nsimulation:\n  initial_capital: 1000\n  fee_bps: 5\n"
                         "  score_start: 2021-03-01T00:00:00Z\nsimulate:\n"
                      << simulate << "output: {path: " << (s / "sim.h5") << "}\n";
  return path;
}

TEST(CliSimulate, AnActionsFileBecomesTheDescribedLayout) {
  Scratch s;
  const kbt::BarData bars = kbt::load_bars_hdf5(kSample, {"AAA", "BBB"});
  const std::size_t nb = bars.n_bars(), ns = 2, nt = 3;
  // Trial 0 flat; trial 1 half long AAA throughout; trial 2 switches BBB long/short every 100 bars.
  std::vector<double> actions(nt * ns * nb, 0.0);
  for (std::size_t b = 0; b < nb; ++b) {
    actions[(1 * ns + 0) * nb + b] = 0.5;
    actions[(2 * ns + 1) * nb + b] = (b / 100) % 2 ? -1.0 : 1.0;
  }
  write_actions(s / "actions.h5", "policy/actions", {nt, ns, nb}, actions);
  const std::string config =
      write_config(s, "  actions: actions.h5\n  dataset: policy/actions\n  per_bar: true\n  reward: pnl\n");
  const auto run = kbt::test::run_kbt("run " + config + " --device reference");
  ASSERT_EQ(run.exit_code, 0) << run.output;

  File f(s / "sim.h5");
  ASSERT_GE(f.id, 0);
  std::vector<hsize_t> dims;
  const auto times = f.read<std::int64_t>("timestamps", H5T_NATIVE_INT64);
  ASSERT_FALSE(times.empty());
  const std::size_t nw = times.size(), begin = nb - nw;
  EXPECT_EQ(kbt::format_iso8601_utc(times.front()), "2021-03-01T00:00:00Z");
  EXPECT_EQ(times.back(), bars.timestamps.back());
  EXPECT_NE(run.output.find("simulate: 3 trials x 2 symbols x " + std::to_string(nw) + " window bars, device reference"),
            std::string::npos)
      << run.output;
  const auto equity = f.read<double>("per_bar/equity", H5T_NATIVE_DOUBLE, &dims);
  EXPECT_EQ(dims, std::vector<hsize_t>({nt, nw}));
  const auto units = f.read<double>("per_bar/units", H5T_NATIVE_DOUBLE, &dims);
  EXPECT_EQ(dims, std::vector<hsize_t>({nt, nw, ns}));
  const auto open_pnl = f.read<double>("per_bar/open_pnl", H5T_NATIVE_DOUBLE);
  const auto drawdown = f.read<double>("per_bar/drawdown", H5T_NATIVE_DOUBLE);
  const auto reward = f.read<double>("per_bar/reward", H5T_NATIVE_DOUBLE);
  const auto final_equity = f.read<double>("metrics/final_equity", H5T_NATIVE_DOUBLE);
  const auto trades = f.read<std::int64_t>("metrics/n_trades", H5T_NATIVE_INT64);
  ASSERT_EQ(final_equity.size(), nt);
  ASSERT_EQ(equity.size(), nt * nw);
  for (const auto* name : {"timestamps", "per_bar/equity", "per_bar/units", "per_bar/open_pnl", "per_bar/reward",
                           "metrics/sharpe"})
    EXPECT_TRUE(f.has_attribute(name, "description")) << name;
  EXPECT_TRUE(f.has_attribute(".", "complete"));
  EXPECT_GT(H5Lexists(f.id, "symbols", H5P_DEFAULT), 0);

  // The flat trial: no trade, the capital untouched every bar, no reward.
  EXPECT_EQ(trades[0], 0);
  EXPECT_EQ(final_equity[0], 1000.0);
  for (std::size_t k = 0; k < nw; ++k) {
    EXPECT_EQ(equity[k], 1000.0);
    EXPECT_EQ(reward[k], 0.0);
    EXPECT_EQ(open_pnl[k], 0.0);
  }
  // The held trial: one trade, nothing realised, so equity = capital + open PnL;
  // half the equity in AAA at the first window close.
  EXPECT_EQ(trades[1], 1);
  for (std::size_t k = 0; k < nw; ++k)
    EXPECT_NEAR(open_pnl[nw + k], equity[nw + k] - 1000.0, 1e-9) << "bar " << k;
  const double close0 = bars.columns.at("close")[0 * nb + begin];
  EXPECT_NEAR(units[(1 * nw + 0) * ns + 0] * close0, 500.0, 1.0);
  EXPECT_EQ(units[(1 * nw + 0) * ns + 1], 0.0);
  // Every trial: the last equity is the final equity; PnL rewards sum to the gain; drawdown from the peak.
  for (std::size_t t = 0; t < nt; ++t) {
    EXPECT_EQ(equity[t * nw + nw - 1], final_equity[t]) << "trial " << t;
    double gained = 0, peak = 1000;
    for (std::size_t k = 0; k < nw; ++k) {
      gained += reward[t * nw + k];
      peak = std::max(peak, equity[t * nw + k]);
      EXPECT_NEAR(drawdown[t * nw + k], (peak - equity[t * nw + k]) / peak, 1e-12);
    }
    EXPECT_NEAR(gained, final_equity[t] - 1000.0, 1e-6) << "trial " << t;
  }
  EXPECT_GT(trades[2], 100) << "the switching trial trades every 100 bars";
}

TEST(CliSimulate, TheKokkosEngineWritesTheReferenceBits) {
  Scratch s;
  const std::string config = write_config(
      s, "  random: {trials: 16, seed: 3, hold: 12}\n  cash_reserve: 0.2\n  spread_bps: 4\n  per_bar: true\n"
         "  reward: differential_sharpe\n");
  ASSERT_EQ(kbt::test::run_kbt("run " + config + " --device reference -o " + (s / "ref.h5")).exit_code, 0);
  const auto run = kbt::test::run_kbt("run " + config + " -o " + (s / "auto.h5"));  // simulate.device: auto
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_EQ(run.output.find("device reference"), std::string::npos) << "auto is a Kokkos space: " << run.output;
  File a(s / "ref.h5"), b(s / "auto.h5");
  for (const auto* name : {"metrics/sharpe", "metrics/final_equity", "per_bar/equity", "per_bar/units",
                           "per_bar/open_pnl", "per_bar/drawdown", "per_bar/reward"}) {
    const auto x = a.read<std::uint64_t>(name, H5T_NATIVE_DOUBLE);  // the doubles' bits
    const auto y = b.read<std::uint64_t>(name, H5T_NATIVE_DOUBLE);
    ASSERT_FALSE(x.empty()) << name;
    EXPECT_TRUE(x == y) << name << " differs in its bits";
  }
  const auto trades = a.read<std::int64_t>("metrics/n_trades", H5T_NATIVE_INT64);
  std::int64_t total = 0;
  for (const auto n : trades) total += n;
  EXPECT_GT(total, 1000) << "a random policy that never trades proves nothing";
}

TEST(CliSimulate, BadActionsNameTheFileDatasetTrialSymbolAndBar) {
  Scratch s;
  const kbt::BarData bars = kbt::load_bars_hdf5(kSample, {"AAA", "BBB"});
  const std::size_t nb = bars.n_bars();
  const std::string config = write_config(s, "  actions: actions.h5\n");
  const auto refused = [&](const std::string& expected) {
    const auto run = kbt::test::run_kbt("run " + config);
    EXPECT_NE(run.exit_code, 0) << run.output;
    EXPECT_NE(run.output.find(expected), std::string::npos) << run.output;
    EXPECT_FALSE(std::ifstream(s / "sim.h5").good()) << "a refused run writes no results";
  };
  std::vector<double> actions(2 * 2 * nb, 0.25);
  actions[(1 * 2 + 1) * nb + 40] = NAN;
  write_actions(s / "actions.h5", "actions", {2, 2, nb}, actions);
  refused((s / "actions.h5") + ": /actions: actions: trial 1, symbol BBB, bar 40 (" +
          kbt::format_iso8601_utc(bars.timestamps[40]) + "): NaN is not an action");
  write_actions(s / "actions.h5", "actions", {2, nb - 1}, std::vector<double>(2 * (nb - 1), 0.0));
  refused("actions: 2 trials x 1 symbols x " + std::to_string(nb - 1) + " bars do not match the data's 2 symbols x " +
          std::to_string(nb) + " bars");
  write_actions(s / "actions.h5", "other", {1, 2, nb}, std::vector<double>(2 * nb, 0.0));
  refused((s / "actions.h5") + ": /actions: no such dataset");
  const auto check = kbt::test::run_kbt("check " + config + " --data");
  EXPECT_NE(check.exit_code, 0);
  EXPECT_NE(check.output.find("/actions: no such dataset"), std::string::npos) << check.output;
  const std::string both = write_config(s, "  actions: actions.h5\n  random: {trials: 2}\n");
  const auto twice = kbt::test::run_kbt("check " + both);
  EXPECT_NE(twice.exit_code, 0);
  EXPECT_NE(twice.output.find("simulate needs exactly one of 'actions'"), std::string::npos) << twice.output;
}

TEST(CliSimulate, AnActionsFileThatCrashesLibhdf5IsADataFormatError) {
  // A fuzzer-made file on which libhdf5 1.10 dies (SIGSEGV reading a corrupt
  // heap; it kills kbt when read in process): read in kbt's reader process, it
  // is one error naming the file (docs/data-format.md "Reading untrusted files").
  Scratch s;
  const std::string crash = std::string(KBT_SOURCE_DIR) + "/tests/bad_input/data/libhdf5_crash_corrupt_heap_read.h5";
  ASSERT_TRUE(std::ifstream(crash).good()) << "corpus file missing: " << crash;
  const std::string config = write_config(s, "  actions: " + crash + "\n  dataset: bars/close\n");
  const auto run = kbt::test::run_kbt("check " + config + " --data");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("error [data_format]: " + crash + ": the HDF5 library crashed reading this file"),
            std::string::npos)
      << run.output;
}

TEST(CliSimulate, CheckDescribesTheRunAndResumeIsRefused) {
  Scratch s;
  const std::string config = write_config(s, "  random: {trials: 4, seed: 1}\n  kind: discrete\n");
  const auto check = kbt::test::run_kbt("check " + config + " --data");
  ASSERT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("actions: random policy, 4 trials, seed 1, held 24 bars"), std::string::npos)
      << check.output;
  EXPECT_NE(check.output.find("kind discrete"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("actions: 4 trials x 2 symbols x 20000 bars"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("data and actions OK"), std::string::npos) << check.output;
  const auto resume = kbt::test::run_kbt("run " + config + " --resume");
  EXPECT_NE(resume.exit_code, 0);
  EXPECT_NE(resume.output.find("--resume (it has no checkpoint)"), std::string::npos) << resume.output;
  // The readers of sweep results say what the file is.
  ASSERT_EQ(kbt::test::run_kbt("run " + config).exit_code, 0);
  for (const std::string command : {"show ", "verify ", "validate "}) {
    const auto reader = kbt::test::run_kbt(command + (s / "sim.h5"));
    EXPECT_NE(reader.exit_code, 0) << command;
    EXPECT_NE(reader.output.find("an action-driven simulation's file, not a sweep's results"), std::string::npos)
        << command << reader.output;
  }
}

}  // namespace
