#pragma once
// Shared by the fold-kernel tests (test_fold_kernels.cpp, test_fold_hoister.cpp):
// sample-like bars, the independent computation (the reference engine on the
// op's expression, docs/testing.md), running the kernels, comparing bits.

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

namespace kbt_fold_test {

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
inline Series3 make_sample(std::uint64_t seed, int n_sym, int n_bars, double gap_rate) {
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

inline kbt::BarData to_bar_data(const Series3& d) {
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
inline std::string expression_of(const FoldRequest& r) {
  if (r.op == FoldOp::atr) {
    EXPECT_TRUE(r.input == kClose && r.high == kHigh && r.low == kLow) << "atr reads the symbol's columns";
    return "atr(" + std::to_string(r.window) + ")";
  }
  return std::string(to_string(r.op)) + "(" + kInputNames[r.input] + ", " + std::to_string(r.window) + ")";
}

// evaluate_expression_reference on the request's expression: [n_sym * n_bars].
inline std::vector<double> reference_series(const FoldRequest& r, const kbt::BarData& data) {
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

inline std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Same value: both NaN (payloads differ between hardware), or the same bits.
inline bool same(double a, double b) { return (std::isnan(a) && std::isnan(b)) || bits(a) == bits(b); }

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

inline std::vector<FoldRequest> every_op(int input, const std::vector<int>& windows) {
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


inline Series3 one_series(const std::vector<double>& x) {
  Series3 d{1, 1, static_cast<int>(x.size()), x};
  return d;
}

template <class Space>
std::vector<double> one(const std::vector<double>& x, FoldRequest r) {
  const auto run = run_fold<Space>(one_series(x), {r});
  return run.values;
}

inline void expect_series(const std::vector<double>& got, const std::vector<double>& want, const char* what) {
  ASSERT_EQ(got.size(), want.size()) << what;
  for (std::size_t t = 0; t < want.size(); ++t)
    EXPECT_TRUE(same(got[t], want[t])) << what << " bar " << t << ": got " << got[t] << ", want "
                                       << want[t];
}

}  // namespace kbt_fold_test
