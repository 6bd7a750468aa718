// Triple-barrier labels: hand-worked bars for every rule of docs/label.md on
// the reference, and the kernel equal to the reference by bits on every
// enabled space over random data with gaps, NaN bars and both sides.

#include <gtest/gtest.h>
#include <kbt/core/error.hpp>
#include <kbt/label/triple_barrier.hpp>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

#include "support/execution_spaces.hpp"

namespace {

const double nan = std::nan("");

// One symbol: bar 0 is the event (close 100, width 1 %), the rest as given.
struct OneSymbol {
  std::vector<double> open{100}, high{100}, low{100}, close{100}, vol{0.01}, side{1};
  OneSymbol& bar(double o, double h, double l, double c) {
    open.push_back(o), high.push_back(h), low.push_back(l), close.push_back(c);
    vol.push_back(nan), side.push_back(1);  // later bars are not events
    return *this;
  }
  kbt::BarrierInputs inputs(bool with_side = false) const {
    kbt::BarrierInputs in;
    in.n_symbols = 1;
    in.n_bars = close.size();
    in.open = open.data(), in.high = high.data(), in.low = low.data(), in.close = close.data();
    in.volatility = vol.data();
    in.side = with_side ? side.data() : nullptr;
    return in;
  }
};

struct Event {
  int label;
  std::int64_t bar;
  double ret;
  std::int8_t barrier;
};

// The event at bar 0 with profit 2x and stop 1x the width (levels 102 and 99
// for a long), horizon `h`.
Event first(const OneSymbol& s, std::int64_t h = 5, bool with_side = false) {
  const auto out = kbt::triple_barrier_reference(s.inputs(with_side), {{2, 1, h}});
  return {out.label[0], out.touch_bar[0], out.ret[0], out.barrier[0]};
}

TEST(LabelTripleBarrier, EachRuleOnHandWorkedBars) {
  using namespace kbt::detail;
  // Profit on the high of bar 2 (bar 1 touches nothing).
  Event e = first(OneSymbol().bar(100.5, 101, 99.5, 100.8).bar(101, 102.5, 100.9, 102.2));
  EXPECT_EQ(e.label, 1);
  EXPECT_EQ(e.bar, 2);
  EXPECT_EQ(e.barrier, barrier_profit);
  EXPECT_EQ(e.ret, 102.0 / 100.0 - 1.0);
  // The stop on the low.
  e = first(OneSymbol().bar(100, 100.5, 98.9, 99.5));
  EXPECT_EQ(e.label, -1);
  EXPECT_EQ(e.barrier, barrier_stop);
  EXPECT_EQ(e.ret, 99.0 / 100.0 - 1.0);
  // Both in one bar: the stop first.
  e = first(OneSymbol().bar(100, 102.5, 98.5, 100));
  EXPECT_EQ(e.barrier, barrier_stop);
  // A gap through the stop fills at the open, not at the level.
  e = first(OneSymbol().bar(98, 98.5, 97, 98.2));
  EXPECT_EQ(e.barrier, barrier_stop);
  EXPECT_EQ(e.ret, 98.0 / 100.0 - 1.0);
  // A gap through the profit level likewise.
  e = first(OneSymbol().bar(103, 104, 102.9, 103.5));
  EXPECT_EQ(e.barrier, barrier_profit);
  EXPECT_EQ(e.ret, 103.0 / 100.0 - 1.0);
  // Nothing within the horizon: the vertical barrier at bar 2, the return of its close.
  e = first(OneSymbol().bar(100, 101, 99.5, 100.5).bar(100.5, 101.5, 99.6, 101.2).bar(101, 105, 90, 101), 2);
  EXPECT_EQ(e.label, 0);
  EXPECT_EQ(e.bar, 2);
  EXPECT_EQ(e.barrier, barrier_vertical);
  EXPECT_EQ(e.ret, 101.2 / 100.0 - 1.0);
  // A NaN bar is skipped; the vertical return uses the last close seen.
  e = first(OneSymbol().bar(100, 101, 99.5, 100.5).bar(nan, nan, nan, nan), 2);
  EXPECT_EQ(e.barrier, barrier_vertical);
  EXPECT_EQ(e.ret, 100.5 / 100.0 - 1.0);
  // The horizon past the data ends at the last bar.
  e = first(OneSymbol().bar(100, 101, 99.5, 100.5), 50);
  EXPECT_EQ(e.bar, 1);
  // A short: the profit level below (98), the stop above (101).
  OneSymbol shorted;
  shorted.side[0] = -1;
  shorted.bar(100, 100.5, 97.5, 98);
  e = first(shorted, 5, true);
  EXPECT_EQ(e.label, 1);
  EXPECT_EQ(e.ret, -(98.0 / 100.0 - 1.0));
  // Not events: no width, no side, the last bar.
  OneSymbol none = OneSymbol().bar(100, 101, 99, 100);
  none.vol[0] = nan;
  EXPECT_EQ(first(none).barrier, barrier_none);
  none.vol[0] = 0.01;
  none.side[0] = 0;
  EXPECT_EQ(first(none, 5, true).barrier, barrier_none);
  const auto last = kbt::triple_barrier_reference(OneSymbol().bar(100, 101, 99, 100).inputs(), {{2, 1, 5}});
  EXPECT_EQ(last.touch_bar[1], -1);
  EXPECT_TRUE(std::isnan(last.ret[1]));
}

TEST(LabelTripleBarrier, BadSettingsAreConfigErrors) {
  const OneSymbol s = OneSymbol().bar(100, 101, 99, 100);
  for (const kbt::BarrierSetting& b : {kbt::BarrierSetting{-1, 1, 5}, kbt::BarrierSetting{1, nan, 5},
                                       kbt::BarrierSetting{1, 1, 0}}) {
    EXPECT_THROW(kbt::triple_barrier_reference(s.inputs(), {b}), kbt::Error);
  }
  EXPECT_THROW(kbt::triple_barrier_reference(s.inputs(), {}), kbt::Error);
}

// Random walks for 3 symbols with NaN bars, gaps at the opens and random sides.
struct RandomMarket {
  std::size_t symbols = 3, bars = 2000;
  std::vector<double> open, high, low, close, vol, side;
  RandomMarket() {
    std::mt19937_64 rng(7);
    std::normal_distribution<double> step(0, 0.01);
    std::uniform_real_distribution<double> u(0, 1);
    for (std::size_t s = 0; s < symbols; ++s) {
      double price = 100;
      for (std::size_t t = 0; t < bars; ++t) {
        const double o = price * std::exp(u(rng) < 0.05 ? 4 * step(rng) : 0.2 * step(rng));  // some gaps
        const double c = o * std::exp(step(rng));
        const double hi = std::max(o, c) * (1 + std::abs(step(rng))), lo = std::min(o, c) * (1 - std::abs(step(rng)));
        const bool missing = u(rng) < 0.02;
        open.push_back(missing ? nan : o), high.push_back(missing ? nan : hi), low.push_back(missing ? nan : lo);
        close.push_back(missing ? nan : c);
        vol.push_back(u(rng) < 0.03 ? nan : 0.005 + 0.01 * u(rng));
        const double r = u(rng);
        side.push_back(r < 0.45 ? 1.0 : r < 0.9 ? -1.0 : 0.0);
        price = c;
      }
    }
  }
  kbt::BarrierInputs inputs() const {
    kbt::BarrierInputs in;
    in.n_symbols = symbols, in.n_bars = bars;
    in.open = open.data(), in.high = high.data(), in.low = low.data(), in.close = close.data();
    in.volatility = vol.data(), in.side = side.data();
    return in;
  }
};

template <class Space>
class LabelTripleBarrierOnSpace : public ::testing::Test {};
TYPED_TEST_SUITE(LabelTripleBarrierOnSpace, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);

TYPED_TEST(LabelTripleBarrierOnSpace, EqualsTheReferenceByBits) {
  const RandomMarket m;
  const std::vector<kbt::BarrierSetting> settings = {{1, 1, 10}, {2, 1, 50}, {0.5, 2, 5}, {0, 1, 20}, {1.5, 0, 30}};
  const auto want = kbt::triple_barrier_reference(m.inputs(), settings);
  const auto got = kbt::triple_barrier_on<TypeParam>(m.inputs(), settings);
  ASSERT_EQ(got.label.size(), settings.size() * m.symbols * m.bars);
  EXPECT_EQ(got.label, want.label);
  EXPECT_EQ(got.touch_bar, want.touch_bar);
  EXPECT_EQ(got.barrier, want.barrier);
  ASSERT_EQ(got.ret.size(), want.ret.size());
  EXPECT_EQ(std::memcmp(got.ret.data(), want.ret.data(), got.ret.size() * sizeof(double)), 0);
  // Not vacuous: every kind of outcome occurs, gaps included.
  std::size_t kinds[4] = {0, 0, 0, 0}, gap_fills = 0;
  for (std::size_t i = 0; i < want.barrier.size(); ++i) {
    ++kinds[want.barrier[i]];
    if (want.barrier[i] == kbt::detail::barrier_stop || want.barrier[i] == kbt::detail::barrier_profit) {
      const std::size_t at = i % (m.symbols * m.bars), t = static_cast<std::size_t>(want.touch_bar[i]);
      const double entry = m.close[at], sign = m.side[at];
      if (want.ret[i] == sign * (m.open[at - at % m.bars + t] / entry - 1.0)) ++gap_fills;
    }
  }
  for (int k = 0; k < 4; ++k) EXPECT_GT(kinds[k], 100u) << "barrier kind " << k;
  EXPECT_GT(gap_fills, 10u);
}

}  // namespace
