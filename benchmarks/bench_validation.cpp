// The validation stage's device work (docs/validation.md): PBO by CSCV with
// K = 1,000 candidates, P = 2,500 periods and S = 16 blocks (12,870 splits),
// and the K x K correlation matrix by KokkosBlas::gemm, on every enabled space.

#include <benchmark/benchmark.h>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/validation/correlation.hpp>
#include <kbt/validation/pbo.hpp>

#include <Kokkos_Core.hpp>

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

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  for (const auto& space : kbt::enabled_execution_spaces()) {
    benchmark::RegisterBenchmark(("pbo/" + space.name).c_str(), BM_Pbo, space.name)
        ->Arg(16)->Unit(benchmark::kMillisecond)->UseRealTime();
    benchmark::RegisterBenchmark(("correlation_gemm/" + space.name).c_str(), BM_Correlation, space.name)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
