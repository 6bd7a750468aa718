// Uses kbt the way an application does: Kokkos initialized by the caller, kbt's
// umbrella header (a kernel with kbt math), its library (space listing), and a
// whole sweep from an in-memory config and bars held in Views, run on the
// default execution space with the metrics and top-K left in Views, checked
// against the reference engine.
#include <kbt/kbt.hpp>  // the umbrella header only: what an application includes

#include <map>
#include <sstream>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

struct Compound {
  Kokkos::View<double*> out;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    out(i) = kbt::math::pow(1.0 + 0.01 * (i + 1), 12.0) * kbt::math::exp(0.0);
  }
};

#if !KBT_VERSION_AT_LEAST(0, 1, 0) || KBT_VERSION_AT_LEAST(1000, 0, 0)
#error "KBT_VERSION_AT_LEAST disagrees with the installed version"
#endif

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  // What a host code logs about the kbt it links (kbt::print_configuration).
  std::ostringstream configuration;
  kbt::print_configuration(configuration);
  std::printf("kbt downstream configuration: version %d\n%s", KBT_VERSION, configuration.str().c_str());
  Kokkos::View<double*> out("out", 3);
  Kokkos::parallel_for("compound", Kokkos::RangePolicy<>(0, 3), Compound{out});
  kbt::kx::fence("compound");
  auto host = kbt::kx::to_host(out);
  std::string spaces;
  for (const auto& space : kbt::enabled_execution_spaces()) {
    spaces += (spaces.empty() ? "" : ",") + space.name;
  }
  // 1.01^12, 1.02^12, 1.03^12 to 6 places: 1.126825 1.268242 1.425761
  std::printf("kbt downstream: kokkos %s spaces=%s growth=%.6f %.6f %.6f\n",
              kbt::kokkos_version_string().c_str(), spaces.c_str(), host(0), host(1), host(2));

  // Bars the application holds in Views (here: synthetic ones).
  kbt::SynthOptions synth;
  synth.n_symbols = 1;
  synth.n_bars = 500;
  const kbt::BarData source = kbt::synth_bars(synth);
  Kokkos::View<std::int64_t*> timestamps("timestamps", source.n_bars());
  std::map<std::string, Kokkos::View<double**>> columns;
  {
    auto ts = Kokkos::create_mirror_view(timestamps);
    for (std::size_t b = 0; b < source.n_bars(); ++b) ts(b) = source.timestamps[b];
    Kokkos::deep_copy(timestamps, ts);
    for (const auto& [name, values] : source.columns) {
      Kokkos::View<double**> v(name, 1, source.n_bars());
      auto hv = Kokkos::create_mirror_view(v);
      for (std::size_t b = 0; b < source.n_bars(); ++b) hv(0, b) = values[b];
      Kokkos::deep_copy(v, hv);
      columns.emplace(name, v);
    }
  }
  const kbt::BarData bars = kbt::bars_from_views(timestamps, source.symbols, columns, "downstream views");
  const kbt::RunConfig config = kbt::parse_run_config(R"(data: unused.h5
strategy:
  params:
    fast: {range: [4, 12, 4]}
    slow: {range: [16, 48, 16]}
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
sweep: {objective: {metric: sharpe, direction: max}, top_k: 3}
)", "<downstream>", "");
  const auto result = kbt::run_sweep_on(Kokkos::DefaultExecutionSpace(), config, bars);
  const auto top = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result.top_k);
  const auto metrics = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), result.metrics);

  kbt::SweepRequest request;
  request.device = "reference";
  request.quiet = true;
  const kbt::SweepOutcome reference = kbt::run_sweep(config, bars, request);
  const kbt::RowTable top_rows = reference.results.top_k_rows();  // rows, ids, params, metrics
  bool agree = top.extent(0) == top_rows.size();
  for (std::size_t j = 0; agree && j < top.extent(0); ++j) {
    const std::size_t row = static_cast<std::size_t>(top(j));
    agree = row == top_rows.rows[j] && metrics(row, int(kbt::Metric::sharpe)) == top_rows.metrics_of(j)[int(kbt::Metric::sharpe)];
  }
  std::printf("kbt downstream sweep: combos=%zu top=%zu agree=%s\n", static_cast<std::size_t>(metrics.extent(0)),
              static_cast<std::size_t>(top.extent(0)), agree ? "yes" : "no");
  if (!agree) return 1;

  // The engine seam: half of the combos on a second scoring window, on the
  // first enabled space, against the reference engine's bits.
  const kbt::PreparedSweep sweep = kbt::prepare_sweep(config, bars);
  const std::size_t half = sweep.n_combos() / 2;
  const std::vector<kbt::ScoringWindow> windows = {{0, bars.n_bars()}, {200, bars.n_bars()}};
  const kbt::EngineTopK best{config.sweep.objective, 2};
  const auto on_space = kbt::make_kernel_engine(sweep, bars, kbt::enabled_execution_spaces().front().name, false)
                            ->run(0, half, windows, best);
  const auto on_reference = kbt::make_reference_engine(sweep, bars)->run(0, half, windows, best);
  // By bits: the metrics outside the sweep's metric set are NaN on both.
  const bool engines_agree = half > 0 && on_space.metrics.size() == on_reference.metrics.size() &&
                             std::memcmp(on_space.metrics.data(), on_reference.metrics.data(),
                                         on_space.metrics.size() * sizeof(double)) == 0 &&
                             on_space.top_k == on_reference.top_k;
  std::printf("kbt downstream engines: combos=%zu windows=%zu agree=%s\n", half, windows.size(),
              engines_agree ? "yes" : "no");
  return engines_agree ? 0 : 1;
}
