// `kbt calibrate --quick` through the real CLI (the --tiny ladder in a
// sanitizer build, where --quick would take minutes), and its output file
// parsed back and checked.

#include <gtest/gtest.h>
#include <kbt/calibration/calibration.hpp>
#include <kbt/calibration/calibration_workloads.hpp>
#include <kbt/core/execution_spaces.hpp>

#include <cmath>
#include <set>

#include "support/cli_runner.hpp"
#include "unit/test_calibration_support.hpp"

namespace {

TEST(CalibrationCli, CalibrateWritesAValidFileForThisMachine) {
  const auto dir = kbt::test::fresh_dir("cli_calibrate");
  const auto path = (dir / "cal.yaml").string();
#ifdef KBT_SANITIZED_BUILD
  const std::string mode = "tiny";
#else
  const std::string mode = "quick";
#endif
  const auto r = kbt::test::run_kbt("calibrate --" + mode + " --out " + path);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("calibration: " + path), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fixed"), std::string::npos) << r.output;

  const kbt::Calibration c = kbt::read_calibration_file(path);
  const auto here = kbt::this_machine_identity();
  EXPECT_EQ(c.machine.host, here.host);
  EXPECT_EQ(c.machine.cpu, here.cpu);
  EXPECT_EQ(c.machine.gpu, here.gpu);
  EXPECT_EQ(c.machine.kokkos_version, kbt::kokkos_version_string());
  ASSERT_EQ(c.machine.spaces.size(), here.spaces.size());
  for (std::size_t i = 0; i < here.spaces.size(); ++i) EXPECT_EQ(c.machine.spaces[i].name, here.spaces[i].name);
  EXPECT_EQ(c.mode, mode);

  const auto spaces = kbt::enabled_execution_spaces();
  ASSERT_EQ(c.models.size(), spaces.size());
  for (const auto& s : spaces) {
    const kbt::SpaceCostModel* m = c.model(s.name);
    ASSERT_NE(m, nullptr) << s.name;
    for (double v : {m->fixed_seconds, m->per_bar_combo_base, m->per_instruction, m->per_window_read}) {
      EXPECT_TRUE(std::isfinite(v)) << s.name;
      EXPECT_GE(v, 0.0) << s.name;
    }
    EXPECT_GT(m->per_bar_combo_seconds({5, 0}), 0.0) << s.name;
    EXPECT_GE(m->n_points, 3u);
    // The fit explains its own points to within a factor, not by accident.
    EXPECT_LT(m->max_relative_residual, 3.0) << s.name;
  }
  // Points: every space x workload, at least two bar counts and three complexities.
  std::set<std::string> workloads;
  std::set<double> bars;
  std::set<std::pair<double, double>> complexities;
  for (const auto& p : c.points) {
    EXPECT_GT(p.seconds, 0.0);
    EXPECT_GT(p.combos, 0.0);
    workloads.insert(p.workload);
    bars.insert(p.bars);
    complexities.insert({p.complexity.instructions, p.complexity.window_reads});
  }
  EXPECT_EQ(workloads.size(), kbt::calibration_workload_names().size());
  EXPECT_GE(bars.size(), 2u);
  EXPECT_GE(complexities.size(), 3u);
  for (const auto& s : spaces)
    for (const auto& w : workloads) {
      std::size_t n = 0;
      for (const auto& p : c.points) n += p.space == s.name && p.workload == w;
      EXPECT_GE(n, 4u) << s.name << " " << w;  // two bar counts, at least two grid sizes each
    }
  // Break-even: one row per (host, other) pair, bar count and workload.
  std::size_t pairs = 0;  // unordered pairs with at least one host space
  for (std::size_t i = 0; i < c.models.size(); ++i)
    for (std::size_t j = i + 1; j < c.models.size(); ++j)
      pairs += kbt::is_host_space(c.models[i].space) || kbt::is_host_space(c.models[j].space);
  EXPECT_EQ(c.break_even.size(), pairs * bars.size() * workloads.size());

  // The file applies: kbt info says so.
  const auto info = kbt::test::run_kbt("info --calibration " + path);
  EXPECT_NE(info.output.find("matches this machine"), std::string::npos) << info.output;
}

}  // namespace
