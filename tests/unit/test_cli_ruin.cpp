// Ruin through the kbt binary (docs/semantics.md "Ruin"): a sweep whose
// levered combos lose everything exits 0, counts them in its summary and
// warns; their rows hold the documented, finite metrics; `kbt backtest` says
// where a combo was ruined and its ledger closes the trade with reason `ruin`.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/results.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <unistd.h>

#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

struct Scratch {
  fs::path dir;
  Scratch() : dir(fs::temp_directory_path() / ("kbt_cli_ruin_" + std::to_string(::getpid()))) {
    fs::remove_all(dir);
    fs::create_directories(dir);
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
};

// The sample data's AAA: the SMA cross at 1x and at 1000x (the cap, 1e6, far above).
std::string write_config(const fs::path& dir) {
  const fs::path cfg = dir / "levered.yaml";
  std::ofstream(cfg) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\nsymbols: [AAA]\n"
                     << "strategy:\n  params:\n    fast: {values: [5, 10]}\n    slow: {values: [20, 50]}\n"
                     << "    lev: {values: [1, 1000]}\n  signals:\n    f: sma(close, fast)\n    s: sma(close, slow)\n"
                     << "  position: where(f > s, lev, -lev)\n"
                     << "simulation:\n  initial_capital: 10000\n  fee_bps: 5\n  max_gross_leverage: 1e6\n"
                     << "sweep:\n  objective: {metric: sharpe}\n  metrics: all\n";
  return cfg.string();
}

double at(const kbt::RowTable& rows, std::size_t i, kbt::Metric m) {
  return rows.metrics[i * kbt::n_metrics + static_cast<std::size_t>(m)];
}

}  // namespace

TEST(CliRuin, RunCountsAndWarnsAboutRuinedCombosOnEveryDevice) {
  const Scratch s;
  const std::string cfg = write_config(s.dir);
  for (const std::string device : {"reference", "serial"}) {
    SCOPED_TRACE(device);
    const std::string out = (s.dir / (device + ".h5")).string();
    const auto r = kbt::test::run_kbt("run " + cfg + " --device " + device + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    // The 4 combos at 1000x are ruined, those at 1x not (combo ids: lev varies fastest).
    EXPECT_NE(r.output.find("4 of 8 combos ruined (equity reached 0): combos 1, 3, 5, 7\n"), std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("kbt: warning: 4 of 8 combos were ruined (equity reached 0 at a close: combos 1, 3, 5, 7)"),
              std::string::npos)
        << r.output;
    EXPECT_NE(r.output.find("mismatches: 0 of 8"), std::string::npos) << r.output;  // the verification agrees

    const auto res = kbt::read_results_hdf5(out).results;
    const auto rows = kbt::read_all_rows(*res.rows);
    ASSERT_EQ(rows.size(), 8u);
    for (std::size_t i = 0; i < rows.size(); ++i) {
      SCOPED_TRACE("combo " + std::to_string(rows.combo_ids[i]));
      const bool levered = rows.params[i * 3 + 2] == 1000;
      for (std::size_t m = 0; m < kbt::n_metrics; ++m) {
        const auto metric = static_cast<kbt::Metric>(m);
        if (metric == kbt::Metric::profit_factor || metric == kbt::Metric::win_rate) continue;  // NaN without a loss/trade
        EXPECT_TRUE(std::isfinite(rows.metrics[i * kbt::n_metrics + m])) << kbt::metric_names()[m];
      }
      if (!levered) {
        EXPECT_GT(at(rows, i, kbt::Metric::final_equity), 0.0);
        continue;
      }
      EXPECT_EQ(at(rows, i, kbt::Metric::final_equity), 0.0);
      EXPECT_EQ(at(rows, i, kbt::Metric::total_return), -1.0);
      EXPECT_EQ(at(rows, i, kbt::Metric::cagr), -1.0);
      EXPECT_EQ(at(rows, i, kbt::Metric::max_drawdown), -1.0);
      EXPECT_GE(at(rows, i, kbt::Metric::n_trades), 1.0);
    }
  }
}

TEST(CliRuin, BacktestSaysWhereTheComboWasRuined) {
  const Scratch s;
  const std::string cfg = write_config(s.dir);
  const std::string trades = (s.dir / "trades.csv").string(), equity = (s.dir / "equity.csv").string();
  const auto r = kbt::test::run_kbt("backtest " + cfg + " --params fast=5,slow=20,lev=1000 --trades " + trades +
                                    " --equity " + equity);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  std::smatch m;
  ASSERT_TRUE(std::regex_search(r.output, m,
                                std::regex("ruined at (\\d{4}-\\d\\d-\\d\\dT[0-9:]+Z) \\(bar (\\d+)\\): equity (-[0-9.e+]+) "
                                           "at the close, floored to 0")))
      << r.output;
  const std::string bar = m[2];
  EXPECT_NE(r.output.find("final_equity           0\n"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("total_return           -1\n"), std::string::npos) << r.output;
  // The ledger's last trade ends at the ruin bar, closed by it.
  std::ifstream f(trades);
  std::string line, last;
  while (std::getline(f, line)) last = line;
  EXPECT_NE(last.find("," + bar + ","), std::string::npos) << last;
  EXPECT_EQ(last.substr(last.rfind(',') + 1), "ruin") << last;
  // The equity curve is 0 from the ruin bar on, never negative.
  std::ifstream e(equity);
  std::getline(e, line);
  bool zero = false;
  std::size_t rows = 0;
  while (std::getline(e, line)) {
    const std::size_t c1 = line.find(','), c2 = line.find(',', c1 + 1), c3 = line.find(',', c2 + 1);
    const std::size_t b = std::stoul(line.substr(c1 + 1, c2 - c1 - 1));
    const double v = std::stod(line.substr(c2 + 1, c3 - c2 - 1));
    EXPECT_GE(v, 0.0) << line;
    if (b >= std::stoul(bar)) EXPECT_EQ(v, 0.0) << line;
    zero = zero || v == 0.0;
    ++rows;
  }
  EXPECT_TRUE(zero);
  EXPECT_GT(rows, std::stoul(bar) + 1);
}
