#include <gtest/gtest.h>
#include <kbt/core/execution_spaces.hpp>

#include "support/cli_runner.hpp"

TEST(CliInfo, ListsEveryEnabledExecutionSpace) {
  const auto result = kbt::test::run_kbt("info");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("Kokkos " + kbt::kokkos_version_string()), std::string::npos);
  const auto spaces = kbt::enabled_execution_spaces();
  ASSERT_FALSE(spaces.empty());
  for (const auto& s : spaces) EXPECT_NE(result.output.find(s.name), std::string::npos) << s.name;
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
