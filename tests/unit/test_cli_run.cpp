// End-to-end `kbt run` / `kbt backtest` on the bundled sample data (and on a CSV file).

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/results.hpp>
#include <kbt/validation/validation.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <unistd.h>
#include <vector>

#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

// Scratch folders of this process, removed when the test binary exits.
struct ScratchDirs {
  std::vector<fs::path> dirs;
  ~ScratchDirs() {
    std::error_code ec;
    for (const auto& d : dirs) fs::remove_all(d, ec);
  }
};

fs::path scratch(const std::string& name) {
  static ScratchDirs made;
  // Per process: ctest runs the .threads1/.threads2 copies of a test at once.
  const auto dir = fs::temp_directory_path() / ("kbt_cli_run_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  made.dirs.push_back(dir);
  return dir;
}

std::string config(const std::string& name) { return std::string(KBT_SOURCE_DIR) + "/configs/" + name; }

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

}  // namespace

TEST(CliRun, ResultsAreIndependentOfThreadCount) {
  const auto dir = scratch("threads");
  const auto one = (dir / "one.h5").string(), two = (dir / "two.h5").string();
  auto r1 = kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device reference --threads 1 --quiet --no-verify --out " + one);
  ASSERT_EQ(r1.exit_code, 0) << r1.output;
  auto r2 = kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device reference --threads 2 --quiet --no-verify --out " + two);
  ASSERT_EQ(r2.exit_code, 0) << r2.output;
  const auto ra = kbt::read_results_hdf5(one).results, rb = kbt::read_results_hdf5(two).results;
  const auto a = kbt::read_all_rows(*ra.rows), b = kbt::read_all_rows(*rb.rows);
  ASSERT_EQ(a.combo_ids, b.combo_ids);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  for (std::size_t i = 0; i < a.metrics.size(); ++i) EXPECT_TRUE(same_bits(a.metrics[i], b.metrics[i])) << i;
  EXPECT_EQ(ra.top_k_rows().rows, rb.top_k_rows().rows);
  // fast < slow removed 16 of the 10 x 19 combos.
  EXPECT_EQ(ra.n_rows(), 174u);
  EXPECT_TRUE(fs::exists(dir / "one_topk.csv"));
}

TEST(CliRun, SampledRowsEqualTheSameCombosOfTheFullRun) {
  const auto dir = scratch("sample");
  const auto full = (dir / "full.h5").string(), part = (dir / "part.h5").string();
  ASSERT_EQ(kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device reference --quiet --no-verify --out " + full).exit_code, 0);
  auto r = kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device reference --quiet --no-verify --sample 17 --seed 5 --out " + part);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto ra = kbt::read_results_hdf5(full).results, rb = kbt::read_results_hdf5(part).results;
  const auto a = kbt::read_all_rows(*ra.rows), b = kbt::read_all_rows(*rb.rows);
  ASSERT_EQ(b.size(), 17u);
  for (std::size_t i = 0; i < b.size(); ++i) {
    const auto it = std::find(a.combo_ids.begin(), a.combo_ids.end(), b.combo_ids[i]);
    ASSERT_NE(it, a.combo_ids.end());
    const std::size_t row = static_cast<std::size_t>(it - a.combo_ids.begin());
    for (std::size_t m = 0; m < kbt::n_metrics; ++m)
      EXPECT_TRUE(same_bits(a.metrics[row * kbt::n_metrics + m], b.metrics[i * kbt::n_metrics + m]));
  }
}

TEST(CliRun, BacktestReproducesTheSweepRowOfItsCombo) {
  const auto dir = scratch("backtest");
  const auto out = (dir / "r.h5").string();
  ASSERT_EQ(kbt::test::run_kbt("run " + config("breakout_sltp.yaml") + " --device reference --quiet --no-verify --out " + out).exit_code, 0);
  const auto res = kbt::read_results_hdf5(out).results.top_k_rows();
  ASSERT_GT(res.size(), 0u);
  const std::size_t best = 0;
  const std::string params = "n=" + std::to_string(static_cast<int>(res.params[best * 2])) +
                             ",m=" + std::to_string(static_cast<int>(res.params[best * 2 + 1]));
  const auto trades = (dir / "trades.csv").string();
  const auto bt = kbt::test::run_kbt("backtest " + config("breakout_sltp.yaml") + " --params " + params + " --trades " + trades);
  ASSERT_EQ(bt.exit_code, 0) << bt.output;
  char expected[64];
  std::snprintf(expected, sizeof expected, "n_trades               %.10g",
                res.metrics[best * kbt::n_metrics + static_cast<int>(kbt::Metric::n_trades)]);
  EXPECT_NE(bt.output.find(expected), std::string::npos) << bt.output;
  // One ledger line per trade plus the header.
  std::ifstream f(trades);
  std::size_t lines = 0;
  for (std::string line; std::getline(f, line);) ++lines;
  EXPECT_EQ(lines, 1 + static_cast<std::size_t>(res.metrics[best * kbt::n_metrics + static_cast<int>(kbt::Metric::n_trades)]));
}

TEST(CliRun, DisabledDeviceIsRefusedWithTheEnabledList) {
  const auto dir = scratch("device");
  const auto out = dir / "r.h5";
  const auto r = kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device cuda --out " + out.string());
#ifndef KOKKOS_ENABLE_CUDA
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("[unsupported]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("enabled: reference"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
#endif
}

TEST(CliRun, LanguageErrorLeavesNoResultsFile) {
  const auto dir = scratch("langerr");
  const auto cfg = dir / "bad.yaml";
  std::ofstream(cfg) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\n"
                     << "strategy:\n  params:\n    fast: {range: [5, 10, 5]}\n"
                     << "  signals:\n    f: sma(clsoe, fast)\n  position: where(f > close, 1, 0)\n";
  const auto out = dir / "r.h5";
  const auto r = kbt::test::run_kbt("run " + cfg.string() + " --device reference --out " + out.string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("[language]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("bad.yaml:6"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("did you mean 'close'"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().extension(), ".yaml") << e.path();
}

TEST(CliRun, DataThatCrashesLibhdf5IsADataFormatErrorAndLeavesNoResultsFile) {
  // libhdf5 1.10 dies with SIGSEGV inside H5Lexists on this fuzzer-made file;
  // kbt reads data in a child process and reports the file as corrupt.
  const auto dir = scratch("libhdf5crash");
  const std::string data = std::string(KBT_TEST_DIR) + "/bad_input/data/libhdf5_crash_corrupt_heap_read.h5";
  const auto cfg = dir / "crash.yaml";
  std::ofstream(cfg) << "data: " << data << "\n"
                     << "strategy:\n  params:\n    fast: {range: [5, 10, 5]}\n"
                     << "  signals:\n    f: sma(close, fast)\n  position: where(f > close, 1, 0)\n";
  const auto out = dir / "r.h5";
  const auto r = kbt::test::run_kbt("run " + cfg.string() + " --out " + out.string());
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("[data_format]"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find(data + ": "), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
  for (const auto& e : fs::directory_iterator(dir)) EXPECT_EQ(e.path().extension(), ".yaml") << e.path();
}

TEST(CliRun, KernelRunProfileHasEveryPhaseAndTheMemoryHighWaterMarks) {
  // The run profile of issue 6: phases of a kernel device (upload, kernel,
  // top-K on the device, download), the kernel's memory and the host's peak RSS,
  // stored in the results file.
  const auto dir = scratch("profile");
  const auto out = (dir / "p.h5").string();
  auto r = kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device serial --quiet --no-verify --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto loaded = kbt::read_results_hdf5(out);
  auto number = [&](const std::string& key) {
    for (const auto& [k, v] : loaded.profile.numbers)
      if (k == key) return v;
    ADD_FAILURE() << "profile has no " << key;
    return -1.0;
  };
  for (const char* key : {"seconds_load", "seconds_compile", "seconds_hoist", "seconds_upload", "seconds_kernel",
                          "seconds_topk_device", "seconds_download", "seconds_sweep"})
    EXPECT_GE(number(key), 0.0) << key;
  EXPECT_GT(number("seconds_kernel"), 0.0);
  // At least the bars' close of 20,000 bars and the metrics of 174 combos.
  EXPECT_GE(number("kernel_memory_bytes"), 20000.0 * 8 + 174.0 * kbt::n_metrics * 8);
  EXPECT_GT(number("host_peak_rss_bytes"), number("kernel_memory_bytes"));
  EXPECT_EQ(loaded.profile_text("topk_selected_on"), "serial");
  EXPECT_EQ(loaded.profile_text("device"), "serial");
}

// The sweep's metric set (docs/metrics.md "Metric sets"): /metrics holds the
// set for every row (listed by the group attribute `computed`), /topk all 21;
// ranking by a metric outside the set is refused with the setting that adds it.
TEST(CliRun, RowsHoldTheMetricSetAndTheTopKEveryMetric) {
  const auto dir = scratch("metric_set");
  const auto out = (dir / "r.h5").string();
  auto r = kbt::test::run_kbt("run " + config("sma_cross.yaml") + " --device reference --quiet --no-verify --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const std::string attr = kbt::test::run_command("h5dump -a /metrics/computed " + out).output;
  EXPECT_NE(attr.find("\"total_return,cagr,ann_volatility,sharpe,sortino,n_trades,final_equity\""), std::string::npos)
      << attr;
  const auto loaded = kbt::read_results_hdf5(out);
  EXPECT_FALSE(kbt::has_metric(loaded.results.rows->metric_mask(), int(kbt::Metric::max_drawdown)));
  const kbt::RowTable top = loaded.results.top_k_rows();
  ASSERT_GT(top.size(), 0u);
  for (std::size_t i = 0; i < top.size(); ++i) EXPECT_FALSE(std::isnan(top.metrics_of(i)[int(kbt::Metric::max_drawdown)]));
  r = kbt::test::run_kbt("show " + out + " --sort max_drawdown");
  EXPECT_EQ(r.exit_code, 1) << r.output;
  EXPECT_NE(r.output.find("error [config]: --sort: 'max_drawdown' was not computed for every combo of this run"),
            std::string::npos)
      << r.output;
  EXPECT_NE(r.output.find("add it to sweep.metrics"), std::string::npos) << r.output;
  // Sorted by a computed metric, the table's other columns outside the set say
  // so, rather than printing nan as if the value were undefined.
  r = kbt::test::run_kbt("show " + out + " --sort sortino --rows 3");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(r.output.find("nan"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("n/c: not computed by this run (max_drawdown, win_rate): the run's sweep.metrics left them out"),
            std::string::npos)
      << r.output;
  // Asked for: every row has it.
  const auto yaml = dir / "with_dd.yaml";
  {
    std::ifstream in(config("sma_cross.yaml"));
    std::ofstream o(yaml);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("data:", 0) == 0) line = std::string("data: ") + KBT_SOURCE_DIR + "/data/sample.h5";
      if (line.rfind("sweep:", 0) == 0) line += "\n  metrics: [max_drawdown]";
      o << line << "\n";
    }
  }
  const auto out2 = (dir / "r2.h5").string();
  r = kbt::test::run_kbt("run " + yaml.string() + " --device reference --quiet --no-verify --out " + out2);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  r = kbt::test::run_kbt("show " + out2 + " --sort max_drawdown --top 3");
  EXPECT_EQ(r.exit_code, 0) << r.output;
  EXPECT_TRUE(kbt::has_metric(kbt::read_results_hdf5(out2).results.rows->metric_mask(), int(kbt::Metric::calmar)));
}

// validation: (docs/validation.md): kbt run writes /validation and prints its
// summary; kbt show prints it again from the file.
TEST(CliRun, TheValidationStageIsWrittenAndShown) {
  const auto dir = scratch("validation");
  const auto yaml = dir / "v.yaml";
  {
    std::ifstream in(config("sma_cross.yaml"));
    std::ofstream o(yaml);
    for (std::string line; std::getline(in, line);) {
      if (line.rfind("data:", 0) == 0) line = std::string("data: ") + KBT_SOURCE_DIR + "/data/sample.h5";
      if (line.rfind("output:", 0) == 0) continue;
      o << line << "\n";
    }
    o << "validation: {holdout: 0.3, top_k: 12, period: day, pbo_blocks: 8}\n";
  }
  const auto out = (dir / "v.h5").string();
  const auto r = kbt::test::run_kbt("run " + yaml.string() + " --device reference --quiet --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("validation: 12 candidates by sharpe, returns per day"), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("PBO: "), std::string::npos) << r.output;
  EXPECT_NE(r.output.find("over 70 splits of 8 blocks"), std::string::npos) << r.output;
  const auto loaded = kbt::read_results_hdf5(out);
  ASSERT_TRUE(loaded.validation);
  EXPECT_EQ(loaded.validation->n(), 12u);
  ASSERT_TRUE(loaded.validation->test.has_value());
  EXPECT_EQ(loaded.validation->test->begin, 14000u);  // 30 % of 20,000 bars held out
  const std::string dump = kbt::test::run_command("h5dump -H -d /validation/period_returns " + out).output;
  EXPECT_NE(dump.find("DATASPACE  SIMPLE { ( 584, 12 ) / ( 584, 12 ) }"), std::string::npos) << dump;
  const auto shown = kbt::test::run_kbt("show " + out + " --top 3");
  EXPECT_NE(shown.output.find("in sample vs held out: Spearman"), std::string::npos) << shown.output;
}

// A stop and the fee swept as grid axes through the real binary: the kernel
// run verifies every combo bit for bit against the reference engine (a
// mismatch fails the run), rows differ by their stop, and `kbt backtest` of a
// combo reproduces its row with the same params.
TEST(CliRun, SweptStopAndFeeRunVerifyAndBacktest) {
  const auto dir = scratch("swept");
  const auto cfg = (dir / "swept.yaml").string();
  std::ofstream(cfg) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\nsymbols: [AAA]\nstrategy:\n  params:\n"
                        "    fast: {values: [5, 10]}\n    slow: {values: [40, 80]}\n"
                        "    sl: {values: [0.01, 0.03]}\n    fee: {values: [1, 10]}\n"
                        "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                        "simulation: {fee_bps: fee, stop_loss: sl}\n"
                        "sweep: {objective: {metric: sharpe, direction: max}}\nverify: {top_n: 16}\n";
  const auto out = (dir / "r.h5").string();
  const auto run = kbt::test::run_kbt("run " + cfg + " --device serial --quiet --out " + out);
  ASSERT_EQ(run.exit_code, 0) << run.output;
  EXPECT_NE(run.output.find("mismatches: 0 of 16"), std::string::npos) << run.output;
  const auto rows = kbt::read_all_rows(*kbt::read_results_hdf5(out).results.rows);
  ASSERT_EQ(rows.size(), 16u);
  // Combos that differ only by the stop have different metrics.
  const auto sharpe = [&](std::size_t i) { return rows.metrics[i * kbt::n_metrics + int(kbt::Metric::sharpe)]; };
  std::size_t stop_matters = 0;
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows.size(); ++j) {
      const double* a = rows.params_of(i);
      const double* b = rows.params_of(j);
      if (a[0] == b[0] && a[1] == b[1] && a[3] == b[3] && a[2] < b[2] && sharpe(i) != sharpe(j)) ++stop_matters;
    }
  EXPECT_GT(stop_matters, 0u);
  const double* p = rows.params_of(5);
  char params[128];
  std::snprintf(params, sizeof params, "fast=%g,slow=%g,sl=%g,fee=%g", p[0], p[1], p[2], p[3]);
  const auto bt = kbt::test::run_kbt("backtest " + cfg + " --params " + params);
  ASSERT_EQ(bt.exit_code, 0) << bt.output;
  char expected[64];
  std::snprintf(expected, sizeof expected, "n_trades               %.10g",
                rows.metrics[5 * kbt::n_metrics + int(kbt::Metric::n_trades)]);
  EXPECT_NE(bt.output.find(expected), std::string::npos) << bt.output;
  const auto check = kbt::test::run_kbt("check " + cfg);
  EXPECT_NE(check.output.find("fee_bps fee (param)"), std::string::npos) << check.output;
  EXPECT_NE(check.output.find("stop_loss sl (param)"), std::string::npos) << check.output;
}

// The top-K CSV writes the shortest text that reads back as the same double:
// "0.1", not "0.10000000000000001", and every number equals /topk's by bits.
TEST(CliRun, TopKCsvNumbersAreShortestRoundTrip) {
  const auto dir = scratch("csv");
  const auto cfg = (dir / "c.yaml").string();
  std::ofstream(cfg) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\nsymbols: [AAA]\nstrategy:\n  params:\n"
                        "    n: {values: [10, 30]}\n    k: {values: [0.1, 0.3]}\n"
                        "  position: where(close > sma(close, n) * (1 + k / 100), 1, -1)\n"
                        "sweep: {top_k: 4}\n";
  const auto out = (dir / "r.h5").string();
  ASSERT_EQ(kbt::test::run_kbt("run " + cfg + " --device reference --quiet --no-verify --out " + out).exit_code, 0);
  const auto top = kbt::read_results_hdf5(out).results.top_k_rows();
  ASSERT_EQ(top.size(), 4u);
  std::ifstream csv(dir / "r_topk.csv");
  std::string line;
  ASSERT_TRUE(std::getline(csv, line));
  std::size_t rows = 0;
  bool saw_tenth = false;
  while (std::getline(csv, line)) {
    std::vector<std::string> cells;
    std::stringstream in(line);
    for (std::string cell; std::getline(in, cell, ',');) cells.push_back(cell);
    ASSERT_EQ(cells.size(), 2 + 2 + kbt::n_metrics) << line;
    saw_tenth = saw_tenth || cells[3] == "0.1";
    for (std::size_t c = 2; c < cells.size(); ++c) {
      const double want = c < 4 ? top.params_of(rows)[c - 2] : top.metrics_of(rows)[c - 4];
      if (std::isnan(want)) {
        EXPECT_EQ(cells[c], "nan");
        continue;
      }
      const double got = std::strtod(cells[c].c_str(), nullptr);
      EXPECT_TRUE(same_bits(got, want)) << "column " << c << ": " << cells[c];
      // No text with one significant digit fewer reads back as the same double.
      const std::string mantissa = cells[c].substr(0, cells[c].find_first_of("eE"));
      std::string digits;
      for (const char ch : mantissa)
        if (ch >= '0' && ch <= '9') digits += ch;
      digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));
      digits.erase(digits.find_last_not_of('0') + 1);  // significant digits only
      if (digits.size() > 1) {
        char shorter[40];
        std::snprintf(shorter, sizeof shorter, "%.*g", int(digits.size()) - 1, want);
        EXPECT_FALSE(same_bits(std::strtod(shorter, nullptr), want)) << cells[c] << " is not the shortest: " << shorter;
      }
    }
    ++rows;
  }
  EXPECT_EQ(rows, 4u);
  EXPECT_TRUE(saw_tenth) << "the param 0.1 written as 0.1";
}

// A walk-forward that the data cannot hold is refused by `kbt check --data`
// and by `kbt run` before the sweep: no checkpoint is left that would block
// the corrected config (before, the error came after the sweep).
TEST(CliRun, AWalkForwardWithoutAWholeFoldFailsBeforeTheSweep) {
  const auto dir = scratch("walk_forward_early");
  const auto cfg = (dir / "wf.yaml").string(), out = (dir / "wf.h5").string();
  std::ofstream(cfg) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\nsymbols: [AAA]\n"
                     << "strategy:\n  params:\n    fast: {values: [5, 10]}\n    slow: {values: [40]}\n"
                        "  position: where(sma(close, fast) > sma(close, slow), 1, -1)\n"
                        "sweep: {device: reference}\nverify: {top_n: 0}\n"
                        "validation: {walk_forward: {train: 5y, test: 1y}}\noutput: {path: "
                     << out << "}\n";
  const auto check = kbt::test::run_kbt("check " + cfg + " --data");
  EXPECT_EQ(check.exit_code, 1) << check.output;
  EXPECT_NE(check.output.find("validation.walk_forward.train: the scoring window"), std::string::npos) << check.output;
  const auto run = kbt::test::run_kbt("run " + cfg + " --quiet");
  EXPECT_EQ(run.exit_code, 1) << run.output;
  EXPECT_NE(run.output.find("holds no whole fold"), std::string::npos) << run.output;
  EXPECT_FALSE(fs::exists(out + ".partial.h5"));
  EXPECT_FALSE(fs::exists(out));
}

// docs/config.md `data`: a CSV file is imported on the fly, in every command
// that takes a config and in `kbt eval --data`, and gives what `kbt data
// import` of the same file gives (the rows of a sweep by bits, the same
// backtest and eval output). A symbol the file does not hold is refused.
TEST(CliRun, ACsvDataFileIsImportedOnTheFlyByEveryCommand) {
  const auto dir = scratch("csv_data");
  {
    std::ofstream csv(dir / "AAA.csv");
    csv << "timestamp,open,high,low,close,volume\n";
    double price = 100;
    for (int i = 0; i < 600; ++i) {  // a deterministic walk with swings for the SMAs to cross
      const double next = price * (1 + 0.01 * std::sin(i * 0.07) + 0.002 * std::cos(i * 1.3));
      char line[200];
      std::snprintf(line, sizeof line, "2024-01-%02dT%02d:00:00Z,%.6f,%.6f,%.6f,%.6f,%d\n", 1 + i / 24, i % 24, price,
                    std::max(price, next) * 1.001, std::min(price, next) * 0.999, next, 1000 + i);
      csv << line;
      price = next;
    }
  }
  const auto imported = kbt::test::run_kbt("data import --out " + (dir / "AAA.h5").string() + " " + (dir / "AAA.csv").string());
  ASSERT_EQ(imported.exit_code, 0) << imported.output;
  const std::string strategy =
      "symbols: [AAA]\nstrategy:\n  params: {fast: {range: [3, 9, 3]}, slow: {range: [10, 40, 10]}}\n"
      "  signals:\n    f: sma(close, fast)\n    s: sma(close, slow)\n  position: where(f > s, 1, -1)\n"
      "simulation: {initial_capital: 10000, fill: close, fee_bps: 5}\n";
  for (const char* name : {"csv", "h5"}) {
    std::ofstream(dir / (std::string(name) + ".yaml")) << "data: AAA." << name << "\n" << strategy;
  }
  const std::string csv_cfg = (dir / "csv.yaml").string(), h5_cfg = (dir / "h5.yaml").string();

  const auto check = kbt::test::run_kbt("check " + csv_cfg + " --data");
  ASSERT_EQ(check.exit_code, 0) << check.output;
  const auto from_csv = kbt::test::run_kbt("run " + csv_cfg + " --device reference --quiet --no-verify --out " + (dir / "csv.h5").string());
  ASSERT_EQ(from_csv.exit_code, 0) << from_csv.output;
  const auto from_h5 = kbt::test::run_kbt("run " + h5_cfg + " --device reference --quiet --no-verify --out " + (dir / "h5.h5").string());
  ASSERT_EQ(from_h5.exit_code, 0) << from_h5.output;
  const auto a = kbt::read_all_rows(*kbt::read_results_hdf5((dir / "csv.h5").string()).results.rows);
  const auto b = kbt::read_all_rows(*kbt::read_results_hdf5((dir / "h5.h5").string()).results.rows);
  ASSERT_EQ(a.combo_ids.size(), 12u);
  ASSERT_EQ(a.combo_ids, b.combo_ids);
  ASSERT_EQ(a.metrics.size(), b.metrics.size());
  int traded = 0;
  for (std::size_t i = 0; i < a.metrics.size(); ++i) EXPECT_TRUE(same_bits(a.metrics[i], b.metrics[i])) << i;
  for (std::size_t r = 0; r < a.combo_ids.size(); ++r)
    traded += a.metrics[r * kbt::n_metrics + static_cast<std::size_t>(kbt::Metric::n_trades)] > 0;
  EXPECT_GT(traded, 0) << "no combo traded: the comparison would be vacuous";

  for (const std::string& args : {std::string("backtest {} --params fast=3,slow=20"), std::string("eval {} --expr 'f - s' --params fast=3,slow=20 --symbol AAA")}) {
    const auto with = [&](const std::string& cfg) { return kbt::test::run_kbt(args.substr(0, args.find("{}")) + cfg + args.substr(args.find("{}") + 2)); };
    const auto c = with(csv_cfg), h = with(h5_cfg);
    ASSERT_EQ(c.exit_code, 0) << args << "\n" << c.output;
    ASSERT_EQ(h.exit_code, 0) << args << "\n" << h.output;
    const auto strip = [&](std::string s) {  // the file names differ, nothing else
      for (const std::string& p : {dir.string() + "/csv.yaml", dir.string() + "/h5.yaml", dir.string() + "/AAA.csv", dir.string() + "/AAA.h5"})
        for (std::size_t at; (at = s.find(p)) != std::string::npos;) s.replace(at, p.size(), "F");
      return s;
    };
    EXPECT_EQ(strip(c.output), strip(h.output)) << args;
  }
  const auto eval_data = kbt::test::run_kbt("eval --data " + (dir / "AAA.csv").string() + " --expr 'sma(close, 5)'");
  EXPECT_EQ(eval_data.exit_code, 0) << eval_data.output;

  std::ofstream(dir / "other.yaml") << "data: AAA.csv\n" << std::regex_replace(strategy, std::regex("\\[AAA\\]"), "[BBB]");
  const auto other = kbt::test::run_kbt("run " + (dir / "other.yaml").string() + " --quiet --no-verify --out " + (dir / "o.h5").string());
  EXPECT_NE(other.exit_code, 0);
  EXPECT_NE(other.output.find("symbol 'BBB' is not in"), std::string::npos) << other.output;
  EXPECT_NE(other.output.find("symbols"), std::string::npos) << other.output;
  EXPECT_FALSE(fs::exists(dir / "o.h5"));
}
