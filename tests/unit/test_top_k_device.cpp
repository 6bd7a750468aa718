// Top-K selected on an execution space (kbt/sweep/device_top_k.hpp) against the
// host selection kbt::select_top_k, which is a plain partial sort over doubles:
// the same rows in the same order, on every enabled space and by each method
// that space can run (the bisection everywhere, the keys' partial sort where
// the host reads the memory), for metrics full of ties, NaN, infinities,
// signed zeros and combos below min_trades.

#include <gtest/gtest.h>
#include <kbt/sweep/device_top_k.hpp>
#include <kbt/sweep/top_k.hpp>

#include "support/execution_spaces.hpp"

#include <algorithm>
#include <cmath>
#include <random>

namespace {

template <class Space>
class DeviceTopK : public ::testing::Test {};
TYPED_TEST_SUITE(DeviceTopK, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

struct Rows {
  std::vector<double> metrics;  // [n][n_metrics]
  std::vector<std::uint64_t> ids;
};

// n rows whose objective takes few distinct values (many ties), with NaN,
// +-inf, -0/+0 and trade counts around min_trades; ids are a shuffled,
// sparse set so that row order and id order differ.
Rows random_rows(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  Rows r;
  r.metrics.assign(n * kbt::n_metrics, 0.0);
  const double specials[] = {std::nan(""), INFINITY, -INFINITY, 0.0, -0.0, 1e-300, -1e-300};
  for (std::size_t i = 0; i < n; ++i) {
    double v;
    const auto pick = rng() % 10;
    if (pick < 2) v = specials[rng() % 7];
    else v = static_cast<double>(static_cast<int>(rng() % 15) - 7) * 0.25;  // ties
    r.metrics[i * kbt::n_metrics + static_cast<int>(kbt::Metric::sharpe)] = v;
    r.metrics[i * kbt::n_metrics + static_cast<int>(kbt::Metric::n_trades)] = static_cast<double>(rng() % 20);
    r.ids.push_back(i * 37 + 5);  // unique, as combo ids are
  }
  std::shuffle(r.ids.begin(), r.ids.end(), rng);
  return r;
}

// The methods `Space` can run.
template <class Space>
std::vector<kbt::TopKMethod> methods_of() {
  std::vector<kbt::TopKMethod> methods{kbt::TopKMethod::automatic, kbt::TopKMethod::bisection};
  if (kbt::detail::host_reads_memory_of<Space>()) methods.push_back(kbt::TopKMethod::host_partial_sort);
  return methods;
}

const char* name_of(kbt::TopKMethod method) {
  switch (method) {
    case kbt::TopKMethod::automatic: return "automatic";
    case kbt::TopKMethod::bisection: return "bisection";
    case kbt::TopKMethod::host_partial_sort: return "host_partial_sort";
  }
  return "?";
}

template <class Space>
std::vector<std::size_t> on_space(const Rows& r, const kbt::Objective& objective, std::size_t k,
                                  kbt::TopKMethod method = kbt::TopKMethod::automatic) {
  using Mem = typename Space::memory_space;
  const std::size_t n = r.ids.size();
  Kokkos::View<double**, Mem> metrics("metrics", n, kbt::n_metrics);
  Kokkos::View<std::uint64_t*, Mem> ids("ids", n);
  auto hm = Kokkos::create_mirror_view(metrics);
  auto hi = Kokkos::create_mirror_view(ids);
  for (std::size_t i = 0; i < n; ++i) {
    hi(i) = r.ids[i];
    for (std::size_t m = 0; m < kbt::n_metrics; ++m) hm(i, m) = r.metrics[i * kbt::n_metrics + m];
  }
  Kokkos::deep_copy(metrics, hm);
  Kokkos::deep_copy(ids, hi);
  const auto rows = kbt::select_top_k_on(Space(), metrics, ids, objective, k, method);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), rows);
  std::vector<std::size_t> out;
  for (std::size_t j = 0; j < host.extent(0); ++j) out.push_back(static_cast<std::size_t>(host(j)));
  return out;
}

TYPED_TEST(DeviceTopK, SameRowsInTheSameOrderAsTheHostSelection) {
  for (const kbt::TopKMethod method : methods_of<TypeParam>()) {
    for (std::uint64_t seed : {1u, 2u, 3u}) {
      const Rows r = random_rows(2000, seed);
      for (bool maximize : {true, false})
        for (double min_trades : {0.0, 10.0})
          for (std::size_t k : {std::size_t(0), std::size_t(1), std::size_t(7), std::size_t(100), std::size_t(1999),
                                std::size_t(5000)}) {
            kbt::Objective objective;
            objective.metric = "sharpe";
            objective.maximize = maximize;
            objective.min_trades = min_trades;
            const auto expected = kbt::select_top_k(r.metrics, r.ids, objective, k);
            ASSERT_FALSE(k > 0 && expected.empty()) << "vacuous case: no eligible row";
            const auto got = on_space<TypeParam>(r, objective, k, method);
            EXPECT_EQ(got, expected) << name_of(method) << " seed " << seed << " maximize " << maximize
                                     << " min_trades " << min_trades << " k " << k;
          }
    }
  }
}

TYPED_TEST(DeviceTopK, TiesAtTheCutAreBrokenBySmallestComboId) {
  // Ten rows with the same objective; the best three are the three smallest ids.
  Rows r;
  r.metrics.assign(10 * kbt::n_metrics, 0.0);
  for (std::size_t i = 0; i < 10; ++i) {
    r.metrics[i * kbt::n_metrics + static_cast<int>(kbt::Metric::sharpe)] = i == 4 ? 2.0 : 1.0;
    r.ids.push_back(100 - 7 * i);
  }
  kbt::Objective objective;
  objective.metric = "sharpe";
  // Row 4 (sharpe 2) first, then ids 37 (row 9), 44 (row 8), 51 (row 7).
  for (const kbt::TopKMethod method : methods_of<TypeParam>())
    EXPECT_EQ(on_space<TypeParam>(r, objective, 4, method), (std::vector<std::size_t>{4, 9, 8, 7})) << name_of(method);
}

TYPED_TEST(DeviceTopK, PartialSortOnMemoryTheHostCannotReadIsUnsupported) {
  if (kbt::detail::host_reads_memory_of<TypeParam>()) GTEST_SKIP() << "the host reads this space's memory";
  const Rows r = random_rows(10, 5);
  kbt::Objective objective;
  objective.metric = "sharpe";
  try {
    on_space<TypeParam>(r, objective, 3, kbt::TopKMethod::host_partial_sort);
    ADD_FAILURE() << "expected a kbt::Error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::unsupported);
  }
}

TYPED_TEST(DeviceTopK, UnknownObjectiveMetricIsAConfigError) {
  Rows r = random_rows(10, 4);
  kbt::Objective objective;
  objective.metric = "sharpe_ratio";
  try {
    on_space<TypeParam>(r, objective, 3);
    ADD_FAILURE() << "expected a kbt::Error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::config);
  }
}

}  // namespace
