// Hoisting throughput of the fold kernels: every distinct window of one op over
// every symbol and bar, in one FoldHoister::compute, per enabled execution
// space and precision. Rate counter: series x bars per second, where a
// "series bar" is one output value (series x symbols x bars in total).
//
//   build/benchmarks/bench_fold --benchmark_filter='sma'   (args: windows/bars)
//
// Next to the kernels: the reference engine doing the same hoisting (one
// evaluate_registers_reference per window value), and two hand-written
// single-thread host loops over the same
// work: the same definitional O(w) sum (the cost floor of bit parity), and a
// sliding-window O(1) running sum (fast, but not bit-identical to the
// reference; shown to price the parity rule).

#include <Kokkos_Core.hpp>
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include <kbt/kernels/kernels.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>

namespace {

using kbt::kernels::FoldHoister;
using kbt::kernels::FoldOp;
using kbt::kernels::FoldRequest;

constexpr int kSymbols = 3;

// Windows 2, 4, ..., 2 * n_windows: the distinct values of a typical
// `range: [2, 200, 2]` parameter.
std::vector<FoldRequest> requests_for(FoldOp op, int n_windows) {
  std::vector<FoldRequest> r;
  for (int i = 1; i <= n_windows; ++i) r.push_back({op, 0, 2 * i});
  return r;
}

std::vector<double> random_walk(int n_sym, int n_bars) {
  std::vector<double> x(static_cast<std::size_t>(n_sym) * n_bars);
  std::mt19937_64 rng(42);
  std::uniform_real_distribution<double> u(-0.01, 0.01);
  for (int s = 0; s < n_sym; ++s) {
    double p = 100.0;
    for (int t = 0; t < n_bars; ++t) x[static_cast<std::size_t>(s) * n_bars + t] = p *= 1.0 + u(rng);
  }
  return x;
}

template <class Space, class Real>
void BM_Hoist(benchmark::State& state, FoldOp op) {
  const int n_windows = static_cast<int>(state.range(0));
  const int n_bars = static_cast<int>(state.range(1));
  const auto host = random_walk(kSymbols, n_bars);
  Kokkos::View<Real***, Kokkos::LayoutRight, typename Space::memory_space> in(
      "bench_inputs", 1, kSymbols, n_bars);
  auto mirror = Kokkos::create_mirror_view(in);
  for (int s = 0; s < kSymbols; ++s)
    for (int t = 0; t < n_bars; ++t)
      mirror(0, s, t) = static_cast<Real>(host[static_cast<std::size_t>(s) * n_bars + t]);
  Kokkos::deep_copy(in, mirror);

  FoldHoister<Space, Real> hoist(requests_for(op, n_windows), 1, kSymbols, n_bars);
  const Space exec;
  exec.fence();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    hoist.compute(exec, in);  // fences exec before returning
    const auto stop = std::chrono::steady_clock::now();
    state.SetIterationTime(std::chrono::duration<double>(stop - start).count());
  }
  const double values = static_cast<double>(hoist.n_series()) * kSymbols * n_bars;
  state.counters["series_bars/s"] =
      benchmark::Counter(values, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["series"] = static_cast<double>(hoist.n_series());
  state.counters["MiB"] = static_cast<double>(hoist.bytes()) / (1024.0 * 1024.0);
  state.counters["launches"] = hoist.launches();
}

// One thread, plain loops, the same definitional sums as the kernels.
void BM_HandLoopDefinitionalSma(benchmark::State& state) {
  const int n_windows = static_cast<int>(state.range(0));
  const int n_bars = static_cast<int>(state.range(1));
  const auto x = random_walk(kSymbols, n_bars);
  std::vector<double> out(static_cast<std::size_t>(n_bars));
  for (auto _ : state) {
    for (int i = 1; i <= n_windows; ++i) {
      const int w = 2 * i;
      for (int s = 0; s < kSymbols; ++s) {
        const double* row = x.data() + static_cast<std::size_t>(s) * n_bars;
        for (int t = w - 1; t < n_bars; ++t) {
          double sum = 0.0;
          for (int k = t - w + 1; k <= t; ++k) sum += row[k];
          out[t] = sum / w;
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
      }
    }
  }
  state.counters["series_bars/s"] = benchmark::Counter(
      static_cast<double>(n_windows) * kSymbols * n_bars, benchmark::Counter::kIsIterationInvariantRate);
}

// One thread, sliding running sum: O(1) per bar, NOT bit-identical.
void BM_HandLoopSlidingSma(benchmark::State& state) {
  const int n_windows = static_cast<int>(state.range(0));
  const int n_bars = static_cast<int>(state.range(1));
  const auto x = random_walk(kSymbols, n_bars);
  std::vector<double> out(static_cast<std::size_t>(n_bars));
  for (auto _ : state) {
    for (int i = 1; i <= n_windows; ++i) {
      const int w = 2 * i;
      for (int s = 0; s < kSymbols; ++s) {
        const double* row = x.data() + static_cast<std::size_t>(s) * n_bars;
        double sum = 0.0;
        for (int t = 0; t < n_bars; ++t) {
          sum += row[t];
          if (t >= w) sum -= row[t - w];
          out[t] = sum / w;
        }
        benchmark::DoNotOptimize(out.data());
        benchmark::ClobberMemory();
      }
    }
  }
  state.counters["series_bars/s"] = benchmark::Counter(
      static_cast<double>(n_windows) * kSymbols * n_bars, benchmark::Counter::kIsIterationInvariantRate);
}

// The same hoisting done by the reference engine, one window value at a time
// (evaluate_registers_reference of `sma(close, w)` per value of w): the host
// path the kernels replace.
void BM_ReferenceSma(benchmark::State& state) {
  const int n_windows = static_cast<int>(state.range(0));
  const int n_bars = static_cast<int>(state.range(1));
  kbt::BarData data;
  for (int t = 0; t < n_bars; ++t) data.timestamps.push_back(std::int64_t{60'000'000'000} * (t + 1));
  for (int s = 0; s < kSymbols; ++s) data.symbols.push_back("S" + std::to_string(s));
  data.columns["close"] = random_walk(kSymbols, n_bars);
  for (const char* c : {"open", "high", "low", "volume"}) data.columns[c] = data.columns["close"];
  kbt::ParamSpec w;
  w.name = "w";
  w.is_integer = true;
  for (int i = 1; i <= n_windows; ++i) w.values.push_back(2.0 * i);
  const kbt::Program program = kbt::compile_expression(kbt::SourceText{"sma(close, w)", "<bench>", 1, 1},
                                                       kbt::schema_of(data), {w});
  for (auto _ : state) {
    for (double value : w.values) {
      auto regs = kbt::evaluate_registers_reference(program, data, &value);
      benchmark::DoNotOptimize(regs.data());
    }
  }
  state.counters["series_bars/s"] = benchmark::Counter(
      static_cast<double>(n_windows) * kSymbols * n_bars, benchmark::Counter::kIsIterationInvariantRate);
}

// ---- hoisted cross-sections (docs/kernels.md "Hoisted cross-sections") ----
// cs_rank(roc(close, w)) for w = 5, 10, ..., 120 (24 windows) over N symbols:
// the fold kernel against a loop written the way a quant ranks a panel (for
// each window and bar, std::sort of (value, symbol) pairs, ties averaged).

std::vector<FoldRequest> ranked_momentum() {
  std::vector<FoldRequest> r;
  for (int w = 5; w <= 120; w += 5) {
    r.push_back({FoldOp::roc, 0, w});
    r.back().cross_section.n = 1;
    r.back().cross_section.ops[0] = kbt::OpCode::cs_rank;
  }
  return r;
}

template <class Space>
void BM_HoistRankedMomentum(benchmark::State& state) {
  const int n_sym = static_cast<int>(state.range(0)), n_bars = static_cast<int>(state.range(1));
  const auto host = random_walk(n_sym, n_bars);
  Kokkos::View<double***, Kokkos::LayoutRight, typename Space::memory_space> in("bench_inputs", 1, n_sym, n_bars);
  auto mirror = Kokkos::create_mirror_view(in);
  for (int s = 0; s < n_sym; ++s)
    for (int t = 0; t < n_bars; ++t) mirror(0, s, t) = host[static_cast<std::size_t>(s) * n_bars + t];
  Kokkos::deep_copy(in, mirror);
  FoldHoister<Space, double> hoist(ranked_momentum(), 1, n_sym, n_bars);
  const Space exec;
  exec.fence();
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    hoist.compute(exec, in);
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  }
  state.counters["series_bars/s"] = benchmark::Counter(static_cast<double>(hoist.n_series()) * n_bars,
                                                       benchmark::Counter::kIsIterationInvariantRate);
}

void BM_HandLoopRankedMomentum(benchmark::State& state) {
  const int n_sym = static_cast<int>(state.range(0)), n_bars = static_cast<int>(state.range(1));
  const auto close = random_walk(n_sym, n_bars);
  std::vector<std::pair<double, int>> panel(static_cast<std::size_t>(n_sym));
  std::vector<double> rank(static_cast<std::size_t>(n_sym) * n_bars);
  for (auto _ : state) {
    for (int w = 5; w <= 120; w += 5) {
      for (int t = w; t < n_bars; ++t) {
        for (int s = 0; s < n_sym; ++s) {
          const double* row = close.data() + static_cast<std::size_t>(s) * n_bars;
          panel[static_cast<std::size_t>(s)] = {row[t] / row[t - w] - 1.0, s};
        }
        std::sort(panel.begin(), panel.end());
        for (int first = 0; first < n_sym;) {
          int end = first + 1;
          while (end < n_sym && panel[static_cast<std::size_t>(end)].first == panel[static_cast<std::size_t>(first)].first) ++end;
          const double r = (first + (end - first + 1) / 2.0 - 1.0) / (n_sym - 1);
          for (int k = first; k < end; ++k) rank[static_cast<std::size_t>(panel[static_cast<std::size_t>(k)].second) * n_bars + t] = r;
          first = end;
        }
      }
      benchmark::DoNotOptimize(rank.data());
      benchmark::ClobberMemory();
    }
  }
  state.counters["series_bars/s"] =
      benchmark::Counter(24.0 * n_bars, benchmark::Counter::kIsIterationInvariantRate);
}

void universe_args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"symbols", "bars"});
  b->Args({50, 2000});
  b->Args({500, 2000});
  b->Args({2000, 500});
  b->Unit(benchmark::kMillisecond);
}

void args(benchmark::internal::Benchmark* b) {
  b->ArgNames({"windows", "bars"});
  b->Args({100, 10000});
  b->Args({100, 100000});
  b->Unit(benchmark::kMillisecond);
}

template <class Space>
void register_space() {
  const std::string space = Space::name();
  const struct {
    const char* name;
    FoldOp op;
  } ops[] = {{"sma", FoldOp::rolling_mean}, {"std", FoldOp::rolling_std}, {"min", FoldOp::rolling_min},
             {"ema", FoldOp::ema}};
  for (const auto& o : ops) {
    benchmark::RegisterBenchmark(("hoist/" + space + "/fp64/" + o.name).c_str(), BM_Hoist<Space, double>, o.op)
        ->Apply(args)
        ->UseManualTime();
    benchmark::RegisterBenchmark(("hoist/" + space + "/fp32/" + o.name).c_str(), BM_Hoist<Space, float>, o.op)
        ->Apply(args)
        ->UseManualTime();
  }
  benchmark::RegisterBenchmark(("hoist/" + space + "/fp64/ranked_momentum").c_str(), BM_HoistRankedMomentum<Space>)
      ->Apply(universe_args)
      ->UseManualTime();
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
#ifdef KOKKOS_ENABLE_SERIAL
  register_space<Kokkos::Serial>();
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  register_space<Kokkos::OpenMP>();
#endif
#ifdef KOKKOS_ENABLE_CUDA
  register_space<Kokkos::Cuda>();
#endif
  benchmark::RegisterBenchmark("reference_engine/sma", BM_ReferenceSma)->Apply(args);
  benchmark::RegisterBenchmark("hand_loop/definitional/sma", BM_HandLoopDefinitionalSma)->Apply(args);
  benchmark::RegisterBenchmark("hand_loop/sliding_not_bit_identical/sma", BM_HandLoopSlidingSma)->Apply(args);
  benchmark::RegisterBenchmark("hand_loop/std_sort/ranked_momentum", BM_HandLoopRankedMomentum)->Apply(universe_args);

  benchmark::AddCustomContext("kokkos_version", std::to_string(KOKKOS_VERSION));
  benchmark::AddCustomContext("kokkos_default_space", Kokkos::DefaultExecutionSpace::name());
  benchmark::AddCustomContext("kokkos_default_concurrency",
                              std::to_string(Kokkos::DefaultExecutionSpace().concurrency()));
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
