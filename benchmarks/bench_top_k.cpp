// Top-K selection where the metrics are (kbt/sweep/device_top_k.hpp): the
// bisection over the keys against the keys' partial sort on the host, per
// enabled space, so that the method `automatic` picks is a ratio of one run
// (docs/benchmarks.md "Top-K"). Rows: the combos of one checkpoint chunk;
// k: the chunk's selection, max(sweep.top_k, verify.top_n).
//
//   build/benchmarks/bench_top_k --benchmark_filter='openmp'   (args: rows/k)

#include <benchmark/benchmark.h>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/device_top_k.hpp>

#include <Kokkos_Core.hpp>

#include "fastest_repetition.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace {

// Sharpe ratios with ties and a few NaN, every row above min_trades, and
// shuffled combo ids: the rows of a real chunk, in no particular order.
template <class Mem>
struct Rows {
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> metrics;
  Kokkos::View<std::uint64_t*, Mem> ids;
};

template <class Mem>
Rows<Mem> random_rows(std::size_t n) {
  std::mt19937_64 rng(7);
  Rows<Mem> r{Kokkos::View<double**, Kokkos::LayoutRight, Mem>("metrics", n, kbt::n_metrics),
              Kokkos::View<std::uint64_t*, Mem>("ids", n)};
  auto hm = Kokkos::create_mirror_view(r.metrics);
  auto hi = Kokkos::create_mirror_view(r.ids);
  std::normal_distribution<double> sharpe(0.0, 1.0);
  for (std::size_t i = 0; i < n; ++i) {
    hm(i, int(kbt::Metric::sharpe)) = rng() % 50 == 0 ? std::nan("") : sharpe(rng);
    hm(i, int(kbt::Metric::n_trades)) = 10.0;
    hi(i) = i;
  }
  std::shuffle(hi.data(), hi.data() + n, rng);
  Kokkos::deep_copy(r.metrics, hm);
  Kokkos::deep_copy(r.ids, hi);
  return r;
}

template <class Space>
void BM_TopK(benchmark::State& state, kbt::TopKMethod method) {
  const auto n = static_cast<std::size_t>(state.range(0));
  const auto k = static_cast<std::size_t>(state.range(1));
  const Rows<typename Space::memory_space> rows = random_rows<typename Space::memory_space>(n);
  kbt::Objective objective;
  objective.metric = "sharpe";
  objective.min_trades = 1;
  std::size_t selected = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto top = kbt::select_top_k_on(Space(), rows.metrics, rows.ids, objective, k, method);  // fences
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    selected = top.extent(0);
  }
  if (selected != std::min(k, n)) state.SkipWithError("selected fewer rows than k");
  state.counters["rows_per_s"] = benchmark::Counter(double(n), benchmark::Counter::kIsIterationInvariantRate);
}

template <class Space>
void register_space(const std::string& space) {
  const std::pair<const char*, kbt::TopKMethod> methods[] = {{"bisection", kbt::TopKMethod::bisection},
                                                            {"host_partial_sort", kbt::TopKMethod::host_partial_sort}};
  for (const auto& [name, method] : methods) {
    if (method == kbt::TopKMethod::host_partial_sort && !kbt::detail::host_reads_memory_of<Space>()) continue;
    benchmark::RegisterBenchmark(("top_k/" + space + "/" + name).c_str(), BM_TopK<Space>, method)
        ->ArgsProduct({{190, 10000, 1000000}, {100, 1000}})
        ->ArgNames({"rows", "k"})
        ->UseManualTime()
        ->Unit(benchmark::kMicrosecond)
        ->ComputeStatistics("min", fastest);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
#ifdef KOKKOS_ENABLE_SERIAL
  register_space<Kokkos::Serial>("serial");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  register_space<Kokkos::OpenMP>("openmp");
#endif
#ifdef KOKKOS_ENABLE_CUDA
  register_space<Kokkos::Cuda>("cuda");
#endif
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
