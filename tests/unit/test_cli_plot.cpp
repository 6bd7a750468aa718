// `kbt plot` (heatmap, equity curve), `output.heatmap` of `kbt run`, and the
// heatmap cells computed by hand on a small made-up grid.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/core/error.hpp>
#include <kbt/output/results.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <unistd.h>
#include <fstream>

#include "plot/plots.hpp"
#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

// A PNG: the 8-byte signature, then the IHDR chunk with width and height.
struct PngInfo {
  bool valid = false;
  std::uintmax_t size = 0;
  unsigned width = 0, height = 0;
};

PngInfo png_info(const fs::path& path) {
  PngInfo info;
  std::ifstream f(path, std::ios::binary);
  unsigned char b[24] = {};
  if (!f.read(reinterpret_cast<char*>(b), sizeof b)) return info;
  const unsigned char signature[8] = {0x89, 'P', 'N', 'G', '\r', '\n', 0x1a, '\n'};
  info.valid = std::equal(signature, signature + 8, b) && std::string(reinterpret_cast<char*>(b + 12), 4) == "IHDR";
  info.width = (b[16] << 24) | (b[17] << 16) | (b[18] << 8) | b[19];
  info.height = (b[20] << 24) | (b[21] << 16) | (b[22] << 8) | b[23];
  info.size = fs::file_size(path);
  return info;
}

class CliPlot : public ::testing::Test {
 protected:
  // Per process: ctest runs every test in its own process, in parallel.
  static fs::path dir() { return fs::temp_directory_path() / ("kbt_cli_plot_" + std::to_string(::getpid())); }
  static void TearDownTestSuite() { fs::remove_all(dir()); }
  static std::string results() { return (dir() / "sma.h5").string(); }
  static std::string& run_output() {
    static std::string out;
    return out;
  }
  static void SetUpTestSuite() {
    fs::remove_all(dir());
    fs::create_directories(dir());
    // A 5 x 5 SMA crossover (2 combos constrained out) with output.heatmap.
    const auto yaml = dir() / "small.yaml";
    std::ofstream(yaml) << "data: " << KBT_SOURCE_DIR << "/data/sample.h5\n"
                        << "symbols: [AAA]\n"
                           "strategy:\n"
                           "  params: {fast: {range: [5, 25, 5]}, slow: {range: [20, 60, 10]}}\n"
                           "  constraints: ['fast < slow']\n"
                           "  signals: {f: 'sma(close, fast)', s: 'sma(close, slow)'}\n"
                           "  position: where(f > s, 1, -1)\n"
                           "sweep: {device: reference, objective: {metric: sharpe, direction: max, min_trades: 10}}\n"
                           "output: {heatmap: [fast, slow]}\n";
    const auto r = kbt::test::run_kbt("run " + yaml.string() + " --no-verify --quiet --out " + results());
    run_output() = r.output;
    ASSERT_EQ(r.exit_code, 0) << r.output;
  }
};

}  // namespace

TEST_F(CliPlot, RunDrawsTheConfiguredHeatmap) {
  const auto png = dir() / "sma_heatmap.png";
  ASSERT_EQ(kbt::read_results_hdf5(results()).results.n_rows(), 23u);
  EXPECT_NE(run_output().find("heatmap: " + png.string()), std::string::npos) << run_output();
  const auto info = png_info(png);
  EXPECT_TRUE(info.valid);
  EXPECT_GT(info.size, 10000u);
  EXPECT_EQ(info.width, 1000u);
  EXPECT_EQ(info.height, 760u);
}

TEST_F(CliPlot, HeatmapForEachAggregation) {
  for (const std::string agg : {"best", "max", "median"}) {
    const auto png = dir() / ("heat_" + agg + ".png");
    const auto r = kbt::test::run_kbt("plot " + results() + " --x slow --y fast --metric sortino --agg " + agg +
                                      " --out " + png.string());
    ASSERT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("(5 x 5 cells)"), std::string::npos) << r.output;
    const auto info = png_info(png);
    EXPECT_TRUE(info.valid) << agg;
    EXPECT_GT(info.size, 10000u) << agg;
  }
}

TEST_F(CliPlot, EquityCurveOfOneCombo) {
  const auto loaded = kbt::read_results_hdf5(results());
  ASSERT_GT(loaded.results.top_k, 0u);
  const auto best = loaded.results.best.combo_ids.at(0);
  const auto png = dir() / "equity.png";
  const auto r = kbt::test::run_kbt("plot " + results() + " --combo " + std::to_string(best) + " --out " + png.string());
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("bars [0, 20000)"), std::string::npos) << r.output;
  const auto info = png_info(png);
  EXPECT_TRUE(info.valid);
  EXPECT_GT(info.size, 10000u);
  // A combo that constraints removed from the sweep (fast 25 >= slow 20: id 4*5 + 0)
  // is taken from the grid... and refused by the constraints.
  const auto refused = kbt::test::run_kbt("plot " + results() + " --combo 20 --out " + (dir() / "no.png").string());
  EXPECT_NE(refused.exit_code, 0);
  EXPECT_NE(refused.output.find("violate the strategy's constraints"), std::string::npos) << refused.output;
  const auto past = kbt::test::run_kbt("plot " + results() + " --combo 25 --out " + (dir() / "no.png").string());
  EXPECT_NE(past.exit_code, 0);
  EXPECT_NE(past.output.find("the grid has only 25 combos"), std::string::npos) << past.output;
  EXPECT_FALSE(fs::exists(dir() / "no.png"));
}

TEST_F(CliPlot, UnknownParamsAndMetricsAreClearErrors) {
  const auto out = (dir() / "bad.png").string();
  auto r = kbt::test::run_kbt("plot " + results() + " --x fsat --y slow --out " + out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown parameter 'fsat'; did you mean 'fast'?"), std::string::npos) << r.output;
  r = kbt::test::run_kbt("plot " + results() + " --x fast --y slow --metric sharpee --out " + out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown metric 'sharpee'; did you mean 'sharpe'?"), std::string::npos) << r.output;
  r = kbt::test::run_kbt("plot " + results() + " --x fast --y fast --out " + out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("give two parameters"), std::string::npos) << r.output;
  r = kbt::test::run_kbt("plot " + results() + " --x fast --y slow --agg mean --out " + out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("unknown aggregation 'mean'"), std::string::npos) << r.output;
  r = kbt::test::run_kbt("plot " + results() + " --out " + out);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.output.find("needs --x and --y"), std::string::npos) << r.output;
  EXPECT_FALSE(fs::exists(out));
}

TEST_F(CliPlot, MissingGnuplotIsUnsupported) {
  const auto out = (dir() / "nognuplot.png").string();
  const std::string cmd = std::string("env PATH=/nonexistent ") + KBT_CLI_PATH + " plot " + results() +
                          " --x fast --y slow --out " + out + " 2>&1";
  std::string output;
  FILE* pipe = ::popen(cmd.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  char buf[1024];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, pipe)) > 0) output.append(buf, n);
  const int status = ::pclose(pipe);
  EXPECT_NE(status, 0);
  EXPECT_NE(output.find("error [unsupported]"), std::string::npos) << output;
  EXPECT_NE(output.find("gnuplot is not on PATH"), std::string::npos) << output;
  EXPECT_FALSE(fs::exists(out));
}

namespace {

// params a in {1, 2}, b in {10, 20, 30}, c in {0, 1}; metric sharpe = a + b/10 + c
// except where made NaN; combo (a=2, b=30, c=0) is absent (as if constrained out).
// The results with row `best` as the best combo (none when negative).
kbt::SweepResults with_best(kbt::SweepResults r, int best) {
  r.best = best < 0 ? kbt::RowTable{} : kbt::read_rows(*r.rows, {static_cast<std::uint64_t>(best)});
  r.top_k = r.best.size();
  return r;
}

kbt::SweepResults made_up_grid() {
  kbt::SweepResults r;
  r.param_names = {"a", "b", "c"};
  r.objective_metric = "sharpe";
  std::vector<std::uint64_t> ids;
  std::vector<double> params, metrics;
  std::uint64_t id = 0;
  for (double a : {1.0, 2.0})
    for (double b : {10.0, 20.0, 30.0})
      for (double c : {0.0, 1.0}) {
        ++id;
        if (a == 2 && b == 30 && c == 0) continue;
        ids.push_back(id);
        params.insert(params.end(), {a, b, c});
        std::vector<double> m(kbt::n_metrics, 0.0);
        m[int(kbt::Metric::sharpe)] = (a == 1 && b == 20 && c == 1) ? NAN : a + b / 10 + c;
        m[int(kbt::Metric::n_trades)] = b / 10 + c;  // 1..4 trades
        metrics.insert(metrics.end(), m.begin(), m.end());
      }
  r.rows = std::make_shared<kbt::MemoryRows>(r.param_names, ids, params, metrics);
  return with_best(r, 2);  // row 2: a=1, b=20, c=0 is "the best"
}

}  // namespace

TEST(HeatmapGrid, BestFixesTheOtherParamsAtTheBestCombo) {
  const auto r = made_up_grid();
  const auto g = kbt::heatmap_grid(r, {"a", "b", "sharpe", "best"});
  ASSERT_EQ(g.xs, (std::vector<double>{1, 2}));
  ASSERT_EQ(g.ys, (std::vector<double>{10, 20, 30}));
  // c = 0: z[b][a] = a + b/10; (a=2, b=30) absent.
  EXPECT_DOUBLE_EQ(g.z[0 * 2 + 0], 2.0);
  EXPECT_DOUBLE_EQ(g.z[0 * 2 + 1], 3.0);
  EXPECT_DOUBLE_EQ(g.z[1 * 2 + 0], 3.0);
  EXPECT_DOUBLE_EQ(g.z[2 * 2 + 0], 4.0);
  EXPECT_TRUE(std::isnan(g.z[2 * 2 + 1]));
  EXPECT_EQ(g.best_ix, 0u);
  EXPECT_EQ(g.best_iy, 1u);
  EXPECT_EQ(g.fixed, "c=0");
  EXPECT_EQ(g.best_combo, 3u);
  EXPECT_DOUBLE_EQ(g.best_value, 3.0);
}

TEST(HeatmapGrid, MaxAndMedianOverTheOtherParams) {
  const auto r = made_up_grid();
  const auto mx = kbt::heatmap_grid(r, {"a", "b", "sharpe", "max"});
  EXPECT_DOUBLE_EQ(mx.z[0 * 2 + 0], 3.0);  // max(2, 3)
  EXPECT_DOUBLE_EQ(mx.z[1 * 2 + 0], 3.0);  // c=1 is NaN: only 3
  EXPECT_DOUBLE_EQ(mx.z[2 * 2 + 1], 6.0);  // only c=1 present
  const auto first_best = with_best(r, 0);  // a=1, b=10, c=0: sharpe 2, in a cell whose max is 3
  const auto annotated = kbt::heatmap_grid(first_best, {"a", "b", "sharpe", "max"});
  EXPECT_DOUBLE_EQ(annotated.z[0], 3.0);
  EXPECT_DOUBLE_EQ(annotated.best_value, 2.0);  // the best combo's own value, not the cell's
  const auto md = kbt::heatmap_grid(r, {"a", "b", "sharpe", "median"});
  EXPECT_DOUBLE_EQ(md.z[0 * 2 + 0], 2.5);
  EXPECT_DOUBLE_EQ(md.z[0 * 2 + 1], 3.5);
  EXPECT_DOUBLE_EQ(md.z[2 * 2 + 1], 6.0);
  const auto defaults = kbt::heatmap_grid(r, {"b", "c", "", "best"});
  EXPECT_EQ(defaults.metric, "sharpe");  // the objective
  EXPECT_EQ(defaults.fixed, "a=1");
}

// Combos that are not eligible (fewer than min_trades trades, or a NaN
// objective) give no value: a cell with only such combos is excluded (grey),
// not coloured like an eligible one.
TEST(HeatmapGrid, CellsWithoutAnEligibleComboAreExcluded) {
  const auto r = made_up_grid();
  kbt::HeatmapRequest request{"a", "b", "sharpe", "max"};
  request.min_trades = 3;  // n_trades = b/10 + c: b=10 never, b=20 only with c=1, b=30 always
  const auto mx = kbt::heatmap_grid(r, request);
  ASSERT_EQ(mx.excluded.size(), 6u);
  EXPECT_EQ(mx.excluded, (std::vector<std::uint8_t>{1, 1, 1, 0, 0, 0}));
  EXPECT_TRUE(std::isnan(mx.z[0 * 2 + 0]) && std::isnan(mx.z[0 * 2 + 1]));
  EXPECT_TRUE(std::isnan(mx.z[1 * 2 + 0]));      // (a=1, b=20): c=1 is eligible but its sharpe is NaN
  EXPECT_EQ(mx.excluded[1 * 2 + 0], 1u);         // ... so no eligible combo: a NaN objective is not eligible
  EXPECT_DOUBLE_EQ(mx.z[1 * 2 + 1], 5.0);        // (a=2, b=20): only c=1 (3 trades), not c=0 (4.0)
  EXPECT_DOUBLE_EQ(mx.z[2 * 2 + 0], 5.0);        // (a=1, b=30): max(4, 5)
  EXPECT_DOUBLE_EQ(mx.z[2 * 2 + 1], 6.0);
  // Under best (c = 0), b=20 has 2 trades: excluded; (a=2, b=30) has no combo: blank, not excluded.
  request.agg = "best";
  const auto best = kbt::heatmap_grid(r, request);
  EXPECT_EQ(best.excluded, (std::vector<std::uint8_t>{1, 1, 1, 1, 0, 0}));
  EXPECT_DOUBLE_EQ(best.z[2 * 2 + 0], 4.0);
  EXPECT_TRUE(std::isnan(best.z[2 * 2 + 1]));
  // Without min_trades every combo with a finite objective counts.
  const auto plain = kbt::heatmap_grid(r, {"a", "b", "sharpe", "max"});
  EXPECT_EQ(plain.excluded, (std::vector<std::uint8_t>(6, 0)));
}

TEST(HeatmapGrid, BestNeedsABestCombo) {
  const auto r = with_best(made_up_grid(), -1);
  EXPECT_THROW(kbt::heatmap_grid(r, {"a", "b", "sharpe", "best"}), kbt::Error);
  EXPECT_NO_THROW(kbt::heatmap_grid(r, {"a", "b", "sharpe", "median"}));
}
