// Sweep throughput in bar-combos per second (PERFORMANCE-NOTES.md): the generic
// sweep kernel on every enabled space and precision, next to hand-written
// single-purpose SMA-cross loops (plain C++ on the host, and a plain Kokkos
// lambda) measured in the same run. The ratio kernel / hand-written is the
// figure of merit.

#include <benchmark/benchmark.h>
#include <kbt/config_loader.hpp>
#include <kbt/data_io.hpp>
#include <kbt/execution_spaces.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <memory>

namespace {

const char* kSmaCross = R"(data: unused.h5
strategy:
  params:
    fast: {range: [5, 50, 5]}
    slow: {range: [20, 400, 20]}
  constraints: ["fast < slow"]
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
simulation:
  fee_bps: 5
)";

struct Setup {
  kbt::RunConfig config;
  kbt::BarData bars;
  kbt::Program program;
  kbt::SweepPlan plan;
  std::vector<double> params;  // [n][2]
  std::size_t n_combos = 0;
};

std::unique_ptr<Setup> make_setup(std::size_t n_bars) {
  auto s = std::make_unique<Setup>();
  s->config = kbt::parse_run_config(kSmaCross, "<bench>", "");
  kbt::SynthOptions o;
  o.n_symbols = 1;
  o.n_bars = n_bars;
  o.seed = 11;
  s->bars = kbt::synth_bars(o);
  s->program = kbt::compile_strategy(s->config.strategy, kbt::schema_of(s->bars));
  const kbt::ParamGrid grid(s->config.strategy.params);
  const auto ids = kbt::filter_combos(grid, [&](const double* v) { return kbt::constraints_hold(s->program, v); });
  s->n_combos = ids.size();
  s->params.resize(ids.size() * 2);
  for (std::size_t i = 0; i < ids.size(); ++i) grid.combo_values(ids[i], &s->params[i * 2]);
  s->config.simulation.periods_per_year = kbt::resolve_periods_per_year(s->bars, s->config.simulation);
  s->plan = kbt::make_sweep_plan(s->program, s->bars);
  return s;
}

Setup& setup(std::size_t n_bars) {
  static std::unique_ptr<Setup> s10k, s100k;
  auto& s = n_bars <= 10000 ? s10k : s100k;
  if (!s) s = make_setup(n_bars);
  return *s;
}

void report(benchmark::State& state, const Setup& s) {
  state.counters["bar_combos_per_s"] = benchmark::Counter(
      static_cast<double>(s.n_combos) * static_cast<double>(s.bars.n_bars()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["combos"] = static_cast<double>(s.n_combos);
}

void BM_SweepKernel(benchmark::State& state, const std::string& device, bool fp32) {
  Setup& s = setup(static_cast<std::size_t>(state.range(0)));
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    auto m = kbt::run_sweep_kernel_on(device, fp32, s.program, s.plan, s.bars, s.config.simulation, s.params);
    benchmark::DoNotOptimize(m.data());
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  report(state, s);
}

// The hoisted SMA rows of the plan, by window value.
const std::vector<double>& sma_row(const Setup& s, int reg_slot, double window) {
  const auto& ws = s.plan.hoisted_windows[static_cast<std::size_t>(reg_slot)];
  const auto it = std::lower_bound(ws.begin(), ws.end(), static_cast<std::int64_t>(window));
  return s.plan.hoisted_series[static_cast<std::size_t>(s.plan.hoisted_first_row[static_cast<std::size_t>(reg_slot)] +
                                                        (it - ws.begin()))];
}

// Hand-written SMA cross: hoisted SMAs, one combo per iteration, state in
// registers, close fills with fees, equity and a Welford Sharpe.
inline double hand_sma_cross(const double* close, const double* f, const double* sl, std::size_t n, double fee) {
  double cash = 10000, units = 0, held = 0, prev = 10000, mean = 0, m2 = 0;
  long k = 0;
  for (std::size_t t = 0; t < n; ++t) {
    const double c = close[t];
    double target = held;
    if (!std::isnan(f[t]) && !std::isnan(sl[t])) target = f[t] > sl[t] ? 1.0 : -1.0;
    const double eq = cash + units * c;
    if (target != held) {
      const double nu = target * eq / c, d = nu - units;
      cash -= d * c + std::fabs(d) * c * fee;
      units = nu;
      held = target;
    }
    const double e = cash + units * c, r = e / prev - 1;
    prev = e;
    ++k;
    const double delta = r - mean;
    mean += delta / k;
    m2 += delta * (r - mean);
  }
  return mean / std::sqrt(m2 / (k - 1));
}

void BM_HandWrittenHost(benchmark::State& state) {
  Setup& s = setup(static_cast<std::size_t>(state.range(0)));
  const double* close = s.bars.columns.at("close").data();
  for (auto _ : state) {
    double acc = 0;
    for (std::size_t i = 0; i < s.n_combos; ++i)
      acc += hand_sma_cross(close, sma_row(s, 0, s.params[2 * i]).data(), sma_row(s, 1, s.params[2 * i + 1]).data(),
                            s.bars.n_bars(), 5e-4);
    benchmark::DoNotOptimize(acc);
  }
  report(state, s);
}

template <class Space>
void BM_HandWrittenKokkos(benchmark::State& state) {
  Setup& s = setup(static_cast<std::size_t>(state.range(0)));
  using View2 = Kokkos::View<double**, typename Space::memory_space>;
  const std::size_t n = s.bars.n_bars();
  std::vector<double> fast_rows, slow_rows;
  std::vector<int> fi(s.n_combos), si(s.n_combos);
  View2 fast("fast", s.plan.hoisted_windows[0].size(), n), slow("slow", s.plan.hoisted_windows[1].size(), n);
  {
    auto hf = Kokkos::create_mirror_view(fast);
    auto hs = Kokkos::create_mirror_view(slow);
    for (std::size_t w = 0; w < hf.extent(0); ++w)
      for (std::size_t t = 0; t < n; ++t) hf(w, t) = s.plan.hoisted_series[s.plan.hoisted_first_row[0] + w][t];
    for (std::size_t w = 0; w < hs.extent(0); ++w)
      for (std::size_t t = 0; t < n; ++t) hs(w, t) = s.plan.hoisted_series[s.plan.hoisted_first_row[1] + w][t];
    Kokkos::deep_copy(fast, hf);
    Kokkos::deep_copy(slow, hs);
  }
  Kokkos::View<int*, typename Space::memory_space> fidx("fi", s.n_combos), sidx("si", s.n_combos);
  Kokkos::View<double*, typename Space::memory_space> close("close", n), out("out", s.n_combos);
  {
    auto hf = Kokkos::create_mirror_view(fidx);
    auto hs = Kokkos::create_mirror_view(sidx);
    for (std::size_t i = 0; i < s.n_combos; ++i) {
      const auto& wf = s.plan.hoisted_windows[0];
      const auto& ws = s.plan.hoisted_windows[1];
      hf(i) = static_cast<int>(std::lower_bound(wf.begin(), wf.end(), static_cast<std::int64_t>(s.params[2 * i])) - wf.begin());
      hs(i) = static_cast<int>(std::lower_bound(ws.begin(), ws.end(), static_cast<std::int64_t>(s.params[2 * i + 1])) - ws.begin());
    }
    Kokkos::deep_copy(fidx, hf);
    Kokkos::deep_copy(sidx, hs);
    auto hc = Kokkos::create_mirror_view(close);
    for (std::size_t t = 0; t < n; ++t) hc(t) = s.bars.columns.at("close")[t];
    Kokkos::deep_copy(close, hc);
  }
  const int nb = static_cast<int>(n);
  for (auto _ : state) {
    Space().fence();
    const auto t0 = std::chrono::steady_clock::now();
    Kokkos::parallel_for(
        "hand_sma_cross", Kokkos::RangePolicy<Space>(0, static_cast<int>(s.n_combos)), KOKKOS_LAMBDA(const int i) {
          double cash = 10000, units = 0, held = 0, prev = 10000, mean = 0, m2 = 0;
          long k = 0;
          for (int t = 0; t < nb; ++t) {
            const double c = close(t), f = fast(fidx(i), t), sl = slow(sidx(i), t);
            double target = held;
            if (f == f && sl == sl) target = f > sl ? 1.0 : -1.0;
            const double eq = cash + units * c;
            if (target != held) {
              const double nu = target * eq / c, d = nu - units;
              cash -= d * c + (d < 0 ? -d : d) * c * 5e-4;
              units = nu;
              held = target;
            }
            const double e = cash + units * c, r = e / prev - 1;
            prev = e;
            ++k;
            const double delta = r - mean;
            mean += delta / k;
            m2 += delta * (r - mean);
          }
          out(i) = mean / kbt::math::sqrt(m2 / double(k - 1));
        });
    Space().fence();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  report(state, s);
}

void register_all() {
  for (long bars : {10000L, 100000L}) {
    benchmark::RegisterBenchmark("hand_written/host_cpp", BM_HandWrittenHost)->Arg(bars)->Unit(benchmark::kMillisecond);
#ifdef KOKKOS_ENABLE_SERIAL
    benchmark::RegisterBenchmark("hand_written/kokkos_lambda/serial", BM_HandWrittenKokkos<Kokkos::Serial>)
        ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    benchmark::RegisterBenchmark("hand_written/kokkos_lambda/openmp", BM_HandWrittenKokkos<Kokkos::OpenMP>)
        ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif
    for (const auto& space : kbt::enabled_execution_spaces())
      for (bool fp32 : {false, true})
        benchmark::RegisterBenchmark(("sweep_kernel/sma_cross/" + space.name + (fp32 ? "/fp32" : "/fp64")).c_str(),
                                     BM_SweepKernel, space.name, fp32)
            ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("kokkos_version", kbt::kokkos_version_string());
  register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
