// Triple-barrier labels per second (docs/label.md, docs/benchmarks.md
// "Labels"): the kernel on every enabled space against the plain host loop
// (the reference engine) doing the same work, in one run: 1 symbol x 300,000
// bars, every bar an event, 4 barrier settings with a 48-bar horizon. The
// kernel's labels are checked against the host loop's before timing (the
// program fails when they differ).
//
//   build/benchmarks/bench_label --benchmark_repetitions=5
//   ratio: items_per_second of labels/<space> over labels/host_loop

#include <benchmark/benchmark.h>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/label/label_job.hpp>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "support/synthetic.hpp"

namespace {

constexpr std::size_t kBars = 300000;

struct Workload {
  kbt::BarData bars = kbt::test::synthetic_bars(1, kBars, 3);
  std::vector<double> volatility = std::vector<double>(kBars);
  std::vector<kbt::BarrierSetting> settings = {{1, 1, 48}, {2, 1, 48}, {1, 2, 48}, {2, 2, 48}};
  kbt::BarrierInputs in;

  Workload() {
    const auto& close = bars.columns.at("close");
    // A 50-bar mean absolute log return: a width that scales with the data.
    for (std::size_t b = 50; b < kBars; ++b) {
      double sum = 0;
      for (std::size_t i = b - 49; i <= b; ++i) sum += std::fabs(std::log(close[i] / close[i - 1]));
      volatility[b] = sum / 50;
    }
    in.n_symbols = 1;
    in.n_bars = kBars;
    in.open = bars.columns.at("open").data();
    in.high = bars.columns.at("high").data();
    in.low = bars.columns.at("low").data();
    in.close = close.data();
    in.volatility = volatility.data();
  }
};

const Workload& workload() {
  static const Workload w;
  return w;
}

void BM_Labels(benchmark::State& state, const std::string& device) {
  const Workload& w = workload();
  for (auto _ : state) {
    const auto labels = kbt::triple_barrier_on_device(device, w.in, w.settings);
    benchmark::DoNotOptimize(labels.ret.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * w.settings.size() * kBars));
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  const Workload& w = workload();
  const auto expected = kbt::triple_barrier_reference(w.in, w.settings);
  benchmark::RegisterBenchmark("labels/host_loop", BM_Labels, std::string("reference"))
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  for (const auto& space : kbt::enabled_execution_spaces()) {
    const auto got = kbt::triple_barrier_on_device(space.name, w.in, w.settings);
    if (got.label != expected.label || got.touch_bar != expected.touch_bar || got.barrier != expected.barrier) {
      std::fprintf(stderr, "bench_label: the %s kernel's labels differ from the host loop's\n", space.name.c_str());
      return 1;
    }
    benchmark::RegisterBenchmark(("labels/" + space.name).c_str(), BM_Labels, space.name)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
