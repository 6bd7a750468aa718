// The fold driver (FoldHoister) and the hoisting plan of a compiled program,
// on every enabled execution space: dedupe, sizes and reuse, refused requests,
// empty shapes, every hoisted register against the reference engine, and 1 vs
// 2 OpenMP threads. The kernels' values op by op: test_fold_kernels.cpp.

#include "test_fold_kernels_support.hpp"

namespace {

using namespace kbt_fold_test;
using kbt_fold_test::nan;  // not ::nan(const char*)

template <class Space>
class FoldDriver : public ::testing::Test {};
TYPED_TEST_SUITE(FoldDriver, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

// ---- the driver ------------------------------------------------------------------------

TYPED_TEST(FoldDriver, HoisterDedupesReportsSizeAndIsReusable) {
  using S = TypeParam;
  const Series3 a = make_sample(1, 2, 300, 0.02);
  const Series3 b = make_sample(2, 2, 300, 0.0);
  const std::vector<FoldRequest> requests{{FoldOp::rolling_mean, kClose, 20},
                                          {FoldOp::rolling_min, kClose, 20},
                                          {FoldOp::rolling_mean, kClose, 20},
                                          {FoldOp::ema, kClose, 20}};
  FoldHoister<S, double> hoist(requests, 4, 2, 300);
  EXPECT_EQ(hoist.n_series(), 3u);
  EXPECT_EQ(hoist.bytes(), 3u * 2 * 300 * sizeof(double));
  EXPECT_EQ(hoist.launches(), 3);
  EXPECT_EQ(hoist.series_index({FoldOp::ema, kClose, 20}), 2);
  EXPECT_THROW(hoist.series_index({FoldOp::ema, kClose, 21}), kbt::Error);
  hoist.compute(upload<S, double>(a));
  EXPECT_EQ(count_mismatches(download(hoist, 2, 300), a), 0);
  hoist.compute(S(), upload<S, double>(b));  // same allocation, new inputs
  EXPECT_EQ(count_mismatches(download(hoist, 2, 300), b), 0);
}

TYPED_TEST(FoldDriver, BadRequestsAreRefusedWithTheRequestNamed) {
  using S = TypeParam;
  auto refused = [](const std::vector<FoldRequest>& r, kbt::ErrorCategory c, const std::string& text) {
    try {
      FoldHoister<S, double> hoist(r, 4, 1, 10);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), c) << e.what();
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  refused({{FoldOp::rolling_mean, kClose, 0}}, kbt::ErrorCategory::grid, "rolling_mean(input 2, 0)");
  refused({{FoldOp::rsi, kClose, -3}}, kbt::ErrorCategory::grid, "window must be >= 1");
  refused({{FoldOp::lag, kClose, -1}}, kbt::ErrorCategory::grid, "window must be >= 0");
  refused({{FoldOp::rolling_std, kClose, 1}}, kbt::ErrorCategory::grid, "window must be >= 2");
  refused({{FoldOp::ema, 4, 3}}, kbt::ErrorCategory::internal, "input index out of range [0, 4)");
  refused({{FoldOp::atr, kClose, 3}}, kbt::ErrorCategory::internal, "high index out of range");
  refused({{FoldOp::rolling_max, kClose, 3, kHigh, -1}}, kbt::ErrorCategory::internal, "only read by atr");
  FoldHoister<S, double> ok({{FoldOp::lag, kClose, 0}}, 4, 1, 10);
  Kokkos::View<double***, Kokkos::LayoutRight, typename S::memory_space> wrong("wrong", 4, 1, 11);
  EXPECT_THROW(ok.compute(wrong), kbt::Error);
}

TYPED_TEST(FoldDriver, EmptyShapesAreHarmless) {
  using S = TypeParam;
  const Series3 none{4, 2, 0, {}};
  const auto run = run_fold<S>(none, every_op(kClose, {3}));
  EXPECT_TRUE(run.values.empty());
  FoldHoister<S, double> nothing({}, 4, 2, 10);
  EXPECT_EQ(nothing.n_series(), 0u);
  EXPECT_EQ(nothing.launches(), 0);
}

// ---- a compiled program ------------------------------------------------------------

// make_hoisting_plan on a compiled expression with param windows: every hoisted
// register at every window value on its param's axis equals the reference
// engine's register at that param value; a constant-window series read by
// another hoisted op goes to an earlier stage.
TYPED_TEST(FoldDriver, HoistingPlanOfACompiledProgramMatchesTheReference) {
  using S = TypeParam;
  const Series3 d = make_sample(11, 2, 600, 0.01);
  const kbt::BarData data = to_bar_data(d);
  std::vector<kbt::ParamSpec> params(2);
  params[0].name = "a";
  params[0].values = {3, 10, 25};
  params[0].is_integer = true;
  params[1].name = "b";
  params[1].values = {5, 20};
  params[1].is_integer = true;
  const kbt::Program program = kbt::compile_expression(
      kbt::SourceText{"zscore(sma(close, 10), b) + rolling_max(high - low, a) - atr(a) + ema(volume, b)"
                      " + rsi(close, 14) * roc(close, a)",
                      "<test>", 1, 1},
      kbt::schema_of(data), params);
  const auto stages = kbt::kernels::make_hoisting_plan(program);
  ASSERT_EQ(stages.size(), 2u) << kbt::disassemble(program);
  EXPECT_EQ(stages[1].entries.size(), 1u);  // the zscore over the stage-0 sma
  std::size_t checked = 0;
  for (const auto& stage : stages) {
    // Inputs: the param-free registers, from the reference (any param values).
    const double any[2] = {3, 5};
    const auto regs = kbt::evaluate_registers_reference(program, data, any);
    Kokkos::View<double***, Kokkos::LayoutRight, typename S::memory_space> in("in", stage.n_inputs(),
                                                                              d.n_sym, d.n_bars);
    auto h = Kokkos::create_mirror_view(in);
    for (int i = 0; i < stage.n_inputs(); ++i)
      for (int s = 0; s < d.n_sym; ++s)
        for (int t = 0; t < d.n_bars; ++t)
          h(i, s, t) = regs.at(static_cast<std::size_t>(stage.input_registers[i]))
                           .at(static_cast<std::size_t>(s) * d.n_bars + t);
    Kokkos::deep_copy(in, h);
    FoldHoister<S, double> hoist(stage.requests, stage.n_inputs(), d.n_sym, d.n_bars);
    hoist.compute(in);
    const auto out = download(hoist, d.n_sym, d.n_bars);
    for (const auto& e : stage.entries) {
      const kbt::HoistedSeries& hs = *std::find_if(program.hoisted.begin(), program.hoisted.end(),
                                                   [&](const kbt::HoistedSeries& x) { return x.reg == e.reg; });
      for (std::size_t j = 0; j < e.windows.size(); ++j) {
        double values[2] = {3, 5};
        if (hs.window_kind == kbt::WindowKind::param) values[hs.window] = static_cast<double>(e.windows[j]);
        const auto want = kbt::evaluate_registers_reference(program, data, values).at(static_cast<std::size_t>(e.reg));
        EXPECT_EQ(stage.series_index(e.reg, e.windows[j]), e.series[j]);
        int bad = 0;
        for (int s = 0; s < d.n_sym; ++s)
          for (int t = 0; t < d.n_bars; ++t)
            bad += !same(out.at(e.series[j], s, t), want[static_cast<std::size_t>(s) * d.n_bars + t]);
        EXPECT_EQ(bad, 0) << "register " << e.reg << " window " << e.windows[j];
        ++checked;
      }
    }
  }
  // sma 10; zscore x 2; rolling_max x 3; atr x 3; ema x 2; rsi 14; roc x 3.
  EXPECT_EQ(checked, 15u);
  EXPECT_EQ(stages[0].series_index(-5, 3), -1);
}

// ---- threads ---------------------------------------------------------------------------

#if defined(KOKKOS_ENABLE_OPENMP) && KOKKOS_VERSION >= 40000
// ctest also runs the whole binary at 1 and 2 host threads; this compares a
// 1-thread OpenMP instance with the default one (2 threads in that run) and
// with Serial inside one process.
TEST(FoldKernelsOpenMP, OneThreadAndAllThreadsGiveTheSameBits) {
  const Series3 d = make_sample(5, 3, 2000, 0.01);
  const auto requests = every_op(kClose, {1, 3, 20, 150});
  const auto one_thread = run_fold<Kokkos::OpenMP>(d, requests, Kokkos::OpenMP(1));
  const auto all_threads = run_fold<Kokkos::OpenMP>(d, requests, Kokkos::OpenMP());
  ASSERT_EQ(one_thread.values.size(), all_threads.values.size());
  for (std::size_t i = 0; i < one_thread.values.size(); ++i)
    ASSERT_TRUE(same(one_thread.values[i], all_threads.values[i])) << "value " << i;
#ifdef KOKKOS_ENABLE_SERIAL
  const auto serial = run_fold<Kokkos::Serial>(d, requests);
  for (std::size_t i = 0; i < serial.values.size(); ++i)
    ASSERT_TRUE(same(serial.values[i], all_threads.values[i])) << "value " << i;
#endif
  RecordProperty("openmp_concurrency", Kokkos::OpenMP().concurrency());
}
#endif

}  // namespace
