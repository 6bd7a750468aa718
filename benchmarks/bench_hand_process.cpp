// A hand-written, single-purpose SMA-cross sweep as a whole process, for
// benchmarks/whole_process.sh to time beside `kbt run` (docs/benchmarks.md
// "The whole process"): loads the bars with kbt's HDF5 reader, computes every
// SMA window with a running sum, then runs every combo of the grid (fast <
// slow) with the Sharpe-only loop written independently of kbt
// (benchmarks/independent_sma_cross.hpp) in a
// Kokkos parallel_for on the default space, and prints the best combo.
//
//   bench_hand_process DATA.h5 FAST_LO FAST_HI FAST_STEP SLOW_LO SLOW_HI SLOW_STEP

#include <kbt/data/data_io.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <cstdlib>
#include <vector>

#include "independent_sma_cross.hpp"

int main(int argc, char** argv) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  if (argc != 8) {
    std::fprintf(stderr, "usage: bench_hand_process DATA.h5 FAST_LO FAST_HI FAST_STEP SLOW_LO SLOW_HI SLOW_STEP\n");
    return 2;
  }
  const kbt::BarData bars = kbt::load_bars_hdf5(argv[1], {});
  const int flo = std::atoi(argv[2]), fhi = std::atoi(argv[3]), fstep = std::atoi(argv[4]), slo = std::atoi(argv[5]),
            shi = std::atoi(argv[6]), sstep = std::atoi(argv[7]);
  const std::vector<double>& close = bars.columns.at("close");
  const int n = static_cast<int>(bars.n_bars());
  // Every window the grid uses, [window][bar], NaN before it is full.
  const int max_window = shi;
  std::vector<std::vector<double>> sma(static_cast<std::size_t>(max_window + 1));
  for (int w = 1; w <= max_window; ++w) {
    if (!((w >= flo && w <= fhi && (w - flo) % fstep == 0) || (w >= slo && w <= shi && (w - slo) % sstep == 0))) continue;
    std::vector<double>& s = sma[static_cast<std::size_t>(w)];
    s.assign(static_cast<std::size_t>(n), 0.0 / 0.0);
    double sum = 0;
    for (int t = 0; t < n; ++t) {
      sum += close[static_cast<std::size_t>(t)];
      if (t >= w) sum -= close[static_cast<std::size_t>(t - w)];
      if (t >= w - 1) s[static_cast<std::size_t>(t)] = sum / w;
    }
  }
  std::vector<std::pair<int, int>> combos;
  for (int f = flo; f <= fhi; f += fstep)
    for (int s = slo; s <= shi; s += sstep)
      if (f < s) combos.emplace_back(f, s);
  std::vector<double> sharpe(combos.size());
  double* out = sharpe.data();
  const auto* grid = combos.data();
  const auto* rows = sma.data();
  const double* c = close.data();
  Kokkos::parallel_for(
      "hand_process", Kokkos::RangePolicy<Kokkos::DefaultHostExecutionSpace>(0, static_cast<int>(combos.size())),
      [=](const int i) {
        out[i] = kbt::bench::independent_sma_cross(c, rows[grid[i].first].data(), 1, rows[grid[i].second].data(), 1, n, 5e-4);
      });
  std::size_t best = 0;
  for (std::size_t i = 1; i < sharpe.size(); ++i)
    if (sharpe[i] > sharpe[best]) best = i;
  std::printf("%zu combos x %d bars: best fast=%d slow=%d sharpe/bar %.6g\n", combos.size(), n, combos[best].first,
              combos[best].second, sharpe[best]);
  return 0;
}
