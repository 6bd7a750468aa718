// Limits (docs/testing.md, issue 8): hostile or accidental inputs that would overflow the
// stack or run away with time or memory must end in a clear kbt::Error instead.
// Every input here is built far past the limit (100k levels, 100k terms) so that a
// missing guard shows up as a crash of the test binary, not as a quiet pass.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/lang/parser.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <pthread.h>
#include <unistd.h>

#include "support/cli_runner.hpp"

namespace {

using kbt::ErrorCategory;

// The message and category of the kbt::Error that `f` throws ("" when none).
template <class F>
std::pair<ErrorCategory, std::string> error_of(F&& f) {
  try {
    f();
  } catch (const kbt::Error& e) {
    return {e.category(), e.what()};
  }
  ADD_FAILURE() << "expected a kbt::Error";
  return {ErrorCategory::internal, ""};
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::string repeat(const std::string& s, std::size_t n) {
  std::string out;
  out.reserve(s.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += s;
  return out;
}

kbt::SourceText expr(std::string text) { return kbt::SourceText{std::move(text), "<expr>", 1, 1}; }

kbt::DataSchema schema() {
  kbt::DataSchema s;
  s.symbols = {"AAA"};
  s.columns = {"open", "high", "low", "close", "volume"};
  return s;
}

// ---------------------------------------------------------------------------
// Expressions

TEST(Limits, HundredThousandParenthesesAreALimitErrorNotAStackOverflow) {
  // 200k characters: over the size limit as well; the size check must come first
  // and must not depend on how deep the text would nest.
  const auto [category, message] =
      error_of([] { kbt::parse_expression(expr(repeat("(", 100000) + "1" + repeat(")", 100000))); });
  EXPECT_EQ(category, ErrorCategory::limit);
  EXPECT_TRUE(contains(message, "<expr>:1:")) << message;
}

TEST(Limits, NestingJustUnderTheSizeLimitIsCaughtByTheDepthLimit) {
  // 30k levels in < 65536 characters: only the depth guard stands between this
  // and a stack overflow.
  const std::size_t levels = 30000;
  ASSERT_LT(2 * levels + 1, kbt::max_expression_chars);
  for (const std::string& text :
       {repeat("(", levels) + "1" + repeat(")", levels), repeat("-", levels) + "1", repeat("not ", 16000) + "true",
        repeat("abs(", 12000) + "1" + repeat(")", 12000)}) {
    const auto [category, message] = error_of([&] { kbt::parse_expression(expr(text)); });
    EXPECT_EQ(category, ErrorCategory::limit);
    EXPECT_TRUE(contains(message, "nested deeper than " + std::to_string(kbt::max_expression_depth)))
        << message.substr(0, 200);
  }
}

TEST(Limits, HundredThousandTermSumIsALimitError) {
  // A left-deep chain of binary operators is as deep as it is long.
  const auto [category, message] = error_of([] { kbt::parse_expression(expr("1" + repeat("+1", 100000))); });
  EXPECT_EQ(category, ErrorCategory::limit);
  EXPECT_TRUE(contains(message, "65536")) << message.substr(0, 200);

  // 30k terms fit the size limit but not the depth limit.
  const auto [category2, message2] = error_of([] { kbt::parse_expression(expr("close" + repeat("+1", 30000))); });
  EXPECT_EQ(category2, ErrorCategory::limit);
  EXPECT_TRUE(contains(message2, "nested deeper than")) << message2.substr(0, 200);
}

TEST(Limits, ExpressionsAtTheLimitStillCompile) {
  // The limits bound hostile input, not real strategies: 200 nested levels and
  // a 250-term sum are accepted.
  EXPECT_NO_THROW(kbt::compile_expression(expr(repeat("(", 200) + "close" + repeat(")", 200)), schema(), {}));
  EXPECT_NO_THROW(kbt::compile_expression(expr("close" + repeat(" + close", 250)), schema(), {}));
}

TEST(Limits, ChainsOfSignalsAreBoundedWithoutOverflowingTheStack) {
  // Signal s<i> refers to s<i-1> through a 200-deep expression, 100k signals:
  // the compiler resolves references recursively, so the chain length itself
  // must be bounded before the stack is.
  kbt::StrategySpec spec;
  const std::size_t n = 100000;
  spec.signals.push_back({"s0", expr("close")});
  for (std::size_t i = 1; i < n; ++i)
    spec.signals.push_back(
        {"s" + std::to_string(i), expr(repeat("-(", 100) + "s" + std::to_string(i - 1) + repeat(")", 100))});
  spec.position = expr("s" + std::to_string(n - 1));
  const auto [category, message] = error_of([&] { kbt::compile_strategy(spec, schema()); });
  EXPECT_EQ(category, ErrorCategory::limit);
  EXPECT_TRUE(contains(message, "nested through signals more than 2048 levels deep")) << message.substr(0, 300);
  EXPECT_TRUE(contains(message, "<expr>:1:")) << message.substr(0, 300);

  // A long chain of plain references hits the signal nesting limit instead.
  kbt::StrategySpec plain;
  plain.signals.push_back({"s0", expr("close")});
  for (std::size_t i = 1; i < 5000; ++i) plain.signals.push_back({"s" + std::to_string(i), expr("s" + std::to_string(i - 1))});
  plain.position = expr("s4999");
  const auto [category2, message2] = error_of([&] { kbt::compile_strategy(plain, schema()); });
  EXPECT_EQ(category2, ErrorCategory::limit);
  EXPECT_TRUE(contains(message2, "nested more than 2000 deep")) << message2.substr(0, 300);
}

// 15 signals of 100 levels each: 1500 levels through references.
kbt::StrategySpec deep_but_legal_chain() {
  kbt::StrategySpec spec;
  spec.signals.push_back({"s0", expr("close")});
  for (std::size_t i = 1; i < 15; ++i)
    spec.signals.push_back(
        {"s" + std::to_string(i), expr(repeat("-(", 100) + "s" + std::to_string(i - 1) + repeat(")", 100))});
  spec.position = expr("where(s14 > 0, 1, -1)");
  return spec;
}

TEST(Limits, ChainsOfSignalsWithinTheLimitsCompile) {
  EXPECT_NO_THROW(kbt::compile_strategy(deep_but_legal_chain(), schema()));
}

TEST(Limits, CompilingDoesNotDependOnTheCallersStack) {
  // A host code may call kbt from a worker thread with a small stack; the
  // compiler runs on a stack of its own, so a 256 KiB caller (less than the
  // deep chain needs even in an optimised build) compiles it all the same.
  struct Job {
    kbt::StrategySpec spec = deep_but_legal_chain();
    bool compiled = false;
    std::string error;
  } job;
  auto run = [](void* arg) -> void* {
    auto* j = static_cast<Job*>(arg);
    try {
      j->compiled = !kbt::compile_strategy(j->spec, schema()).code.empty();
    } catch (const std::exception& e) {
      j->error = e.what();
    }
    return nullptr;
  };
  pthread_attr_t attr;
  ASSERT_EQ(pthread_attr_init(&attr), 0);
  ASSERT_EQ(pthread_attr_setstacksize(&attr, 256 * 1024), 0);
  pthread_t thread;
  ASSERT_EQ(pthread_create(&thread, &attr, run, &job), 0);
  pthread_attr_destroy(&attr);
  pthread_join(thread, nullptr);
  EXPECT_TRUE(job.compiled) << job.error;

  // Errors cross back from the compiler's thread as the same kbt::Error.
  kbt::StrategySpec bad;
  bad.position = expr("where(clsoe > 0, 1, -1)");
  const auto [category, message] = error_of([&] { kbt::compile_strategy(bad, schema()); });
  EXPECT_EQ(category, ErrorCategory::language);
  EXPECT_TRUE(contains(message, "did you mean 'close'")) << message;
}

// ---------------------------------------------------------------------------
// Grid size

TEST(Limits, GridOverMaxCombosIsRefusedWithTheNumbers) {
  // 1000 x 1000 x 1000 = 1e9 combos > the default 1e8.
  const std::string yaml = R"(data: nowhere.h5
strategy:
  params:
    a: {range: [1, 1000, 1]}
    b: {range: [1, 1000, 1]}
    c: {range: [1, 1000, 1]}
  position: where(close > a + b + c, 1, 0)
)";
  const auto [category, message] = error_of([&] { kbt::parse_run_config(yaml, "big.yaml", ""); });
  EXPECT_EQ(category, ErrorCategory::limit);
  EXPECT_TRUE(contains(message, "big.yaml:")) << message;
  EXPECT_TRUE(contains(message, "1,000,000,000 combos")) << message;
  EXPECT_TRUE(contains(message, "100,000,000")) << message;
  EXPECT_TRUE(contains(message, "max_combos")) << message;

  // A smaller max_combos is honoured: 11 x 11 = 121 > 100.
  const std::string small = R"(data: nowhere.h5
strategy:
  params:
    a: {range: [0, 10, 1]}
    b: {range: [0, 10, 1]}
  position: where(close > a + b, 1, 0)
sweep: {max_combos: 100}
)";
  const auto [category2, message2] = error_of([&] { kbt::parse_run_config(small, "small.yaml", ""); });
  EXPECT_EQ(category2, ErrorCategory::limit);
  EXPECT_TRUE(contains(message2, "121 combos")) << message2;
  EXPECT_TRUE(contains(message2, "max_combos = 100")) << message2;
}

TEST(Limits, GridOverTwoToThe64IsALimitErrorNotAnOverflow) {
  // 5 axes of 10^4 values: 10^20 combos, more than fits in uint64 (a product
  // that wrapped around would pass the check).
  std::string yaml = "data: nowhere.h5\nstrategy:\n  params:\n";
  for (char c = 'a'; c <= 'e'; ++c) yaml += std::string("    ") + c + ": {range: [1, 10000, 1]}\n";
  yaml += "  position: where(close > a, 1, 0)\nsweep: {max_combos: 9000000000000000000}\n";
  const auto [category, message] = error_of([&] { kbt::parse_run_config(yaml, "huge.yaml", ""); });
  EXPECT_EQ(category, ErrorCategory::limit);
  EXPECT_TRUE(contains(message, "more than 2^64 combos")) << message;
}

TEST(Limits, KbtRunRefusesAnOversizedGridBeforeLoadingData) {
  // The data file does not exist: a limit message (not an I/O one) proves the
  // grid was refused before any work, and no results file appears.
  const auto dir = std::filesystem::temp_directory_path() / ("kbt_limits_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto config = dir / "big.yaml";
  const auto results = dir / "out.h5";
  std::ofstream(config) << "data: does-not-exist.h5\nstrategy:\n  params:\n"
                           "    a: {range: [1, 100, 1]}\n    b: {range: [1, 100, 1]}\n"
                           "  position: where(close > a + b, 1, 0)\n"
                           "sweep: {max_combos: 5000}\noutput: {path: " + results.string() + "}\n";
  const auto r = kbt::test::run_kbt("run " + config.string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "[limit]")) << r.output;
  EXPECT_TRUE(contains(r.output, "10,000 combos")) << r.output;
  EXPECT_TRUE(contains(r.output, "max_combos = 5,000")) << r.output;
  EXPECT_FALSE(contains(r.output, "does-not-exist")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(results));
  std::filesystem::remove_all(dir);
}

// The C++ API's run_sweep without a checkpoint keeps every row in memory: a
// grid whose rows cannot fit (10^12 combos, 200 bytes each) is refused before
// anything grid-sized is allocated. (With a checkpoint the rows stream to
// its file instead, and the disk is checked: test_cli_faults.cpp.)
TEST(Limits, ASweepKeptInMemoryIsRefusedWhenItsRowsCannotFit) {
  const kbt::RunConfig config =
      kbt::parse_run_config("data: unused.h5\nstrategy:\n  params:\n    a: {range: [1, 1000000, 1]}\n"
                            "    b: {range: [1, 1000000, 1]}\n  position: where(close > a + b, 1, -1)\n"
                            "sweep: {max_combos: 1000000000000}\n",
                            "huge.yaml", "");
  kbt::SynthOptions o;
  o.n_bars = 50;
  const kbt::BarData bars = kbt::synth_bars(o);
  kbt::SweepRequest request;
  request.device = "reference";
  request.quiet = true;
  const auto [category, what] = error_of([&] { kbt::run_sweep(config, bars, request); });
  EXPECT_EQ(category, ErrorCategory::limit) << what;
  EXPECT_TRUE(contains(what, "huge.yaml: this run needs about 200000.00 GB of host memory for the params and metrics of "
                             "its 1000000000000 combos (200 bytes each)"))
      << what;
}

TEST(Limits, KbtRunRefusesAMemoryBudgetBelowOneWindowPerParamAndWritesNothing) {
  // The budget is checked when the kernel is set up, before the checkpoint file
  // of the run is created: neither it nor the results file may appear.
  const auto dir = std::filesystem::temp_directory_path() / ("kbt_budget_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto config = dir / "budget.yaml";
  const auto results = dir / "out.h5";
  std::ofstream(config) << "data: " KBT_SOURCE_DIR "/data/sample.h5\nsymbols: [AAA]\nstrategy:\n  params:\n"
                           "    fast: {values: [5, 10]}\n    slow: {values: [20, 40]}\n"
                           "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                           "sweep: {device: serial, memory_budget_mb: 0.01}\noutput: {path: " + results.string() + "}\n";
  const auto r = kbt::test::run_kbt("run " + config.string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_TRUE(contains(r.output, "[limit]")) << r.output;
  EXPECT_TRUE(contains(r.output, "memory budget of 0.01 MiB")) << r.output;
  EXPECT_TRUE(contains(r.output, "needs 2 at a time (a budget of at least 0.61 MiB)")) << r.output;
  EXPECT_FALSE(std::filesystem::exists(results));
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    EXPECT_EQ(entry.path().filename(), "budget.yaml") << "left behind: " << entry.path();
  std::filesystem::remove_all(dir);
}

// ---------------------------------------------------------------------------
// YAML nesting

TEST(Limits, DeeplyNestedYamlIsAConfigErrorNotAStackOverflow) {
  const std::size_t n = 100000;
  const std::string flow_seq = "data: x.h5\nstrategy: " + repeat("[", n) + repeat("]", n) + "\n";
  const std::string flow_map = "data: x.h5\nstrategy: " + repeat("{a: ", n) + "1" + repeat("}", n) + "\n";
  std::string block_seq = "strategy:\n";
  for (std::size_t i = 0; i < 5000; ++i) block_seq += std::string(i, ' ') + "- \n";
  std::string block_map = "strategy:\n";
  for (std::size_t i = 0; i < 5000; ++i) block_map += std::string(i + 1, ' ') + "k:\n";
  for (const std::string& yaml : {flow_seq, flow_map, block_seq, block_map}) {
    const auto [category, message] = error_of([&] { kbt::parse_run_config(yaml, "deep.yaml", ""); });
    EXPECT_EQ(category, ErrorCategory::config) << message.substr(0, 200);
    EXPECT_TRUE(contains(message, "deep.yaml:")) << message.substr(0, 200);
  }
}

}  // namespace
