// The C++ API for HPC codes (docs/api.md): bar data from Kokkos Views and a
// whole sweep on a caller's execution space instance with the results left in
// Views, checked against the file-free host API kbt::run_sweep on the
// reference engine (an independent evaluator and simulator).

#include <gtest/gtest.h>
#include <kbt/data/bar_data_views.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/sweep/space_sweep.hpp>

#include "support/execution_spaces.hpp"

#include <cstring>

namespace {

template <class Space>
class SpaceSweep : public ::testing::Test {};
TYPED_TEST_SUITE(SpaceSweep, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

const char* kConfig = R"(data: unused.h5
strategy:
  params:
    fast: {range: [3, 15, 3]}
    slow: {range: [10, 40, 10]}
  constraints: ["fast < slow"]
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
simulation: {fee_bps: 5}
sweep: {objective: {metric: sortino, direction: max, min_trades: 2}, top_k: 5}
)";

kbt::BarData synthetic(std::size_t n_symbols, std::size_t n_bars) {
  kbt::SynthOptions o;
  o.n_symbols = n_symbols;
  o.n_bars = n_bars;
  o.seed = 21;
  return kbt::synth_bars(o);
}

// The synthetic bars as Views of `Space`, [n_symbols][n_bars] per column.
template <class Space>
kbt::BarData through_views(const kbt::BarData& bars) {
  using Mem = typename Space::memory_space;
  const std::size_t n_sym = bars.n_symbols(), n_bars = bars.n_bars();
  Kokkos::View<std::int64_t*, Mem> ts("ts", n_bars);
  auto hts = Kokkos::create_mirror_view(ts);
  for (std::size_t b = 0; b < n_bars; ++b) hts(b) = bars.timestamps[b];
  Kokkos::deep_copy(ts, hts);
  std::map<std::string, Kokkos::View<double**, Mem>> columns;
  for (const auto& [name, col] : bars.columns) {
    Kokkos::View<double**, Mem> v(name, n_sym, n_bars);
    auto h = Kokkos::create_mirror_view(v);
    for (std::size_t s = 0; s < n_sym; ++s)
      for (std::size_t b = 0; b < n_bars; ++b) h(s, b) = col[s * n_bars + b];
    Kokkos::deep_copy(v, h);
    columns.emplace(name, v);
  }
  return kbt::bars_from_views(ts, bars.symbols, columns, "test views");
}

TYPED_TEST(SpaceSweep, BarsFromViewsEqualTheHostBars) {
  const auto bars = synthetic(2, 300);
  const auto from_views = through_views<TypeParam>(bars);
  EXPECT_EQ(from_views.timestamps, bars.timestamps);
  EXPECT_EQ(from_views.symbols, bars.symbols);
  EXPECT_EQ(from_views.columns, bars.columns);
}

TYPED_TEST(SpaceSweep, BarsFromViewsOfTheWrongShapeAreRefusedByName) {
  using Mem = typename TypeParam::memory_space;
  const auto bars = synthetic(1, 50);
  Kokkos::View<std::int64_t*, Mem> ts("ts", 50);
  std::map<std::string, Kokkos::View<double**, Mem>> columns{{"close", Kokkos::View<double**, Mem>("close", 2, 50)}};
  try {
    kbt::bars_from_views(ts, bars.symbols, columns, "my arrays");
    ADD_FAILURE() << "expected a kbt::Error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format);
    EXPECT_NE(std::string(e.what()).find("my arrays: column 'close' is 2 x 50, expected 1 symbols x 50 bars"),
              std::string::npos)
        << e.what();
  }
}

TYPED_TEST(SpaceSweep, MetricsAndTopKInViewsEqualTheReferenceRun) {
  const kbt::RunConfig config = kbt::parse_run_config(kConfig, "<test>", "");
  const auto bars = through_views<TypeParam>(synthetic(1, 800));
  const auto on_space = kbt::run_sweep_on(TypeParam(), config, bars);

  kbt::SweepRequest request;
  request.device = "reference";
  request.quiet = true;
  kbt::RunConfig every = config;  // run_sweep_on computes all 21 (KernelSweepOptions::metric_groups)
  every.sweep.all_metrics = true;
  const kbt::SweepOutcome reference = kbt::run_sweep(every, bars, request);
  const kbt::RowTable r = kbt::read_all_rows(*reference.results.rows);

  ASSERT_GT(r.size(), 0u);
  ASSERT_EQ(on_space.metrics.extent(0), r.combo_ids.size());
  EXPECT_EQ(on_space.param_names, reference.results.param_names);
  EXPECT_EQ(on_space.params, r.params);
  const auto ids = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), on_space.combo_ids);
  const auto metrics = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), on_space.metrics);
  for (std::size_t i = 0; i < r.combo_ids.size(); ++i) {
    EXPECT_EQ(ids(i), r.combo_ids[i]);
    for (std::size_t m = 0; m < kbt::n_metrics; ++m) {
      const double a = metrics(i, m), b = r.metrics[i * kbt::n_metrics + m];
      EXPECT_EQ(std::memcmp(&a, &b, sizeof a), 0) << "combo " << r.combo_ids[i] << " " << kbt::metric_names()[m];
    }
  }
  const auto top = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), on_space.top_k);
  std::vector<std::uint64_t> top_rows;
  for (std::size_t j = 0; j < top.extent(0); ++j) top_rows.push_back(static_cast<std::uint64_t>(top(j)));
  EXPECT_EQ(top_rows, reference.results.top_k_rows().rows);
  EXPECT_EQ(top_rows.size(), 5u);
}

}  // namespace
