// Fold kernels (include/kbt/kernels/) against an independent host computation
// of every op, by the bits of every fp64 value, on every enabled execution
// space: hand-worked values, sample-like data with NaN gaps and warm-up, a
// seeded property test, fp32 against fp64, and 1 vs 2 OpenMP threads.
//
// The independent computation is the reference engine (docs/testing.md):
// evaluate_expression_reference on the op's expression, e.g. `sma(close, 20)`,
// which shares no code with the kernels.

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include <kbt/core/error.hpp>
#include <kbt/kernels/kernels.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>
#include "support/execution_spaces.hpp"

namespace {

using kbt::kernels::FoldHoister;
using kbt::kernels::FoldOp;
using kbt::kernels::FoldRequest;

constexpr double nan = std::numeric_limits<double>::quiet_NaN();

// ---- data --------------------------------------------------------------------

// Inputs [n_inputs][n_sym][n_bars], flat; inputs 0..2 are high, low, close.
struct Series3 {
  int n_inputs = 0;
  int n_sym = 0;
  int n_bars = 0;
  std::vector<double> v;
  double& at(int i, int s, int t) { return v[(static_cast<std::size_t>(i) * n_sym + s) * n_bars + t]; }
  double at(int i, int s, int t) const {
    return v[(static_cast<std::size_t>(i) * n_sym + s) * n_bars + t];
  }
  const double* row(int i, int s) const { return &v[(static_cast<std::size_t>(i) * n_sym + s) * n_bars]; }
};

constexpr int kHigh = 0, kLow = 1, kClose = 2, kVolume = 3;

// Sample-like bars: a random walk in log price per symbol, high/low around
// close, a volume column; a symbol listed late (leading NaNs), a multi-bar
// gap, isolated missing bars.
Series3 make_sample(std::uint64_t seed, int n_sym, int n_bars, double gap_rate) {
  Series3 d{4, n_sym, n_bars, {}};
  d.v.assign(static_cast<std::size_t>(4) * n_sym * n_bars, nan);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  for (int s = 0; s < n_sym; ++s) {
    double price = 100.0 * (s + 1);
    const int listed = s == 1 ? n_bars / 10 : 0;
    for (int t = 0; t < n_bars; ++t) {
      price *= 1.0 + 0.01 * u(rng);
      const bool gap = t < listed || (t >= n_bars / 2 && t < n_bars / 2 + 7 && s == 0) ||
                       unit(rng) < gap_rate;
      if (gap) continue;
      const double c = price;
      d.at(kClose, s, t) = c;
      d.at(kHigh, s, t) = c * (1.0 + 0.005 * unit(rng));
      d.at(kLow, s, t) = c * (1.0 - 0.005 * unit(rng));
      d.at(kVolume, s, t) = std::floor(1000.0 * unit(rng));
    }
  }
  return d;
}

// ---- the independent computation: the reference engine --------------------------

const char* const kInputNames[] = {"high", "low", "close", "volume"};

kbt::BarData to_bar_data(const Series3& d) {
  kbt::BarData b;
  for (int t = 0; t < d.n_bars; ++t) b.timestamps.push_back(std::int64_t{60'000'000'000} * (t + 1));
  for (int s = 0; s < d.n_sym; ++s) b.symbols.push_back("S" + std::to_string(s));
  for (int i = 0; i < d.n_inputs; ++i) {
    std::vector<double>& col = b.columns[kInputNames[i]];
    for (int s = 0; s < d.n_sym; ++s) col.insert(col.end(), d.row(i, s), d.row(i, s) + d.n_bars);
  }
  b.columns["open"] = b.columns.at("close");
  return b;
}

// The language text of a request: "rolling_mean(close, 20)", "atr(14)".
std::string expression_of(const FoldRequest& r) {
  if (r.op == FoldOp::atr) {
    EXPECT_TRUE(r.input == kClose && r.high == kHigh && r.low == kLow) << "atr reads the symbol's columns";
    return "atr(" + std::to_string(r.window) + ")";
  }
  return std::string(to_string(r.op)) + "(" + kInputNames[r.input] + ", " + std::to_string(r.window) + ")";
}

// evaluate_expression_reference on the request's expression: [n_sym * n_bars].
std::vector<double> reference_series(const FoldRequest& r, const kbt::BarData& data) {
  kbt::CompileOptions options;
  options.allow_lead = true;
  const kbt::Program program = kbt::compile_expression(
      kbt::SourceText{expression_of(r), "<test>", 1, 1}, kbt::schema_of(data), {}, options);
  return kbt::evaluate_expression_reference(program, data, nullptr);
}

// ---- running the kernels ---------------------------------------------------------

// Computes `requests` on Space in precision Real; returns the series as
// doubles, [series][sym][bar] flat, plus the hoister's distinct requests.
template <class Space, class Real>
struct FoldRun {
  std::vector<FoldRequest> distinct;
  std::vector<double> values;
  int n_sym = 0;
  int n_bars = 0;
  double at(int k, int s, int t) const {
    return values[(static_cast<std::size_t>(k) * n_sym + s) * n_bars + t];
  }
};

template <class Space, class Real>
Kokkos::View<Real***, Kokkos::LayoutRight, typename Space::memory_space> upload(const Series3& d) {
  Kokkos::View<Real***, Kokkos::LayoutRight, typename Space::memory_space> in("in", d.n_inputs,
                                                                             d.n_sym, d.n_bars);
  auto h = Kokkos::create_mirror_view(in);
  for (int i = 0; i < d.n_inputs; ++i)
    for (int s = 0; s < d.n_sym; ++s)
      for (int t = 0; t < d.n_bars; ++t) h(i, s, t) = static_cast<Real>(d.at(i, s, t));
  Kokkos::deep_copy(in, h);
  return in;
}

template <class Space, class Real>
FoldRun<Space, Real> download(const FoldHoister<Space, Real>& hoist, int n_sym, int n_bars) {
  FoldRun<Space, Real> run;
  run.distinct = hoist.requests();
  run.n_sym = n_sym;
  run.n_bars = n_bars;
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), hoist.series());
  run.values.resize(h.span());
  for (std::size_t k = 0; k < h.extent(0); ++k)
    for (int s = 0; s < n_sym; ++s)
      for (int t = 0; t < n_bars; ++t)
        run.values[(k * n_sym + s) * n_bars + t] = static_cast<double>(h(k, s, t));
  return run;
}

template <class Space, class Real = double>
FoldRun<Space, Real> run_fold(const Series3& d, const std::vector<FoldRequest>& requests,
                              const Space& exec = Space()) {
  FoldHoister<Space, Real> hoist(requests, d.n_inputs, d.n_sym, d.n_bars);
  hoist.compute(exec, upload<Space, Real>(d));
  return download(hoist, d.n_sym, d.n_bars);
}

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Same value: both NaN (payloads differ between hardware), or the same bits.
bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }

// Compares every value of every series with the reference engine; returns the
// number of mismatches and reports the first few.
template <class Run>
int count_mismatches(const Run& run, const Series3& d) {
  const kbt::BarData data = to_bar_data(d);
  int bad = 0;
  for (std::size_t k = 0; k < run.distinct.size(); ++k) {
    const std::vector<double> want = reference_series(run.distinct[k], data);
    for (int s = 0; s < d.n_sym; ++s) {
      for (int t = 0; t < d.n_bars; ++t) {
        const double got = run.at(static_cast<int>(k), s, t);
        const double ref = want[static_cast<std::size_t>(s) * d.n_bars + t];
        if (same(got, ref)) continue;
        if (++bad <= 5)
          ADD_FAILURE() << expression_of(run.distinct[k]) << " symbol " << s << " bar " << t << ": got "
                        << got << " (0x" << std::hex << bits(got) << "), reference " << ref << " (0x"
                        << bits(ref) << std::dec << ")";
      }
    }
  }
  return bad;
}

std::vector<FoldRequest> every_op(int input, const std::vector<int>& windows) {
  std::vector<FoldRequest> r;
  for (int w : windows) {
    for (FoldOp op : {FoldOp::rolling_sum, FoldOp::rolling_mean, FoldOp::rolling_std,
                      FoldOp::rolling_min, FoldOp::rolling_max, FoldOp::zscore, FoldOp::roc,
                      FoldOp::lag, FoldOp::lead, FoldOp::ema, FoldOp::rsi})
      if (w >= kbt::min_window(op)) r.push_back({op, input, w});
    r.push_back({FoldOp::atr, kClose, w, kHigh, kLow});
  }
  return r;
}

template <class Space>
class FoldKernels : public ::testing::Test {};
TYPED_TEST_SUITE(FoldKernels, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

// ---- hand-worked values ------------------------------------------------------------

Series3 one_series(const std::vector<double>& x) {
  Series3 d{1, 1, static_cast<int>(x.size()), x};
  return d;
}

template <class Space>
std::vector<double> one(const std::vector<double>& x, FoldRequest r) {
  const auto run = run_fold<Space>(one_series(x), {r});
  return run.values;
}

void expect_series(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t t = 0; t < want.size(); ++t)
    EXPECT_TRUE(same(got[t], want[t])) << what << " bar " << t << ": got " << got[t] << ", want "
                                       << want[t];
}

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

// ---- the driver ------------------------------------------------------------------------

TYPED_TEST(FoldKernels, HoisterDedupesReportsSizeAndIsReusable) {
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

TYPED_TEST(FoldKernels, BadRequestsAreRefusedWithTheRequestNamed) {
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

TYPED_TEST(FoldKernels, EmptyShapesAreHarmless) {
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
TYPED_TEST(FoldKernels, HoistingPlanOfACompiledProgramMatchesTheReference) {
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
