// The sweep cache of the reference evaluator changes nothing but speed: every combo
// gives the same bits with and without it, also when threads share one cache.
#include <cstring>
#include <thread>

#include "test_lang_support.hpp"

using namespace kbt;
using namespace kbt::test;

namespace {

BarData wavy(std::size_t n) {
  std::vector<double> a(n), b(n);
  for (std::size_t t = 0; t < n; ++t) {
    a[t] = 100 + 10 * std::sin(0.05 * static_cast<double>(t)) + 0.01 * static_cast<double>(t % 7);
    b[t] = 50 + 5 * std::cos(0.03 * static_cast<double>(t));
  }
  a[17] = NaN;
  return make_bars({"AAA", "BBB"}, {{"close", {a, b}}});
}

StrategySpec spec() {
  StrategySpec s;
  s.params = {param("fast", {2, 3, 5}), param("slow", {8, 13}), param("k", {1, 2})};
  s.signals = {{"f", SourceText{"ema(close, fast)", "t", 1, 1}},
               {"s", SourceText{"sma(close, slow)", "t", 2, 1}},
               {"z", SourceText{"zscore(close - s, 5) * k + cs_demean(rolling_std(close, 4))", "t", 3, 1}}};
  s.position = SourceText{"where(f > s, 1, -1) * clip(z, -1, 1)", "t", 4, 1};
  return s;
}

bool same_bits(const std::vector<double>& a, const std::vector<double>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
}

}  // namespace

TEST(ReferenceCache, SameBitsWithAndWithoutTheCacheAcrossThreads) {
  const BarData d = wavy(300);
  const Program p = compile_strategy(spec(), schema_of(d));
  std::vector<std::vector<double>> combos;
  for (double f : {2, 3, 5})
    for (double s : {8, 13})
      for (double k : {1, 2}) combos.push_back({f, s, k});
  std::vector<std::vector<double>> plain;
  for (const auto& c : combos) plain.push_back(evaluate_strategy_reference(p, d, c.data()).target);

  ReferenceSeriesCache cache;
  std::vector<std::vector<double>> cached(combos.size());
  std::vector<std::thread> threads;
  for (int t = 0; t < 3; ++t)
    threads.emplace_back([&, t] {
      for (std::size_t i = static_cast<std::size_t>(t); i < combos.size(); i += 3)
        cached[i] = evaluate_strategy_reference(p, d, combos[i].data(), &cache).target;
    });
  for (auto& th : threads) th.join();
  for (std::size_t i = 0; i < combos.size(); ++i) EXPECT_TRUE(same_bits(plain[i], cached[i])) << "combo " << i;
  EXPECT_GT(cache.hits(), 0u);
  EXPECT_GT(cache.bytes_held(), 0u);
  // The result is also right, not only equal: bar 0 of every combo is in warm-up.
  EXPECT_TRUE(std::isnan(cached[0][0]));
}

TEST(ReferenceCache, ACacheBelongsToOneProgram) {
  const BarData d = wavy(50);
  const Program p = compile_strategy(spec(), schema_of(d));
  const Program q = compile_strategy(spec(), schema_of(d));
  ReferenceSeriesCache cache;
  const double v[3] = {2, 8, 1};
  evaluate_strategy_reference(p, d, v, &cache);
  EXPECT_THROW(evaluate_strategy_reference(q, d, v, &cache), Error);
}

TEST(ReferenceCache, ALimitOfZeroBytesKeepsNothing) {
  const BarData d = wavy(50);
  const Program p = compile_strategy(spec(), schema_of(d));
  ReferenceSeriesCache cache(0);
  const double v[3] = {2, 8, 1};
  const auto a = evaluate_strategy_reference(p, d, v, &cache).target;
  const auto b = evaluate_strategy_reference(p, d, v, &cache).target;
  EXPECT_TRUE(same_bits(a, b));
  EXPECT_EQ(cache.bytes_held(), 0u);
  EXPECT_EQ(cache.hits(), 0u);
}
