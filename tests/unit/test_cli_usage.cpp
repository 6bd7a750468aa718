// The CLI's usage errors, exit codes and progress lines (docs/cli.md).

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <unistd.h>

#include "support/cli_runner.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;

std::string config(const std::string& name) { return std::string(KBT_SOURCE_DIR) + "/configs/" + name; }

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_usage") {}
};

std::size_t count(const std::string& text, const std::string& part) {
  std::size_t n = 0;
  for (auto at = text.find(part); at != std::string::npos; at = text.find(part, at + 1)) ++n;
  return n;
}

}  // namespace

// Usage errors exit 2 with one kbt: line, a guess at the misspelt word, and
// where the help is; kbt's own errors exit 1; --help and --version exit 0.
TEST(CliUsage, UsageErrorsExitTwoWithASuggestion) {
  struct Case {
    std::string args, message, help;
  };
  const Case cases[] = {
      {"shwo", "kbt: usage error: unknown subcommand 'shwo'; did you mean 'show'?", "kbt: see 'kbt --help'"},
      {"frobnicate", "kbt: usage error: unknown subcommand 'frobnicate'\n", "kbt: see 'kbt --help'"},
      {"data improt", "kbt: usage error: unknown subcommand 'improt'; did you mean 'import'?", "kbt: see 'kbt data --help'"},
      {"run", "kbt: usage error: config is required", "kbt: see 'kbt run --help'"},
      {"run c.yaml --ouy x.h5", "did you mean '--out'?", "kbt: see 'kbt run --help'"},
      {"show r.h5 --sortt x", "did you mean '--sort'?", "kbt: see 'kbt show --help'"},
      {"run c.yaml --device gpu", "kbt: usage error: --device: gpu not in", "kbt: see 'kbt run --help'"},
  };
  for (const auto& c : cases) {
    const auto r = kbt::test::run_kbt(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.message), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_NE(r.output.find(c.help), std::string::npos) << c.args << "\n" << r.output;
    EXPECT_EQ(r.output.find("Run with --help"), std::string::npos) << "CLI11's own line: " << r.output;
  }
  const auto missing = kbt::test::run_kbt("show /nonexistent/r.h5");
  EXPECT_EQ(missing.exit_code, 1) << missing.output;
  EXPECT_EQ(missing.output.rfind("kbt: error [", 0), 0u) << missing.output;
  EXPECT_EQ(kbt::test::run_kbt("--help").exit_code, 0);
  EXPECT_EQ(kbt::test::run_kbt("run --help").exit_code, 0);
  EXPECT_EQ(kbt::test::run_kbt("--version").exit_code, 0);
}

// Where stderr is not a terminal (a batch log, here a pipe), progress is whole
// lines at the interval ($KBT_PROGRESS_SECONDS; 0: every update) for the sweep
// and for the verification, each ending at its total; --quiet prints none, and
// a stage shorter than the default 10 s leaves the log alone.
TEST(CliUsage, ProgressLinesInALog) {
  const Scratch s;
  const std::string run = "run " + config("sma_cross.yaml") + " --device reference --threads 2 --sample 60 --seed 3 ";
  const auto every = kbt::test::run_command("KBT_PROGRESS_SECONDS=0 " + std::string(KBT_CLI_PATH) + " " + run +
                                            "--out " + (s / "a.h5"));
  ASSERT_EQ(every.exit_code, 0) << every.output;
  EXPECT_EQ(every.output.find('\r'), std::string::npos) << "no carriage returns in a log";
  const std::regex sweep_line("kbt: [0-9,]+ / 60 combos \\([0-9.]+%\\), ");
  EXPECT_GE(std::distance(std::sregex_iterator(every.output.begin(), every.output.end(), sweep_line),
                          std::sregex_iterator()),
            2)
      << every.output;
  EXPECT_NE(every.output.find("kbt: 60 / 60 combos (100.0%)"), std::string::npos) << every.output;
  // verify.top_n auto on 60 rows: 20 candidates, one line each.
  EXPECT_EQ(count(every.output, "kbt: verification: "), 20u) << every.output;
  EXPECT_NE(every.output.find("kbt: verification: 20 / 20 candidates (100.0%), "), std::string::npos) << every.output;
  EXPECT_NE(every.output.find(" candidates/s, ETA "), std::string::npos) << every.output;

  const auto quiet = kbt::test::run_command("KBT_PROGRESS_SECONDS=0 " + std::string(KBT_CLI_PATH) + " " + run +
                                            "--quiet --out " + (s / "b.h5"));
  ASSERT_EQ(quiet.exit_code, 0) << quiet.output;
  EXPECT_EQ(quiet.output.find("combos ("), std::string::npos) << quiet.output;
  EXPECT_EQ(quiet.output.find("kbt: verification:"), std::string::npos) << quiet.output;

  const auto plain = kbt::test::run_kbt(run + "--out " + (s / "c.h5"));
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_EQ(plain.output.find("combos ("), std::string::npos) << "a short run leaves the log alone:\n" << plain.output;

  // kbt verify reports its verification the same way.
  const std::string verify = std::string(KBT_CLI_PATH) + " verify " + (s / "a.h5") + " --top-n 7 --out " + (s / "v.h5");
  const auto verified = kbt::test::run_command("KBT_PROGRESS_SECONDS=0 " + verify);
  ASSERT_EQ(verified.exit_code, 0) << verified.output;
  EXPECT_EQ(count(verified.output, "kbt: verification: "), 7u) << verified.output;
  EXPECT_NE(verified.output.find("kbt: verification: 7 / 7 candidates (100.0%), "), std::string::npos) << verified.output;
  const auto silent = kbt::test::run_command("KBT_PROGRESS_SECONDS=0 " + verify + " --quiet");
  ASSERT_EQ(silent.exit_code, 0) << silent.output;
  EXPECT_EQ(silent.output.find("kbt: verification:"), std::string::npos) << silent.output;
}

// An OpenMP build prints nothing of Kokkos' binding advice before kbt's own
// output when the user set neither OMP_PROC_BIND nor OMP_PLACES
// (docs/cli.md "Threads"). Without OpenMP Kokkos gives no such advice, and
// the test has nothing to check.
TEST(CliUsage, NoThreadBindingAdviceWhenTheUserSetNone) {
  if (std::string(KBT_TEST_KOKKOS_DEVICES).find("openmp") == std::string::npos)
    GTEST_SKIP() << "a build without OpenMP: Kokkos gives no binding advice";
  for (const std::string& command : {std::string("info"), "check " + config("sma_cross.yaml")}) {
    const auto r = kbt::test::run_command("env -u OMP_PROC_BIND -u OMP_PLACES " + std::string(KBT_CLI_PATH) + " " + command);
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_EQ(r.output.find("OMP_PROC_BIND"), std::string::npos) << command << ":\n" << r.output;
  }
}
