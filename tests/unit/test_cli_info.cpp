#include <gtest/gtest.h>
#include <kbt/core/execution_spaces.hpp>

#include "kbt_test_paths.hpp"
#include "support/cli_runner.hpp"

#include <sstream>
#include <thread>

TEST(CliInfo, ListsEveryEnabledExecutionSpace) {
  const auto result = kbt::test::run_kbt("info");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("Kokkos " + kbt::kokkos_version_string()), std::string::npos);
  const auto spaces = kbt::enabled_execution_spaces();
  ASSERT_FALSE(spaces.empty());
  for (const auto& s : spaces) EXPECT_NE(result.output.find(s.name), std::string::npos) << s.name;
}

// scripts/build.sh builds Kokkos with OpenMP and configures with
// -DKBT_REQUIRE_SPACES=OPENMP (docs/building.md "Every core"): the README's
// build must list OpenMP at the machine's core count, not a one-core kbt.
TEST(CliInfo, ListsTheSpacesTheBuildRequiresAtEveryCore) {
  const std::string required = KBT_REQUIRED_SPACES;
  if (required.empty()) GTEST_SKIP() << "this build requires no execution space (-DKBT_REQUIRE_SPACES)";
  const auto result = kbt::test::run_command("env -u OMP_NUM_THREADS " + std::string(KBT_CLI_PATH) + " info");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::istringstream spaces(required);
  std::string space;
  int checked = 0;
  while (std::getline(spaces, space, ';')) {
    std::string name;
    for (const char c : space) name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    const std::size_t at = result.output.find("\n  " + name + " ");
    ASSERT_NE(at, std::string::npos) << name << " missing from:\n" << result.output;
    const std::string line = result.output.substr(at + 1, result.output.find('\n', at + 1) - at - 1);
    if (name == "openmp") {
      const std::size_t c = line.find("concurrency ");
      ASSERT_NE(c, std::string::npos) << line;
      const unsigned cores = std::thread::hardware_concurrency();
      EXPECT_EQ(std::stoul(line.substr(c + 12)), cores) << line;
    }
    ++checked;
  }
  EXPECT_GT(checked, 0);
}

TEST(CliInfo, UnknownCommandIsAnError) {
  const auto result = kbt::test::run_kbt("no-such-command");
  EXPECT_NE(result.exit_code, 0);
}

TEST(CliHelp, PlainHelpIsKbtsOwnNotKokkos) {
  const auto result = kbt::test::run_kbt("--help");
  EXPECT_EQ(result.exit_code, 0);
  EXPECT_NE(result.output.find("Subcommands:"), std::string::npos) << result.output;
  EXPECT_EQ(result.output.find("Kokkos command line arguments"), std::string::npos);
}
