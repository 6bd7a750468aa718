// Run-config loading: every key, expression positions, defaults, paths.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

kbt::RunConfig parse(const std::string& yaml, const std::string& base_dir = "") {
  return kbt::parse_run_config(yaml, "cfg.yaml", base_dir);
}

// Every key of docs/config.md, with non-default values wherever there is a choice.
const char* full_config = R"(data: data/sample.h5
symbols: [AAA, BBB]
strategy:
  params:
    fast: {range: [5, 100, 1]}
    slow: {range: [20, 400, 5]}
    k:    {values: [1.0, 1.5, 2.0]}
    w: {linspace: [0, 1, 5]}
    q: {logspace: [0.001, 0.1, 3]}
    c: 7
  constraints: ["fast < slow", 'k > 1']
  scans:
    kf:
      inputs: {z: close}
      init:   {x: z, p: 1.0}
      update:
        p_pred: p + q
        k: p_pred / (p_pred + r)
        x: x + k * (z - x)
        p: (1 - k) * p_pred
      outputs: {level: x, gain: k}
  signals:
    s: sma(close, slow)
    f: sma(close, fast)
    dev: close - kf.level
  position: where(f > s, 1, -1)
simulation:
  initial_capital: 25000
  fill: next_open
  fee_bps: {binance: 7.5, okx: 8}
  slippage_bps: 2
  borrow_rate: 0.03
  stop_loss: 0.05
  take_profit: 0.1
  trailing_stop: 0.02
  sltp_priority: target_first
  max_gross_leverage: 2
  weighting: equal
  score_start: 2021-06-01T12:00:00Z
  periods_per_year: 8760
sweep:
  device: serial
  precision: fp32
  objective: {metric: sortino, direction: min, min_trades: 10}
  top_k: 50
  memory_budget_mb: 512
  max_combos: 1e9
verify: {top_n: 300, threads: 4, score_start: 100, score_end: 2022-01-01}
output: {path: out/run.h5, csv: false, heatmap: [fast, slow]}
)";

}  // namespace

TEST(ConfigLoader, EveryKeyIsParsed) {
  const auto c = parse(full_config);
  EXPECT_EQ(c.source_path, "cfg.yaml");
  EXPECT_EQ(c.source_yaml, full_config);
  EXPECT_EQ(c.data_path, "data/sample.h5");
  EXPECT_EQ(c.data_origin.line, 1);
  EXPECT_EQ(c.data_origin.column, 7);
  EXPECT_EQ(c.symbols, (std::vector<std::string>{"AAA", "BBB"}));

  const auto& st = c.strategy;
  ASSERT_EQ(st.params.size(), 6u);
  const char* names[] = {"fast", "slow", "k", "w", "q", "c"};
  for (int i = 0; i < 6; ++i) EXPECT_EQ(st.params[i].name, names[i]);
  EXPECT_EQ(st.params[0].kind, kbt::ParamSpec::Kind::range);
  EXPECT_EQ(st.params[0].values.size(), 96u);
  EXPECT_EQ(st.params[0].values.front(), 5);
  EXPECT_EQ(st.params[0].values.back(), 100);
  EXPECT_TRUE(st.params[0].is_integer);
  EXPECT_EQ(st.params[0].origin.line, 5);
  EXPECT_EQ(st.params[0].origin.column, 5);
  EXPECT_EQ(st.params[1].values.size(), 77u);  // (400-20)/5 + 1
  EXPECT_EQ(st.params[2].kind, kbt::ParamSpec::Kind::values);
  EXPECT_EQ(st.params[2].values, (std::vector<double>{1.0, 1.5, 2.0}));
  EXPECT_FALSE(st.params[2].is_integer);
  EXPECT_EQ(st.params[3].kind, kbt::ParamSpec::Kind::linspace);
  EXPECT_EQ(st.params[3].values, (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(st.params[4].kind, kbt::ParamSpec::Kind::logspace);
  EXPECT_EQ(st.params[4].values.size(), 3u);
  EXPECT_EQ(st.params[4].values.front(), 0.001);
  EXPECT_EQ(st.params[4].values.back(), 0.1);
  EXPECT_EQ(st.params[5].values, (std::vector<double>{7}));
  EXPECT_TRUE(st.params[5].is_integer);

  ASSERT_EQ(st.constraints.size(), 2u);
  EXPECT_EQ(st.constraints[0].text, "fast < slow");
  EXPECT_EQ(st.constraints[1].text, "k > 1");
  ASSERT_EQ(st.scans.size(), 1u);
  const auto& kf = st.scans[0];
  EXPECT_EQ(kf.name, "kf");
  ASSERT_EQ(kf.inputs.size(), 1u);
  EXPECT_EQ(kf.inputs[0].first, "z");
  EXPECT_EQ(kf.inputs[0].second.text, "close");
  ASSERT_EQ(kf.init.size(), 2u);
  EXPECT_EQ(kf.init[1].first, "p");
  EXPECT_EQ(kf.init[1].second.text, "1.0");
  ASSERT_EQ(kf.update.size(), 4u);
  const char* update_order[] = {"p_pred", "k", "x", "p"};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(kf.update[i].first, update_order[i]);
  EXPECT_EQ(kf.update[3].second.text, "(1 - k) * p_pred");
  ASSERT_EQ(kf.outputs.size(), 2u);
  EXPECT_EQ(kf.outputs[0].first, "level");
  EXPECT_EQ(kf.outputs[1].first, "gain");
  // Written order, not alphabetical: s before f.
  ASSERT_EQ(st.signals.size(), 3u);
  EXPECT_EQ(st.signals[0].first, "s");
  EXPECT_EQ(st.signals[1].first, "f");
  EXPECT_EQ(st.signals[2].first, "dev");
  EXPECT_EQ(st.signals[2].second.text, "close - kf.level");
  ASSERT_TRUE(st.position.has_value());
  EXPECT_EQ(st.position->text, "where(f > s, 1, -1)");
  EXPECT_FALSE(st.long_entry.has_value());

  const auto& s = c.simulation;
  EXPECT_EQ(s.initial_capital, 25000);
  EXPECT_EQ(s.fill, kbt::SimulationSettings::Fill::next_open);
  EXPECT_EQ(s.fee_bps_by_venue.size(), 2u);
  EXPECT_EQ(s.fee_bps_by_venue.at("binance"), 7.5);
  EXPECT_EQ(s.fee_bps_by_venue.at("okx"), 8);
  EXPECT_EQ(s.slippage_bps, 2);
  EXPECT_EQ(s.borrow_rate, 0.03);
  EXPECT_EQ(s.stop_loss, 0.05);
  EXPECT_EQ(s.take_profit, 0.1);
  EXPECT_EQ(s.trailing_stop, 0.02);
  EXPECT_EQ(s.sltp_priority, kbt::SimulationSettings::SltpPriority::target_first);
  EXPECT_EQ(s.max_gross_leverage, 2);
  EXPECT_EQ(s.weighting, kbt::SimulationSettings::Weighting::equal);
  EXPECT_FALSE(s.score_start_bar.has_value());
  // 2021-06-01 is day 18779 since 1970-01-01 (51 years incl. 13 leap days = 18628,
  // plus 151 days of January..May 2021); +12h.
  EXPECT_EQ(s.score_start_time_ns, (18779LL * 86400 + 12 * 3600) * 1000000000LL);
  EXPECT_EQ(s.periods_per_year, 8760);

  const auto& w = c.sweep;
  EXPECT_EQ(w.device, "serial");
  EXPECT_EQ(w.precision, "fp32");
  EXPECT_EQ(w.objective.metric, "sortino");
  EXPECT_FALSE(w.objective.maximize);
  EXPECT_EQ(w.objective.min_trades, 10);
  EXPECT_EQ(w.top_k, 50);
  EXPECT_EQ(w.memory_budget_mb, 512);
  EXPECT_EQ(w.max_combos, 1000000000u);

  const auto& v = c.verify;
  EXPECT_EQ(v.top_n, 300);
  EXPECT_EQ(v.threads, 4);
  EXPECT_EQ(v.score_start_bar, 100);
  EXPECT_FALSE(v.score_start_time_ns.has_value());
  EXPECT_EQ(v.score_end_time_ns, 18993LL * 86400 * 1000000000LL);  // 2022-01-01 = 18628+365
  EXPECT_EQ(c.output.path, "out/run.h5");
  EXPECT_FALSE(c.output.csv);
  EXPECT_EQ(c.output.heatmap, (std::vector<std::string>{"fast", "slow"}));
}

// An objective without a direction takes its metric's natural one
// (docs/metrics.md "Natural direction"); a written direction wins.
TEST(ConfigLoader, ObjectiveDirectionDefaultsToTheMetricsNaturalOne) {
  const std::string head = "data: d.h5\nstrategy:\n  position: 1\nsweep:\n  objective: ";
  struct Case {
    const char* objective;
    bool maximize;
  };
  for (const Case c : {Case{"ulcer_index", false}, Case{"{metric: ulcer_index}", false},
                       Case{"{metric: ulcer_index, direction: max}", true}, Case{"max_drawdown_duration", false},
                       Case{"ann_volatility", false}, Case{"fees_paid", false}, Case{"max_drawdown", true},
                       Case{"{metric: sharpe, min_trades: 3}", true}, Case{"{metric: sharpe, direction: min}", false},
                       Case{"{min_trades: 3}", true}}) {
    const auto cfg = parse(head + c.objective + "\n");
    EXPECT_EQ(cfg.sweep.objective.maximize, c.maximize) << c.objective;
  }
}

TEST(ConfigLoader, DefaultsOfAMinimalConfig) {
  const auto c = parse("data: d.h5\nstrategy:\n  position: 1\n");
  EXPECT_TRUE(c.symbols.empty());
  EXPECT_TRUE(c.strategy.params.empty());
  EXPECT_EQ(c.simulation.initial_capital, 10000);
  EXPECT_EQ(c.simulation.fill, kbt::SimulationSettings::Fill::close);
  EXPECT_EQ(c.simulation.fee_bps, 0);
  EXPECT_TRUE(c.simulation.fee_bps_by_venue.empty());
  EXPECT_FALSE(c.simulation.stop_loss.has_value());
  EXPECT_EQ(c.simulation.sltp_priority, kbt::SimulationSettings::SltpPriority::stop_first);
  EXPECT_EQ(c.simulation.max_gross_leverage, 1);
  EXPECT_EQ(c.simulation.weighting, kbt::SimulationSettings::Weighting::raw);
  EXPECT_FALSE(c.simulation.periods_per_year.has_value());
  EXPECT_EQ(c.sweep.device, "auto");
  EXPECT_EQ(c.sweep.precision, "fp64");
  EXPECT_EQ(c.sweep.objective.metric, "sharpe");
  EXPECT_TRUE(c.sweep.objective.maximize);
  EXPECT_EQ(c.sweep.top_k, 1000);
  EXPECT_EQ(c.sweep.max_combos, 100000000u);
  EXPECT_FALSE(c.sweep.memory_budget_mb.has_value());
  EXPECT_FALSE(c.verify.top_n.has_value());  // auto
  EXPECT_EQ(c.verify.threads, 0);
  EXPECT_EQ(c.output.path, "results/run.h5");
  EXPECT_TRUE(c.output.csv);
  EXPECT_TRUE(c.output.heatmap.empty());
}

TEST(ConfigLoader, NumberFeeAndShorthands) {
  const auto c = parse(
      "data: d.h5\nstrategy:\n  params:\n    a: [3, 1, 2]\n  constraints: a > 1\n  long_entry: x > 1\n"
      "  long_exit: x < 1\nsimulation: {fee_bps: 4.5, stop_loss: null}\nsweep: {objective: calmar}\n");
  EXPECT_EQ(c.strategy.params[0].values, (std::vector<double>{3, 1, 2}));  // written order kept
  ASSERT_EQ(c.strategy.constraints.size(), 1u);
  EXPECT_EQ(c.strategy.constraints[0].text, "a > 1");
  EXPECT_EQ(c.strategy.long_entry->text, "x > 1");
  EXPECT_EQ(c.strategy.long_exit->text, "x < 1");
  EXPECT_FALSE(c.strategy.position.has_value());
  EXPECT_EQ(c.simulation.fee_bps, 4.5);
  EXPECT_FALSE(c.simulation.stop_loss.has_value());
  EXPECT_EQ(c.sweep.objective.metric, "calmar");
}

TEST(ConfigLoader, ExpressionPositionsPointAtTheFirstCharacter) {
  // Columns are 1-based; quotes and block headers are not part of the text.
  const std::string yaml =
      "data: d.h5\n"                          // 1
      "strategy:\n"                           // 2
      "  signals:\n"                          // 3
      "    a: sma(close, 3)\n"                // 4: 'a' value at col 8
      "    b: \"close - 1\"\n"                // 5: after the quote, col 9
      "    c: 'close'\n"                      // 6: col 9
      "    d: |\n"                            // 7
      "\n"                                    // 8: blank line skipped
      "      where(a > b,\n"                  // 9: col 7
      "            1, 0)\n"                   // 10
      "    e: >-\n"                           // 11
      "        close\n"                       // 12: col 9
      "    f: &anchor close * 2\n"            // 13: after the anchor, col 16
      "  constraints: [\"a < b\", c > 1]\n"   // 14: col 18 and col 26
      "  position:   d\n";                    // 15: col 15
  const auto c = parse(yaml);
  const auto& sig = c.strategy.signals;
  ASSERT_EQ(sig.size(), 6u);
  auto at = [](const kbt::SourceText& t, int line, int col) {
    EXPECT_EQ(t.file, "cfg.yaml");
    EXPECT_EQ(t.line, line) << t.text;
    EXPECT_EQ(t.column, col) << t.text;
  };
  at(sig[0].second, 4, 8);
  at(sig[1].second, 5, 9);
  EXPECT_EQ(sig[1].second.text, "close - 1");
  at(sig[2].second, 6, 9);
  at(sig[3].second, 9, 7);
  EXPECT_EQ(sig[3].second.text, "where(a > b,\n      1, 0)");
  at(sig[4].second, 12, 9);
  EXPECT_EQ(sig[4].second.text, "close");
  at(sig[5].second, 13, 16);
  EXPECT_EQ(sig[5].second.text, "close * 2");
  at(c.strategy.constraints[0], 14, 18);
  at(c.strategy.constraints[1], 14, 26);
  at(*c.strategy.position, 15, 15);
  EXPECT_EQ(c.strategy.position->where(), "cfg.yaml:15:15");
}

TEST(ConfigLoader, RelativeDataPathResolvesAgainstTheConfigDirectory) {
  EXPECT_EQ(parse("data: ../data/x.h5\nstrategy: {position: 1}\n", "configs").data_path, "data/x.h5");
  EXPECT_EQ(parse("data: x.h5\nstrategy: {position: 1}\n", "/srv/cfg").data_path, "/srv/cfg/x.h5");
  EXPECT_EQ(parse("data: /abs/x.h5\nstrategy: {position: 1}\n", "/srv/cfg").data_path, "/abs/x.h5");
  EXPECT_EQ(parse("data: x.h5\nstrategy: {position: 1}\n", "").data_path, "x.h5");
}

TEST(ConfigLoader, LoadFromFileUsesItsDirectory) {
  const auto dir = std::filesystem::temp_directory_path() / ("kbt_cfg_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "configs");
  const auto path = (dir / "configs" / "x.yaml").string();
  std::ofstream(path) << "data: ../data/sample.h5\nstrategy:\n  position: 1\n";
  const auto c = kbt::load_run_config(path);
  EXPECT_EQ(c.data_path, (dir / "data" / "sample.h5").string());
  EXPECT_EQ(c.source_path, path);
  EXPECT_EQ(c.strategy.position->file, path);
  std::filesystem::remove_all(dir);
  try {
    kbt::load_run_config(path);
    FAIL() << "missing file must be an error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::io);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos);
  }
}

TEST(ConfigLoader, ScoringWindowPoints) {
  // Timestamps follow the ISO-8601 rules of the data files (kbt::parse_iso8601_ns);
  // a plain integer is a bar index.
  auto start = [](const std::string& v) {
    return parse("data: d.h5\nstrategy: {position: 1}\nsimulation: {score_start: " + v + "}\n").simulation;
  };
  const std::int64_t s = 1000000000;
  EXPECT_EQ(start("1970-01-02T00:00:01Z").score_start_time_ns, (86400 + 1) * s);
  EXPECT_EQ(start("'1970-01-01 01:00:00.5+01:00'").score_start_time_ns, s / 2);
  // 2000-03-01: 30 years (7 leap days 1972..1996) = 10957 days, +31 Jan +29 Feb (leap).
  EXPECT_EQ(start("2000-03-01").score_start_time_ns, (10957LL + 31 + 29) * 86400 * s);
  EXPECT_FALSE(start("2000-03-01").score_start_bar.has_value());
  EXPECT_EQ(start("250").score_start_bar, 250);
  EXPECT_FALSE(start("250").score_start_time_ns.has_value());
  EXPECT_FALSE(start("null").score_start_bar.has_value());
  for (const char* bad : {"2021-02-29", "2021-13-01", "-1", "2.5", "yesterday", "[1]"})
    EXPECT_THROW(start(bad), kbt::Error) << bad;
}

TEST(ConfigLoader, KeyOriginsPointAtTheWrittenValues) {
  const auto c = parse("data: d.h5\nstrategy: {position: 1}\nsimulation:\n  fee_bps: {okx: 8}\n  fill:   close\n"
                       "sweep: {objective: {metric: calmar}}\n");
  EXPECT_EQ(c.where("data"), "cfg.yaml:1:7");
  EXPECT_EQ(c.where("simulation.fee_bps"), "cfg.yaml:4:12");
  EXPECT_EQ(c.where("simulation.fill"), "cfg.yaml:5:11");
  EXPECT_EQ(c.key_origins.at("simulation.fill").text, "close");
  EXPECT_EQ(c.where("sweep.objective.metric"), "cfg.yaml:6:29");
  EXPECT_EQ(c.where("simulation.stop_loss"), "cfg.yaml");  // not written
}
