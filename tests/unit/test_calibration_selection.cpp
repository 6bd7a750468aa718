// Device selection from crafted calibration files: both sides of the
// break-even, an explicit device the model says is slower, a missing file, a
// foreign machine, and a malformed file (library and CLI).

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/calibration/calibration.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>

#include <cmath>

#include "support/cli_runner.hpp"
#include "unit/test_calibration_support.hpp"

namespace {

using kbt::test::cost_model;
using kbt::test::ScopedEnv;

// A host and a GPU space whose predictions cross.
const kbt::SpaceCostModel kSerial = cost_model("serial", 2e-3, 2e-8, 4e-9, 2e-9);
const kbt::SpaceCostModel kCuda = cost_model("cuda", 0.3, 1e-11, 2e-12, 1e-12);
const kbt::Complexity kSimple{5, 0};
const std::vector<std::string> kSpaces{"serial", "cuda"};

kbt::CalibrationStatus usable_status(const std::vector<kbt::SpaceCostModel>& models) {
  kbt::CalibrationStatus st;
  st.location = {"/crafted/calibration.yaml", "--calibration"};
  st.exists = true;
  st.calibration = kbt::test::crafted_calibration(kbt::this_machine_identity(), models);
  return st;
}

TEST(CalibrationSelection, AutoPicksTheLowestPredictionOnBothSidesOfTheBreakEven) {
  const auto st = usable_status({kSerial, kCuda});
  const double bars = 5000;
  const kbt::Complexity k{9, 40};
  const double n = *kbt::break_even_combos(kSerial, kCuda, bars, k);
  ASSERT_GT(n, 10);
  const auto below = kbt::select_device("auto", kSpaces, st, std::floor(n / 2), bars, k);
  EXPECT_EQ(below.device, "serial");
  EXPECT_EQ(below.rule, "cost_model");
  const auto above = kbt::select_device("auto", kSpaces, st, 2 * n, bars, k);
  EXPECT_EQ(above.device, "cuda");
  ASSERT_EQ(above.predicted_seconds.size(), 2u);
  EXPECT_DOUBLE_EQ(above.predicted_seconds[1].second, kCuda.predict_seconds(2 * n, bars, k));
  ASSERT_FALSE(above.notes.empty());
  EXPECT_NE(above.notes[0].find("serial"), std::string::npos);
  EXPECT_NE(above.notes[0].find("cuda"), std::string::npos);
  ASSERT_EQ(above.notes.size(), 3u);
  EXPECT_NE(above.notes[1].find("running on cuda"), std::string::npos);
  EXPECT_NE(above.notes[2].find("cuda is faster than serial from " + std::to_string(static_cast<long long>(n)) + " combos"),
            std::string::npos)
      << above.notes[2];
  EXPECT_FALSE(above.warning);
  // The break-even moves with the bars: the same grid flips with longer history.
  const double combos = std::floor(n / 2);
  EXPECT_EQ(kbt::select_device("auto", kSpaces, st, combos, bars * 4, k).device, "cuda");
}

TEST(CalibrationSelection, RequestedDeviceIsNeverReplacedButWarnsWithTheBreakEven) {
  const auto st = usable_status({kSerial, kCuda});
  const double bars = 5000;
  const kbt::Complexity k{9, 40};
  const double n = *kbt::break_even_combos(kSerial, kCuda, bars, k);
  const auto small = kbt::select_device("cuda", kSpaces, st, 10, bars, k);
  EXPECT_EQ(small.device, "cuda");
  EXPECT_EQ(small.rule, "requested");
  ASSERT_TRUE(small.warning);
  EXPECT_NE(small.warning->find(std::to_string(static_cast<long long>(n)) + " combos"), std::string::npos) << *small.warning;
  EXPECT_NE(small.warning->find("cuda"), std::string::npos);
  EXPECT_NE(small.warning->find("serial"), std::string::npos);
  EXPECT_NE(small.warning->find("as requested"), std::string::npos);
  // Past the break-even: no warning for cuda, a warning for serial.
  EXPECT_FALSE(kbt::select_device("cuda", kSpaces, st, 2 * n, bars, k).warning);
  const auto big_serial = kbt::select_device("serial", kSpaces, st, 2 * n, bars, k);
  EXPECT_EQ(big_serial.device, "serial");
  EXPECT_TRUE(big_serial.warning);
}

TEST(CalibrationSelection, HostPairWarningNamesTheSpaceThatWinsLargeGrids) {
  // OpenMP: thread start-up costs more than Serial's nothing, each bar-combo less.
  const auto serial = cost_model("serial", 1e-4, 4e-8, 5e-9, 2e-9);
  const auto openmp = cost_model("openmp", 5e-3, 2e-8, 2.5e-9, 1e-9);
  const auto st = usable_status({serial, openmp});
  const std::vector<std::string> spaces{"serial", "openmp"};
  const double n = *kbt::break_even_combos(serial, openmp, 1000, kSimple);
  ASSERT_GT(n, 2);
  EXPECT_EQ(kbt::select_device("auto", spaces, st, 1, 1000, kSimple).device, "serial");
  EXPECT_EQ(kbt::select_device("auto", spaces, st, 2 * n, 1000, kSimple).device, "openmp");
  const auto small = kbt::select_device("openmp", spaces, st, 1, 1000, kSimple);
  EXPECT_EQ(small.device, "openmp");
  ASSERT_TRUE(small.warning);
  EXPECT_NE(small.warning->find("openmp is faster than serial from " + std::to_string(static_cast<long long>(n)) +
                                " combos"),
            std::string::npos)
      << *small.warning;
  // The file's table orients the pair the same way.
  const auto table = kbt::break_even_table({serial, openmp}, {1000}, {{"w", kSimple}});
  ASSERT_EQ(table.size(), 1u);
  EXPECT_EQ(table[0].host, "serial");
  EXPECT_EQ(table[0].other, "openmp");
  EXPECT_EQ(*table[0].combos, n);
}

TEST(CalibrationSelection, OnlyEnabledSpacesAreCandidates) {
  const auto st = usable_status({kSerial, kCuda});
  const auto c = kbt::select_device("auto", {"serial"}, st, 1e7, 1e5, {50, 100});
  EXPECT_EQ(c.device, "serial");
  EXPECT_EQ(c.predicted_seconds.size(), 1u);
  // An enabled space the file has no model for is named, not predicted.
  const auto d = kbt::select_device("auto", {"serial", "openmp"}, st, 100, 1000, kSimple);
  EXPECT_EQ(d.device, "serial");
  EXPECT_NE(d.notes[0].find("openmp not calibrated"), std::string::npos) << d.notes[0];
}

TEST(CalibrationSelection, MissingDefaultFileUsesTheConservativeRule) {
  const auto dir = kbt::test::fresh_dir("sel_missing");
  ScopedEnv env("KBT_CALIBRATION", nullptr);
  ScopedEnv xdg("XDG_CONFIG_HOME", dir.c_str());
  const auto st = kbt::load_calibration_status("", kbt::this_machine_identity());
  EXPECT_FALSE(st.exists);
  EXPECT_FALSE(st.usable());
  EXPECT_EQ(st.location.path, (dir / "kbt" / "calibration.yaml").string());
  const auto c = kbt::select_device("auto", kSpaces, st, 20000, 1000, kSimple);
  EXPECT_EQ(c.rule, "conservative");
  EXPECT_EQ(c.device, "cuda");  // the conservative rule: cuda from 10,000 combos
  EXPECT_EQ(kbt::select_device("auto", kSpaces, st, 9999, 1000, kSimple).device, "serial");
  EXPECT_EQ(kbt::select_device("auto", {"serial", "openmp"}, st, 20000, 1000, kSimple).device, "openmp");
  EXPECT_NE(c.notes[0].find("no calibration file at " + st.location.path), std::string::npos) << c.notes[0];
  EXPECT_FALSE(kbt::select_device("serial", kSpaces, st, 10, 1000, kSimple).warning);
}

TEST(CalibrationSelection, MissingExplicitFileIsAnError) {
  ScopedEnv env("KBT_CALIBRATION", "/nonexistent/cal.yaml");
  EXPECT_THROW(kbt::load_calibration_status("", kbt::this_machine_identity()), kbt::Error);
  EXPECT_THROW(kbt::load_calibration_status("/nonexistent/other.yaml", kbt::this_machine_identity()), kbt::Error);
}

TEST(CalibrationSelection, ForeignMachineIsNotUsed) {
  const auto dir = kbt::test::fresh_dir("sel_foreign");
  auto machine = kbt::this_machine_identity();
  machine.host += "-elsewhere";
  const auto path = (dir / "cal.yaml").string();
  kbt::write_calibration_file(path, kbt::test::crafted_calibration(machine, {kSerial, kCuda}));
  const auto st = kbt::load_calibration_status(path, kbt::this_machine_identity());
  EXPECT_TRUE(st.exists);
  EXPECT_FALSE(st.usable());
  ASSERT_EQ(st.mismatches.size(), 1u);
  EXPECT_NE(st.describe().find("another machine"), std::string::npos);
  const auto c = kbt::select_device("auto", kSpaces, st, 50, 1000, kSimple);
  EXPECT_EQ(c.rule, "conservative");
  EXPECT_NE(c.notes[0].find("-elsewhere"), std::string::npos) << c.notes[0];
  EXPECT_FALSE(kbt::select_device("cuda", kSpaces, st, 10, 1000, kSimple).warning);
}

TEST(CalibrationSelection, MalformedFileIsAnErrorWithFileAndLine) {
  const auto dir = kbt::test::fresh_dir("sel_bad");
  const auto path = (dir / "cal.yaml").string();
  kbt::test::write_text(path, "format: 1\nmachine:\n  host: x\n  cpu: y\n  gpu: none\n  kokkos_version: '1'\n"
                              "  spaces: []\nspaces:\n  serial: {fixed_seconds: oops, per_bar_combo_base: 0, "
                              "per_bar_combo_per_unit: 0}\n");
  try {
    kbt::load_calibration_status(path, kbt::this_machine_identity());
    FAIL();
  } catch (const kbt::Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path + ":9:", 0), 0u) << e.what();
  }
}

// --- through the CLI, on this build's spaces -------------------------------

std::string sample_config() { return std::string(KBT_SOURCE_DIR) + "/configs/sma_cross.yaml"; }

// This machine as the kbt executable sees it: the test binary may run with
// another thread count (--kokkos-threads) than the CLI, so the spaces'
// concurrency is read from `kbt info` ("  serial  (Kokkos Serial) concurrency 1").
kbt::MachineIdentity cli_machine_identity() {
  kbt::MachineIdentity id = kbt::this_machine_identity();
  const auto info = kbt::test::run_kbt("info");
  for (auto& s : id.spaces) {
    const auto at = info.output.find("  " + s.name + " ");
    EXPECT_NE(at, std::string::npos) << info.output;
    if (at == std::string::npos) continue;
    const auto c = info.output.find("concurrency ", at);
    s.concurrency = std::stoi(info.output.substr(c + 12));
  }
  return id;
}

kbt::test::CliResult run_with(const std::string& calibration, const std::string& extra, const std::string& out) {
  return kbt::test::run_kbt("run " + sample_config() + " --no-verify --profile --out " + out + " --calibration " +
                            calibration + " " + extra);
}

TEST(CalibrationSelectionCli, RunPrintsThePredictionAndStoresIt) {
  const auto dir = kbt::test::fresh_dir("cli_run");
  std::vector<kbt::SpaceCostModel> models;
  for (const auto& s : kbt::enabled_execution_spaces()) models.push_back(cost_model(s.name, 1e-3, 1e-8, 1e-9));
  const auto path = (dir / "cal.yaml").string();
  kbt::write_calibration_file(path, kbt::test::crafted_calibration(cli_machine_identity(), models));
  const auto r = run_with(path, "--device auto", (dir / "out.h5").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("device auto: predicted " + models[0].space), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("device_rule"), std::string::npos);
  EXPECT_NE(r.output.find("cost_model"), std::string::npos);
  EXPECT_NE(r.output.find("predicted_seconds_" + models[0].space), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("seconds_predicted"), std::string::npos) << r.output;

  const auto info = kbt::test::run_kbt("info --calibration " + path);
  EXPECT_EQ(info.exit_code, 0);
  EXPECT_NE(info.output.find(path + " (--calibration) matches this machine"), std::string::npos) << info.output;
}

TEST(CalibrationSelectionCli, ForeignMissingAndMalformedFiles) {
  const auto dir = kbt::test::fresh_dir("cli_bad");
  auto machine = cli_machine_identity();
  machine.cpu = "Some Other CPU";
  const auto foreign = (dir / "foreign.yaml").string();
  kbt::write_calibration_file(foreign, kbt::test::crafted_calibration(machine, {cost_model("serial", 1e-3, 1e-8, 1e-9)}));
  const auto r = run_with(foreign, "--device auto", (dir / "out.h5").string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("another machine"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("conservative rule"), std::string::npos) << r.output;
  const auto info = kbt::test::run_kbt("info --calibration " + foreign);
  EXPECT_NE(info.output.find("another machine"), std::string::npos) << info.output;
  EXPECT_NE(info.output.find("Some Other CPU"), std::string::npos) << info.output;

  const auto missing = run_with((dir / "none.yaml").string(), "--device auto", (dir / "out.h5").string());
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_NE(missing.output.find("does not exist"), std::string::npos) << missing.output;

  const auto bad = (dir / "bad.yaml").string();
  kbt::test::write_text(bad, "format: 1\nmachine: 12\n");
  const auto m = run_with(bad, "--device auto", (dir / "out.h5").string());
  EXPECT_NE(m.exit_code, 0);
  EXPECT_NE(m.output.find(bad + ":2:"), std::string::npos) << m.output;
  const auto mi = kbt::test::run_kbt("info --calibration " + bad);
  EXPECT_NE(mi.output.find(bad + ":2:"), std::string::npos) << mi.output;

  // The default location, through XDG_CONFIG_HOME, without a file.
  const auto no = kbt::test::run_command("env -u KBT_CALIBRATION XDG_CONFIG_HOME=" + dir.string() + " " +
                                         std::string(KBT_CLI_PATH) + " info");
  EXPECT_NE(no.output.find("no calibration file at " + (dir / "kbt" / "calibration.yaml").string() + " (default)"),
            std::string::npos)
      << no.output;
}

}  // namespace
