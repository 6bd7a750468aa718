// Every class of config error: category, exact file:line:col, and the message.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>

#include <string>

#include "unit/test_config_support.hpp"

namespace {

void expect_error(const std::string& yaml, kbt::ErrorCategory category, const std::string& prefix,
                  const std::string& text) {
  kbt::test::expect_config_error(&kbt::parse_run_config, "cfg.yaml", yaml, category, prefix, text);
}

const std::string head = "data: d.h5\nstrategy:\n  position: 1\n";  // lines 1-3

}  // namespace

TEST(ConfigErrors, YamlSyntax) {
  expect_error("data: [d.h5\nstrategy:\n", kbt::ErrorCategory::config, "cfg.yaml:2:9: ",
               "YAML syntax error: end of sequence flow not found");
  expect_error("data: d.h5\n  strategy: 1\n", kbt::ErrorCategory::config, "cfg.yaml:2:11: ",
               "YAML syntax error: illegal map value");
}

TEST(ConfigErrors, UnknownKeysWithSuggestion) {
  expect_error(head + "simulation:\n  fe_bps: 3\n", kbt::ErrorCategory::config, "cfg.yaml:5:3: ",
               "unknown key 'fe_bps' in simulation; did you mean 'fee_bps'?");
  expect_error(head + "simulaton: {}\n", kbt::ErrorCategory::config, "cfg.yaml:4:1: ",
               "unknown key 'simulaton' in the run config; did you mean 'simulation'?");
  expect_error(head + "sweep:\n  objective: {metrc: sharpe}\n", kbt::ErrorCategory::config, "cfg.yaml:5:15: ",
               "unknown key 'metrc' in sweep.objective; did you mean 'metric'?");
  // No plausible suggestion: the accepted keys are listed.
  expect_error(head + "output: {zzzzzz: 1}\n", kbt::ErrorCategory::config, "cfg.yaml:4:10: ",
               "unknown key 'zzzzzz' in output; accepted keys: path, csv, heatmap");
  expect_error("data: d.h5\nstrategy:\n  positon: 1\n", kbt::ErrorCategory::config, "cfg.yaml:3:3: ",
               "did you mean 'position'?");
  expect_error("data: d.h5\nstrategy:\n  params:\n    a: {rnage: [1, 2, 1]}\n  position: 1\n",
               kbt::ErrorCategory::config, "cfg.yaml:4:9: ", "unknown key 'rnage' in parameter 'a'; did you mean 'range'?");
  expect_error("data: d.h5\nstrategy:\n  scans:\n    kf: {update: {x: 1}, outputs: {y: x}, inits: {x: 0}}\n"
               "  position: 1\n",
               kbt::ErrorCategory::config, "cfg.yaml:4:43: ", "did you mean 'init'?");
}

TEST(ConfigErrors, DuplicateKey) {
  expect_error(head + "simulation:\n  fill: close\n  fill: next_open\n", kbt::ErrorCategory::config,
               "cfg.yaml:6:3: ", "duplicate key 'fill' in simulation (first given at cfg.yaml:5:3)");
}

TEST(ConfigErrors, WrongTypesNameTheAcceptedValues) {
  expect_error(head + "simulation:\n  fill: 3\n", kbt::ErrorCategory::config, "cfg.yaml:5:9: ",
               "simulation.fill must be one of close, next_open (got '3')");
  expect_error(head + "simulation:\n  fill: midpoint\n", kbt::ErrorCategory::config, "cfg.yaml:5:9: ",
               "simulation.fill must be one of close, next_open (got 'midpoint')");
  expect_error(head + "sweep:\n  top_k: abc\n", kbt::ErrorCategory::config, "cfg.yaml:5:10: ",
               "sweep.top_k must be an integer >= 1 (got 'abc')");
  expect_error(head + "sweep:\n  top_k: 2.5\n", kbt::ErrorCategory::config, "cfg.yaml:5:10: ",
               "sweep.top_k must be an integer >= 1 (got '2.5')");
  expect_error(head + "simulation:\n  initial_capital: -5\n", kbt::ErrorCategory::config, "cfg.yaml:5:20: ",
               "simulation.initial_capital must be a number > 0 (got '-5')");
  expect_error(head + "simulation:\n  fee_bps: [1]\n", kbt::ErrorCategory::config, "cfg.yaml:5:12: ",
               "simulation.fee_bps must be a number >= 0 or a mapping {venue: bps} (got a list of 1)");
  expect_error(head + "simulation:\n  fee_bps: {okx: -1}\n", kbt::ErrorCategory::config, "cfg.yaml:5:18: ",
               "simulation.fee_bps.okx must be a number >= 0");
  expect_error(head + "simulation:\n  stop_loss: 0\n", kbt::ErrorCategory::config, "cfg.yaml:5:14: ",
               "simulation.stop_loss must be a number > 0 or null (got '0')");
  expect_error(head + "simulation:\n  score_start: last tuesday\n", kbt::ErrorCategory::config, "cfg.yaml:5:16: ",
               "simulation.score_start must be a bar index (integer >= 0), an ISO-8601 UTC timestamp");
  expect_error(head + "sweep:\n  device: gpu\n", kbt::ErrorCategory::config, "cfg.yaml:5:11: ",
               "sweep.device must be one of auto, reference, serial, openmp, cuda (got 'gpu')");
  expect_error(head + "sweep:\n  objective: {metric: sharp}\n", kbt::ErrorCategory::config, "cfg.yaml:5:23: ",
               "sweep.objective.metric must be one of total_return, cagr");
  expect_error(head + "output:\n  csv: maybe\n", kbt::ErrorCategory::config, "cfg.yaml:5:8: ",
               "output.csv must be true or false (got 'maybe')");
  expect_error(head + "verify: {score_start: 10, score_end: 5}\n", kbt::ErrorCategory::config, "cfg.yaml:4:38: ",
               "verify.score_end must come after verify.score_start");
  expect_error(head + "simulation: 5\n", kbt::ErrorCategory::config, "cfg.yaml:4:13: ",
               "simulation must be a mapping (got '5')");
  // An empty value is located at its key, not at the next line.
  expect_error(head + "simulation:\n  initial_capital:\n  fill: close\n", kbt::ErrorCategory::config,
               "cfg.yaml:5:3: ", "simulation.initial_capital must be a number > 0 (got null)");
}

TEST(ConfigErrors, MissingOrConflictingStrategyForms) {
  expect_error("strategy:\n  position: 1\n", kbt::ErrorCategory::config, "cfg.yaml:1:1: ",
               "missing required key 'data'");
  expect_error("data: d.h5\n", kbt::ErrorCategory::config, "cfg.yaml:1:1: ", "missing required key 'strategy'");
  expect_error("", kbt::ErrorCategory::config, "cfg.yaml:1:1: ", "the config is empty");
  expect_error("data: d.h5\nstrategy:\n  signals: {f: close}\n", kbt::ErrorCategory::config, "cfg.yaml:2:1: ",
               "strategy needs 'position' (a target exposure) or entry/exit rules");
  expect_error("data: d.h5\nstrategy:\n  long_entry: a\n  position: b\n", kbt::ErrorCategory::config,
               "cfg.yaml:4:3: ", "strategy gives both 'position' and 'long_entry'");
  expect_error("data: d.h5\nstrategy:\n  short_exit: a\n", kbt::ErrorCategory::config, "cfg.yaml:3:3: ",
               "'short_exit' without 'short_entry'");
  expect_error("data: d.h5\nstrategy:\n  position: {a: 1}\n", kbt::ErrorCategory::config, "cfg.yaml:3:13: ",
               "strategy.position must be an expression (got a mapping)");
  expect_error("data: d.h5\nstrategy:\n  position:\n", kbt::ErrorCategory::config, "cfg.yaml:3:3: ",
               "strategy.position must be an expression (got null)");
  expect_error("data: d.h5\nstrategy:\n  signals: {2x: close}\n  position: 1\n", kbt::ErrorCategory::config,
               "cfg.yaml:3:13: ", "strategy.signals name '2x' is not a valid name");
  expect_error("data: d.h5\nstrategy:\n  scans: {kf: {init: {x: 0}, outputs: {y: x}}}\n  position: 1\n",
               kbt::ErrorCategory::config, "cfg.yaml:3:11: ", "strategy.scans.kf needs 'update'");
}

TEST(ConfigErrors, BadParameterAxes) {
  const std::string pre = "data: d.h5\nstrategy:\n  params:\n";  // params on line 4
  const std::string post = "  position: 1\n";
  expect_error(pre + "    a: {range: [1, 10, 0]}\n" + post, kbt::ErrorCategory::grid, "cfg.yaml:4:24: ",
               "parameter 'a' range: step must be > 0 (got 0)");
  expect_error(pre + "    a: {range: [1, 10, -2]}\n" + post, kbt::ErrorCategory::grid, "cfg.yaml:4:24: ",
               "step must be > 0 (got -2)");
  expect_error(pre + "    a: {range: [10, 1, 1]}\n" + post, kbt::ErrorCategory::grid, "cfg.yaml:4:16: ",
               "parameter 'a' range: start 10 is greater than stop 1");
  expect_error(pre + "    a: {values: []}\n" + post, kbt::ErrorCategory::grid, "cfg.yaml:4:17: ",
               "parameter 'a' values is empty");
  expect_error(pre + "    a: {linspace: [0, 1, 0]}\n" + post, kbt::ErrorCategory::grid, "cfg.yaml:4:26: ",
               "n must be >= 1 (got 0)");
  expect_error(pre + "    a: {logspace: [0, 1, 3]}\n" + post, kbt::ErrorCategory::grid, "cfg.yaml:4:20: ",
               "parameter 'a' logspace: start must be > 0 (got 0)");
  expect_error(pre + "    a: {values: [1, 2, 1]}\n" + post, kbt::ErrorCategory::grid, "cfg.yaml:4:5: ",
               "parameter 'a' has the value 1 twice");
  expect_error(pre + "    a: {values: [1, x]}\n" + post, kbt::ErrorCategory::config, "cfg.yaml:4:21: ",
               "each value of parameter 'a' values must be a number (got 'x')");
  expect_error(pre + "    a: {range: [1, ten, 1]}\n" + post, kbt::ErrorCategory::config, "cfg.yaml:4:20: ",
               "parameter 'a' range stop must be a number (got 'ten')");
  expect_error(pre + "    a: {range: [1, 10]}\n" + post, kbt::ErrorCategory::config, "cfg.yaml:4:16: ",
               "parameter 'a' range must be a list [start, stop, step] (got a list of 2)");
  expect_error(pre + "    a: {linspace: [0, 1, 2.5]}\n" + post, kbt::ErrorCategory::config, "cfg.yaml:4:26: ",
               "parameter 'a' linspace n must be an integer >= 1 (got '2.5')");
  expect_error(pre + "    a: {range: [1, 2, 1], values: [3]}\n" + post, kbt::ErrorCategory::config,
               "cfg.yaml:4:5: ", "parameter 'a' needs exactly one of range, values, linspace, logspace (got 2)");
  expect_error(pre + "    a: fast\n" + post, kbt::ErrorCategory::config, "cfg.yaml:4:8: ",
               "parameter 'a' must be a number, a list of numbers, or one of {range: [start, stop, step]}");
  expect_error(pre + "    a: {range: [1, .inf, 1]}\n" + post, kbt::ErrorCategory::config, "cfg.yaml:4:20: ",
               "parameter 'a' range stop must be a number (got '.inf')");
}

TEST(ConfigErrors, GridLargerThanMaxCombosIsALimitError) {
  expect_error("data: d.h5\nstrategy:\n  params:\n    a: {range: [1, 1000, 1]}\n    b: {range: [1, 1000, 1]}\n"
               "  position: 1\nsweep: {max_combos: 999999}\n",
               kbt::ErrorCategory::limit, "cfg.yaml:3:3: ",
               "the parameter grid has 1,000,000 combos (a 1000 x b 1000), more than sweep.max_combos = 999,999");
  // One axis alone over the limit is refused before its values are built.
  expect_error("data: d.h5\nstrategy:\n  params:\n    a: {range: [0, 1e12, 1]}\n  position: 1\n",
               kbt::ErrorCategory::limit, "cfg.yaml:4:16: ",
               "parameter 'a' range: the axis has 1,000,000,000,001 values, more than sweep.max_combos = 100,000,000");
  // 2^64 overflow is reported, not wrapped: 6 axes of 2^11 values = 2^66 combos.
  std::string yaml = "data: d.h5\nstrategy:\n  params:\n";
  for (int k = 0; k < 6; ++k) yaml += "    p" + std::to_string(k) + ": {range: [1, 2048, 1]}\n";
  yaml += "  position: 1\nsweep: {max_combos: 9000000000000000000}\n";
  expect_error(yaml, kbt::ErrorCategory::limit, "cfg.yaml:3:3: ", "more than 2^64 combos");
}

TEST(ConfigErrors, HeatmapMustNameTwoParams) {
  const std::string pre = "data: d.h5\nstrategy:\n  params: {fast: [1, 2], slow: [3, 4]}\n  position: 1\n";
  expect_error(pre + "output: {heatmap: [fats, slow]}\n", kbt::ErrorCategory::config, "cfg.yaml:5:20: ",
               "output.heatmap names 'fats', which is not a parameter; did you mean 'fast'?");
  expect_error(pre + "output: {heatmap: [fast]}\n", kbt::ErrorCategory::config, "cfg.yaml:5:19: ",
               "output.heatmap must be a list of two parameter names");
}

TEST(ConfigErrors, PositionsSurviveByteOrderMarkAndCrLf) {
  // Columns count bytes; a UTF-8 BOM is not a column; CRLF ends lines like LF.
  expect_error("\xEF\xBB\xBF" + head + "sweep: {top_k: 0}\n", kbt::ErrorCategory::config, "cfg.yaml:4:16: ",
               "sweep.top_k must be an integer >= 1 (got '0')");
  expect_error("data: d.h5\r\nstrategy:\r\n  position: 1\r\nsimulation:\r\n  fil: close\r\n",
               kbt::ErrorCategory::config, "cfg.yaml:5:3: ", "did you mean 'fill'?");
  const auto c = kbt::parse_run_config("\xEF\xBB\xBF" "data: d.h5\r\nstrategy:\r\n  position: |\r\n    a + b\r\n", "cfg.yaml", "");
  EXPECT_EQ(c.strategy.position->text, "a + b");
  EXPECT_EQ(c.strategy.position->line, 4);
  EXPECT_EQ(c.strategy.position->column, 5);
}

TEST(ConfigErrors, OneDocumentOnly) {
  expect_error(head + "---\nfoo: 1\n", kbt::ErrorCategory::config, "cfg.yaml:5:1: ",
               "a run config is one YAML document; this file holds 2");
}

// sweep.metrics: `all` or metric names, each checked where it is written.
TEST(ConfigErrors, SweepMetricsNameKnownMetrics) {
  expect_error(head + "sweep:\n  metrics: [sharpe, max_drawdwn]\n", kbt::ErrorCategory::config, "cfg.yaml:5:21: ",
               "sweep.metrics: unknown metric 'max_drawdwn'; did you mean 'max_drawdown'?");
  expect_error(head + "sweep:\n  metrics: some\n", kbt::ErrorCategory::config, "cfg.yaml:5:12: ",
               "all, or a list of metric names");
  const kbt::RunConfig all = kbt::parse_run_config(head + "sweep: {metrics: all}\n", "cfg.yaml", "");
  EXPECT_TRUE(all.sweep.all_metrics);
  const kbt::RunConfig some = kbt::parse_run_config(head + "sweep: {metrics: [win_rate, calmar]}\n", "cfg.yaml", "");
  EXPECT_FALSE(some.sweep.all_metrics);
  EXPECT_EQ(some.sweep.metrics, (std::vector<std::string>{"win_rate", "calmar"}));
  EXPECT_TRUE(kbt::parse_run_config(head, "cfg.yaml", "").sweep.metrics.empty());  // default: what the run needs
}

// verify.top_n: a count or `auto` (docs/verify.md "How many").
TEST(ConfigErrors, VerifyTopNIsACountOrAuto) {
  expect_error(head + "verify:\n  top_n: lots\n", kbt::ErrorCategory::config, "cfg.yaml:5:10: ",
               "verify.top_n must be an integer >= 0 or auto");
  expect_error(head + "verify:\n  top_n: -3\n", kbt::ErrorCategory::config, "cfg.yaml:5:10: ",
               "verify.top_n must be an integer >= 0 or auto");
  EXPECT_FALSE(kbt::parse_run_config(head + "verify: {top_n: auto}\n", "cfg.yaml", "").verify.top_n.has_value());
  EXPECT_EQ(kbt::parse_run_config(head + "verify: {top_n: 0}\n", "cfg.yaml", "").verify.top_n, 0);
}
