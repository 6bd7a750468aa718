// Verification throughput (docs/verify.md): 5000 candidates of an SMA
// crossover on 4000 synthetic bars re-run on the reference engine, at 1 and 2
// host threads. Reports verifications/s.
//
//   build/benchmarks/bench_verify [--benchmark_filter=...]

#include <benchmark/benchmark.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/verify/verify.hpp>

#include <Kokkos_Core.hpp>

namespace {

// 50 x 100 = 5000 combos, every one a candidate (min_trades 0).
const char* kConfig = R"(
data: synthetic.h5
strategy:
  params:
    fast: {range: [2, 51, 1]}
    slow: {range: [20, 119, 1]}
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
simulation: {fee_bps: 5, slippage_bps: 1}
sweep: {device: reference, objective: {metric: sharpe, direction: max, min_trades: 0}, top_k: 100}
verify: {top_n: 5000}
)";

struct Setup {
  kbt::RunConfig config;
  kbt::BarData bars;
  kbt::SweepResults sweep;
};

const Setup& setup() {
  static const Setup s = [] {
    Setup x;
    x.config = kbt::parse_run_config(kConfig, "bench_verify.yaml", "");
    kbt::SynthOptions o;
    o.n_symbols = 1;
    o.n_bars = 4000;
    o.seed = 11;
    x.bars = kbt::synth_bars(o);
    kbt::SweepRequest request;
    request.quiet = true;  // all cores: the sweep is setup, not measured
    x.sweep = kbt::run_sweep(x.config, x.bars, request).results;
    return x;
  }();
  return s;
}

void BM_Verify(benchmark::State& state) {
  const Setup& s = setup();
  kbt::VerifyRequest request = kbt::verify_request_from_config(s.config);
  request.threads = static_cast<int>(state.range(0));
  std::size_t verified = 0, mismatches = 0;
  for (auto _ : state) {
    const auto v = kbt::verify_candidates(s.config, s.bars, s.sweep, request);
    verified += v.n();
    mismatches += v.n_mismatches();
    benchmark::DoNotOptimize(v.metrics.data());
  }
  if (mismatches != 0) state.SkipWithError("verified metrics differ from the sweep's");
  state.counters["verifications/s"] = benchmark::Counter(static_cast<double>(verified), benchmark::Counter::kIsRate);
  state.counters["candidates"] = static_cast<double>(verified / static_cast<std::size_t>(state.iterations()));
}

BENCHMARK(BM_Verify)->Arg(1)->Arg(2)->Unit(benchmark::kSecond)->Iterations(1)->UseRealTime();

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos;  // the reference engine needs no Kokkos arguments
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
