// `kbt eval` end to end on a small HDF5 file, and every shipped example config's
// strategy compiled and evaluated on the shipped sample data.
#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <kbt/config/config_loader.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/label/label_job.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/simulate/simulate_job.hpp>
#include <kbt/sweep/backtest.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

#include "support/cli_runner.hpp"
#include "test_lang_support.hpp"

using namespace kbt;
using namespace kbt::test;

namespace {

// A file of this test process, removed when it exits.
struct ScratchFile {
  std::string path;
  ~ScratchFile() { std::remove(path.c_str()); }
};

// Two symbols, three hourly bars from 2021-01-01T00:00Z.
std::string small_file() {
  static const ScratchFile file{[] {
    const std::string p = (std::filesystem::temp_directory_path() /
                           ("kbt_lang_eval_" + std::to_string(::getpid()) + ".h5")).string();
    const std::int64_t t0 = 1609459200LL * 1000000000LL;
    BarData d = make_bars({"AAA", "BBB"},
                          {{"open", {{1, 2, 4}, {10, 20, 40}}},
                           {"high", {{1, 2, 4}, {10, 20, 40}}},
                           {"low", {{1, 2, 4}, {10, 20, 40}}},
                           {"close", {{1, 2, 4}, {10, 20, 40}}},
                           {"volume", {{1, 1, 1}, {1, 1, 1}}}},
                          {t0, t0 + hour_ns, t0 + 2 * hour_ns});
    write_bars_hdf5(d, {}, p);
    return p;
  }()};
  return file.path;
}

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

}  // namespace

TEST(LangEvalCli, OneSymbolIsTimestampValue) {
  const auto r = run_kbt("eval --data " + small_file() + " --expr \"sma(close, 2)\" --symbol AAA");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output,
            "timestamp,value\n"
            "2021-01-01T00:00:00Z,NaN\n"
            "2021-01-01T01:00:00Z,1.5\n"
            "2021-01-01T02:00:00Z,3\n");
}

TEST(LangEvalCli, SeveralSymbolsAreColumnsAndParamsBind) {
  const std::string out = (std::filesystem::temp_directory_path() /
                           ("kbt_lang_eval_" + std::to_string(::getpid()) + ".csv")).string();
  const auto r = run_kbt("eval --data " + small_file() + " --expr \"close@BBB / close - k\" --param k=0.5 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(read_text(out),
            "timestamp,AAA,BBB\n"
            "2021-01-01T00:00:00Z,9.5,0.5\n"
            "2021-01-01T01:00:00Z,9.5,0.5\n"
            "2021-01-01T02:00:00Z,9.5,0.5\n");
  std::remove(out.c_str());
  const auto w = run_kbt("eval --data " + small_file() + " --expr \"rolling_sum(close, n)\" --param n=2 --symbol BBB");
  ASSERT_EQ(w.exit_code, 0) << w.output;
  EXPECT_TRUE(contains(w.output, "2021-01-01T02:00:00Z,60\n")) << w.output;
}

TEST(LangEvalCli, ErrorsAreLanguageErrorsWithPosition) {
  const auto r = run_kbt("eval --data " + small_file() + " --expr \"sma(clsoe, 2)\"");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_TRUE(contains(r.output, "kbt: error [language]: --expr:1:5: unknown name 'clsoe'; did you mean 'close'?"))
      << r.output;
  const auto p = run_kbt("eval --data " + small_file() + " --expr \"sma(close, n)\" --param n=2.5");
  EXPECT_EQ(p.exit_code, 1);
  EXPECT_TRUE(contains(p.output, "param 'n' is not integer-valued")) << p.output;
  const auto bad = run_kbt("eval --data " + small_file() + " --expr close --param n");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_TRUE(contains(bad.output, "expected name=value")) << bad.output;
}

// `kbt eval CONFIG --signal NAME`: a config's signal, scan output or output
// for one combo, on the config's data (values worked out by hand from the
// three bars: close 1 2 4 and 10 20 40).
TEST(LangEvalCli, ASignalOfAConfigForOneCombo) {
  const std::string cfg = (std::filesystem::temp_directory_path() /
                           ("kbt_lang_eval_" + std::to_string(::getpid()) + ".yaml")).string();
  const ScratchFile remove_cfg{cfg};
  std::ofstream(cfg) << "data: " << small_file() << "\n"
                        "strategy:\n"
                        "  params: {n: {values: [2, 3]}, k: {values: [1, 5]}}\n"
                        "  scans:\n"
                        "    acc:\n"
                        "      inputs: {x: close}\n"
                        "      init: {s: x}\n"
                        "      update: {s: s + x}\n"
                        "      outputs: {total: s}\n"
                        "  signals:\n"
                        "    m: sma(close, n)\n"
                        "    d: m - k\n"
                        "  position: where(d > 0.6, 1, -1)\n";
  const auto d = run_kbt("eval " + cfg + " --signal d --params n=2,k=1");
  ASSERT_EQ(d.exit_code, 0) << d.output;
  EXPECT_EQ(d.output,
            "timestamp,AAA,BBB\n"
            "2021-01-01T00:00:00Z,NaN,NaN\n"
            "2021-01-01T01:00:00Z,0.5,14\n"
            "2021-01-01T02:00:00Z,2,29\n");
  // Another combo, one symbol, an expression over the signals.
  const auto e = run_kbt("eval " + cfg + " --expr 'd * 2' --param n=3 --param k=5 --symbol AAA");
  ASSERT_EQ(e.exit_code, 0) << e.output;
  EXPECT_EQ(e.output,
            "timestamp,value\n"
            "2021-01-01T00:00:00Z,NaN\n"
            "2021-01-01T01:00:00Z,NaN\n"
            "2021-01-01T02:00:00Z,-5.333333333333333\n");  // ((1+2+4)/3 - 5) * 2
  const auto position = run_kbt("eval " + cfg + " --signal position --params n=2,k=1 --symbol AAA");
  ASSERT_EQ(position.exit_code, 0) << position.output;
  EXPECT_TRUE(contains(position.output, "01:00:00Z,-1\n2021-01-01T02:00:00Z,1\n")) << position.output;
  const auto scan = run_kbt("eval " + cfg + " --signal acc.total --params n=2,k=1 --symbol BBB");
  ASSERT_EQ(scan.exit_code, 0) << scan.output;
  // init s = 10, then the first bar's update too (docs/language.md "Bar rule").
  EXPECT_TRUE(contains(scan.output, "00:00:00Z,20\n2021-01-01T01:00:00Z,40\n2021-01-01T02:00:00Z,80\n")) << scan.output;

  struct Bad {
    std::string args, message;
  };
  for (const Bad& b : {Bad{cfg + " --signal dd --params n=2,k=1", "the strategy has no signal 'dd'; did you mean 'd'? (it has: position, m, d, acc.total)"},
                       Bad{cfg + " --signal d --params n=2", "missing value for parameter 'k'"},
                       Bad{cfg + " --signal d --params n=2,k=1,z=3", "unknown parameter 'z'"},
                       Bad{cfg + " --signal d --expr d --params n=2,k=1", "exactly one of them"},
                       Bad{"--data " + small_file() + " --signal d", "give the config first"},
                       Bad{cfg + " --data " + small_file() + " --signal d --params n=2,k=1", "names its data"}}) {
    const auto r = run_kbt("eval " + b.args);
    EXPECT_EQ(r.exit_code, 1) << b.args;
    EXPECT_TRUE(contains(r.output, b.message)) << b.args << "\n" << r.output;
  }
}

TEST(LangEvalCli, DumpPrintsTheProgram) {
  const auto r = run_kbt("eval --data " + small_file() + " --expr \"sma(close, 2) - sma(close, 2)\" --dump");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(contains(r.output, "r1 = rolling_mean r0 window=2")) << r.output;
  EXPECT_TRUE(contains(r.output, "r2 = sub r1 r1")) << r.output;
}

namespace {

// A config whose data is not shipped (configs/universe_momentum.yaml) says in
// its header how to make it: its `kbt data synth ... --out PATH ...` line, run
// here with PATH replaced by `out`. Empty when the header has no such line.
std::string make_data_from_header(const std::filesystem::path& config, const std::string& out) {
  std::ifstream in(config);
  for (std::string line; std::getline(in, line) && line.rfind("#", 0) == 0;) {
    const auto at = line.find("kbt data synth");
    if (at == std::string::npos) continue;
    std::istringstream words(line.substr(at + 4));
    std::string args, word;
    for (bool next_is_out = false; words >> word; next_is_out = word == "--out")
      args += " " + (next_is_out ? "'" + out + "'" : word);
    const auto r = run_kbt(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.output;
    return args;
  }
  return "";
}

}  // namespace

// Smoke test of every example config: compiles, and its first admissible combo
// evaluates to finite values after warm-up on the shipped sample data, or on
// the data its header says how to make.
TEST(LangExampleConfigs, EveryStrategyCompilesAndEvaluates) {
  const std::filesystem::path dir = std::filesystem::path(KBT_SOURCE_DIR) / "configs";
  const std::filesystem::path scratch = std::filesystem::temp_directory_path() / ("kbt_example_data_" + std::to_string(getpid()));
  std::filesystem::create_directories(scratch);
  int checked = 0, labelling = 0, simulating = 0, generated = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    SCOPED_TRACE(entry.path().string());
    const RunConfig cfg = load_job_config(entry.path().string());
    std::string data_path = cfg.data_path;
    if (!std::filesystem::exists(data_path)) {
      data_path = (scratch / std::filesystem::path(cfg.data_path).filename()).string();
      ASSERT_FALSE(make_data_from_header(entry.path(), data_path).empty())
          << cfg.data_path << " is not shipped and the config's header does not say how to make it";
      ++generated;
    }
    const BarData data = load_bars_hdf5(data_path, cfg.symbols);
    if (cfg.job == Job::label) {  // a labelling job: its expressions label events of every setting
      const LabelJobResult r = run_label_job(cfg, data, "reference");
      for (const auto events : r.events) EXPECT_GT(events, 0u);
      ++labelling;
      continue;
    }
    if (cfg.job == Job::simulate) {  // an action-driven simulation: every trial trades
      const SimulateJobResult r = run_simulate_job(cfg, data, "reference");
      ASSERT_GT(r.trials.n_trials, 0u);
      for (std::size_t t = 0; t < r.trials.n_trials; ++t)
        EXPECT_GT(r.trials.metrics[t * n_metrics + static_cast<int>(Metric::n_trades)], 0) << "trial " << t;
      ++simulating;
      continue;
    }
    const Program p = compile_strategy(cfg.strategy, schema_of(data));
    const ParamGrid grid(cfg.strategy.params);
    const auto ids = filter_combos(grid, [&](const double* v) { return constraints_hold(p, v); });
    std::vector<double> values(grid.n_params());
    grid.combo_values(ids.back(), values.data());
    const StrategyOutputs out = evaluate_strategy_reference(p, data, values.data());
    const std::vector<double>& v = out.form == StrategyOutputs::Form::position ? out.target : out.long_entry;
    ASSERT_EQ(v.size(), data.n_symbols() * data.n_bars());
    std::size_t finite = 0;
    for (double x : v) finite += std::isfinite(x) ? 1 : 0;
    EXPECT_GT(finite, v.size() / 2);
    ++checked;
  }
  EXPECT_GE(checked, 9);
  EXPECT_GE(labelling, 2);
  EXPECT_GE(simulating, 1);
  EXPECT_GE(generated, 1);  // the universe example's data, made from its header
  std::filesystem::remove_all(scratch);
}

// The worked examples of docs/language.md §12: every ```yaml block there is a
// complete config that loads, compiles, and whose first admissible combo
// trades on the bundled sample data.
TEST(LangDocExamples, EveryWorkedExampleRunsAndTrades) {
  std::ifstream in(std::string(KBT_SOURCE_DIR) + "/docs/language.md");
  std::stringstream text;
  text << in.rdbuf();
  const std::string doc = text.str();
  const auto begin = doc.find("## 12. Worked examples");
  ASSERT_NE(begin, std::string::npos);
  const auto end = doc.find("\n## ", begin + 1);
  const std::string section = doc.substr(begin, end - begin);
  int checked = 0;
  for (auto at = section.find("```yaml\n"); at != std::string::npos; at = section.find("```yaml\n", at + 1)) {
    const auto body = at + 8, close = section.find("```", body);
    ASSERT_NE(close, std::string::npos);
    const std::string yaml = section.substr(body, close - body);
    SCOPED_TRACE(yaml);
    const RunConfig cfg = parse_run_config(yaml, "docs/language.md", KBT_SOURCE_DIR);
    const BarData data = load_bars_hdf5(cfg.data_path, cfg.symbols);
    const Program p = compile_strategy(cfg.strategy, schema_of(data));
    const ParamGrid grid(cfg.strategy.params);
    const auto ids = filter_combos(grid, [&](const double* v) { return constraints_hold(p, v); });
    ASSERT_FALSE(ids.empty());
    std::vector<double> values(grid.n_params());
    grid.combo_values(ids.front(), values.data());
    std::map<std::string, double> params;
    for (std::size_t k = 0; k < grid.n_params(); ++k) params[cfg.strategy.params[k].name] = values[k];
    const SimulationResult r = run_backtest(cfg, data, params);
    EXPECT_GT(r.metrics[static_cast<int>(Metric::n_trades)], 0);
    EXPECT_TRUE(std::isfinite(r.metrics[static_cast<int>(Metric::final_equity)]));
    ++checked;
  }
  EXPECT_EQ(checked, 7);
}
