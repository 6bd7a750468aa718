// The sweep engines (reference and kernel) and the chunk driver: ranges of
// combos, several scoring windows per call, chunked runs with a resume point.
// Independent checks: the kernel engine against the reference engine bit for
// bit; a window [begin, end) against a run on data cut at `end` with
// score_start = begin; the driver's top-K against one select_top_k over every
// combo.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/sweep_driver.hpp>
#include <kbt/sweep/sweep_engine.hpp>
#include <kbt/sweep/top_k.hpp>

#include <cstring>
#include <string>
#include <vector>

#include "support/synthetic.hpp"

namespace {

// Position and signal forms, a swept window, a streamed rsi and stops: the
// general portfolio step, fills at the next open.
const char* kStrategy = R"(data: unused.h5
strategy:
  params:
    fast: {range: [3, 15, 3]}
    slow: {values: [20, 40]}
    n: {values: [5, 9]}
  constraints: ["fast < slow"]
  signals:
    trend: sma(close, fast) - sma(close, slow)
    r: rsi(close - sma(close, fast), n)
  position: where(trend > 0 and r < 80, 1, where(trend < 0, -0.5, 0))
simulation: {fee_bps: 4, slippage_bps: 1, fill: next_open, stop_loss: 0.03}
sweep: {objective: {metric: sharpe}}
)";

kbt::BarData bars_of(std::size_t n_bars) {
  kbt::SynthOptions o;
  o.n_symbols = 2;
  o.n_bars = n_bars;
  o.seed = 13;
  return kbt::synth_bars(o);
}


void expect_same_bits(const std::vector<double>& a, const std::vector<double>& b, const std::string& what) {
  ASSERT_EQ(a.size(), b.size()) << what;
  for (std::size_t k = 0; k < a.size(); ++k)
    ASSERT_EQ(std::memcmp(&a[k], &b[k], sizeof(double)), 0)
        << what << ": row " << k / kbt::n_metrics << " metric " << kbt::metric_names()[k % kbt::n_metrics] << ": "
        << a[k] << " vs " << b[k];
}

std::vector<double> window_slice(const kbt::EngineOutput& out, std::size_t w, std::size_t count) {
  return std::vector<double>(out.metrics.begin() + static_cast<long>(w * count * kbt::n_metrics),
                             out.metrics.begin() + static_cast<long>((w + 1) * count * kbt::n_metrics));
}

// Fails a case in which nothing trades (it would compare initial states only).
void expect_trades(const std::vector<double>& metrics) {
  double trades = 0;
  for (std::size_t r = 0; r < metrics.size() / kbt::n_metrics; ++r)
    trades += metrics[r * kbt::n_metrics + static_cast<std::size_t>(kbt::Metric::n_trades)];
  EXPECT_GT(trades, 0.0) << "vacuous case: no trades";
}

struct Fixture {
  kbt::RunConfig config = kbt::parse_run_config(kStrategy, "<engine>", "");
  kbt::BarData bars = bars_of(600);
  kbt::PreparedSweep sweep = kbt::prepare_sweep(config, bars);
  kbt::EngineTopK top_k{config.sweep.objective, 5};
  std::vector<std::uint64_t> ids = sweep.combos.ids(0, sweep.combos.size());
};

}  // namespace

TEST(SweepEngine, EveryEngineGivesTheReferenceBitsOnSeveralWindowsAndEachWindowAsItsOwnRun) {
  const Fixture f;
  const std::size_t n = f.sweep.n_combos();
  ASSERT_GT(n, 10u);
  const std::vector<kbt::ScoringWindow> windows = {{0, 600}, {100, 350}, {349, 600}};
  auto reference = kbt::make_reference_engine(f.sweep, f.bars, 2);
  const kbt::EngineOutput ref = reference->run(0, n, windows, f.top_k);
  ASSERT_EQ(ref.metrics.size(), windows.size() * n * kbt::n_metrics);
  ASSERT_EQ(ref.top_k.size(), windows.size());
  for (std::size_t w = 0; w < windows.size(); ++w) {
    SCOPED_TRACE("window " + std::to_string(w));
    expect_trades(window_slice(ref, w, n));
    // The window alone gives the same bits.
    expect_same_bits(reference->run(0, n, {windows[w]}, f.top_k).metrics, window_slice(ref, w, n), "alone");
    // And so does the run of a config that scores from `begin` on data that ends at `end`.
    kbt::RunConfig config = f.config;
    config.simulation.score_start_bar = static_cast<std::int64_t>(windows[w].begin);
    const kbt::BarData bars = kbt::test::first_bars(f.bars, windows[w].end);
    const kbt::PreparedSweep cut_sweep = kbt::prepare_sweep(config, bars);
    const auto cut_engine = kbt::make_reference_engine(cut_sweep, bars, 1);
    expect_same_bits(cut_engine->run(0, n, {}, f.top_k).metrics, window_slice(ref, w, n), "cut data");
    EXPECT_EQ(ref.top_k[w], kbt::select_top_k(window_slice(ref, w, n), f.ids, f.top_k.objective, 5));
  }
  for (const auto& space : kbt::enabled_execution_spaces()) {
    SCOPED_TRACE(space.name);
    auto kernel = kbt::make_kernel_engine(f.sweep, f.bars, space.name, false);
    const kbt::EngineOutput k = kernel->run(0, n, windows, f.top_k);
    expect_same_bits(k.metrics, ref.metrics, "kernel vs reference");
    EXPECT_EQ(k.top_k, ref.top_k);
    EXPECT_EQ(kernel->top_k_selected_on(), space.name);
  }
}

TEST(SweepEngine, ARangeOfCombosGivesTheRowsOfTheWholeRun) {
  const Fixture f;
  const std::size_t n = f.sweep.n_combos(), a = 3, b = n - 2;
  std::vector<std::unique_ptr<kbt::SweepEngine>> engines;
  engines.push_back(kbt::make_reference_engine(f.sweep, f.bars));
  for (const auto& space : kbt::enabled_execution_spaces())
    engines.push_back(kbt::make_kernel_engine(f.sweep, f.bars, space.name, false));
  for (const auto& e : engines) {
    SCOPED_TRACE(e->device());
    const auto whole = e->run(0, n, {}, f.top_k);
    const auto part = e->run(a, b, {}, f.top_k);
    const std::vector<double> rows(whole.metrics.begin() + static_cast<long>(a * kbt::n_metrics),
                                   whole.metrics.begin() + static_cast<long>(b * kbt::n_metrics));
    expect_same_bits(part.metrics, rows, "range");
    const std::vector<std::uint64_t> ids(f.ids.begin() + static_cast<long>(a), f.ids.begin() + static_cast<long>(b));
    EXPECT_EQ(part.top_k.at(0), kbt::select_top_k(rows, ids, f.top_k.objective, 5));
    EXPECT_TRUE(e->run(4, 4, {}, f.top_k).metrics.empty());
    EXPECT_THROW(e->run(0, n + 1, {}, f.top_k), kbt::Error);
    EXPECT_THROW(e->run(0, n, {{10, 10}}, f.top_k), kbt::Error);   // an empty window
    EXPECT_THROW(e->run(0, n, {{0, 601}}, f.top_k), kbt::Error);   // beyond the data
  }
}

TEST(SweepDriver, ChunksAndAResumePointGiveTheBitsAndTopKOfOnePass) {
  const Fixture f;
  const std::size_t n = f.sweep.n_combos();
  auto reference = kbt::make_reference_engine(f.sweep, f.bars);
  const std::vector<double> all = reference->run(0, n, {}, f.top_k).metrics;
  expect_trades(all);
  const auto expected_top = kbt::select_top_k(all, f.ids, f.top_k.objective, f.top_k.k);
  ASSERT_EQ(expected_top.size(), 5u);
  // The same rows with every metric.
  ASSERT_NE(f.sweep.metric_groups, kbt::metric_group::all);
  kbt::PreparedSweep with_all = f.sweep;
  with_all.metric_groups = kbt::metric_group::all;
  with_all.metrics = kbt::all_metrics_mask;
  const std::vector<double> all_21 = kbt::make_reference_engine(with_all, f.bars)->run(0, n, {}, f.top_k).metrics;
  std::vector<std::unique_ptr<kbt::SweepEngine>> engines;
  engines.push_back(kbt::make_reference_engine(f.sweep, f.bars));
  for (const auto& space : kbt::enabled_execution_spaces())
    engines.push_back(kbt::make_kernel_engine(f.sweep, f.bars, space.name, false));
  for (const auto& e : engines)
    for (std::uint64_t chunk : {std::uint64_t(1), std::uint64_t(7), std::uint64_t(n)})
      for (std::size_t resumed : {std::size_t(0), std::size_t(9)}) {
        SCOPED_TRACE(e->device() + " chunk " + std::to_string(chunk) + " resumed " + std::to_string(resumed));
        // The rows done before the resume point, as a checkpoint holds them.
        const kbt::MemoryRows done(f.sweep.param_names, std::vector<std::uint64_t>(f.ids.begin(), f.ids.begin() + long(resumed)),
                                   f.sweep.combos.params(0, resumed),
                                   std::vector<double>(all.begin(), all.begin() + long(resumed * kbt::n_metrics)));
        std::vector<double> metrics(all.begin(), all.begin() + static_cast<long>(resumed * kbt::n_metrics));
        kbt::DriverOptions o;
        o.chunk_combos = chunk;
        o.resumed = resumed;
        o.done_rows = &done;
        std::size_t next = resumed;
        std::vector<std::size_t> progress;
        o.commit = [&](std::size_t first, std::size_t count, const double* m) {
          EXPECT_EQ(first, next);  // contiguous, in order
          EXPECT_EQ(std::memcmp(m, &all[first * kbt::n_metrics], count * kbt::n_metrics * sizeof(double)), 0);
          metrics.insert(metrics.end(), m, m + count * kbt::n_metrics);
          next = first + count;
        };
        o.progress = [&](std::size_t done_so_far) { progress.push_back(done_so_far); };
        const kbt::DriverResult r = kbt::drive_sweep(*e, f.sweep, f.top_k, o);
        expect_same_bits(metrics, all, "metrics");
        EXPECT_EQ(r.best.rows, std::vector<std::uint64_t>(expected_top.begin(), expected_top.end()));
        // The best rows carry their ids, params and all 21 metrics (the
        // sweep's set is smaller: they were simulated again).
        const kbt::MemoryRows every(f.sweep.param_names, f.ids, f.sweep.combos.params(0, n), all_21);
        const kbt::RowTable expected = kbt::read_rows(every, r.best.rows);
        EXPECT_EQ(r.best.combo_ids, expected.combo_ids);
        EXPECT_EQ(r.best.params, expected.params);
        expect_same_bits(r.best.metrics, expected.metrics, "best rows");
        EXPECT_EQ(next, n);
        EXPECT_EQ(r.chunks, (n - resumed + chunk - 1) / chunk);
        ASSERT_FALSE(progress.empty());
        EXPECT_EQ(progress.front(), resumed);
        EXPECT_EQ(progress.back(), n);
      }
}
