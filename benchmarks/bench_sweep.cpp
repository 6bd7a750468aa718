// Sweep throughput in bar-combos per second: the generic sweep kernel on
// every enabled space and precision, next to hand-written single-purpose
// SMA-cross loops measured in the same run — the same-work loop through kbt's
// accumulator (hand_sma_cross.hpp) and the Sharpe-only loop written
// independently of kbt (independent_sma_cross.hpp), as plain C++ on the host
// and as a Kokkos lambda. The ratios kernel / loop are the figures of merit
// (docs/benchmarks.md).

#include <benchmark/benchmark.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/metrics/metrics_accumulator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include <Kokkos_Core.hpp>

#include "fastest_repetition.hpp"
#include "hand_sma_cross.hpp"
#include "independent_sma_cross.hpp"
#include "support/synthetic.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <map>
#include <memory>
#include <unistd.h>
#include <utility>

namespace {

using kbt::bench::independent_sma_cross;
using kbt::bench::hand_sma_cross_full;

struct Setup {
  kbt::RunConfig config;
  kbt::BarData bars;
  kbt::Program program;
  kbt::SweepPlan plan;
  std::vector<double> params;  // [n][2]
  std::size_t n_combos = 0;
  // The hoisted SMAs, [register][window index][bar], from the fold kernels.
  std::vector<std::vector<std::vector<double>>> sma;
};

// The SMA-cross grid of `combos` combos: 0 = the 190-combo grid of the tables
// (fast 5..50 step 5, slow 20..400 step 20), else a fast x slow grid of about
// that many (1k = 20 x 50, 10k = 50 x 200, 100k = 200 x 500, 1M = 500 x 2000
// windows; every slow window above every fast one).
std::string grid_yaml(std::size_t combos) {
  if (combos == 0) return kbt::test::sma_cross_yaml({5, 50, 5}, {20, 400, 20});
  const int fast = combos <= 1000 ? 20 : combos <= 10000 ? 50 : combos <= 100000 ? 200 : 500;
  const int slow = static_cast<int>(combos) / fast;
  return kbt::test::sma_cross_yaml({2, 1 + fast, 1}, {10 + fast, 9 + fast + slow, 1});
}

std::unique_ptr<Setup> make_setup(std::size_t n_bars, std::size_t combos) {
  auto s = std::make_unique<Setup>();
  s->config = kbt::parse_run_config(grid_yaml(combos), "<bench>", "");
  s->bars = kbt::test::synthetic_bars(1, n_bars, 11);
  s->program = kbt::compile_strategy(s->config.strategy, kbt::schema_of(s->bars));
  const kbt::ParamGrid grid(s->config.strategy.params);
  const auto ids = kbt::filter_combos(grid, [&](const double* v) { return kbt::constraints_hold(s->program, v); });
  s->n_combos = ids.size();
  s->params.resize(ids.size() * 2);
  for (std::size_t i = 0; i < ids.size(); ++i) grid.combo_values(ids[i], &s->params[i * 2]);
  s->config.simulation.periods_per_year = kbt::resolve_periods_per_year(s->bars, s->config.simulation);
  s->plan = kbt::make_sweep_plan(s->program, s->bars);
  using Host = Kokkos::DefaultHostExecutionSpace;
  const std::size_t rows = s->plan.n_hoisted_series();
  kbt::HoistedRows<Host, double> hoisted(Host(), s->plan, rows);
  hoisted.compute_all(kbt::HoistTiling(s->plan, rows).tile(0));
  s->sma.resize(s->plan.hoisted_regs.size());
  for (std::size_t h = 0; h < s->sma.size(); ++h)
    for (std::size_t i = 0; i < s->plan.hoisted_windows[h].size(); ++i) {
      const double* row = &hoisted.rows()(static_cast<std::size_t>(hoisted.row(h, i)), 0);
      s->sma[h].emplace_back(row, row + n_bars);
    }
  return s;
}

Setup& setup(std::size_t n_bars, std::size_t combos = 0) {
  static std::map<std::pair<std::size_t, std::size_t>, std::unique_ptr<Setup>> made;
  auto& s = made[{n_bars, combos}];
  if (!s) s = make_setup(n_bars, combos);
  return *s;
}

// The setup of a benchmark: Arg(bars), and the grid's combos (0: the tables' grid).
Setup& setup_of(const benchmark::State& state, std::size_t combos = 0) {
  return setup(static_cast<std::size_t>(state.range(0)), combos);
}

void report(benchmark::State& state, const Setup& s) {
  state.counters["bar_combos_per_s"] = benchmark::Counter(
      static_cast<double>(s.n_combos) * static_cast<double>(s.bars.n_bars()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["combos"] = static_cast<double>(s.n_combos);
}

// The sweep kernel as a run's checkpoint chunks see it: set up once (program
// and data uploaded, hoisted series computed by a first call, untimed), then
// each iteration one call: the combos' upload, the kernel, top-K, download.
void time_kernel_calls(benchmark::State& state, const std::string& device, bool fp32, const kbt::Program& program,
                       const kbt::SweepPlan& plan, const kbt::BarData& bars, const kbt::ResolvedSimulation& sim,
                       const std::vector<double>& params, std::size_t n_combos,
                       const kbt::KernelSweepOptions& options = {}) {
  const auto runner = kbt::make_kernel_sweep_runner(device, fp32, program, plan, bars, sim, options);
  kbt::KernelTopKRequest top;
  top.k = 10;
  for (std::size_t i = 0; i < n_combos; ++i) top.combo_ids.push_back(i);
  (void)runner->run(params, top);
  double kernel = 0, upload = 0, topk = 0, download = 0, total = 0;
  for (auto _ : state) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = runner->run(params, top);
    benchmark::DoNotOptimize(out.metrics.data());
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    state.SetIterationTime(seconds);
    kernel += out.seconds_kernel, upload += out.seconds_upload, topk += out.seconds_topk;
    download += out.seconds_download, total += seconds;
  }
  // The shares of a call spent in the sweep kernel itself and in the rest:
  // the combos' upload, top-K, the download.
  const auto share = [total](double part) { return total > 0 ? part / total : 0.0; };
  state.counters["kernel_share"] = share(kernel);
  state.counters["upload_share"] = share(upload);
  state.counters["topk_share"] = share(topk);
  state.counters["download_share"] = share(download);
}

// `per_bar`: KernelSweepOptions::position_per_bar (docs/kernels.md);
// `groups`: the metric set the kernel accumulates (metrics/metric_set.hpp);
// `fuse`: KernelSweepOptions::fuse_compare_selects (docs/kernels.md).
void BM_SweepKernel(benchmark::State& state, const std::string& device, bool fp32, bool per_bar, unsigned groups,
                    std::size_t combos, bool fuse) {
  Setup& s = setup_of(state, combos);
  kbt::KernelSweepOptions options;
  options.position_per_bar = per_bar;
  options.metric_groups = groups;
  options.fuse_compare_selects = fuse;
  time_kernel_calls(state, device, fp32, s.program, s.plan, s.bars, kbt::resolve_simulation(s.config.simulation, s.bars), s.params, s.n_combos, options);
  report(state, s);
}

// The hoisted SMA rows of the plan, by window value.
const std::vector<double>& sma_row(const Setup& s, int reg_slot, double window) {
  const auto& ws = s.plan.hoisted_windows[static_cast<std::size_t>(reg_slot)];
  const auto it = std::lower_bound(ws.begin(), ws.end(), static_cast<std::int64_t>(window));
  return s.sma[static_cast<std::size_t>(reg_slot)][static_cast<std::size_t>(it - ws.begin())];
}

void BM_IndependentHost(benchmark::State& state) {
  Setup& s = setup_of(state);
  const double* close = s.bars.columns.at("close").data();
  for (auto _ : state) {
    double acc = 0;
    for (std::size_t i = 0; i < s.n_combos; ++i)
      acc += independent_sma_cross(close, sma_row(s, 0, s.params[2 * i]).data(), 1, sma_row(s, 1, s.params[2 * i + 1]).data(), 1,
                            static_cast<int>(s.bars.n_bars()), 5e-4);
    benchmark::DoNotOptimize(acc);
  }
  report(state, s);
}

// The kernel's metrics for the first combos, to check that the hand-written
// full loop does the same work (the same metric set).
bool same_metrics_as_kernel(const Setup& s, const std::vector<double>& hand, std::size_t n_check,
                            unsigned groups = kbt::metric_group::all) {
  const std::vector<double> combos(s.params.begin(), s.params.begin() + static_cast<long>(2 * n_check));
  kbt::KernelSweepOptions options;
  options.metric_groups = groups;
  const auto kernel = kbt::run_sweep_kernel_on("serial", false, s.program, s.plan, s.bars,
                                              kbt::resolve_simulation(s.config.simulation, s.bars), combos, options);
  for (std::size_t k = 0; k < n_check * kbt::n_metrics; ++k)
    if (!(kernel[k] == hand[k] || (std::isnan(kernel[k]) && std::isnan(hand[k])))) return false;
  return true;
}

void BM_HandWrittenHostFull(benchmark::State& state) {
  Setup& s = setup_of(state);
  const double* close = s.bars.columns.at("close").data();
  const double ppy = kbt::resolve_periods_per_year(s.bars, s.config.simulation);
  std::vector<double> out(s.n_combos * kbt::n_metrics);
  for (auto _ : state) {
    for (std::size_t i = 0; i < s.n_combos; ++i)
      hand_sma_cross_full(close, sma_row(s, 0, s.params[2 * i]).data(), sma_row(s, 1, s.params[2 * i + 1]).data(), 1,
                          static_cast<int>(s.bars.n_bars()), 5e-4, ppy, &out[i * kbt::n_metrics]);
    benchmark::DoNotOptimize(out.data());
  }
  if (!same_metrics_as_kernel(s, out, 8)) state.SkipWithError("hand-written loop disagrees with the kernel");
  report(state, s);
}

template <class Space, unsigned Groups>
void BM_HandWrittenKokkosFull(benchmark::State& state, std::size_t combos) {
  Setup& s = setup_of(state, combos);
  using Mem = typename Space::memory_space;
  const std::size_t n = s.bars.n_bars();
  const auto& ws_fast = s.plan.hoisted_windows[0];
  const auto& ws_slow = s.plan.hoisted_windows[1];
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> fast("fast", ws_fast.size(), n), slow("slow", ws_slow.size(), n);
  Kokkos::View<int*, Mem> fidx("fi", s.n_combos), sidx("si", s.n_combos);
  Kokkos::View<double*, Mem> close("close", n);
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> out("out", s.n_combos, kbt::n_metrics);
  {
    auto hf = Kokkos::create_mirror_view(fast);
    auto hs = Kokkos::create_mirror_view(slow);
    for (std::size_t w = 0; w < ws_fast.size(); ++w)
      for (std::size_t t = 0; t < n; ++t) hf(w, t) = s.sma[0][w][t];
    for (std::size_t w = 0; w < ws_slow.size(); ++w)
      for (std::size_t t = 0; t < n; ++t) hs(w, t) = s.sma[1][w][t];
    Kokkos::deep_copy(fast, hf);
    Kokkos::deep_copy(slow, hs);
    auto hfi = Kokkos::create_mirror_view(fidx);
    auto hsi = Kokkos::create_mirror_view(sidx);
    for (std::size_t i = 0; i < s.n_combos; ++i) {
      hfi(i) = static_cast<int>(std::lower_bound(ws_fast.begin(), ws_fast.end(), static_cast<std::int64_t>(s.params[2 * i])) - ws_fast.begin());
      hsi(i) = static_cast<int>(std::lower_bound(ws_slow.begin(), ws_slow.end(), static_cast<std::int64_t>(s.params[2 * i + 1])) - ws_slow.begin());
    }
    Kokkos::deep_copy(fidx, hfi);
    Kokkos::deep_copy(sidx, hsi);
    auto hc = Kokkos::create_mirror_view(close);
    for (std::size_t t = 0; t < n; ++t) hc(t) = s.bars.columns.at("close")[t];
    Kokkos::deep_copy(close, hc);
  }
  const int nb = static_cast<int>(n);
  const double ppy = kbt::resolve_periods_per_year(s.bars, s.config.simulation);
  for (auto _ : state) {
    Space().fence();
    const auto t0 = std::chrono::steady_clock::now();
    Kokkos::parallel_for(
        "hand_sma_cross_full", Kokkos::RangePolicy<Space>(0, static_cast<int>(s.n_combos)), KOKKOS_LAMBDA(const int i) {
          hand_sma_cross_full<Groups>(close.data(), &fast(fidx(i), 0), &slow(sidx(i), 0), 1, nb, 5e-4, ppy, &out(i, 0));
        });
    Space().fence();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), out);
  if (!same_metrics_as_kernel(s, std::vector<double>(host.data(), host.data() + 8 * kbt::n_metrics), 8, Groups))
    state.SkipWithError("hand-written loop disagrees with the kernel");
  report(state, s);
}

template <class Space>
void BM_IndependentKokkos(benchmark::State& state) {
  Setup& s = setup_of(state);
  using View2 = Kokkos::View<double**, typename Space::memory_space>;
  const std::size_t n = s.bars.n_bars();
  std::vector<double> fast_rows, slow_rows;
  std::vector<int> fi(s.n_combos), si(s.n_combos);
  View2 fast("fast", s.plan.hoisted_windows[0].size(), n), slow("slow", s.plan.hoisted_windows[1].size(), n);
  {
    auto hf = Kokkos::create_mirror_view(fast);
    auto hs = Kokkos::create_mirror_view(slow);
    for (std::size_t w = 0; w < hf.extent(0); ++w)
      for (std::size_t t = 0; t < n; ++t) hf(w, t) = s.sma[0][w][t];
    for (std::size_t w = 0; w < hs.extent(0); ++w)
      for (std::size_t t = 0; t < n; ++t) hs(w, t) = s.sma[1][w][t];
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
        "independent_sma_cross", Kokkos::RangePolicy<Space>(0, static_cast<int>(s.n_combos)), KOKKOS_LAMBDA(const int i) {
          out(i) = independent_sma_cross(close.data(), &fast(fidx(i), 0), fast.stride(1), &slow(sidx(i), 0), slow.stride(1), nb,
                                  5e-4);
        });
    Space().fence();
    state.SetIterationTime(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  report(state, s);
}

// ---- every example config on synthetic data shaped like data/sample.h5 ----

struct ExampleSetup {
  kbt::RunConfig config;
  kbt::BarData bars;
  kbt::Program program;
  kbt::SweepPlan plan;
  std::vector<double> params;
  std::size_t n_combos = 0;
};

constexpr std::size_t kExampleCombos = 64;

// The sample data's shape (3 symbols on two venues, funding, one exo series)
// at `n_bars` bars, restricted to the config's symbols through the HDF5 loader.
kbt::BarData example_bars(const kbt::RunConfig& config, std::size_t n_bars) {
  kbt::SynthOptions o;
  o.n_symbols = 3;
  o.n_bars = n_bars;
  o.seed = 5;
  o.venues = {"binance", "binance", "okx"};
  o.funding = true;
  o.exo_names = {"hashrate"};
  const kbt::MarketData data = kbt::synth_market_data(o);
  const std::string path = "/tmp/kbt_bench_" + std::to_string(n_bars) + "_" + std::to_string(::getpid()) + ".h5";
  kbt::write_bars_hdf5(data.bars, data.exo, path);
  kbt::BarData bars = kbt::load_bars_hdf5(path, config.symbols);
  std::remove(path.c_str());
  return bars;
}

ExampleSetup& example_setup(const std::string& name, std::size_t n_bars) {
  static std::map<std::pair<std::string, std::size_t>, std::unique_ptr<ExampleSetup>> cache;
  auto& slot = cache[{name, n_bars}];
  if (slot) return *slot;
  slot = std::make_unique<ExampleSetup>();
  ExampleSetup& s = *slot;
  s.config = kbt::load_run_config(std::string(KBT_SOURCE_DIR) + "/configs/" + name);
  s.bars = example_bars(s.config, n_bars);
  s.program = kbt::compile_strategy(s.config.strategy, kbt::schema_of(s.bars));
  const kbt::ParamGrid grid(s.config.strategy.params);
  auto ids = kbt::filter_combos(grid, [&](const double* v) { return kbt::constraints_hold(s.program, v); });
  ids = kbt::sample_combos(ids, kExampleCombos, 1);
  s.n_combos = ids.size();
  s.params.resize(ids.size() * grid.n_params());
  for (std::size_t i = 0; i < ids.size(); ++i) grid.combo_values(ids[i], &s.params[i * grid.n_params()]);
  s.config.simulation.periods_per_year = kbt::resolve_periods_per_year(s.bars, s.config.simulation);
  s.plan = kbt::make_sweep_plan(s.program, s.bars);
  return s;
}

void BM_ExampleConfig(benchmark::State& state, const std::string& name, const std::string& device, bool fp32) {
  ExampleSetup& s = example_setup(name, static_cast<std::size_t>(state.range(0)));
  kbt::KernelSweepOptions options;
  options.metric_groups = kbt::metric_groups_for(s.config);  // the metric set a run of the config uses
  time_kernel_calls(state, device, fp32, s.program, s.plan, s.bars, kbt::resolve_simulation(s.config.simulation, s.bars),
                    s.params, s.n_combos, options);
  state.counters["bar_combos_per_s"] = benchmark::Counter(
      static_cast<double>(s.n_combos) * static_cast<double>(s.bars.n_bars()), benchmark::Counter::kIsIterationInvariantRate);
  state.counters["combos"] = static_cast<double>(s.n_combos);
  state.counters["symbols"] = static_cast<double>(s.bars.n_symbols());
  state.counters["streamed_registers"] = static_cast<double>(s.plan.streamed.size());
}

const char* const kExampleConfigs[] = {"sma_cross.yaml",   "sma_cross_signals.yaml",   "bollinger_zscore.yaml",
                                       "kalman_meanrev.yaml", "breakout_sltp.yaml", "multi_asset_funding.yaml",
                                       "exo_signal.yaml",  "mtf_trend.yaml"};

// Every benchmark reports its fastest repetition (fastest_repetition.hpp).
template <class... Args>
benchmark::internal::Benchmark* register_benchmark(Args&&... args) {
  return benchmark::RegisterBenchmark(std::forward<Args>(args)...)->ComputeStatistics("min", fastest);
}

// The metric sets measured: names in the benchmark labels.
const std::pair<const char*, unsigned> kMetricSets[] = {
    {"sharpe", kbt::metric_group::returns},
    {"sharpe_drawdown", kbt::metric_group::returns | kbt::metric_group::drawdown},
    {"all", kbt::metric_group::all}};

// The same-work hand-written Kokkos loop for one metric set, on every space;
// `combos`: the grid (grid_yaml), `prefix`: the label's first part.
template <unsigned Groups>
void register_same_work_loops(const std::string& set, long bars, std::size_t combos = 0,
                              const std::string& prefix = "hand_written_full/kokkos_lambda/") {
  const std::string tail = "/" + set + (combos ? "/" + std::to_string(combos) + "_combos" : "");
#ifdef KOKKOS_ENABLE_SERIAL
  register_benchmark((prefix + "serial" + tail).c_str(), BM_HandWrittenKokkosFull<Kokkos::Serial, Groups>, combos)
      ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  register_benchmark((prefix + "openmp" + tail).c_str(), BM_HandWrittenKokkosFull<Kokkos::OpenMP, Groups>, combos)
      ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif
#ifdef KOKKOS_ENABLE_CUDA
  register_benchmark((prefix + "cuda" + tail).c_str(), BM_HandWrittenKokkosFull<Kokkos::Cuda, Groups>, combos)
      ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif
}

// Throughput against the grid size (scripts/device-check.sh on a GPU): the
// kernel with the Sharpe set and with every metric, and the same-work loops,
// at 1k ... 1M combos (10^11 bar-combos at the top: a GPU's size). Registered
// only when --benchmark_filter names them.
void register_scaling() {
  for (long bars : {10000L, 100000L})
    for (const std::size_t combos : {std::size_t(1000), std::size_t(10000), std::size_t(100000), std::size_t(1000000)}) {
      for (const auto& space : kbt::enabled_execution_spaces())
        for (bool fp32 : {false, true})
          for (const auto& [set, groups] : kMetricSets)
            if (std::string(set) != "sharpe_drawdown")
              register_benchmark(("scaling/sweep_kernel/" + space.name + (fp32 ? "/fp32/" : "/fp64/") + set + "/" +
                                  std::to_string(combos) + "_combos")
                                     .c_str(),
                                 BM_SweepKernel, space.name, fp32, true, groups, combos, true)
                  ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
      register_same_work_loops<kbt::metric_group::returns>("sharpe", bars, combos, "scaling/hand_written/");
      register_same_work_loops<kbt::metric_group::all>("all", bars, combos, "scaling/hand_written/");
    }
}

void register_all() {
  for (long bars : {10000L, 100000L})
    for (const char* name : kExampleConfigs)
      for (const auto& space : kbt::enabled_execution_spaces())
        for (bool fp32 : {false, true}) {
          std::string label = std::string("example/") + name;
          label = label.substr(0, label.size() - 5) + "/" + space.name + (fp32 ? "/fp32" : "/fp64");
          register_benchmark(label.c_str(), BM_ExampleConfig, std::string(name), space.name, fp32)
              ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
        }

  for (long bars : {10000L, 100000L}) {
    register_benchmark("independent/host_cpp", BM_IndependentHost)->Arg(bars)->Unit(benchmark::kMillisecond);
    register_benchmark("hand_written_full/host_cpp", BM_HandWrittenHostFull)->Arg(bars)->Unit(benchmark::kMillisecond);
    register_same_work_loops<kbt::metric_group::all>("all", bars);
    register_same_work_loops<kbt::metric_group::returns>("sharpe", bars);
    register_same_work_loops<kbt::metric_group::returns | kbt::metric_group::drawdown>("sharpe_drawdown", bars);
#ifdef KOKKOS_ENABLE_SERIAL
    register_benchmark("independent/kokkos_lambda/serial", BM_IndependentKokkos<Kokkos::Serial>)
        ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
    register_benchmark("independent/kokkos_lambda/openmp", BM_IndependentKokkos<Kokkos::OpenMP>)
        ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif
#ifdef KOKKOS_ENABLE_CUDA
    register_benchmark("independent/kokkos_lambda/cuda", BM_IndependentKokkos<Kokkos::Cuda>)
        ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
#endif
    for (const auto& space : kbt::enabled_execution_spaces()) {
      for (bool fp32 : {false, true})
        for (const auto& [set, groups] : kMetricSets)
          register_benchmark(("sweep_kernel/sma_cross/" + space.name + (fp32 ? "/fp32/" : "/fp64/") + set).c_str(),
                             BM_SweepKernel, space.name, fp32, true, groups, std::size_t(0), true)
              ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
      // The effect of fused compare-selects, against the default above.
      for (const auto& [set, groups] : kMetricSets)
        if (groups == kbt::metric_group::returns || groups == kbt::metric_group::all)
          register_benchmark(("sweep_kernel/sma_cross/" + space.name + "/fp64/" + set + "/compare_select_unfused").c_str(),
                             BM_SweepKernel, space.name, false, true, groups, std::size_t(0), false)
              ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
      // The effect of computing the position per bar, against the default above.
      for (const auto& [set, groups] : kMetricSets)
        if (groups == kbt::metric_group::returns || groups == kbt::metric_group::all)
          register_benchmark(("sweep_kernel/sma_cross/" + space.name + "/fp64/" + set + "/position_evaluated").c_str(),
                             BM_SweepKernel, space.name, false, false, groups, std::size_t(0), true)
              ->Arg(bars)->UseManualTime()->Unit(benchmark::kMillisecond);
    }
  }
}

}  // namespace

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  bool scaling = false;  // before Initialize, which consumes the flag
  for (int i = 1; i < argc; ++i)
    if (std::string(argv[i]).rfind("--benchmark_filter=", 0) == 0 && std::string(argv[i]).find("scaling") != std::string::npos)
      scaling = true;
  benchmark::Initialize(&argc, argv);
  benchmark::AddCustomContext("kokkos_version", kbt::kokkos_version_string());
  register_all();
  if (scaling) register_scaling();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
