// Fold kernels (include/kbt/kernels/) against an independent host computation
// of every op, by the bits of every fp64 value, on every enabled execution
// space: hand-worked values, sample-like data with NaN gaps and warm-up, a
// seeded property test and fp32 against fp64. The driver and the hoisting
// plan: test_fold_hoister.cpp.
//
// The independent computation is the reference engine (docs/testing.md):
// evaluate_expression_reference on the op's expression, e.g. `sma(close, 20)`,
// which shares no code with the kernels.

#include "test_fold_kernels_support.hpp"

namespace {

using namespace kbt_fold_test;
using kbt_fold_test::nan;  // not ::nan(const char*)

template <class Space>
class FoldKernels : public ::testing::Test {};
TYPED_TEST_SUITE(FoldKernels, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

TYPED_TEST(FoldKernels, HandWorkedWindowedOps) {
  using S = TypeParam;
  const std::vector<double> x{1, 2, 3, 4, 5, nan, 7, 8, 9, 10};
  expect_series(one<S>(x, {FoldOp::rolling_sum, 0, 3}), {nan, nan, 6, 9, 12, nan, nan, nan, 24, 27}, "sum3");
  expect_series(one<S>(x, {FoldOp::rolling_mean, 0, 3}), {nan, nan, 2, 3, 4, nan, nan, nan, 8, 9}, "sma3");
  // Consecutive integers: sample std is exactly 1, so the zscore of the last is 1.
  expect_series(one<S>(x, {FoldOp::rolling_std, 0, 3}), {nan, nan, 1, 1, 1, nan, nan, nan, 1, 1}, "std3");
  expect_series(one<S>(x, {FoldOp::zscore, 0, 3}), {nan, nan, 1, 1, 1, nan, nan, nan, 1, 1}, "zscore3");
  expect_series(one<S>(x, {FoldOp::rolling_max, 0, 3}), {nan, nan, 3, 4, 5, nan, nan, nan, 9, 10}, "max3");
  expect_series(one<S>(x, {FoldOp::rolling_min, 0, 3}), {nan, nan, 1, 2, 3, nan, nan, nan, 7, 8}, "min3");
  expect_series(one<S>(x, {FoldOp::lag, 0, 2}), {nan, nan, 1, 2, 3, 4, 5, nan, 7, 8}, "lag2");
  expect_series(one<S>(x, {FoldOp::lag, 0, 0}), x, "lag0");
  expect_series(one<S>(x, {FoldOp::lead, 0, 3}), {4, 5, nan, 7, 8, 9, 10, nan, nan, nan}, "lead3");
  expect_series(one<S>(x, {FoldOp::roc, 0, 1}), {nan, 1.0 / 1, 1.0 / 2, 1.0 / 3, 1.0 / 4, nan, nan, 1.0 / 7, 1.0 / 8, 1.0 / 9}, "roc1");
  // A window longer than the data is all warm-up.
  expect_series(one<S>({4, 5}, {FoldOp::rolling_max, 0, 3}), {nan, nan}, "max3 short");
  expect_series(one<S>({4, 5}, {FoldOp::rolling_mean, 0, 1}), {4, 5}, "sma1");
  // roc over a zero base and zscore over a flat window are x/0: NaN.
  expect_series(one<S>({0, 5, 5, 5}, {FoldOp::roc, 0, 1}), {nan, nan, 0, 0}, "roc zero base");
  const auto z = one<S>({5, 5, 5, 6}, {FoldOp::zscore, 0, 3});
  EXPECT_TRUE(std::isnan(z[2])) << "zscore of a flat window";
  // 5, 5, 6: mean 16/3, deviations -1/3, -1/3, 2/3, variance 1/3.
  EXPECT_NEAR(z[3], 2.0 / std::sqrt(3.0), 1e-15);
}

// +0 and -0 compare equal: like a sequential scan, the earliest of equal
// values is kept, whatever the algorithm (w = 2 and 3 cross block edges).
TYPED_TEST(FoldKernels, ExtremaKeepTheEarliestOfEqualValues) {
  using S = TypeParam;
  const std::vector<double> x{0.0, -0.0, 0.0, -0.0, -0.0, 1.0};
  const auto max2 = one<S>(x, {FoldOp::rolling_max, 0, 2});
  const auto min2 = one<S>(x, {FoldOp::rolling_min, 0, 2});
  const auto max3 = one<S>(x, {FoldOp::rolling_max, 0, 3});
  const auto min3 = one<S>(x, {FoldOp::rolling_min, 0, 3});
  const std::vector<double> want_max2{nan, 0.0, -0.0, 0.0, -0.0, 1.0};
  const std::vector<double> want_min2{nan, 0.0, -0.0, 0.0, -0.0, -0.0};
  const std::vector<double> want_max3{nan, nan, 0.0, -0.0, 0.0, 1.0};
  const std::vector<double> want_min3{nan, nan, 0.0, -0.0, 0.0, -0.0};
  // Bits, not ==: +0 == -0.
  auto check = [](const std::vector<double>& got, const std::vector<double>& want, const char* what) {
    for (std::size_t t = 0; t < want.size(); ++t) {
      if (std::isnan(want[t])) EXPECT_TRUE(std::isnan(got[t])) << what << " bar " << t;
      else EXPECT_EQ(bits(got[t]), bits(want[t])) << what << " bar " << t;
    }
  };
  check(max2, want_max2, "max2");
  check(min2, want_min2, "min2");
  check(max3, want_max3, "max3");
  check(min3, want_min3, "min3");
}

TYPED_TEST(FoldKernels, HandWorkedRecursiveOps) {
  using S = TypeParam;
  // span 3: alpha = 1/2; every step is exact in binary.
  expect_series(one<S>({nan, 1, 2, 3, 4, 5, nan, 7}, {FoldOp::ema, 0, 3}),
                {nan, 1, 1.5, 2.25, 3.125, 4.0625, nan, 5.53125}, "ema3");
  // d = +1, -1, +2, 0. w = 2: seeded at bar 2 with gain 0.5, loss 0.5 -> 50;
  // then gain (0.5 + 2) / 2 = 1.25, loss 0.25 -> rs 5; then 0.625, 0.125 -> rs 5.
  expect_series(one<S>({10, 11, 10, 12, 12}, {FoldOp::rsi, 0, 2}),
                {nan, nan, 50, 100.0 - 100.0 / 6.0, 100.0 - 100.0 / 6.0}, "rsi2");
  // Rising only: no losses -> 100; flat: 50.
  expect_series(one<S>({1, 2, 3, 4}, {FoldOp::rsi, 0, 2}), {nan, nan, 100, 100}, "rsi rising");
  expect_series(one<S>({1, 1, 1, 1}, {FoldOp::rsi, 0, 2}), {nan, nan, 50, 50}, "rsi flat");
  // A NaN before the seed restarts the count; after it, NaN out, state kept.
  expect_series(one<S>({1, 2, nan, 3, 4, 5, nan, 6, 7}, {FoldOp::rsi, 0, 2}),
                {nan, nan, nan, nan, nan, 100, nan, nan, 100}, "rsi gaps");
  // True ranges (none at bar 0) 3, 2, 3 -> atr(2) = 2.5 at bar 2, then (2.5 + 3) / 2.
  Series3 d{3, 1, 4, {10, 12, 11, 13, 8, 9, 9, 10, 9, 11, 10, 12}};  // high, low, close
  const auto run = run_fold<S>(d, {{FoldOp::atr, 2, 2, 0, 1}});
  expect_series(run.values, {nan, nan, 2.5, 2.75}, "atr2");
}

// ---- parity on sample-like data -----------------------------------------------------

TYPED_TEST(FoldKernels, EveryOpMatchesTheDefinitionBitForBit) {
  using S = TypeParam;
  const Series3 d = make_sample(20260401, 3, 1500, 0.01);
  const std::vector<int> windows{1, 2, 3, 5, 14, 20, 64, 200, 1499, 1500, 1501, 4000};
  auto requests = every_op(kClose, windows);
  for (auto r : every_op(kVolume, {1, 7, 30})) {
    if (r.op != FoldOp::atr) requests.push_back(r);
  }
  const auto run = run_fold<S>(d, requests);
  EXPECT_EQ(count_mismatches(run, d), 0);
  // Sanity of the data: there are NaN and non-NaN values in every series kind.
  EXPECT_TRUE(std::isnan(run.at(0, 1, 0)));
  EXPECT_FALSE(std::isnan(run.at(0, 0, 100)));
}

// Many windows of one input share their running sums (shared_start_sums.hpp):
// a contiguous grid, a stepped grid reaching past the last bar, sums and means
// of the same windows, two inputs (two groups), a row length that is not a
// multiple of the host chunk, symbols with leading and inner gaps.
TYPED_TEST(FoldKernels, SumsOfManyWindowsMatchTheDefinitionBitForBit) {
  using S = TypeParam;
  const Series3 d = make_sample(20261204, 3, 437, 0.02);
  std::vector<FoldRequest> requests;
  for (int w = 1; w <= 33; ++w) requests.push_back({FoldOp::rolling_mean, kClose, w});
  for (int w = 20; w <= 500; w += 5) requests.push_back({FoldOp::rolling_mean, kClose, w});
  for (int w = 3; w <= 60; w += 7) requests.push_back({FoldOp::rolling_sum, kClose, w});
  for (int w : {1, 2, 9, 436, 437, 438}) requests.push_back({FoldOp::rolling_sum, kVolume, w});
  const auto run = run_fold<S>(d, requests);
  EXPECT_EQ(count_mismatches(run, d), 0);
  int finite = 0;
  for (double v : run.values) finite += std::isfinite(v) ? 1 : 0;
  EXPECT_GT(finite, 20000) << "the grid must produce values past warm-up";
}

TYPED_TEST(FoldKernels, SeededPropertyRandomWindowsAndGaps) {
  using S = TypeParam;
  std::mt19937_64 rng(7);
  for (int round = 0; round < 6; ++round) {
    const int n_bars = std::uniform_int_distribution<int>(1, 700)(rng);
    const int n_sym = std::uniform_int_distribution<int>(1, 4)(rng);
    const double gap_rate = std::uniform_real_distribution<double>(0.0, 0.1)(rng);
    const Series3 d = make_sample(rng(), n_sym, n_bars, gap_rate);
    std::vector<FoldRequest> requests;
    for (int i = 0; i < 40; ++i) {
      const auto& ops = kbt::windowed_ops();
      const FoldOp op = ops[std::uniform_int_distribution<std::size_t>(0, ops.size() - 1)(rng)];
      const int lo = kbt::min_window(op);
      const int w = std::uniform_int_distribution<int>(lo, n_bars + 3)(rng);
      const int w_small = std::uniform_int_distribution<int>(lo, 40)(rng);
      const int input = std::uniform_int_distribution<int>(0, 3)(rng);
      FoldRequest r{op, input, i % 2 ? w : w_small};
      if (op == FoldOp::atr) r = {op, kClose, r.window, kHigh, kLow};
      requests.push_back(r);
    }
    const auto run = run_fold<S>(d, requests);
    EXPECT_EQ(count_mismatches(run, d), 0) << "round " << round << ": " << n_sym << " x " << n_bars;
  }
}

// ---- fp32 ----------------------------------------------------------------------------

// fp32 against fp64 on the same data, with the tolerance docs/kernels.md
// documents: |f32 - f64| <= 1e-4 * (|f64| + scale) * kappa, where scale is the
// op's natural magnitude (the price level for price-valued ops, w x price for
// sums, 1 for zscore and roc, 100 for rsi) and kappa = max(1, |mean| / std) of
// the window for rolling_std and zscore (the deviations x - mean lose that many
// digits), 1 otherwise.
TYPED_TEST(FoldKernels, Fp32AgreesWithFp64WithinTolerance) {
  using S = TypeParam;
  const Series3 d = make_sample(99, 2, 1200, 0.01);
  const auto requests = every_op(kClose, {2, 5, 20, 100, 400});
  const auto f64 = run_fold<S, double>(d, requests);
  const auto f32 = run_fold<S, float>(d, requests);
  ASSERT_EQ(f32.distinct.size(), f64.distinct.size());
  double worst = 0.0;
  for (std::size_t k = 0; k < f64.distinct.size(); ++k) {
    const FoldRequest r = f64.distinct[k];
    const int mean_k = static_cast<int>(std::find(f64.distinct.begin(), f64.distinct.end(),
                                                   FoldRequest{FoldOp::rolling_mean, r.input, r.window}) -
                                         f64.distinct.begin());
    const int std_k = static_cast<int>(std::find(f64.distinct.begin(), f64.distinct.end(),
                                                  FoldRequest{FoldOp::rolling_std, r.input, r.window}) -
                                        f64.distinct.begin());
    for (int s = 0; s < d.n_sym; ++s) {
      const double price = 100.0 * (s + 1);
      double scale = price;
      if (r.op == FoldOp::zscore || r.op == FoldOp::roc) scale = 1.0;
      if (r.op == FoldOp::rsi) scale = 100.0;
      if (r.op == FoldOp::rolling_sum) scale = price * r.window;
      for (int t = 0; t < d.n_bars; ++t) {
        const double a = f64.at(static_cast<int>(k), s, t);
        const double b = f32.at(static_cast<int>(k), s, t);
        ASSERT_EQ(std::isnan(a), std::isnan(b)) << describe(r) << " bar " << t << ": " << a << " vs " << b;
        if (std::isnan(a)) continue;
        double kappa = 1.0;
        if (r.op == FoldOp::zscore || r.op == FoldOp::rolling_std)
          kappa = std::max(1.0, std::fabs(f64.at(mean_k, s, t)) / f64.at(std_k, s, t));
        const double err = std::fabs(a - b) / ((std::fabs(a) + scale) * kappa);
        worst = std::max(worst, err);
        EXPECT_LE(err, 1e-4) << describe(r) << " symbol " << s << " bar " << t << ": " << a
                             << " vs " << b << ", kappa " << kappa;
      }
    }
  }
  this->RecordProperty("worst_fp32_relative_error", std::to_string(worst));
  std::printf("worst normalised fp32 error: %.3g\n", worst);
}

}  // namespace
