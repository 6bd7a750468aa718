// Trial-bars per second of an action-driven simulation (docs/simulate.md,
// docs/benchmarks.md "Simulate"): the kernel on every enabled space against
// the plain host loop (the reference engine) doing the same work, in one run.
// 1 symbol, 1,024 trials x 20,000 bars of random exposures held 24 bars, fees,
// slippage and a spread (KBT_BENCH_TRIALS / KBT_BENCH_BARS change the size:
// the 1,024 x 300,000 needs 2.5 GB of actions and minutes per host
// iteration). Three ways per space:
//   simulate/<space>           the host API: actions uploaded, metrics brought back, per call
//   simulate/<space>/resident  a training loop: ActionSimulator::run on actions already on the device
//   simulate/<space>/per_bar   as resident, with equity, units, unrealised PnL, drawdown and rewards
// The kernel's metrics are checked against the host loop's by bits before
// timing (the program fails when they differ).
//
//   build/benchmarks/bench_simulate --benchmark_repetitions=3
//   ratio: items_per_second of simulate/<space>... over simulate/host_loop

#include <benchmark/benchmark.h>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/simulate/action_simulator.hpp>
#include <kbt/simulate/simulate_job.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "support/synthetic.hpp"

namespace {

std::size_t from_env(const char* name, std::size_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? static_cast<std::size_t>(std::strtoull(v, nullptr, 10)) : fallback;
}

struct Workload {
  std::size_t trials = from_env("KBT_BENCH_TRIALS", 1024), bars_n = from_env("KBT_BENCH_BARS", 20000);
  kbt::BarData bars = kbt::test::synthetic_bars(1, bars_n, 3);
  kbt::Actions actions = kbt::random_policy_actions(trials, 1, bars_n, 11, 24, kbt::ActionKind::exposure);
  kbt::ActionSettings settings{kbt::ActionKind::exposure, 0.1, 2};
  kbt::ResolvedSimulation sim;

  Workload() {
    kbt::SimulationSettings s;
    s.fee_bps = 4;
    s.slippage_bps = 1;
    sim = kbt::resolve_simulation(kbt::with_spread(s, settings.spread_bps), bars);
  }
  std::int64_t trial_bars() const { return static_cast<std::int64_t>(trials * (sim.window.end - sim.window.begin)); }
};

const Workload& workload() {
  static const Workload w;
  return w;
}

void BM_HostApi(benchmark::State& state, const std::string& device) {
  const Workload& w = workload();
  for (auto _ : state) {
    const auto r = kbt::simulate_actions_on(device, w.bars, w.sim, w.actions.matrix(), w.settings, false, {});
    benchmark::DoNotOptimize(r.metrics.data());
  }
  state.SetItemsProcessed(state.iterations() * w.trial_bars());
}

// The training-loop path: the simulator and the actions stay on the device.
template <class Space>
void BM_Resident(benchmark::State& state, bool per_bar) {
  const Workload& w = workload();
  using Mem = typename Space::memory_space;
  kbt::ActionSimulator<Space> sim(w.bars, w.sim);
  const auto actions = Kokkos::create_mirror_view_and_copy(
      Mem(), Kokkos::View<const double***, Kokkos::LayoutRight, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                 w.actions.values.data(), w.trials, 1, w.bars_n));
  typename kbt::ActionSimulator<Space>::Outputs out;
  const std::size_t nt = w.trials, nw = per_bar ? sim.n_window_bars() : 0;
  out.metrics = decltype(out.metrics)("metrics", nt, kbt::n_metrics);
  if (per_bar) {
    out.equity = decltype(out.equity)("equity", nt, nw);
    out.drawdown = decltype(out.drawdown)("drawdown", nt, nw);
    out.open_pnl = decltype(out.open_pnl)("open_pnl", nt, nw);
    out.reward = decltype(out.reward)("reward", nt, nw);
    out.units = decltype(out.units)("units", nt, nw, 1);
  }
  for (auto _ : state) sim.run(actions, w.settings, out, {kbt::RewardKind::differential_sharpe, 0.01});
  state.SetItemsProcessed(state.iterations() * w.trial_bars());
}

template <class Space>
void register_resident(const std::string& name) {
  benchmark::RegisterBenchmark(("simulate/" + name + "/resident").c_str(), BM_Resident<Space>, false)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  benchmark::RegisterBenchmark(("simulate/" + name + "/per_bar").c_str(), BM_Resident<Space>, true)
      ->Unit(benchmark::kMillisecond)->UseRealTime();
}

void register_resident_for(const std::string& name) {
#ifdef KOKKOS_ENABLE_SERIAL
  if (name == "serial") register_resident<Kokkos::Serial>(name);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (name == "openmp") register_resident<Kokkos::OpenMP>(name);
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (name == "cuda") register_resident<Kokkos::Cuda>(name);
#endif
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  const Workload& w = workload();
  std::printf("simulate: %zu trials x %zu bars (%lld trial-bars per iteration)\n", w.trials, w.bars_n,
              static_cast<long long>(w.trial_bars()));
  const auto expected =
      kbt::simulate_actions_on("reference", w.bars, w.sim, w.actions.matrix(), w.settings, false, {});
  benchmark::RegisterBenchmark("simulate/host_loop", BM_HostApi, std::string("reference"))
      ->Unit(benchmark::kMillisecond)->UseRealTime();
  for (const auto& space : kbt::enabled_execution_spaces()) {
    const auto got = kbt::simulate_actions_on(space.name, w.bars, w.sim, w.actions.matrix(), w.settings, false, {});
    if (got.metrics.size() != expected.metrics.size() ||
        std::memcmp(got.metrics.data(), expected.metrics.data(), got.metrics.size() * sizeof(double)) != 0) {
      std::fprintf(stderr, "bench_simulate: the %s kernel's metrics differ from the host loop's\n", space.name.c_str());
      return 1;
    }
    benchmark::RegisterBenchmark(("simulate/" + space.name).c_str(), BM_HostApi, space.name)
        ->Unit(benchmark::kMillisecond)->UseRealTime();
    register_resident_for(space.name);
  }
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
