// The sweep kernel against the reference engine, by the bits of every fp64
// metric of every combo, on every enabled execution space.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/lang/op_table.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include "support/cli_runner.hpp"
#include "support/sweep_parity.hpp"
#include "support/synthetic.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>

using namespace kbt::test::parity;

class SweepParity : public ::testing::TestWithParam<const char*> {};

TEST_P(SweepParity, EveryMetricBitIdenticalToTheReference) {
  const Case c = prepare(GetParam(), 6, 4000);
  for (const auto& d : devices()) expect_parity(c, d);
}

INSTANTIATE_TEST_SUITE_P(ExampleConfigs, SweepParity,
                         ::testing::Values("sma_cross.yaml", "sma_cross_signals.yaml", "bollinger_zscore.yaml",
                                           "kalman_meanrev.yaml", "breakout_sltp.yaml", "multi_asset_funding.yaml",
                                           "exo_signal.yaml", "mtf_trend.yaml"),
                         [](const auto& info) {
                           std::string n = info.param;
                           return n.substr(0, n.find('.'));
                         });

// ---- streamed ops and every simulation feature on synthetic data with gaps ----

namespace {

// 3 symbols with funding, venues, and NaN gaps (missing bars) in two symbols.
kbt::BarData gappy_bars(std::size_t n_bars) {
  kbt::SynthOptions o;
  o.n_symbols = 3;
  o.n_bars = n_bars;
  o.seed = 7;
  o.funding = true;
  o.venues = {"binance", "okx", "binance"};
  o.exo_names = {"macro"};
  kbt::BarData bars = kbt::synth_bars(o);
  const double nan = std::nan("");
  for (const char* col : {"open", "high", "low", "close", "volume"}) {
    auto& v = bars.columns.at(col);
    // BBB misses 10 bars, CCC 3, AAA one (gaps scaled to shorter data).
    for (std::size_t b = n_bars / 6; b < n_bars / 6 + 10; ++b) v[1 * n_bars + b] = nan;
    for (std::size_t b = 2 * n_bars / 3; b < 2 * n_bars / 3 + 3; ++b) v[2 * n_bars + b] = nan;
    v[0 * n_bars + n_bars / 2] = nan;
  }
  return bars;
}

const char* kStreamedOps = R"(data: unused.h5
strategy:
  params:
    a: {values: [3, 8]}
    b: {values: [2, 5, 9]}
  signals:
    d: close - sma(close, a)
    e: ema(d, b)
    r: rsi(d, b)
    z: zscore(d, b)
    m: rolling_max(d, b) - rolling_min(d, b)
    s: rolling_sum(d, b) / b + rolling_mean(d, b) + rolling_std(d, b)
    l: lag(d, b) + roc(close + a, b)
    x: cs_rank(e) + cs_zscore(z) + cs_demean(r) + d@AAA
  position: clip(sign(e) * 0.5 + where(r > 60, -0.3, where(r < 40, 0.3, 0)) + 0.01 * (z + m + s + l + x + e), -1, 1)
simulation:
  fee_bps: {binance: 7.5, okx: 9}
  slippage_bps: 3
  borrow_rate: 0.08
  max_gross_leverage: 1.5
  weighting: equal
  score_start: 50
)";

}  // namespace

TEST(SweepParityFeatures, StreamedOpsOnGappyMultiAssetDataWithFunding) {
  const auto bars = gappy_bars(600);
  const Case c = prepare_yaml(kStreamedOps, bars, 6);
  ASSERT_EQ(c.ids.size(), 6u);
  // Every windowed op above runs in-thread: its input depends on `a`.
  const auto plan = kbt::make_sweep_plan(c.program, c.bars);
  EXPECT_GE(plan.streamed.size(), 10u);
  for (const auto& d : devices()) expect_parity(c, d);
}

// Cross-sectional ops over hoisted series are hoisted with them (docs/kernels.md
// "Hoisted cross-sections"): one series per window value, computed by the
// cross-section fold; on gappy multi-asset data, chains included, every
// metric's bits as the reference's, on every space.
TEST(SweepParityFeatures, HoistedCrossSectionsGiveTheReferenceBits) {
  const char* yaml = R"(data: unused.h5
strategy:
  params:
    a: {values: [3, 8]}
    b: {values: [2, 5, 9]}
  signals:
    mom: roc(close, a)
    rank: cs_rank(mom)
    z: cs_zscore(rolling_std(close, b))
    dm: cs_rank(cs_demean(lag(close, b)))
  position: where(rank >= 0.6, 1, where(rank <= 0.4, -1, 0)) * 0.5 + clip(z * 0.1 + dm * 0.2, -0.5, 0.5)
simulation:
  fee_bps: {binance: 7.5, okx: 9}
  max_gross_leverage: 1
  weighting: equal
)";
  const auto bars = gappy_bars(700);
  const Case c = prepare_yaml(yaml, bars, 6);
  ASSERT_EQ(c.ids.size(), 6u);
  const auto plan = kbt::make_sweep_plan(c.program, c.bars);
  for (const std::int32_t r : plan.streamed)
    EXPECT_NE(kbt::op_info(c.program.code[static_cast<std::size_t>(r)].op).family, kbt::OpFamily::cross_sectional)
        << "register " << r << " is a cross-section in the thread";
  std::size_t chains = 0, longest = 0;
  for (const auto& requests : plan.hoisted_requests) {
    chains += requests.front().cross_section.n > 0 ? 1 : 0;
    longest = std::max<std::size_t>(longest, static_cast<std::size_t>(requests.front().cross_section.n));
  }
  EXPECT_EQ(chains, 3u);
  EXPECT_EQ(longest, 2u);
  for (const auto& d : devices()) expect_parity(c, d);
}

// The universe example (configs/universe_momentum.yaml) as written, on a
// smaller universe of the same kind: 40 symbols on two venues, 30 % listed
// late and 30 % delisted early (kbt data synth --listings).
TEST(SweepParityFeatures, UniverseExampleGivesTheReferenceBits) {
  std::ifstream in(std::string(KBT_SOURCE_DIR) + "/configs/universe_momentum.yaml");
  std::stringstream yaml;
  yaml << in.rdbuf();
  ASSERT_NE(yaml.str().find("cs_rank"), std::string::npos);
  kbt::SynthOptions o;
  o.n_symbols = 40;
  o.n_bars = 600;
  o.bar_ns = 86400LL * 1000000000LL;
  o.seed = 3;
  o.listings = 0.3;
  for (std::size_t s = 0; s < o.n_symbols; ++s) o.venues.push_back(s % 2 ? "okx" : "binance");
  const kbt::BarData bars = kbt::synth_bars(o);
  std::size_t gaps = 0;
  for (const double v : bars.columns.at("close")) gaps += std::isnan(v) ? 1 : 0;
  ASSERT_GT(gaps, 1000u);
  const Case c = prepare_yaml(yaml.str(), bars, 6);
  ASSERT_EQ(c.ids.size(), 6u);
  const auto plan = kbt::make_sweep_plan(c.program, c.bars);
  ASSERT_EQ(plan.hoisted_requests.size(), 1u);  // the ranks only: the momentum is not kept on its own
  EXPECT_EQ(plan.hoisted_requests.front().front().cross_section.n, 1);
  for (const auto& d : devices()) expect_parity(c, d);
}

// Window expressions (docs/language.md §5): windows computed per combo from
// params, on streamed ops (input depends on a param), hoisted ops (param-free
// input, one series per distinct value, atr included) and in a higher
// timeframe, on gappy multi-asset data; every metric's bits as the reference's.
TEST(SweepParityFeatures, WindowExpressionsGiveTheReferenceBits) {
  const char* yaml = R"(data: unused.h5
strategy:
  params:
    a: {values: [3, 8]}
    b: {values: [2, 5, 9]}
  signals:
    d: close - sma(close, 2 * a)
    e: ema(d, b + a)
    z: zscore(d, max(b, a) + 1)
    h: sma(close, a * b) - rolling_max(close, (a + b) / 1)
    t: atr(b + 1) + lag(d, abs(a - b))
    w: htf(sma(close, 2 * b), "4h")
  position: clip(sign(e) * 0.5 + 0.01 * (z + h / close + t / close + (close - w) / close), -1, 1)
simulation:
  fee_bps: 5
  weighting: equal
)";
  const auto bars = gappy_bars(800);
  const Case c = prepare_yaml(yaml, bars, 6);
  ASSERT_EQ(c.ids.size(), 6u);
  // Both homes are exercised: hoisted per distinct value and streamed.
  const auto plan = kbt::make_sweep_plan(c.program, c.bars);
  std::size_t scalar_hoisted = 0, scalar_streamed = 0;
  for (std::size_t h = 0; h < plan.hoisted_window_kind.size(); ++h)
    scalar_hoisted += plan.hoisted_window_kind[h] == kbt::WindowKind::scalar ? 1 : 0;
  for (const std::int32_t r : plan.streamed)
    scalar_streamed += c.program.code[static_cast<std::size_t>(r)].window_kind == kbt::WindowKind::scalar ? 1 : 0;
  EXPECT_GE(scalar_hoisted, 4u);
  EXPECT_GE(scalar_streamed, 3u);
  for (const auto& d : devices()) expect_parity(c, d);
}

// A pairs trade: legs of opposite sign by `symbol == "..."` (docs/language.md
// §2), the spread's z-score windowed by a param, on gappy data.
TEST(SweepParityFeatures, PairsLegsBySymbolGiveTheReferenceBits) {
  const char* yaml = R"(data: unused.h5
strategy:
  params:
    n: {values: [20, 40, 60]}
    k: {values: [0.5, 1]}
  signals:
    leg: where(symbol == "AAA", 1, where(symbol != "BBB", 0, -1))
    spread: log(close@AAA) - log(close@BBB)
    z: zscore(spread, n)
  position: where(z > k, -leg, where(z < -k, leg, 0)) * 0.5
simulation:
  fee_bps: 5
  max_gross_leverage: 1
)";
  const auto bars = gappy_bars(800);  // AAA, BBB and CCC (leg 0)
  const Case c = prepare_yaml(yaml, bars, 6);
  ASSERT_EQ(c.ids.size(), 6u);
  for (const auto& d : devices()) expect_parity(c, d);
}

TEST(SweepParityFeatures, StopsWithGapsAndSameBarHitsUnderBothPrioritiesAndFills) {
  const auto bars = gappy_bars(800);
  for (const char* fill : {"close", "next_open"})
    for (const char* priority : {"stop_first", "target_first"}) {
      const std::string yaml = std::string(R"(data: unused.h5
strategy:
  params:
    n: {values: [5, 12]}
    k: {values: [0.004, 0.012]}
  signals:
    hi: lag(rolling_max(high, n), 1)
    lo: lag(rolling_min(low, n), 1)
  long_entry: close > hi
  short_entry: close < lo
  long_exit: close < sma(close, n) * (1 - k)
  short_exit: close > sma(close, n) * (1 + k)
simulation:
  fill: )") + fill + R"(
  fee_bps: 4
  slippage_bps: 2
  stop_loss: 0.006
  take_profit: 0.009
  trailing_stop: 0.005
  sltp_priority: )" + priority + "\n";
      const Case c = prepare_yaml(yaml, bars, 4);
      for (const auto& d : devices()) expect_parity(c, d);
    }
}

// Stops, costs and the leverage cap named by params (grid axes): every combo
// takes its own values, on every space with the reference bits; and a swept
// run's combo equals a run whose settings are those values written as numbers.
TEST(SweptSettings, StopsCostsAndLeverageFromParamsGiveTheBitsOfFixedSettings) {
  const auto bars = gappy_bars(700);
  const std::string head = R"(data: unused.h5
strategy:
  params:
    n: {values: [5, 12]}
    sl: {values: [0.004, 0.02]}
    tp: {values: [0.009, 0.05]}
    ts: {values: [0.005, 0.03]}
    fee: {values: [0, 9.5]}
    slip: {values: [1, 4]}
    lev: {values: [0.5, 1.5]}
  signals:
    d: close - sma(close, n)
  position: clip(sign(d) * 0.8 + cs_zscore(d) * 0.3, -1, 1)
simulation:
  fill: next_open
  weighting: equal
  borrow_rate: 0.05
)";
  const std::string swept = head + R"(  stop_loss: sl
  take_profit: tp
  trailing_stop: ts
  fee_bps: fee
  slippage_bps: slip
  max_gross_leverage: lev
)";
  const Case c = prepare_yaml(swept, bars, 12);
  ASSERT_EQ(c.ids.size(), 12u);
  for (const auto& d : devices()) expect_parity(c, d);

  // Against the same values written as numbers: the swept settings are exactly
  // those numbers, whichever combo (the first four sampled).
  const std::size_t n_params = c.program.n_params();
  std::size_t differ = 0;
  for (std::size_t i = 0; i < 4; ++i) {
    const double* v = &c.params[i * n_params];
    std::map<std::string, double> values;
    for (std::size_t p = 0; p < n_params; ++p) values[c.program.param_names[p]] = v[p];
    const auto number = [](double x) {
      std::ostringstream out;
      out.precision(17);
      out << x;
      return out.str();
    };
    const std::string fixed = head + "  stop_loss: " + number(values["sl"]) + "\n  take_profit: " +
                              number(values["tp"]) + "\n  trailing_stop: " + number(values["ts"]) +
                              "\n  fee_bps: " + number(values["fee"]) + "\n  slippage_bps: " + number(values["slip"]) +
                              "\n  max_gross_leverage: " + number(values["lev"]) + "\n";
    kbt::RunConfig fixed_config = kbt::parse_run_config(fixed, "<fixed>", "");
    kbt::RunConfig swept_config = c.config;
    const auto a = kbt::run_backtest(swept_config, bars, values).metrics;
    const auto b = kbt::run_backtest(fixed_config, bars, values).metrics;
    for (std::size_t m = 0; m < kbt::n_metrics; ++m)
      EXPECT_EQ(std::memcmp(&a[m], &b[m], sizeof(double)), 0) << "combo " << c.ids[i] << " " << kbt::metric_names()[m];
    // The settings matter: the same signals at the run's other values differ.
    if (i > 0 && a != kbt::run_backtest(swept_config, bars, [&] {
          auto other = values;
          other["sl"] = other["sl"] == 0.004 ? 0.02 : 0.004;
          other["fee"] = other["fee"] == 0 ? 9.5 : 0;
          return other;
        }()).metrics)
      ++differ;
  }
  EXPECT_GT(differ, 0u) << "vacuous: the swept settings changed no metric";
}

// A setting that names something else, a param with a value out of its
// range, and walk-forward (not built with swept settings) are config errors.
TEST(SweptSettings, BadSweptSettingsAreConfigErrors) {
  const std::string head = "data: d.h5\nstrategy:\n  params:\n    sl: {values: [0.01, 0.02]}\n"
                           "    z: {values: [0, 1]}\n  position: 1\nsimulation:\n";
  const auto message = [&](const std::string& tail) {
    try {
      kbt::parse_run_config(head + tail, "cfg.yaml", "");
    } catch (const kbt::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("  stop_loss: sll\n"),
            "cfg.yaml:8:14: simulation.stop_loss must be a number or a strategy param (a grid axis); 'sll' is "
            "neither; did you mean 'sl'?");
  EXPECT_EQ(message("  stop_loss: z\n"),
            "cfg.yaml:8:14: simulation.stop_loss takes param 'z', whose value 0 is not > 0");
  EXPECT_EQ(message("  fee_bps: z\n").find("no error"), 0u);  // 0 bps is a fee
  EXPECT_NE(message("  stop_loss: sl\nvalidation:\n  walk_forward: {train: 100, test: 50}\n")
                .find("validation.walk_forward with swept simulation settings"),
            std::string::npos);
}

// Close fills and no stops: the kernel compiles its portfolio step without
// those rules, and without carrying costs when there are none (SweepStep). Both
// such steps on several symbols (equal weights, a leverage cap that binds, NaN
// gaps) and on one, with a scoring window that starts inside an evaluation
// block; the carry step with borrow on shorts and with a funding column.
const char* kPlainSimulation = R"(data: unused.h5
strategy:
  params:
    a: {values: [3, 8]}
    b: {values: [5, 11]}
  signals:
    d: close - sma(close, a)
    z: zscore(d, b)
  position: clip(-z, -2, 2)
simulation:
  fee_bps: 6
  slippage_bps: 2
  max_gross_leverage: 1.2
  weighting: equal
  score_start: 50
)";

kbt::BarData bars_with_gaps(std::size_t n_symbols, std::size_t n_bars, bool funding) {
  kbt::SynthOptions o;
  o.n_symbols = n_symbols;
  o.n_bars = n_bars;
  o.seed = 5;
  o.funding = funding;
  kbt::BarData bars = kbt::synth_bars(o);
  const double nan = std::nan("");
  for (const char* col : {"open", "high", "low", "close", "volume"}) {
    auto& v = bars.columns.at(col);
    for (std::size_t b = n_bars / 5; b < n_bars / 5 + 6; ++b) v[(n_symbols - 1) * n_bars + b] = nan;
  }
  return bars;
}

TEST(SweepParityFeatures, CloseFillStepsOnOneAndSeveralSymbolsGiveTheReferenceBits) {
  struct Variant {
    const char* name;
    const char* extra_simulation;  // appended to kPlainSimulation's simulation block
    bool funding;
    kbt::PortfolioStepKind expected_step;
  };
  const Variant variants[] = {
      {"no carrying costs", "", false, kbt::PortfolioStepKind::close_fills},
      {"borrow on shorts", "  borrow_rate: 0.2\n", false, kbt::PortfolioStepKind::close_fills_with_carry},
      {"funding column", "", true, kbt::PortfolioStepKind::close_fills_with_carry},
  };
  for (const Variant& v : variants)
    for (std::size_t n_sym : {std::size_t(1), std::size_t(3)}) {
      const Case c = prepare_yaml(std::string(kPlainSimulation) + v.extra_simulation,
                                  bars_with_gaps(n_sym, 400, v.funding), 4);
      kbt::detail::ScratchShape shape;
      const auto f = kbt::detail::make_sweep_functor<Kokkos::DefaultHostExecutionSpace, double>(
          c.program, kbt::make_sweep_plan(c.program, c.bars), c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), {}, shape);
      EXPECT_EQ(f.portfolio.rules.step, int(v.expected_step)) << v.name << ": not the step under test";
      for (const auto& d : devices())
        for (int block : {7, 64}) {
          SCOPED_TRACE(std::string(v.name) + ", " + std::to_string(n_sym) + " symbols, block " + std::to_string(block));
          expect_parity(c, d, 0, block);
        }
    }
}

TEST(SweepParityFeatures, ChunkSizeDoesNotChangeAnyBit) {
  const auto bars = gappy_bars(300);
  const Case c = prepare_yaml(kStreamedOps, bars, 6);
  const auto plan = kbt::make_sweep_plan(c.program, c.bars);
  for (const auto& d : devices()) {
    kbt::KernelSweepOptions one, all;
    one.chunk_combos = 1;
    const auto a = kbt::run_sweep_kernel_on(d, false, c.program, plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), c.params, one);
    const auto b = kbt::run_sweep_kernel_on(d, false, c.program, plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), c.params, all);
    ASSERT_EQ(a.size(), b.size());
    EXPECT_EQ(std::memcmp(a.data(), b.data(), a.size() * sizeof(double)), 0) << d;
  }
}

// A streamed scan with two outputs that both feed the position: the trigger
// register steps the scan once per bar and must hand each bar's outputs to the
// other output register, also across evaluation blocks.
const char* kTwoOutputScan = R"(data: unused.h5
strategy:
  params:
    q: {values: [0.001, 0.05]}
    w: {values: [4, 9]}
  scans:
    kf:
      inputs: {z: close}
      init:   {x: z, p: 1.0}
      update:
        p_pred: p + q
        g: p_pred / (p_pred + 0.5)
        x: x + g * (z - x)
        p: (1 - g) * p_pred
      outputs: {level: x, gain: g}
  signals:
    dev: close - kf.level
    band: kf.gain * rolling_std(dev, w) * 20
  position: where(dev > band, -1, where(dev < -band, 1, 0))
simulation: {fee_bps: 3}
)";

TEST(SweepParityFeatures, EveryEvaluationBlockSizeGivesTheReferenceBits) {
  // 1 bar (no blocking), sizes that do not divide the bars, the host default
  // and a block longer than the data.
  const auto bars = gappy_bars(300);
  const Case streamed = prepare_yaml(kStreamedOps, bars, 4);
  const Case scan = prepare_yaml(kTwoOutputScan, bars, 4);
  EXPECT_GE(kbt::make_sweep_plan(scan.program, scan.bars).streamed.size(), 5u);
  for (const auto& d : devices())
    for (int block : {1, 7, 64, 1000}) {
      SCOPED_TRACE("block " + std::to_string(block));
      expect_parity(streamed, d, 0, block);
      expect_parity(scan, d, 0, block);
    }
}

TEST(SweepParityFeatures, ARunnerReusedAcrossChunksGivesTheBitsOfFreshRuns) {
  // One runner (data and series uploaded once) over chunks of 2, 5 and 1
  // combos: growing and shrinking scratch, every chunk equal to a fresh run.
  const auto bars = gappy_bars(300);
  const Case c = prepare_yaml(kStreamedOps, bars, 6);
  const auto plan = kbt::make_sweep_plan(c.program, c.bars);
  const std::size_t n_params = c.program.n_params();
  for (const auto& d : devices()) {
    const auto runner = kbt::make_kernel_sweep_runner(d, false, c.program, plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars));
    std::size_t first = 0;
    for (std::size_t count : {2u, 3u, 1u}) {
      const std::vector<double> params(c.params.begin() + static_cast<long>(first * n_params),
                                       c.params.begin() + static_cast<long>((first + count) * n_params));
      kbt::KernelTopKRequest top;
      top.k = 2;
      top.combo_ids.assign(c.ids.begin() + static_cast<long>(first), c.ids.begin() + static_cast<long>(first + count));
      const auto reused = runner->run(params, top);
      const auto fresh = kbt::run_sweep_kernel_with_top_k_on(d, false, c.program, plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars),
                                                             params, top);
      ASSERT_EQ(reused.metrics.size(), count * kbt::n_metrics);
      EXPECT_EQ(std::memcmp(reused.metrics.data(), fresh.metrics.data(), reused.metrics.size() * sizeof(double)), 0)
          << d << " chunk at " << first;
      EXPECT_EQ(reused.top_k, fresh.top_k);
      first += count;
    }
  }
}

// Spearman rank correlation of two equally long series (no ties expected).
double spearman(const std::vector<double>& a, const std::vector<double>& b) {
  auto ranks = [](const std::vector<double>& v) {
    std::vector<std::size_t> idx(v.size());
    for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
    std::sort(idx.begin(), idx.end(), [&](std::size_t x, std::size_t y) { return v[x] < v[y]; });
    std::vector<double> r(v.size());
    for (std::size_t k = 0; k < idx.size(); ++k) r[idx[k]] = static_cast<double>(k);
    return r;
  };
  const auto ra = ranks(a), rb = ranks(b);
  double d2 = 0;
  for (std::size_t i = 0; i < ra.size(); ++i) d2 += (ra[i] - rb[i]) * (ra[i] - rb[i]);
  const double n = static_cast<double>(ra.size());
  return 1.0 - 6.0 * d2 / (n * (n * n - 1.0));
}

TEST(SweepParityFeatures, Fp32RankingAgreesWithFp64) {
  // Threshold (docs/sweep.md): Spearman >= 0.95 on the Sharpe ranking of 40
  // SMA-cross combos over 4000 bars.
  const Case c = prepare("sma_cross.yaml", 40, 4000);
  const auto plan = kbt::make_sweep_plan(c.program, c.bars);
  const auto f64 = kbt::run_sweep_kernel_on("serial", false, c.program, plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), c.params);
  const auto f32 = kbt::run_sweep_kernel_on("serial", true, c.program, plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), c.params);
  std::vector<double> s64, s32;
  const int sh = static_cast<int>(kbt::Metric::sharpe);
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    s64.push_back(f64[i * kbt::n_metrics + sh]);
    s32.push_back(f32[i * kbt::n_metrics + sh]);
  }
  EXPECT_GE(spearman(s64, s32), 0.95);
}

// ---- series evaluation: kbt eval --device, and random expressions ------------

namespace {

bool same_series(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

// A random expression over columns, params a (window 2..9) and k (scalar), of
// bounded depth; every windowed op, pointwise op and cross-sectional op can appear.
std::string random_expression(std::uint64_t& state, int depth) {
  const auto pick = [&](std::uint64_t n) { return kbt::uniform_below(state, n); };
  static const char* leaves[] = {"close", "open", "high", "low", "volume", "funding_rate", "macro", "k", "2.5", "close@BBB"};
  if (depth == 0) return leaves[pick(10)];
  const std::string x = random_expression(state, depth - 1);
  const std::string w = pick(2) ? "a" : std::to_string(2 + pick(6));
  switch (pick(24)) {
    case 0: return "sma(" + x + ", " + w + ")";
    case 1: return "ema(" + x + ", " + w + ")";
    case 2: return "rolling_std(" + x + ", " + w + ")";
    case 3: return "rolling_sum(" + x + ", " + w + ")";
    case 4: return "rolling_min(" + x + ", " + w + ")";
    case 5: return "rolling_max(" + x + ", " + w + ")";
    case 6: return "zscore(" + x + ", " + w + ")";
    case 7: return "rsi(" + x + ", " + w + ")";
    case 8: return "roc(" + x + ", " + w + ")";
    case 9: return "lag(" + x + ", " + w + ")";
    case 10: return "cs_rank(" + x + ")";
    case 11: return "cs_zscore(" + x + ")";
    case 12: return "cs_demean(" + x + ")";
    case 13: return "abs(" + x + ")";
    case 14: return "log(" + x + ")";
    case 15: return "where(" + x + " > " + random_expression(state, depth - 1) + ", " + x + ", k)";
    case 16: return "(" + x + " - " + random_expression(state, depth - 1) + ")";
    case 17: return "(" + x + " / " + random_expression(state, depth - 1) + ")";
    case 18: return "(" + x + " * k)";
    case 19: return "fillna(" + x + ", 0)";
    case 20: return "max(" + x + ", " + random_expression(state, depth - 1) + ")";
    case 21: return "sqrt(" + x + ")";
    case 22: return "sign(" + x + ")";
    default: return "htf(" + x + ", \"4h\")";
  }
}

}  // namespace

TEST(SeriesParity, RandomExpressionsEvaluateToTheReferenceBitsOnEverySpace) {
  const auto bars = gappy_bars(300);
  std::vector<kbt::ParamSpec> params(2);
  params[0].name = "a", params[0].values = {3, 7}, params[0].is_integer = true;
  params[1].name = "k", params[1].values = {0.5}, params[1].is_integer = false;
  std::uint64_t state = 2026;
  int compared = 0, refused = 0;
  for (int n = 0; n < 200; ++n) {
    const std::string text = random_expression(state, 1 + static_cast<int>(kbt::uniform_below(state, 3)));
    kbt::Program program;
    try {
      program = kbt::compile_expression(kbt::SourceText{text, "<random>", 1, 1}, kbt::schema_of(bars), params);
    } catch (const kbt::Error&) {
      continue;  // e.g. a boolean where a number is required
    }
    if (kbt::sweep_kernel_unsupported(program)) {
      ++refused;
      continue;
    }
    const kbt::SweepPlan plan = kbt::make_sweep_plan(program, bars);
    for (double a : {3.0, 7.0}) {
      const std::vector<double> values{a, 0.5};
      const auto ref = kbt::evaluate_expression_reference(program, bars, values.data());
      for (const auto& d : devices()) {
        const auto got = kbt::evaluate_register_kernel_on(d, false, program, plan, bars, values, program.expression);
        EXPECT_TRUE(same_series(ref, got)) << d << ": " << text << " with a=" << a;
      }
    }
    ++compared;
  }
  // Most random programs compile and run in the kernel; refusals carry a reason.
  EXPECT_GE(compared, 120) << "refused " << refused;
}

namespace {

// `n_symbols` symbols on a few price levels (ties in every bar), some listed
// late and some delisted early (NaN), for the cross-sectional parity tests.
kbt::BarData tied_universe(std::size_t n_symbols, std::size_t n_bars, std::uint64_t seed) {
  kbt::SynthOptions o;
  o.n_symbols = n_symbols;
  o.n_bars = n_bars;
  o.seed = seed;
  kbt::BarData bars = kbt::synth_bars(o);
  for (const char* col : {"open", "high", "low", "close", "volume"}) {
    auto& v = bars.columns.at(col);
    for (std::size_t s = 0; s < n_symbols; ++s)
      for (std::size_t t = 0; t < n_bars; ++t) {
        double& x = v[s * n_bars + t];
        x = std::floor(x / 4) * 4 + 4;
        if ((s % 7 == 3 && t < 40) || (s % 11 == 5 && t > 110)) x = std::nan("");
      }
  }
  return bars;
}

}  // namespace

// cs_rank in the thread sorts each cross-section (docs/kernels.md
// "Cross-sectional ranks"): on 64 symbols with many ties, unlisted (NaN)
// symbols, -0 against +0 and infinities, every rank has the bits of the
// reference's counts, on every space.
TEST(SeriesParity, CrossSectionalRanksOfManySymbolsGiveTheReferenceBits) {
  const std::size_t n = 150, n_symbols = 64;
  const kbt::BarData bars = tied_universe(n_symbols, n, 11);
  std::vector<kbt::ParamSpec> params(1);
  params[0].name = "a", params[0].values = {1, 3}, params[0].is_integer = true;
  int ties = 0, gaps = 0;
  for (const char* text : {"cs_rank(lag(close, a) * a)",                      // ties and NaN
                           "cs_rank(sign(close - lag(close, a)) * 0)",        // -0, +0 (and NaN)
                           "cs_rank(where(close > lag(close, a), log(close - close), close))"}) {  // -inf among values
    const kbt::Program program =
        kbt::compile_expression(kbt::SourceText{text, "<test>", 1, 1}, kbt::schema_of(bars), params);
    ASSERT_FALSE(kbt::sweep_kernel_unsupported(program)) << text;
    const kbt::SweepPlan plan = kbt::make_sweep_plan(program, bars);
    ASSERT_FALSE(plan.streamed.empty()) << text << ": cs_rank must run in the thread";
    for (double a : {1.0, 3.0}) {
      const std::vector<double> values{a};
      const auto ref = kbt::evaluate_expression_reference(program, bars, values.data());
      for (std::size_t t = 0; t < n; ++t) {
        std::map<double, int> seen;
        for (std::size_t s = 0; s < n_symbols; ++s) {
          const double y = ref[s * n + t];
          if (std::isnan(y)) ++gaps;
          else if (++seen[y] == 2) ++ties;
        }
      }
      for (const auto& d : devices()) {
        const auto got = kbt::evaluate_register_kernel_on(d, false, program, plan, bars, values, program.expression);
        EXPECT_TRUE(same_series(ref, got)) << d << ": " << text << " with a=" << a;
      }
    }
  }
  EXPECT_GT(ties, 1000);
  EXPECT_GT(gaps, 1000);
}

// The same cases hoisted (docs/kernels.md "Hoisted cross-sections"): the
// cross-section of a hoisted series is computed once per window value by the
// cross-section fold, in place after the fold, chains of them included; every
// value has the reference's bits on every space.
TEST(SeriesParity, HoistedCrossSectionsOfManySymbolsGiveTheReferenceBits) {
  const std::size_t n = 150;
  const kbt::BarData bars = tied_universe(64, n, 12);
  std::vector<kbt::ParamSpec> params(1);
  params[0].name = "a", params[0].values = {2, 5}, params[0].is_integer = true;
  for (const char* text : {"cs_rank(lag(close, a))", "cs_rank(roc(close, a))", "cs_zscore(lag(close, a))",
                           "cs_demean(rolling_std(close, a))", "cs_rank(lag(sign(close - lag(close, 1)) * 0, a))",
                           "cs_rank(cs_demean(sma(close, a)))", "cs_zscore(cs_rank(cs_demean(roc(close, a))))"}) {
    const kbt::Program program =
        kbt::compile_expression(kbt::SourceText{text, "<test>", 1, 1}, kbt::schema_of(bars), params);
    const kbt::SweepPlan plan = kbt::make_sweep_plan(program, bars);
    ASSERT_TRUE(plan.streamed.empty()) << text << ": the cross-section must be hoisted";
    ASSERT_EQ(plan.home[static_cast<std::size_t>(program.expression)], kbt::RegisterHome::hoisted) << text;
    int defined = 0;
    for (double a : {2.0, 5.0}) {
      const std::vector<double> values{a};
      const auto ref = kbt::evaluate_expression_reference(program, bars, values.data());
      for (const double y : ref) defined += std::isnan(y) ? 0 : 1;
      for (const auto& d : devices()) {
        const auto got = kbt::evaluate_register_kernel_on(d, false, program, plan, bars, values, program.expression);
        EXPECT_TRUE(same_series(ref, got)) << d << ": " << text << " with a=" << a;
      }
    }
    EXPECT_GT(defined, 5000) << text;
  }
}

TEST(SeriesParity, EvalCliOnAKokkosSpaceWritesTheReferenceOutput) {
  const std::string data = std::string(KBT_SOURCE_DIR) + "/data/sample.h5";
  const std::string expr = "\"zscore(close - ema(close, n), 30) + cs_rank(roc(close, n))\" --param n=24";
  const auto ref = kbt::test::run_kbt("eval --data " + data + " --expr " + expr);
  ASSERT_EQ(ref.exit_code, 0) << ref.output;
  for (const auto& d : devices()) {
    const auto got = kbt::test::run_kbt("eval --device " + d + " --data " + data + " --expr " + expr);
    ASSERT_EQ(got.exit_code, 0) << got.output;
    EXPECT_EQ(got.output, ref.output) << d;
  }
}
