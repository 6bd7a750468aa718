// kbt::kx wrappers and kbt's portable math, run on every enabled execution
// space: kernels compute the same bits as the host, sorting agrees with
// std::sort, reducers with hand-computed extrema.
#include <kbt/core/detail/kokkos_compat.hpp>
#include <kbt/core/detail/portable_math.hpp>
#include <kbt/core/detail/scalar_math.hpp>

#include "support/execution_spaces.hpp"

#include <gtest/gtest.h>

#include <cmath>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <numeric>
#include <random>
#include <vector>

namespace {

template <class T>
std::uint64_t bits_of(T x) {
  std::uint64_t u = 0;
  std::memcpy(&u, &x, sizeof x);
  return u;
}

// out(i, 0..2) = exp(x(i)), log(x(i)), pow(x(i), y(i)) with kbt's portable math.
template <class Real, class Space>
struct PortableMathKernel {
  Kokkos::View<const Real*, typename Space::memory_space> x, y;
  Kokkos::View<Real* [3], typename Space::memory_space> out;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    out(i, 0) = kbt::detail::portable::exp(x(i));
    out(i, 1) = kbt::detail::portable::log(x(i));
    out(i, 2) = kbt::detail::portable::pow(x(i), y(i));
  }
};

template <class Space, class Real>
void expect_kernel_math_matches_host(const Space& space) {
  const int n = 4096;
  std::mt19937_64 rng(99);
  std::uniform_real_distribution<double> ux(-50.0, 50.0), uy(-8.0, 8.0);
  Kokkos::View<Real*, Kokkos::HostSpace> hx("x", n), hy("y", n);
  for (int i = 0; i < n; ++i) {
    hx(i) = static_cast<Real>(i % 7 == 0 ? -ux(rng) / 3 : ux(rng));  // some negatives: NaN logs
    hy(i) = static_cast<Real>(i % 5 == 0 ? static_cast<int>(uy(rng)) : uy(rng));
  }
  hx(0) = Real(0);
  hx(1) = kbt::kx::infinity<Real>();
  auto dx = kbt::kx::to_space(typename Space::memory_space(), hx);
  auto dy = kbt::kx::to_space(typename Space::memory_space(), hy);
  Kokkos::View<Real* [3], typename Space::memory_space> dout("out", n);
  Kokkos::parallel_for("portable_math", Kokkos::RangePolicy<Space>(space, 0, n),
                       PortableMathKernel<Real, Space>{dx, dy, dout});
  kbt::kx::fence(space, "portable_math");
  auto out = kbt::kx::to_host(dout);
  int mismatches = 0;
  for (int i = 0; i < n; ++i) {
    const Real expected[3] = {kbt::detail::portable::exp(hx(i)), kbt::detail::portable::log(hx(i)),
                              kbt::detail::portable::pow(hx(i), hy(i))};
    for (int k = 0; k < 3; ++k) {
      if (bits_of(expected[k]) != bits_of(out(i, k)) && ++mismatches < 10) {
        ADD_FAILURE() << "function " << k << " at x=" << hx(i) << " y=" << hy(i) << ": host " << expected[k]
                      << ", " << Space::name() << " " << out(i, k);
      }
    }
  }
  EXPECT_EQ(mismatches, 0);
}

// out(i * n + j, 0..1) = less_or / greater_or of values i and j.
template <class Real, class Space>
struct SelectKernel {
  Kokkos::View<const Real*, typename Space::memory_space> v;
  Kokkos::View<Real* [2], typename Space::memory_space> out;
  KOKKOS_INLINE_FUNCTION void operator()(const int k) const {
    const int n = int(v.extent(0));
    out(k, 0) = kbt::math::less_or(v(k / n), v(k % n));
    out(k, 1) = kbt::math::greater_or(v(k / n), v(k % n));
  }
};

// The branch-free selects against the conditionals they stand for, on every
// pair of signed zeros, NaNs, infinities and ordinary values: the same bits.
template <class Space, class Real>
void expect_selects_match_conditionals(const Space& space) {
  const Real nan = kbt::math::quiet_nan<Real>(), inf = kbt::kx::infinity<Real>();
  const std::vector<Real> values = {Real(-1.5), Real(2), Real(0), -Real(0), nan, -nan, inf, -inf, Real(2)};
  const int n = int(values.size());
  Kokkos::View<Real*, Kokkos::HostSpace> h("v", n);
  for (int i = 0; i < n; ++i) h(i) = values[i];
  auto d = kbt::kx::to_space(typename Space::memory_space(), h);
  Kokkos::View<Real* [2], typename Space::memory_space> dout("out", n * n);
  Kokkos::parallel_for("selects", Kokkos::RangePolicy<Space>(space, 0, n * n), SelectKernel<Real, Space>{d, dout});
  kbt::kx::fence(space, "selects");
  auto out = kbt::kx::to_host(dout);
  for (int k = 0; k < n * n; ++k) {
    const Real a = values[k / n], b = values[k % n];
    const Real less = a < b ? a : b, greater = a > b ? a : b;
    EXPECT_EQ(bits_of(out(k, 0)), bits_of(less)) << "less_or(" << a << ", " << b << ")";
    EXPECT_EQ(bits_of(out(k, 1)), bits_of(greater)) << "greater_or(" << a << ", " << b << ")";
    // And on the host, where x86-64 takes the minsd/maxsd path.
    EXPECT_EQ(bits_of(kbt::math::less_or(a, b)), bits_of(less));
    EXPECT_EQ(bits_of(kbt::math::greater_or(a, b)), bits_of(greater));
  }
}

template <class Space>
struct MinMaxKernel {
  Kokkos::View<const double*, typename Space::memory_space> v;
  KOKKOS_INLINE_FUNCTION void operator()(const int i, kbt::kx::MinMaxValue<double>& m) const {
    if (v(i) < m.min_val) m.min_val = v(i);
    if (v(i) > m.max_val) m.max_val = v(i);
  }
};

template <class Space>
void expect_minmax_and_sorting(const Space& space) {
  using Memory = typename Space::memory_space;
  const int n = 1000;
  // A permutation of -500.25 + k (k = 0..999): extremes -500.25 and 498.75.
  std::vector<double> values(n);
  for (int k = 0; k < n; ++k) values[k] = -500.25 + k;
  std::shuffle(values.begin(), values.end(), std::mt19937_64(5));
  Kokkos::View<double*, Kokkos::HostSpace> h("h", n);
  for (int i = 0; i < n; ++i) h(i) = values[i];

  auto d = kbt::kx::to_space(Memory(), h);
  kbt::kx::MinMaxValue<double> extent;
  Kokkos::parallel_reduce("minmax", Kokkos::RangePolicy<Space>(space, 0, n), MinMaxKernel<Space>{d},
                          kbt::kx::MinMax<double, Kokkos::HostSpace>(extent));
  kbt::kx::fence(space, "minmax");
  EXPECT_EQ(extent.min_val, -500.25);
  EXPECT_EQ(extent.max_val, 498.75);

  Kokkos::View<double*, Memory> sorted("sorted", n);
  Kokkos::deep_copy(sorted, d);
  kbt::kx::sort(space, sorted);
  auto hs = kbt::kx::to_host(sorted);
  for (int k = 0; k < n; ++k) ASSERT_EQ(hs(k), -500.25 + k) << "position " << k;

  // sort_by_key: values are the original positions; after sorting, keys are
  // ascending and each value still names the position its key came from.
  Kokkos::View<double*, Memory> keys("keys", n);
  Kokkos::deep_copy(keys, d);
  Kokkos::View<int*, Kokkos::HostSpace> hidx("hidx", n);
  for (int i = 0; i < n; ++i) hidx(i) = i;
  Kokkos::View<int*, Memory> idx("idx", n);
  Kokkos::deep_copy(idx, hidx);
  kbt::kx::sort_by_key(space, keys, idx);
  kbt::kx::fence(space, "sort_by_key");
  auto hk = kbt::kx::to_host(keys);
  auto hi = kbt::kx::to_host(idx);
  for (int k = 0; k < n; ++k) {
    ASSERT_EQ(hk(k), -500.25 + k) << "position " << k;
    ASSERT_EQ(values[hi(k)], hk(k)) << "position " << k;
  }
}

template <class Space>
class KokkosCompat : public ::testing::Test {};
TYPED_TEST_SUITE(KokkosCompat, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

template <class SpaceReal>
class PortableMathInKernels : public ::testing::Test {};
TYPED_TEST_SUITE(PortableMathInKernels, kbt::test::SpaceRealPairs, kbt::test::SpaceRealNames);

TYPED_TEST(PortableMathInKernels, HasHostBits) {
  using Space = typename TypeParam::Space;
  expect_kernel_math_matches_host<Space, typename TypeParam::Real>(Space());
}

TYPED_TEST(PortableMathInKernels, SelectsHaveTheConditionalsBits) {
  using Space = typename TypeParam::Space;
  expect_selects_match_conditionals<Space, typename TypeParam::Real>(Space());
}

TYPED_TEST(KokkosCompat, MinMaxAndSorting) { expect_minmax_and_sorting(TypeParam()); }

TYPED_TEST(KokkosCompat, ConcurrencyIsPositive) { EXPECT_GE(kbt::kx::concurrency(TypeParam()), 1); }

}  // namespace

TEST(KokkosCompatHost, MinMaxClampAbsFollowStdSemantics) {
  static_assert(kbt::kx::min(2, 3) == 2 && kbt::kx::max(2, 3) == 3, "");
  static_assert(kbt::kx::clamp(5, 0, 3) == 3 && kbt::kx::clamp(-1, 0, 3) == 0 && kbt::kx::clamp(2, 0, 3) == 2, "");
  EXPECT_EQ(kbt::kx::abs(-2.5), 2.5);
  // -0.0 == 0.0 compares equal: the sign bit is what tells a wrong abs apart.
  EXPECT_EQ(kbt::kx::abs(-0.0), 0.0);
  EXPECT_FALSE(std::signbit(kbt::kx::abs(-0.0)));
  EXPECT_FALSE(std::signbit(kbt::kx::abs(-0.0f)));
  EXPECT_EQ(kbt::kx::fmin(1.0, kbt::detail::portable::quiet_nan()), 1.0);  // NaN loses
  EXPECT_EQ(kbt::kx::fmax(kbt::detail::portable::quiet_nan(), -1.0), -1.0);
  EXPECT_EQ(kbt::kx::sqrt(2.25), 1.5);
  EXPECT_TRUE(kbt::kx::isnan(kbt::detail::portable::quiet_nan()));
  EXPECT_TRUE(kbt::kx::isinf(-kbt::kx::infinity<double>()));
  EXPECT_FALSE(kbt::kx::isfinite(kbt::kx::infinity<float>()));
  EXPECT_EQ(kbt::kx::epsilon<double>(), 0x1p-52);
  EXPECT_EQ(kbt::kx::finite_max<float>(), 0x1.fffffep+127f);
  using V = Kokkos::View<double**>;
  static_assert(kbt::kx::rank_v<V> == 2, "");
  kbt::kx::fence("global fence");
}
