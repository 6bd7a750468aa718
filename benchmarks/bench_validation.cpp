// The validation stage's device work (docs/validation.md): PBO by CSCV with
// K = 1,000 candidates, P = 2,500 periods and S = 16 blocks (12,870 splits),
// the K x K correlation matrix by KokkosBlas::gemm, and the walk-forward's
// ranking of a grid on F = 8 train windows in one kernel pass against 8
// separate passes and against one sweep of the whole data (ratios measured in
// the same run), on every enabled space.

#include <benchmark/benchmark.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/sweep_engine.hpp>
#include <kbt/validation/correlation.hpp>
#include <kbt/validation/pbo.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <random>
#include <string>
#include <vector>

namespace {

constexpr std::size_t kCandidates = 1000, kPeriods = 2500;

const std::vector<double>& returns() {
  static const std::vector<double> m = [] {
    std::mt19937_64 rng(1);
    std::normal_distribution<double> d(0.0, 0.01);
    std::vector<double> r(kPeriods * kCandidates);
    for (double& x : r) x = d(rng);
    return r;
  }();
  return m;
}

void BM_Pbo(benchmark::State& state, const std::string& device) {
  const auto blocks = static_cast<std::size_t>(state.range(0));
  kbt::PboResult r;
  for (auto _ : state) {
    r = kbt::probability_of_backtest_overfitting(returns(), kPeriods, kCandidates, blocks, device);
    benchmark::DoNotOptimize(r.pbo);
  }
  state.counters["splits"] = static_cast<double>(r.splits);
  state.counters["pbo"] = r.pbo;
}

void BM_Correlation(benchmark::State& state, const std::string& device) {
  for (auto _ : state) {
    const auto c = kbt::correlation_of(returns(), kPeriods, kCandidates, device);
    benchmark::DoNotOptimize(c.mean_off_diagonal);
  }
}

// The SMA cross (fast 5..50 step 5, slow 20..200 step 10, fast < slow) on
// 100k hourly bars; a rolling walk-forward of 8 folds, train 20k bars, step
// 10k: train windows [10k f, 10k f + 20k).
void BM_WalkForwardRanking(benchmark::State& state, const std::string& device) {
  constexpr std::size_t n_bars = 100000, folds = 8;
  static const kbt::BarData bars = [] {
    kbt::SynthOptions o;
    o.n_symbols = 1;
    o.n_bars = n_bars;
    o.seed = 3;
    return kbt::synth_bars(o);
  }();
  const kbt::RunConfig config = kbt::parse_run_config(
      "data: unused.h5\nstrategy:\n  params:\n    fast: {range: [5, 50, 5]}\n    slow: {range: [20, 200, 10]}\n"
      "  constraints: ['fast < slow']\n  signals:\n    f: sma(close, fast)\n    s: sma(close, slow)\n"
      "  position: where(f > s, 1, -1)\nsimulation: {fee_bps: 1}\nsweep: {objective: {metric: sharpe}}\n",
      "<bench>", "");
  const kbt::PreparedSweep sweep = kbt::prepare_sweep(config, bars);
  const auto engine = kbt::make_kernel_engine(sweep, bars, device, false);
  std::vector<kbt::ScoringWindow> train;
  for (std::size_t f = 0; f < folds; ++f) train.push_back({10000 * f, 10000 * f + 20000});
  const kbt::EngineTopK top_k{config.sweep.objective, 10};
  const std::size_t n = sweep.n_combos();
  using Clock = std::chrono::steady_clock;
  const auto seconds = [](auto&& f) {
    const auto t0 = Clock::now();
    f();
    return std::chrono::duration<double>(Clock::now() - t0).count();
  };
  double one_sweep = 0, one_pass = 0, separate = 0;
  for (auto _ : state) {
    one_sweep += seconds([&] { benchmark::DoNotOptimize(engine->run(0, n, {}, top_k).metrics.data()); });
    one_pass += seconds([&] { benchmark::DoNotOptimize(engine->run(0, n, train, top_k).metrics.data()); });
    separate += seconds([&] {
      for (const kbt::ScoringWindow& w : train) benchmark::DoNotOptimize(engine->run(0, n, {w}, top_k).metrics.data());
    });
  }
  const double iterations = static_cast<double>(state.iterations());
  state.counters["combos"] = static_cast<double>(n);
  state.counters["sweep_s"] = one_sweep / iterations;
  state.counters["one_pass_s"] = one_pass / iterations;
  state.counters["separate_s"] = separate / iterations;
  state.counters["one_pass_per_sweep"] = one_pass / one_sweep;      // goal < 2
  state.counters["separate_per_one_pass"] = separate / one_pass;
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  for (const auto& space : kbt::enabled_execution_spaces()) {
    benchmark::RegisterBenchmark(("pbo/" + space.name).c_str(), BM_Pbo, space.name)
        ->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("correlation_gemm/" + space.name).c_str(), BM_Correlation, space.name)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("walk_forward_ranking/" + space.name).c_str(), BM_WalkForwardRanking, space.name)
        ->Iterations(3)->Unit(benchmark::kSecond)->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
