// `kbt check` on every file of tests/bad_input/config/: non-zero exit, one error
// line with the category tag and the exact file:line:col.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <kbt/data/data_io.hpp>

#include "support/cli_runner.hpp"

namespace {

struct BadConfig {
  const char* file;
  const char* tag;       // "[config]", "[grid]", ...
  const char* location;  // "line:col"
  const char* problem;   // a fragment of the message
};

const BadConfig bad_configs[] = {
    {"yaml_syntax_error.yaml", "[config]", "5:3", "YAML syntax error: end of map flow not found"},
    {"unknown_key.yaml", "[config]", "13:3", "unknown key 'fe_bps' in simulation; did you mean 'fee_bps'?"},
    {"wrong_type_fill.yaml", "[config]", "12:9", "simulation.fill must be one of close, next_open (got '3')"},
    {"wrong_value_fill.yaml", "[config]", "12:9", "simulation.fill must be one of close, next_open (got 'midpoint')"},
    {"wrong_type_top_k.yaml", "[config]", "12:10", "sweep.top_k must be an integer >= 1 (got 'abc')"},
    {"zero_checkpoint_combos.yaml", "[config]", "12:22", "sweep.checkpoint_combos must be auto or an integer >= 1 (got '0')"},
    {"negative_initial_capital.yaml", "[config]", "12:20", "simulation.initial_capital must be a number > 0 (got '-5')"},
    {"empty_values.yaml", "[grid]", "4:17", "parameter 'k' values is empty"},
    {"negative_step.yaml", "[grid]", "4:27", "parameter 'fast' range: step must be > 0 (got -5)"},
    {"start_above_stop.yaml", "[grid]", "4:19", "start 50 is greater than stop 5"},
    {"zero_linspace_count.yaml", "[grid]", "4:30", "n must be >= 1 (got 0)"},
    {"non_numeric_param.yaml", "[config]", "4:24", "must be a number (got 'three')"},
    {"duplicate_param_value.yaml", "[grid]", "4:5", "parameter 'k' has the value 1 twice"},
    {"both_position_and_entries.yaml", "[config]", "11:3", "strategy gives both 'position' and 'long_entry'"},
    {"no_position_or_entries.yaml", "[config]", "2:1", "strategy needs 'position'"},
    {"exit_without_entry.yaml", "[config]", "10:3", "'long_exit' without 'long_entry'"},
    {"missing_data.yaml", "[config]", "1:1", "missing required key 'data'"},
    {"missing_strategy.yaml", "[config]", "1:1", "missing required key 'strategy'"},
    {"empty_file.yaml", "[config]", "1:1", "the config is empty"},
    {"duplicate_key.yaml", "[config]", "14:3", "duplicate key 'fill' in simulation"},
    {"too_many_combos.yaml", "[limit]", "3:3",
     "the parameter grid has 1,000,000,000 combos (a 1000 x b 1000 x c 1000), more than sweep.max_combos = "
     "100,000,000"},
    {"bad_score_start.yaml", "[config]", "12:16", "simulation.score_start must be a bar index"},
    {"unknown_metric.yaml", "[config]", "12:23", "sweep.objective.metric must be one of"},
    {"heatmap_unknown_param.yaml", "[config]", "12:19", "'slwo', which is not a parameter; did you mean 'slow'?"},
    {"position_is_a_mapping.yaml", "[config]", "11:5", "strategy.position must be an expression (got a mapping)"},
    {"missing_data_file.yaml", "[io]", "1:7", "data file"},
};

std::string corpus_dir() { return std::string(KBT_TEST_DIR) + "/bad_input/config"; }

std::vector<std::string> non_empty_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) lines.push_back(line);
  return lines;
}

}  // namespace

TEST(ConfigBadInput, EveryCorpusFileFailsWithOneLocatedError) {
  for (const auto& bad : bad_configs) {
    SCOPED_TRACE(bad.file);
    const std::string path = corpus_dir() + "/" + bad.file;
    ASSERT_TRUE(std::filesystem::exists(path));
    const auto result = kbt::test::run_kbt("check '" + path + "'");
    EXPECT_NE(result.exit_code, 0);
    const auto lines = non_empty_lines(result.output);
    ASSERT_EQ(lines.size(), 1u) << result.output;
    const std::string& line = lines[0];
    EXPECT_EQ(line.rfind(std::string("kbt: error ") + bad.tag + ": ", 0), 0u) << line;
    EXPECT_NE(line.find(path + ":" + bad.location + ": "), std::string::npos) << line;
    EXPECT_NE(line.find(bad.problem), std::string::npos) << line;
  }
}

TEST(ConfigBadInput, CorpusHasNoUntestedFile) {
  std::size_t n = 0;
  for (const auto& entry : std::filesystem::directory_iterator(corpus_dir())) {
    bool listed = false;
    for (const auto& bad : bad_configs) listed = listed || entry.path().filename() == bad.file;
    EXPECT_TRUE(listed) << entry.path() << " has no expected error in test_config_bad_input.cpp";
    ++n;
  }
  EXPECT_EQ(n, std::size(bad_configs));
}

TEST(CliCheck, PrintsTheSummaryOfAGoodConfig) {
  const auto dir = std::filesystem::temp_directory_path() / ("kbt_check_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "configs");
  std::filesystem::create_directories(dir / "data");
  std::ofstream(dir / "data" / "sample.h5") << "";  // `check` does not read the data
  std::ofstream(dir / "configs" / "x.yaml") << "data: ../data/sample.h5\n"
                                               "strategy:\n"
                                               "  params:\n"
                                               "    fast: {range: [5, 50, 5]}\n"     // 10 values
                                               "    slow: {range: [20, 200, 10]}\n"  // 19 values
                                               "    k: {values: [0.5, 1]}\n"
                                               "  constraints: [\"fast < slow\"]\n"
                                               "  position: where(sma(close, fast) > sma(close, slow), k, -k)\n";
  const auto result = kbt::test::run_kbt("check '" + (dir / "configs" / "x.yaml").string() + "'");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("data: " + (dir / "data" / "sample.h5").string()), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("combos: 380 before constraints (1 constraint)"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("5, 10, 15, ..., 50"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("config OK"), std::string::npos) << result.output;
  std::filesystem::remove_all(dir);
}

namespace {

// A temporary directory with data/sample.h5 (synthetic, 2 symbols on venues
// binance and okx, 300 hourly bars from 2021-01-01) and configs/.
class CheckWithData : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() / ("kbt_check_data_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "configs");
    std::filesystem::create_directories(dir_ / "data");
    kbt::SynthOptions o;
    o.n_symbols = 2;
    o.n_bars = 300;
    o.venues = {"binance", "okx"};
    const auto md = kbt::synth_market_data(o);
    kbt::write_bars_hdf5(md.bars, md.exo, (dir_ / "data" / "sample.h5").string());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Writes configs/x.yaml and runs `kbt check --data` on it.
  kbt::test::CliResult check(const std::string& yaml) {
    config_ = (dir_ / "configs" / "x.yaml").string();
    std::ofstream(config_) << yaml;
    return kbt::test::run_kbt("check --data '" + config_ + "'");
  }

  std::filesystem::path dir_;
  std::string config_;
};

const std::string strategy_head =
    "data: ../data/sample.h5\n"               // 1
    "strategy:\n"                             // 2
    "  params:\n"                             // 3
    "    fast: {range: [5, 50, 5]}\n"         // 4: 10 values
    "    slow: {range: [20, 200, 10]}\n"      // 5: 19 values
    "    k: {values: [0.5, 1]}\n"             // 6
    "  constraints: [\"fast < slow\"]\n";     // 7

}  // namespace

TEST_F(CheckWithData, CompilesAndCountsCombosAfterConstraints) {
  // fast < slow, counted by hand: slow 20 -> 3 fast values, 30 -> 5, 40 -> 7, 50 -> 9,
  // 60..200 (15 values) -> 10 each: 174 pairs, x 2 values of k = 348 of 380.
  const auto r = check(strategy_head + "  position: where(sma(close, fast) > sma(close, slow), k, -k)\n"
                                       "simulation: {fee_bps: {binance: 7.5, okx: 8}, score_start: 2021-01-02}\n");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("data: 300 bars, 2021-01-01T00:00:00Z .. 2021-01-13T11:00:00Z, 2 symbols"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find(
                "scoring from bar 24 (2021-01-02T00:00:00Z) to bar 300, 8760 periods per year (inferred: 276 bars "
                "over 11.458 days of the scoring window)"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("combos: 380 before constraints, 348 after"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("data and strategy OK"), std::string::npos) << r.output;
}

TEST_F(CheckWithData, UnknownNameIsALanguageErrorAtItsConfigLine) {
  const auto r = check(strategy_head + "  position: where(sma(close, fats) > 0, 1, -1)\n");  // line 8
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("kbt: error [language]: " + config_ + ":8:"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("fats"), std::string::npos) << r.output;
}

TEST_F(CheckWithData, VenueWithoutFeeIsAnError) {
  const auto r = check(strategy_head + "  position: 1\nsimulation:\n  fee_bps: {binance: 7.5}\n");  // fee on line 10
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("kbt: error [config]: " + config_ + ":10:12: simulation.fee_bps: no fee for venue 'okx'"),
            std::string::npos)
      << r.output;
}

TEST_F(CheckWithData, ScoreStartAfterTheDataIsAnError) {
  const auto r = check(strategy_head + "  position: 1\nsimulation:\n  score_start: 300\n");  // bar 300 of 0..299
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find(config_ + ":10:16: simulation.score_start: bar index 300 is outside the data's 300 bars"),
            std::string::npos)
      << r.output;
}

TEST_F(CheckWithData, ExternalDataIsReadOnlyWhenTheConfigAllowsIt) {
  // The corpus pair: /bars/close of external_link.h5 lives in external_target.h5.
  const std::string bad = std::string(KBT_TEST_DIR) + "/bad_input/data/";
  std::filesystem::copy_file(bad + "external_link_close.h5", dir_ / "data" / "external_link.h5");
  std::filesystem::copy_file(bad + "external_target.h5", dir_ / "data" / "external_target.h5");
  const std::string body = "strategy:\n  position: where(close > sma(close, 2), 1, 0)\n";
  const auto refused = check("data: ../data/external_link.h5\n" + body);
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("kbt: error [data_format]: "), std::string::npos) << refused.output;
  EXPECT_NE(refused.output.find("is an external link (to another file)"), std::string::npos) << refused.output;
  const auto followed = check("data: ../data/external_link.h5\nexternal_data: follow\n" + body);
  EXPECT_EQ(followed.exit_code, 0) << followed.output;
  EXPECT_NE(followed.output.find("data: 6 bars"), std::string::npos) << followed.output;
  const auto typo = check("data: ../data/external_link.h5\nexternal_data: yes\n" + body);  // line 2, col 16
  EXPECT_NE(typo.exit_code, 0);
  EXPECT_NE(typo.output.find("kbt: error [config]: " + config_ + ":2:16: external_data"), std::string::npos)
      << typo.output;
}
