// Loading data, and what a run does with it before sweeping:
// - a symbol subset from a wide data file (docs/data-format.md): N symbols x 4
//   bars, and a `symbols:` list naming every one of them in reverse order (the
//   worst case for a linear search). The time per name must not grow with N:
//   the complexity fit (BigO) reports it, `names/s` compares across N;
// - the data digest (docs/results.md "Identity of the data") of 1 symbol x N
//   bars: bytes/s and ns per value.
//
//   build/benchmarks/bench_data_load [--benchmark_filter=...]

#include <benchmark/benchmark.h>
#include <kbt/data/data_digest.hpp>
#include <kbt/data/data_io.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>
#include <unistd.h>
#include <vector>

namespace {

namespace fs = std::filesystem;

std::string wide_file(std::int64_t n_symbols) {
  const fs::path path =
      fs::temp_directory_path() / ("kbt_bench_wide_" + std::to_string(n_symbols) + "_" + std::to_string(::getpid()) + ".h5");
  if (fs::exists(path)) return path.string();
  kbt::BarData bars;
  const std::size_t n_bars = 4;
  for (std::size_t t = 0; t < n_bars; ++t) bars.timestamps.push_back(static_cast<std::int64_t>(t + 1) * 3'600'000'000'000);
  for (std::int64_t s = 0; s < n_symbols; ++s) bars.symbols.push_back("S" + std::to_string(s));
  for (const auto& column : kbt::required_bar_columns())
    bars.columns[column].assign(static_cast<std::size_t>(n_symbols) * n_bars, 100.0);
  kbt::write_bars_hdf5(bars, {}, path.string());
  return path.string();
}

void BM_LoadEverySymbolByName(benchmark::State& state) {
  const std::int64_t n = state.range(0);
  const std::string path = wide_file(n);
  std::vector<std::string> names;
  for (std::int64_t s = n - 1; s >= 0; --s) names.push_back("S" + std::to_string(s));
  for (auto _ : state) {
    const kbt::BarData bars = kbt::load_bars_hdf5(path, names);
    benchmark::DoNotOptimize(bars.symbols.data());
  }
  state.SetComplexityN(n);
  state.counters["names/s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  fs::remove(path);
}
BENCHMARK(BM_LoadEverySymbolByName)->RangeMultiplier(4)->Range(1 << 12, 1 << 18)->Unit(benchmark::kMillisecond)
    ->Complexity();

void BM_DataDigest(benchmark::State& state) {
  kbt::BarData bars;
  const auto n = static_cast<std::size_t>(state.range(0));
  for (std::size_t t = 0; t < n; ++t) bars.timestamps.push_back(static_cast<std::int64_t>(t + 1) * 60'000'000'000);
  bars.symbols = {"S0"};
  for (const auto& column : kbt::required_bar_columns()) {
    auto& v = bars.columns[column];
    v.resize(n);
    for (std::size_t t = 0; t < n; ++t) v[t] = 100.0 + std::sin(0.001 * static_cast<double>(t));
  }
  const double values = static_cast<double>(n) * 6;  // timestamps + 5 columns
  for (auto _ : state) benchmark::DoNotOptimize(kbt::data_digest(bars));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(values * 8));
  state.counters["ns/value"] =
      benchmark::Counter(values * 1e-9, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}
BENCHMARK(BM_DataDigest)->Arg(1 << 16)->Arg(1 << 20)->Arg(1 << 23)->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
