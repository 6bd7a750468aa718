// `kbt backtest`: its statistics, --equity and --trades files and --combo,
// checked through the real binary against what this test computes itself from
// the bundled data and the files (docs/cli.md "kbt backtest").

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/data/data_io.hpp>
#include <kbt/output/results.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <cmath>
#include <cstring>
#include <cstdio>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/scratch_dir.hpp"

namespace {

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_backtest") {}
};

const std::string kSample = std::string(KBT_SOURCE_DIR) + "/data/sample.h5";
constexpr double kCapital = 10000;

std::string write_config(const Scratch& s) {
  const std::string path = s / "c.yaml";
  std::ofstream(path) << "data: " << kSample << "\nsymbols: [AAA]\n"
                      << "strategy:\n  params:\n    fast: {values: [10, 20]}\n    slow: {values: [40, 80]}\n"
                         "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                         "simulation: {initial_capital: 10000, fee_bps: 5, fill: close}\n"
                         "sweep: {device: reference, objective: sharpe, top_k: 4}\nverify: {top_n: 0}\n"
                         "output: {path: "
                      << (s / "r.h5") << "}\n";
  return path;
}

std::vector<std::map<std::string, std::string>> read_csv(const std::string& path) {
  std::ifstream f(path);
  std::string line;
  std::getline(f, line);
  std::vector<std::string> header;
  std::stringstream hs(line);
  for (std::string c; std::getline(hs, c, ',');) header.push_back(c);
  std::vector<std::map<std::string, std::string>> rows;
  while (std::getline(f, line)) {
    std::stringstream ls(line);
    std::map<std::string, std::string> row;
    std::size_t i = 0;
    for (std::string c; std::getline(ls, c, ',');) row[header.at(i++)] = c;
    rows.push_back(row);
  }
  return rows;
}

// The value printed after `label` in the statistics table.
std::string stat(const std::string& output, const std::string& label) {
  const std::size_t at = output.find("  " + label + " ");
  if (at == std::string::npos) return "(missing " + label + ")";
  std::size_t b = output.find_first_not_of(' ', at + 2 + label.size());
  return output.substr(b, output.find('\n', b) - b);
}

std::string fixed(double v, const char* format) {
  char buf[64];
  std::snprintf(buf, sizeof buf, format, v);
  return buf;
}

TEST(CliBacktest, StatisticsAndFilesAgreeWithTheirDefinitions) {
  const Scratch s;
  const std::string cfg = write_config(s);
  const std::string eq = s / "eq.csv", tr = s / "tr.csv";
  const auto r = kbt::test::run_kbt("backtest " + cfg + " --params fast=20,slow=40 --equity " + eq + " --trades " + tr);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const kbt::BarData bars = kbt::load_bars_hdf5(kSample, {"AAA"});
  const std::vector<double>& close = bars.columns.at("close");
  const auto rows = read_csv(eq);
  ASSERT_EQ(rows.size(), bars.n_bars());

  // Per bar: cash + units * close is the equity, buy-and-hold is the capital in
  // the first close, and the drawdown is against the running peak from the capital.
  double peak = kCapital;
  std::size_t runs = 0, longest = 0, length = 0;
  double depth_sum = 0, depth = 0;
  for (std::size_t t = 0; t < rows.size(); ++t) {
    const double equity = std::stod(rows[t].at("equity")), cash = std::stod(rows[t].at("cash"));
    const double units = std::stod(rows[t].at("units_AAA"));
    EXPECT_NEAR(cash + units * close[t], equity, 1e-9 * std::abs(equity)) << "bar " << t;
    EXPECT_NEAR(std::stod(rows[t].at("buy_and_hold")), kCapital * close[t] / close[0], 1e-9 * kCapital) << t;
    peak = std::max(peak, equity);
    EXPECT_DOUBLE_EQ(std::stod(rows[t].at("drawdown")), equity / peak - 1) << t;
    if (equity < peak) {
      if (length == 0) ++runs, depth = 0;
      ++length;
      depth = std::min(depth, equity / peak - 1);
      longest = std::max(longest, length);
    } else if (length > 0) {
      depth_sum += depth, length = 0;
    }
  }
  if (length > 0) depth_sum += depth;
  ASSERT_GT(runs, 5u);
  EXPECT_EQ(stat(r.output, "Drawdowns"), std::to_string(runs));
  EXPECT_EQ(stat(r.output, "Avg. drawdown"), fixed(100 * depth_sum / runs, "%.2f %%"));
  EXPECT_NE(stat(r.output, "Max. drawdown duration").find("(" + std::to_string(longest) + " bars)"), std::string::npos);
  EXPECT_EQ(stat(r.output, "Buy & hold return"), fixed(100 * (close.back() / close[0] - 1), "%.2f %%"));
  EXPECT_EQ(stat(r.output, "Duration"),
            std::to_string((bars.timestamps.back() - bars.timestamps.front()) / 86400000000000LL) + " days " +
                fixed(static_cast<double>((bars.timestamps.back() - bars.timestamps.front()) / 1000000000LL % 86400 / 3600),
                      "%02.0f") + ":00:00 (" + std::to_string(bars.n_bars()) + " bars)");

  // Per trade: expectancy is the mean PnL, SQN sqrt(n) * mean / stdev.
  const auto trades = read_csv(tr);
  ASSERT_GT(trades.size(), 10u);
  double sum = 0;
  for (const auto& t : trades) sum += std::stod(t.at("pnl"));
  const double mean = sum / trades.size();
  double ss = 0;
  for (const auto& t : trades) ss += (std::stod(t.at("pnl")) - mean) * (std::stod(t.at("pnl")) - mean);
  EXPECT_EQ(stat(r.output, "Expectancy (per trade)"), fixed(mean, "%.2f"));
  EXPECT_EQ(stat(r.output, "SQN"), fixed(std::sqrt(double(trades.size())) * mean / std::sqrt(ss / (trades.size() - 1)), "%.4f"));
  EXPECT_EQ(stat(r.output, "Trades"), std::to_string(trades.size()));
}

TEST(CliBacktest, ComboOfAResultsFileOrAConfigIsThatRow) {
  const Scratch s;
  const std::string cfg = write_config(s);
  ASSERT_EQ(kbt::test::run_kbt("run " + cfg + " --quiet").exit_code, 0);
  const auto loaded = kbt::read_results_hdf5(s / "r.h5");
  const auto top = loaded.results.top_k_rows();
  ASSERT_EQ(top.size(), 4u);
  const std::uint64_t id = top.combo_ids[1];
  const std::string params = "fast=" + fixed(top.params[2], "%.0f") + ",slow=" + fixed(top.params[3], "%.0f");
  const auto by_params = kbt::test::run_kbt("backtest " + cfg + " --params " + params);
  const auto by_row = kbt::test::run_kbt("backtest " + (s / "r.h5") + " --combo " + std::to_string(id));
  const auto by_grid = kbt::test::run_kbt("backtest " + cfg + " --combo " + std::to_string(id));
  ASSERT_EQ(by_params.exit_code, 0) << by_params.output;
  ASSERT_EQ(by_row.exit_code, 0) << by_row.output;
  ASSERT_EQ(by_grid.exit_code, 0) << by_grid.output;
  // Past the title line (which names the source); any runtime notices before it are left out too.
  const auto body = [](const std::string& out) {
    const std::size_t at = out.find("\n  Start ");
    return at == std::string::npos ? out : out.substr(at);
  };
  EXPECT_EQ(body(by_row.output), body(by_params.output));
  EXPECT_EQ(body(by_grid.output), body(by_params.output));
  EXPECT_NE(by_row.output.find("combo " + std::to_string(id)), std::string::npos);
  // Its sharpe is the sweep's, to the printed digits.
  EXPECT_NE(by_row.output.find("sharpe                 " + fixed(top.metrics[kbt::n_metrics + 3], "%.10g")),
            std::string::npos)
      << by_row.output;

  struct Bad {
    std::string args, message;
  };
  for (const Bad& b : {Bad{"backtest " + cfg, "give the combo as --params"},
                       Bad{"backtest " + cfg + " --combo 1 --params fast=1", "--params excludes --combo"},
                       Bad{"backtest " + (s / "r.h5") + " --params fast=10,slow=40", "is a results file"},
                       Bad{"backtest " + cfg + " --combo 4", "--combo 4: the grid has only 4 combos"}}) {
    const auto r = kbt::test::run_kbt(b.args);
    EXPECT_NE(r.exit_code, 0) << b.args;
    EXPECT_NE(r.output.find(b.message), std::string::npos) << b.args << "\n" << r.output;
  }
}

// A run with validation scores its rows on the sweep's window (the train
// window with a holdout): `kbt backtest RESULTS --combo N` and run_backtest
// give the stored row bit for bit (before, backtest scored every bar: Sharpe
// 0.9519 against the stored 0.9296 on a holdout run).
TEST(CliBacktest, ComboOfARunWithValidationIsItsStoredRowBitForBit) {
  const Scratch s;
  for (const std::string validation : {"{holdout: 0.3}", "{walk_forward: {train: 4000, test: 2000}}"}) {
    SCOPED_TRACE(validation);
    const std::string cfg = s / "v.yaml", out = s / "v.h5";
    std::ofstream(cfg) << "data: " << kSample << "\nsymbols: [AAA]\n"
                       << "strategy:\n  params:\n    fast: {values: [5, 10, 20]}\n    slow: {values: [40, 80]}\n"
                          "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                          "simulation: {initial_capital: 10000, fee_bps: 5, fill: close}\n"
                          "sweep: {device: reference, objective: sharpe, top_k: 6, metrics: all}\n"
                          "verify: {top_n: 0}\nvalidation: "
                       << validation << "\noutput: {path: " << out << "}\n";
    const auto run = kbt::test::run_kbt("run " + cfg + " --quiet");
    ASSERT_EQ(run.exit_code, 0) << run.output;
    const auto loaded = kbt::read_results_hdf5(out);
    const kbt::RowTable top = loaded.results.top_k_rows();
    ASSERT_EQ(top.size(), 6u);
    const kbt::RunConfig config = kbt::load_run_config(cfg);
    const kbt::BarData bars = kbt::load_run_data(config);
    const std::size_t sharpe = static_cast<std::size_t>(kbt::Metric::sharpe);
    for (std::size_t i = 0; i < top.size(); ++i) {
      const kbt::SimulationResult r =
          kbt::run_backtest(config, bars, {{"fast", top.params_of(i)[0]}, {"slow", top.params_of(i)[1]}});
      for (std::size_t m = 0; m < kbt::n_metrics; ++m) {
        const double stored = top.metrics_of(i)[m], again = r.metrics[m];
        EXPECT_TRUE(std::memcmp(&stored, &again, sizeof stored) == 0)
            << "combo " << top.combo_ids[i] << " " << kbt::metric_names()[m] << ": " << again << " vs " << stored;
      }
    }
    const auto shown = kbt::test::run_kbt("backtest " + out + " --combo " + std::to_string(top.combo_ids[0]));
    ASSERT_EQ(shown.exit_code, 0) << shown.output;
    EXPECT_NE(shown.output.find("sharpe                 " + fixed(top.metrics_of(0)[sharpe], "%.10g")),
              std::string::npos)
        << shown.output;
  }
}

TEST(CliBacktest, PlotDrawsAPng) {
  if (kbt::test::run_command("command -v gnuplot").exit_code != 0) GTEST_SKIP() << "gnuplot is not installed";
  const Scratch s;
  const std::string cfg = write_config(s);
  const std::string png = s / "p.png";
  const auto r = kbt::test::run_kbt("backtest " + cfg + " --params fast=10,slow=80 --plot " + png);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::ifstream f(png, std::ios::binary);
  char head[8] = {};
  f.read(head, 8);
  EXPECT_EQ(std::string(head + 1, 3), "PNG");
}

}  // namespace
