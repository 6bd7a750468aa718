// User functions (docs/language.md §13): a call compiles to exactly the program
// of the written-out expression; errors point at the call or into the body.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h>

#include "support/cli_runner.hpp"

namespace {

const std::string head = "data: data/sample.h5\n"
                         "strategy:\n"
                         "  params:\n"
                         "    fast: {values: [12, 20]}\n"
                         "    slow: {values: [26, 50]}\n"
                         "    n: {values: [9]}\n"
                         "    k: {values: [2]}\n";

const kbt::BarData& sample() {
  static const kbt::BarData bars = kbt::load_bars_hdf5(std::string(KBT_SOURCE_DIR) + "/data/sample.h5", {});
  return bars;
}

kbt::Program compile(const std::string& strategy_tail) {
  const kbt::RunConfig cfg = kbt::parse_run_config(head + strategy_tail, "cfg.yaml", KBT_SOURCE_DIR);
  return kbt::compile_strategy(cfg.strategy, kbt::schema_of(sample()));
}

std::string error_of(const std::string& strategy_tail) {
  try {
    compile(strategy_tail);
  } catch (const kbt::Error& e) {
    return e.what();
  }
  return "(no error)";
}

const char* const indicator_functions =
    "  functions:\n"
    "    macd(x, a, b): ema(x, a) - ema(x, b)\n"
    "    macd_signal(x, a, b, s): ema(macd(x, a, b), s)\n"
    "    bb_upper(x, w, m): sma(x, w) + m * rolling_std(x, w)\n"
    "    stoch_k(w): (close - rolling_min(low, w)) / (rolling_max(high, w) - rolling_min(low, w))\n"
    "    vwap(w): rolling_sum(close * volume, w) / rolling_sum(volume, w)\n"
    "    cov(x, y, w): sma(x * y, w) - sma(x, w) * sma(y, w)\n"
    "    beta(x, y, w): cov(x, y, w) / cov(y, y, w)\n"
    "    ret(x): log(x / lag(x, 1))\n"
    "    twice(x): x + x\n"
    "    inner(x, n): sma(x, n)\n"
    "    outer(n): inner(close, n) - twice(n)\n";

}  // namespace

// Each use equals the written-out expression: the same instructions, in the
// same order (hash-consed), so the same values on every engine.
TEST(LangUserFunctions, ACallCompilesToTheWrittenOutProgram) {
  struct Case {
    const char* with_functions;
    const char* written_out;
  };
  const Case cases[] = {
      {"macd(close, fast, slow) - macd_signal(close, fast, slow, n)",
       "ema(close, fast) - ema(close, slow) - ema(ema(close, fast) - ema(close, slow), n)"},
      {"bb_upper(close@BBB, fast, k)", "sma(close@BBB, fast) + k * rolling_std(close@BBB, fast)"},
      {"stoch_k(slow)", "(close - rolling_min(low, slow)) / (rolling_max(high, slow) - rolling_min(low, slow))"},
      {"vwap(20) - close", "rolling_sum(close * volume, 20) / rolling_sum(volume, 20) - close"},
      {"beta(ret(close), ret(close@AAA), 100)",
       "(sma(log(close / lag(close, 1)) * log(close@AAA / lag(close@AAA, 1)), 100) - sma(log(close / lag(close, 1)), "
       "100) * sma(log(close@AAA / lag(close@AAA, 1)), 100)) / (sma(log(close@AAA / lag(close@AAA, 1)) * "
       "log(close@AAA / lag(close@AAA, 1)), 100) - sma(log(close@AAA / lag(close@AAA, 1)), 100) * "
       "sma(log(close@AAA / lag(close@AAA, 1)), 100))"},
      // The caller's names: `n` of outer is its argument (slow), not the param n.
      {"outer(slow)", "sma(close, slow) - (slow + slow)"},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.with_functions);
    const kbt::Program with = compile(std::string(indicator_functions) + "  position: " + c.with_functions + "\n");
    const kbt::Program written = compile(std::string("  position: ") + c.written_out + "\n");
    EXPECT_EQ(kbt::disassemble(with), kbt::disassemble(written));
    // Not vacuous: the expression has finite values on the sample data.
    const double combo[] = {12, 26, 9, 2};
    const kbt::StrategyOutputs out = kbt::evaluate_strategy_reference(with, sample(), combo);
    std::size_t finite = 0;
    for (double v : out.target) finite += std::isfinite(v) ? 1 : 0;
    EXPECT_GT(finite, out.target.size() / 2);
  }
}

// An argument that uses a signal calling the same function is no cycle: the
// argument belongs to the caller (found by the ADX example of §12).
TEST(LangUserFunctions, AnArgumentMayUseTheSameFunctionThroughASignal) {
  const kbt::Program with = compile(std::string(indicator_functions) +
                                    "  signals:\n    m1: macd(close, fast, slow)\n"
                                    "  position: macd(m1, fast, slow) + vwap(slow)\n");
  const kbt::Program written = compile(
      "  position: ema(ema(close, fast) - ema(close, slow), fast) - ema(ema(close, fast) - ema(close, slow), slow) + "
      "rolling_sum(close * volume, slow) / rolling_sum(volume, slow)\n");
  EXPECT_EQ(kbt::disassemble(with), kbt::disassemble(written));
}

// A body that calls a function twice with the same argument, 40 levels deep:
// written out it has 2^40 leaves. Identical calls are expanded once, so it
// compiles (before, depth 20 took 3.5 s and depth 40 never finished) to the
// program of the shared expression: depth 3 checked against its written-out form.
static std::string doubling_functions(int depth, const char* arg_left, const char* arg_right) {
  std::string s = "  functions:\n    f0(x): sma(x, fast)\n";
  for (int k = 1; k <= depth; ++k)
    s += "    f" + std::to_string(k) + "(x): f" + std::to_string(k - 1) + "(" + arg_left + ") + f" +
         std::to_string(k - 1) + "(" + arg_right + ")\n";
  return s;
}

TEST(LangUserFunctions, RepeatedCallsExpandOnce) {
  const kbt::Program deep = compile(doubling_functions(40, "x", "x") + "  position: f40(close)\n");
  EXPECT_EQ(deep.code.size(), compile("  position: sma(close, fast)\n").code.size() + 40);
  const kbt::Program three = compile(doubling_functions(3, "x", "x") + "  position: f3(close)\n");
  const std::string f1 = "(sma(close, fast) + sma(close, fast))", f2 = "(" + f1 + " + " + f1 + ")";
  EXPECT_EQ(kbt::disassemble(three), kbt::disassemble(compile("  position: " + f2 + " + " + f2 + "\n")));
}

// Calls whose arguments differ build distinct expressions, 2^depth of them: a
// [limit] error naming the function, not a hang.
TEST(LangUserFunctions, ExponentialExpansionIsALimitError) {
  try {
    compile(doubling_functions(40, "x + 1", "x + 2") + "  position: f40(close)\n");
    FAIL() << "no error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::limit) << e.what();
    EXPECT_NE(std::string(e.what()).find("function 'f40' expands to more than"), std::string::npos) << e.what();
  }
}

TEST(LangUserFunctions, ErrorsPointAtTheCallOrIntoTheBody) {
  struct Case {
    std::string tail, message;
  };
  const std::string fns = indicator_functions;
  const Case cases[] = {
      {fns + "  position: macd(close, fast)\n",
       "cfg.yaml:20:13: macd() takes 3 arguments (x, a, b), defined at cfg.yaml:9:5; got 2"},
      {fns + "  position: bb_upper(close, 2.5, k)\n", "cfg.yaml:20:29: window 2.5 is not an integer"},
      {fns + "  position: macdd(close, fast, slow)\n", "unknown function 'macdd'; did you mean 'macd'?"},
      {fns + "  position: twice(close@BBB) + macd\n", "'macd' is a function of strategy.functions; expected a call"},
      {"  functions:\n    f(x): x + nosuch\n  position: f(close)\n", "cfg.yaml:9:15: unknown name 'nosuch'"},
      {"  functions:\n    f(x): x@BBB\n  position: f(close)\n", "'x' is a parameter of the function"},
      {"  functions:\n    f(x): g(x)\n    g(x): f(x) + 1\n  position: f(close)\n",
       "function 'f' depends on itself: function 'f' -> function 'g' -> function 'f'"},
      {"  functions:\n    sma(x): x\n  position: sma(close)\n", "function 'sma' has the name of a built-in function"},
      {"  functions:\n    f(x): (x +\n  position: close\n", "cfg.yaml:9:"},  // parsed even when unused
      {"  scans:\n    s:\n      inputs: {z: close}\n      init: {a: z}\n      update: {a: f(a)}\n"
       "      outputs: {o: a}\n  functions:\n    f(x): x\n  position: s.o\n",
       "f() is a function of strategy.functions and is not allowed inside scan 's'"},
  };
  for (const auto& c : cases) {
    const std::string error = error_of(c.tail);
    EXPECT_NE(error.find(c.message), std::string::npos) << c.tail << "\ngot: " << error;
  }
}

TEST(LangUserFunctions, BadHeadersAreConfigErrors) {
  struct Case {
    std::string functions, message;
  };
  const Case cases[] = {
      {"    f: close\n", "'f' is not a header such as 'macd(x, fast, slow)'"},
      {"    f(x, x): x\n", "parameter 'x' is given twice"},
      {"    f(x, 2y): x\n", "parameter '2y' is not a valid name"},
      {"    1f(x): x\n", "'1f' is not a valid function name"},
      {"    f(x): x\n    f(y): y\n", "'f' is defined twice (first at cfg.yaml:9:5)"},
      {"    f(x):\n", "strategy.functions.f"},
  };
  for (const auto& c : cases) {
    try {
      kbt::parse_run_config(head + "  functions:\n" + c.functions + "  position: close\n", "cfg.yaml", KBT_SOURCE_DIR);
      ADD_FAILURE() << c.functions << ": no error";
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), kbt::ErrorCategory::config) << c.functions;
      EXPECT_NE(std::string(e.what()).find(c.message), std::string::npos) << c.functions << "\ngot: " << e.what();
    }
  }
}

// End to end: a sweep of a strategy written with functions runs on the default
// space and its best candidates re-simulate on the reference engine to the bit.
TEST(LangUserFunctions, ASweepWithFunctionsVerifiesBitForBit) {
  const std::string dir = ::testing::TempDir() + "kbt_user_functions_" + std::to_string(::getpid());
  std::filesystem::create_directories(dir);
  const std::string cfg = dir + "/f.yaml";
  std::ofstream(cfg) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\n"
                     << "symbols: [AAA]\nstrategy:\n  params:\n    fast: {range: [5, 30, 5]}\n"
                        "    slow: {range: [20, 80, 20]}\n    n: {values: [5, 9]}\n"
                     << indicator_functions
                     << "  signals:\n    hist: macd(close, fast, slow) - macd_signal(close, fast, slow, n)\n"
                        "  position: where(hist > 0, 1, -1)\n"
                        "simulation: {fee_bps: 5}\n"
                        "verify: {top_n: 20}\n"
                        "output: {path: "
                     << dir << "/r.h5}\n";
  const auto r = kbt::test::run_kbt("run " + cfg + " --quiet");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("mismatches: 0 of 20"), std::string::npos) << r.output;
  const auto check = kbt::test::run_kbt("check " + cfg);
  EXPECT_EQ(check.exit_code, 0) << check.output;
  EXPECT_NE(check.output.find("function macd_signal(x, a, b, s) = ema(macd(x, a, b), s)\n"), std::string::npos)
      << check.output;
  std::filesystem::remove_all(dir);
}
