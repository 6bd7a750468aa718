// Synthetic data: invariants, determinism, funding/exo placement, and the
// portable math underneath.

#include <gtest/gtest.h>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>

#include "data/portable_random.hpp"
#include "unit/test_data_support.hpp"

namespace {

using kbt::test::kHourNs;
using kbt::test::k2021Ns;

kbt::SynthOptions options(std::size_t n_sym, std::size_t n_bars, std::int64_t bar_ns, std::uint64_t seed) {
  kbt::SynthOptions o;
  o.n_symbols = n_sym;
  o.n_bars = n_bars;
  o.bar_ns = bar_ns;
  o.seed = seed;
  o.start_ns = k2021Ns;
  return o;
}

TEST(DataSynth, OhlcConsistentVolumePositiveGridRegular) {
  for (std::int64_t bar_ns : {std::int64_t{60} * 1000000000, kHourNs, 24 * kHourNs}) {
    for (std::uint64_t seed : {1ULL, 7ULL, 123456789ULL}) {
      const auto b = kbt::synth_bars(options(4, 3000, bar_ns, seed));
      ASSERT_EQ(b.n_bars(), 3000u);
      for (std::size_t i = 0; i < b.n_bars(); ++i) ASSERT_EQ(b.timestamps[i], k2021Ns + static_cast<std::int64_t>(i) * bar_ns);
      for (std::size_t s = 0; s < b.n_symbols(); ++s) {
        const double* o = b.series("open", s);
        const double* h = b.series("high", s);
        const double* l = b.series("low", s);
        const double* c = b.series("close", s);
        const double* v = b.series("volume", s);
        for (std::size_t i = 0; i < b.n_bars(); ++i) {
          ASSERT_TRUE(std::isfinite(o[i]) && std::isfinite(c[i])) << s << "," << i;
          ASSERT_GT(l[i], 0.0);
          ASSERT_GE(h[i], std::max(o[i], c[i])) << s << "," << i;
          ASSERT_LE(l[i], std::min(o[i], c[i])) << s << "," << i;
          ASSERT_GT(v[i], 0.0);
          ASSERT_EQ(v[i], std::floor(v[i]));
          if (i > 0) ASSERT_EQ(o[i], c[i - 1]);  // continuous market: open = previous close
        }
      }
    }
  }
}

TEST(DataSynth, SameSeedSameBitsOtherSeedOtherData) {
  const auto a = kbt::synth_market_data(options(3, 500, kHourNs, 42));
  const auto b = kbt::synth_market_data(options(3, 500, kHourNs, 42));
  const auto c = kbt::synth_market_data(options(3, 500, kHourNs, 43));
  for (const auto& name : kbt::required_bar_columns()) {
    EXPECT_TRUE(kbt::test::same_bits(a.bars.columns.at(name), b.bars.columns.at(name))) << name;
    const auto& x = a.bars.columns.at(name);
    const auto& y = c.bars.columns.at(name);
    std::size_t equal = 0;
    for (std::size_t i = 0; i < x.size(); ++i) equal += x[i] == y[i];
    EXPECT_LT(equal, x.size() / 100) << name;
  }
  // Symbols are independent streams.
  EXPECT_NE(a.bars.series("close", 0)[10], a.bars.series("close", 1)[10]);
}

TEST(DataSynth, SameSeedSameFileBytes) {
  kbt::test::TempDir dir;
  auto o = options(2, 300, kHourNs, 5);
  o.funding = true;
  o.exo_names = {"x"};
  const auto d = kbt::synth_market_data(o);
  kbt::write_bars_hdf5(d.bars, d.exo, dir.file("a.h5"));
  const auto e = kbt::synth_market_data(o);
  kbt::write_bars_hdf5(e.bars, e.exo, dir.file("b.h5"));
  EXPECT_EQ(kbt::test::read_bytes(dir.file("a.h5")), kbt::test::read_bytes(dir.file("b.h5")));
}

TEST(DataSynth, FundingDoesNotChangePrices) {
  auto o = options(2, 400, kHourNs, 9);
  const auto plain = kbt::synth_bars(o);
  o.funding = true;
  o.exo_names = {"a", "b"};
  const auto rich = kbt::synth_bars(o);
  for (const auto& name : kbt::required_bar_columns())
    EXPECT_TRUE(kbt::test::same_bits(plain.columns.at(name), rich.columns.at(name))) << name;
}

// --listings (docs/data-format.md "Listings"): late listings and early
// delistings are NaN runs at the ends of a symbol's row, in every column,
// each symbol trades at least one bar, and the prices where it trades are
// those of the same options without listings.
TEST(DataSynth, ListingsAreNanOutsideEachSymbolsLifeAndLeavePricesAlone) {
  auto o = options(60, 300, kHourNs, 4);
  o.funding = true;
  const auto plain = kbt::synth_bars(o);
  o.listings = 0.4;
  const auto listed = kbt::synth_bars(o);
  const std::size_t n = o.n_bars;
  std::size_t late = 0, early = 0;
  for (std::size_t s = 0; s < o.n_symbols; ++s) {
    const auto& close = listed.columns.at("close");
    std::size_t first = n, end = 0;
    for (std::size_t b = 0; b < n; ++b)
      if (!std::isnan(close[s * n + b])) first = std::min(first, b), end = b + 1;
    ASSERT_LT(first, end) << "symbol " << s << " never trades";
    late += first > 0 ? 1 : 0;
    early += end < n ? 1 : 0;
    EXPECT_LT(first, n / 2);
    EXPECT_GT(end, n / 2);
    for (const auto& name : kbt::required_bar_columns())
      for (std::size_t b = 0; b < n; ++b) {
        const double got = listed.columns.at(name)[s * n + b], was = plain.columns.at(name)[s * n + b];
        if (b < first || b >= end) EXPECT_TRUE(std::isnan(got)) << name << " symbol " << s << " bar " << b;
        else EXPECT_TRUE(kbt::test::same_bits({got}, {was})) << name << " symbol " << s << " bar " << b;
      }
    for (std::size_t b = 0; b < n; ++b)
      if (b < first || b >= end) EXPECT_TRUE(std::isnan(listed.columns.at("funding_rate")[s * n + b]));
  }
  // About 40 % each way: neither none nor all.
  EXPECT_GT(late, 10u);
  EXPECT_LT(late, 40u);
  EXPECT_GT(early, 10u);
  EXPECT_LT(early, 40u);
  for (const double bad : {-0.1, 1.5, std::nan("")}) {
    o.listings = bad;
    EXPECT_THROW(kbt::synth_bars(o), kbt::Error) << bad;
  }
}

TEST(DataSynth, FundingAtEveryEightHourMark) {
  // Hourly bars from midnight: bars 0, 8, 16, ...; 15-minute bars: every 32nd; daily bars: every bar.
  for (auto [bar_ns, every] : {std::pair<std::int64_t, std::size_t>{kHourNs, 8}, {kHourNs / 4, 32}, {24 * kHourNs, 1}}) {
    auto o = options(2, 200, bar_ns, 3);
    o.funding = true;
    const auto b = kbt::synth_bars(o);
    for (std::size_t s = 0; s < 2; ++s) {
      const double* f = b.series("funding_rate", s);
      for (std::size_t i = 0; i < b.n_bars(); ++i) {
        if (i % every == 0) {
          ASSERT_TRUE(std::isfinite(f[i])) << i;
          ASSERT_LT(std::fabs(f[i]), 0.01) << i;
        } else {
          ASSERT_TRUE(std::isnan(f[i])) << i;
        }
      }
    }
  }
}

TEST(DataSynth, ExoIsSampledOffGridAndJoinedAsof) {
  auto o = options(1, 100, kHourNs, 11);
  o.exo_names = {"hashrate"};
  const auto raw = kbt::synth_market_data(o);
  const auto& s = raw.exo.at("hashrate");
  // Daily points at 06:00 (a quarter interval after the start) up to the last bar (day 5, 03:00).
  ASSERT_EQ(s.timestamps.size(), 4u);
  for (std::size_t k = 0; k < 4; ++k)
    EXPECT_EQ(s.timestamps[k], k2021Ns + 6 * kHourNs + static_cast<std::int64_t>(k) * 24 * kHourNs);
  for (double v : s.values) EXPECT_GT(v, 0.0);
  const auto b = kbt::synth_bars(o);
  const auto& j = b.exo.at("hashrate");
  for (std::size_t i = 0; i < 6; ++i) EXPECT_TRUE(std::isnan(j[i])) << i;
  for (std::size_t i = 6; i < 30; ++i) EXPECT_EQ(j[i], s.values[0]) << i;
  EXPECT_EQ(j[30], s.values[1]);
  EXPECT_EQ(j[99], s.values[3]);
}

TEST(DataSynth, VolatilityRegimesAreVisible) {
  const auto b = kbt::synth_bars(options(1, 20000, kHourNs, 42));
  const double* o = b.series("open", 0);
  const double* c = b.series("close", 0);
  std::vector<double> vols;
  const std::size_t w = 500;
  for (std::size_t start = 0; start + w <= b.n_bars(); start += w) {
    double sum = 0, sum2 = 0;
    for (std::size_t i = start; i < start + w; ++i) {
      const double r = std::log(c[i] / o[i]);
      sum += r;
      sum2 += r * r;
    }
    const double var = (sum2 - sum * sum / w) / (w - 1);
    vols.push_back(std::sqrt(var * 24 * 365.25));  // annualized
  }
  const auto [lo, hi] = std::minmax_element(vols.begin(), vols.end());
  EXPECT_GT(*lo, 0.1);
  EXPECT_LT(*hi, 2.0);
  EXPECT_GT(*hi / *lo, 2.0) << "no regime switching visible";
}

TEST(DataSynth, NamesVenuesAndBadOptions) {
  EXPECT_EQ(kbt::synth_symbol_name(0), "AAA");
  EXPECT_EQ(kbt::synth_symbol_name(25), "ZZZ");
  EXPECT_EQ(kbt::synth_symbol_name(26), "S0026");
  auto o = options(3, 10, kHourNs, 1);
  o.venues = {"binance", "binance", "okx"};
  const auto b = kbt::synth_bars(o);
  EXPECT_EQ(b.symbols, (std::vector<std::string>{"AAA", "BBB", "CCC"}));
  EXPECT_EQ(b.venues, o.venues);
  for (auto bad : {options(0, 10, kHourNs, 1), options(1, 0, kHourNs, 1), options(1, 10, 0, 1)}) {
    try {
      kbt::synth_bars(bad);
      ADD_FAILURE() << "no error";
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), kbt::ErrorCategory::config);
    }
  }
  o.venues = {"x"};
  EXPECT_THROW(kbt::synth_bars(o), kbt::Error);
}

TEST(DataSynthMath, SplitmixReferenceValue) {
  std::uint64_t state = 0;
  EXPECT_EQ(kbt::detail::splitmix64(state), 0xe220a8397b1dcdafULL);  // published first output for seed 0
}

TEST(DataSynthMath, PortableExpLogMatchLibmClosely) {
  for (double x = -30.0; x <= 30.0; x += 0.0137) {
    const double ref = std::exp(x);
    EXPECT_NEAR(kbt::detail::portable_exp(x), ref, 4e-16 * ref) << x;
  }
  EXPECT_EQ(kbt::detail::portable_exp(0.0), 1.0);
  for (double x = 1e-300; x < 1e300; x *= 3.7) {
    const double ref = std::log(x);
    EXPECT_NEAR(kbt::detail::portable_log(x), ref, 4e-16 * std::max(1.0, std::fabs(ref))) << x;
  }
  EXPECT_EQ(kbt::detail::portable_log(1.0), 0.0);
}

TEST(DataSynthMath, NormalsHaveUnitMoments) {
  kbt::detail::NormalSource rng(2024);
  const int n = 200000;
  double sum = 0, sum2 = 0, sum4 = 0;
  for (int i = 0; i < n; ++i) {
    const double z = rng.normal();
    sum += z;
    sum2 += z * z;
    sum4 += z * z * z * z;
  }
  EXPECT_NEAR(sum / n, 0.0, 0.01);
  EXPECT_NEAR(sum2 / n, 1.0, 0.01);
  EXPECT_NEAR(sum4 / n, 3.0, 0.06);  // kurtosis of a normal
}

}  // namespace
