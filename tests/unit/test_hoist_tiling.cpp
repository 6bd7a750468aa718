// Memory-aware hoisting (sweep/hoist_tiling.hpp, sweep/hoisted_rows.hpp): the
// hoisted series computed on the sweep's own space, a tile of windows at a
// time when the budget cannot hold them all. Tiled sweeps are compared with
// the reference engine and with untiled sweeps by the bits of every metric.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/sweep/top_k.hpp>
#include <kbt/sweep/detail/hoist_tiling.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include "support/synthetic.hpp"

#include <cstring>
#include <set>
#include <string>

namespace {

struct Case {
  kbt::RunConfig config;
  kbt::BarData bars;
  kbt::Program program;
  kbt::SweepPlan plan;
  std::vector<std::uint64_t> ids;
  std::vector<double> params;  // [n][n_params]
};

kbt::BarData synthetic_bars(std::size_t n_symbols, std::size_t n_bars) {
  kbt::BarData bars = kbt::test::synthetic_bars(n_symbols, n_bars, 5, n_symbols > 1);
  kbt::test::add_gap(bars, 0, n_bars / 3, 4);  // reaches the fold kernels' warm-up and NaN rules
  return bars;
}

// Every combo of the grid (constraints applied), in grid order.
Case prepare(const std::string& yaml, kbt::BarData bars) {
  Case c;
  c.config = kbt::parse_run_config(yaml, "<tiling>", "");
  c.bars = std::move(bars);
  c.program = kbt::compile_strategy(c.config.strategy, kbt::schema_of(c.bars));
  const kbt::ParamGrid grid(c.config.strategy.params);
  c.ids = kbt::filter_combos(grid, [&](const double* v) { return kbt::constraints_hold(c.program, v); });
  c.params.resize(c.ids.size() * grid.n_params());
  for (std::size_t i = 0; i < c.ids.size(); ++i) grid.combo_values(c.ids[i], &c.params[i * grid.n_params()]);
  c.config.simulation.periods_per_year = kbt::resolve_periods_per_year(c.bars, c.config.simulation);
  c.plan = kbt::make_sweep_plan(c.program, c.bars);
  return c;
}

// Two hoisted windows, 10 x 19 values.
const std::string kSmaCross = kbt::test::sma_cross_yaml({2, 20, 2}, {10, 100, 5});

// Hoisted folds in two stages (a constant-window sma feeds a windowed zscore),
// a min/max fold, a recursive fold and a higher-timeframe fold: every path of
// HoistedRows (in place, staged, copied into a shorter frame's rows).
const char* kEveryHoistPath = R"(data: unused.h5
strategy:
  params:
    w: {values: [3, 5, 8, 13]}
    n: {values: [4, 9, 16]}
    e: {values: [5, 12]}
    h: {values: [2, 3]}
  signals:
    z: zscore(sma(close, 6), w)
    hi: rolling_max(high, n)
    tr: ema(close, e)
    up: htf(sma(close, h), "4h")
  position: where(z > 0.5 and close >= hi * 0.99 and tr > up, 1, where(z < -0.5, -1, 0))
simulation: {fee_bps: 2, slippage_bps: 1}
)";

void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t k = 0; k < a.size(); ++k)
    ASSERT_EQ(std::memcmp(&a[k], &b[k], sizeof(double)), 0)
        << what << ": combo " << k / kbt::n_metrics << " metric " << kbt::metric_names()[k % kbt::n_metrics] << ": "
        << a[k] << " vs " << b[k];
}

std::vector<double> reference_metrics(const Case& c) {
  std::vector<double> out;
  const std::size_t n_params = c.program.n_params();
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    const auto signals = kbt::evaluate_strategy_reference(c.program, c.bars, &c.params[i * n_params]);
    const auto sim = kbt::simulate_reference(c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), signals);
    out.insert(out.end(), sim.metrics.begin(), sim.metrics.end());
  }
  return out;
}

}  // namespace

TEST(HoistTiling, OneTileWhenEverythingFits) {
  const Case c = prepare(kSmaCross, synthetic_bars(1, 200));
  ASSERT_EQ(c.plan.n_hoisted_series(), 29u);
  const kbt::HoistTiling tiling(c.plan, 29);
  EXPECT_EQ(tiling.n_tiles(), 1u);
  EXPECT_EQ(tiling.tile(0).rows(), 29u);
}

TEST(HoistTiling, TilesRespectTheRowBudgetAndCoverEveryCombo) {
  const Case c = prepare(kSmaCross, synthetic_bars(1, 200));
  for (std::size_t max_rows : {2u, 3u, 6u, 11u, 28u}) {
    SCOPED_TRACE("max_rows " + std::to_string(max_rows));
    const kbt::HoistTiling tiling(c.plan, max_rows);
    EXPECT_GT(tiling.n_tiles(), 1u);
    std::size_t shares = 0;
    for (const std::size_t s : tiling.tile_windows()) shares += s;
    EXPECT_LE(shares, max_rows);
    for (std::size_t t = 0; t < tiling.n_tiles(); ++t) EXPECT_LE(tiling.tile(t).rows(), max_rows);
    std::set<std::size_t> used;
    for (std::size_t i = 0; i < c.ids.size(); ++i) {
      std::size_t idx[2];
      const std::size_t t = tiling.tile_of(&c.params[2 * i], idx);
      ASSERT_LT(t, tiling.n_tiles());
      const kbt::HoistTile tile = tiling.tile(t);
      for (std::size_t h = 0; h < 2; ++h) {
        EXPECT_GE(idx[h], tile.begin[h]);
        EXPECT_LT(idx[h], tile.end[h]);
        EXPECT_EQ(static_cast<double>(c.plan.hoisted_windows[h][idx[h]]),
                  c.params[2 * i + static_cast<std::size_t>(c.plan.hoisted_window_param[h])]);
      }
      used.insert(t);
    }
    EXPECT_GT(used.size(), 1u);
  }
}

TEST(HoistTiling, TilesFollowTheRowOrderWhenTheFastestParamFits) {
  // slow (the last param) varies fastest along the rows: with room for its 19
  // windows and 2 fast ones, tiles are 2 fast x 19 slow windows, and rows in
  // grid order meet each tile once.
  const Case c = prepare(kSmaCross, synthetic_bars(1, 200));
  const kbt::HoistTiling tiling(c.plan, 21);
  EXPECT_EQ(tiling.n_tiles(), 5u);
  EXPECT_FALSE(tiling.recomputes_along_rows());
  std::size_t previous = 0, changes = 0;
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    std::size_t idx[2];
    const std::size_t t = tiling.tile_of(&c.params[2 * i], idx);
    ASSERT_GE(t, previous) << "row " << i;
    changes += t != previous;
    previous = t;
  }
  EXPECT_EQ(changes, 4u);
  // Room for fewer than the 19 slow windows: tiles are revisited along the rows.
  EXPECT_TRUE(kbt::HoistTiling(c.plan, 6).recomputes_along_rows());
}

TEST(HoistTiling, ABudgetBelowOneWindowPerParamIsRefusedWithTheNumbers) {
  const Case c = prepare(kSmaCross, synthetic_bars(1, 200));
  try {
    kbt::HoistTiling tiling(c.plan, 1);
    FAIL() << "a one-row budget was accepted";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::limit);
    EXPECT_NE(std::string(e.what()).find("needs at least 2"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("sweep.memory_budget_mb"), std::string::npos) << e.what();
  }
}

TEST(HoistedRows, TiledSweepsGiveTheReferenceBitsOnEverySpace) {
  const Case cross = prepare(kSmaCross, synthetic_bars(1, 400));
  const Case every = prepare(kEveryHoistPath, synthetic_bars(3, 600));
  // Two stages on the base frame (sma(close, 6) feeds zscore), one on the 4h frame.
  EXPECT_EQ(every.plan.fold_stages.size(), 3u);
  for (const Case* c : {&cross, &every}) {
    const auto reference = reference_metrics(*c);
    for (const auto& space : kbt::enabled_execution_spaces()) {
      for (std::size_t rows : {std::size_t(0), c->plan.hoisted_regs.size(), c->plan.hoisted_regs.size() + 3}) {
        SCOPED_TRACE(space.name + " rows " + std::to_string(rows));
        kbt::KernelSweepOptions options;
        options.hoist_rows = rows;
        const auto runner = kbt::make_kernel_sweep_runner(space.name, false, c->program, c->plan, c->bars,
                                                          kbt::resolve_simulation(c->config.simulation, c->bars), options);
        if (rows > 0) EXPECT_GT(runner->hoist_tiles(), 1u);
        kbt::KernelTopKRequest top;
        top.k = 5;
        top.combo_ids = c->ids;
        const auto out = runner->run(c->params, top);
        expect_same_bits(out.metrics, reference, space.name);
        if (rows > 0) EXPECT_GT(out.hoist_tiles, 1u);
        // Top-K over metrics gathered from every tile equals the host selection.
        EXPECT_EQ(out.top_k, kbt::select_top_k(reference, c->ids, c->config.sweep.objective, 5));
      }
    }
  }
}

TEST(HoistedRows, Fp32TiledSweepsEqualFp32UntiledOnes) {
  const Case c = prepare(kEveryHoistPath, synthetic_bars(2, 500));
  for (const auto& space : kbt::enabled_execution_spaces()) {
    kbt::KernelSweepOptions tiled;
    tiled.hoist_rows = c.plan.hoisted_regs.size();
    const auto a = kbt::run_sweep_kernel_on(space.name, true, c.program, c.plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), c.params);
    const auto b =
        kbt::run_sweep_kernel_on(space.name, true, c.program, c.plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), c.params, tiled);
    expect_same_bits(a, b, space.name);
  }
}

TEST(HoistedRows, ChunksRevisitingTilesGiveTheBitsOfOneCall) {
  // A runner over chunks whose combos hop between tiles: each call recomputes
  // the tiles it needs into the same memory.
  const Case c = prepare(kSmaCross, synthetic_bars(1, 300));
  for (const auto& space : kbt::enabled_execution_spaces()) {
    kbt::KernelSweepOptions options;
    options.hoist_rows = 4;
    const auto runner =
        kbt::make_kernel_sweep_runner(space.name, false, c.program, c.plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), options);
    kbt::KernelTopKRequest top;
    top.k = 3;
    top.combo_ids = c.ids;
    const auto whole = runner->run(c.params, top).metrics;
    std::vector<double> pieces;
    const std::size_t n = c.ids.size();
    for (std::size_t first = 0; first < n; first += 17) {
      const std::size_t count = std::min<std::size_t>(17, n - first);
      kbt::KernelTopKRequest part;
      part.k = 3;
      part.combo_ids.assign(c.ids.begin() + static_cast<long>(first), c.ids.begin() + static_cast<long>(first + count));
      const std::vector<double> params(c.params.begin() + static_cast<long>(2 * first),
                                       c.params.begin() + static_cast<long>(2 * (first + count)));
      const auto out = runner->run(params, part);
      pieces.insert(pieces.end(), out.metrics.begin(), out.metrics.end());
    }
    expect_same_bits(pieces, whole, space.name);
  }
}

TEST(MemoryBudget, ARunTiledByItsBudgetWritesTheResultsOfAnUntiledRun) {
  kbt::RunConfig config = kbt::parse_run_config(kSmaCross, "<budget>", "");
  const kbt::BarData bars = synthetic_bars(1, 2000);
  config.sweep.device = "serial";
  const kbt::SweepOutcome untiled = kbt::run_sweep(config, bars);
  // 2000 bars x 8 bytes per series, twice (half the budget holds series):
  // 0.2 MiB holds 6 of the 29 series.
  config.sweep.memory_budget_mb = 0.2;
  const kbt::SweepOutcome tiled = kbt::run_sweep(config, bars);
  double tiles = 0;
  for (const auto& [key, value] : tiled.profile.numbers)
    if (key == "hoist_tiles") tiles = value;
  EXPECT_GT(tiles, 1.0);
  expect_same_bits(kbt::read_all_rows(*tiled.results.rows).metrics, kbt::read_all_rows(*untiled.results.rows).metrics,
                   "budget 0.2 MiB");
  EXPECT_EQ(tiled.results.top_k_rows().rows, untiled.results.top_k_rows().rows);
}

TEST(MemoryBudget, ABudgetTooSmallForOneWindowPerParamIsRefusedBeforeAnyWork) {
  kbt::RunConfig config = kbt::parse_run_config(kSmaCross, "<budget>", "");
  const kbt::BarData bars = synthetic_bars(1, 2000);
  config.sweep.device = "serial";
  config.sweep.memory_budget_mb = 0.01;
  try {
    (void)kbt::run_sweep(config, bars);
    FAIL() << "a 0.01 MiB budget was accepted";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::limit);
    const std::string what = e.what();
    EXPECT_NE(what.find("memory budget of 0.01 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("at least 0.06 MiB"), std::string::npos) << what;
    EXPECT_NE(what.find("needs 2 at a time"), std::string::npos) << what;
  }
}

TEST(HoistedRows, ARunComputesOnlyTheWindowsItsCombosUse) {
  // Both registers are sma(close, .): a window that fast and slow share is one
  // series. The runner is given the grid one fast value at a time (grid order),
  // then again from the other end on a fresh runner; each call must compute
  // exactly the windows of its combos that no earlier call computed.
  const Case c = prepare(kSmaCross, synthetic_bars(1, 300));
  const auto reference = reference_metrics(c);
  std::vector<std::vector<std::size_t>> pieces;  // combos of one fast value each
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    if (i == 0 || c.params[2 * i] != c.params[2 * (i - 1)]) pieces.emplace_back();
    pieces.back().push_back(i);
  }
  ASSERT_EQ(pieces.size(), 10u);
  for (const auto& space : kbt::enabled_execution_spaces()) {
    for (const bool backwards : {false, true}) {
      SCOPED_TRACE(space.name + (backwards ? " backwards" : " forwards"));
      const auto runner = kbt::make_kernel_sweep_runner(space.name, false, c.program, c.plan, c.bars,
                                                        kbt::resolve_simulation(c.config.simulation, c.bars), {});
      std::set<double> resident;
      std::size_t total = 0, empty_calls = 0;
      for (std::size_t p = 0; p < pieces.size(); ++p) {
        const auto& piece = pieces[backwards ? pieces.size() - 1 - p : p];
        std::vector<double> params;
        std::vector<double> expected;
        kbt::KernelTopKRequest none;
        std::size_t added = 0;
        for (const std::size_t i : piece) {
          params.insert(params.end(), {c.params[2 * i], c.params[2 * i + 1]});
          expected.insert(expected.end(), reference.begin() + static_cast<long>(i * kbt::n_metrics),
                          reference.begin() + static_cast<long>((i + 1) * kbt::n_metrics));
          none.combo_ids.push_back(c.ids[i]);
          for (const double w : {c.params[2 * i], c.params[2 * i + 1]}) added += resident.insert(w).second;
        }
        const auto out = runner->run(params, none);
        EXPECT_EQ(out.hoisted_series, added) << "piece " << p;
        expect_same_bits(out.metrics, expected, space.name + " piece " + std::to_string(p));
        total += out.hoisted_series;
        empty_calls += added == 0;
      }
      // 10 fast + 19 slow windows, 10 and 20 in both; and the case is not vacuous:
      // some call found everything it needed resident (fast 10 or 20 after slow).
      EXPECT_EQ(total, 27u);
      EXPECT_EQ(c.plan.n_hoisted_series(), 29u);
      if (!backwards) EXPECT_GT(empty_calls, 0u);
    }
  }
}
