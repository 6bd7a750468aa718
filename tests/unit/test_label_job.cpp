// The labelling job in process (docs/label.md "The label job"): the config's
// expressions evaluated as this test computes them by hand, the barrier grid
// in its documented order, and every enabled space equal to the reference
// engine by bits, on data with a gap.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/label/label_job.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

#include "support/synthetic.hpp"

namespace {

// Volatility: the 20-bar sample standard deviation of log returns; side from
// the future (lead: labelling jobs only), events where the close rose.
const char* kConfig =
    "job: label\n"
    "data: unused.h5\n"
    "label:\n"
    "  signals:\n"
    "    ret: log(close / lag(close, 1))\n"
    "  volatility: rolling_std(ret, 20)\n"
    "  side: where(lead(close, 2) > close, 1, -1)\n"
    "  events: close > lag(close, 1)\n"
    "  profit_take: [1, 2.5]\n"
    "  stop: [0, 1.5]\n"
    "  horizon: [5, 40]\n";

kbt::BarData bars_with_gap() {
  kbt::BarData bars = kbt::test::synthetic_bars(2, 1500, 7);
  kbt::test::add_gap(bars, 1, 300, 25);
  return bars;
}

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

// The sample standard deviation (ddof 1) of the last `w` log returns, NaN when
// any is missing: this test's own arithmetic, compared with a tolerance.
double hand_volatility(const std::vector<double>& close, std::size_t b, std::size_t w) {
  if (b < w) return NAN;
  double sum = 0, sum2 = 0;
  for (std::size_t i = b + 1 - w; i <= b; ++i) {
    const double r = std::log(close[i] / close[i - 1]);
    if (std::isnan(r)) return NAN;
    sum += r;
  }
  const double mean = sum / static_cast<double>(w);
  for (std::size_t i = b + 1 - w; i <= b; ++i) sum2 += std::pow(std::log(close[i] / close[i - 1]) - mean, 2);
  return std::sqrt(sum2 / static_cast<double>(w - 1));
}

TEST(LabelJob, ExpressionsAreTheConfigsAndTheGridIsInFileOrder) {
  const kbt::RunConfig config = kbt::parse_job_config(kConfig, "label.yaml", "");
  const kbt::BarData bars = bars_with_gap();
  const kbt::LabelJobResult r = kbt::run_label_job(config, bars, "reference");
  ASSERT_EQ(r.settings.size(), 8u);
  EXPECT_EQ(r.settings[0].profit_take, 1);
  EXPECT_EQ(r.settings[0].stop, 0);
  EXPECT_EQ(r.settings[0].horizon, 5);
  EXPECT_EQ(r.settings[1].horizon, 40);  // horizon fastest
  EXPECT_EQ(r.settings[2].stop, 1.5);
  EXPECT_EQ(r.settings[4].profit_take, 2.5);  // profit_take slowest

  const std::size_t nb = bars.n_bars(), ns = bars.n_symbols();
  const auto& close = bars.columns.at("close");
  std::size_t events = 0, volatility_checked = 0;
  for (std::size_t y = 0; y < ns; ++y) {
    const std::vector<double> c(close.begin() + y * nb, close.begin() + (y + 1) * nb);
    for (std::size_t b = 0; b < nb; ++b) {
      const double expect_vol = hand_volatility(c, b, 20), vol = r.volatility[y * nb + b];
      EXPECT_EQ(std::isnan(expect_vol), std::isnan(vol)) << "symbol " << y << " bar " << b;
      if (!std::isnan(expect_vol)) {
        EXPECT_NEAR(vol, expect_vol, 1e-12 * expect_vol) << "symbol " << y << " bar " << b;
        ++volatility_checked;
      }
      const bool event = b >= 1 && c[b] > c[b - 1];
      const double side = r.side[y * nb + b];
      if (!event || b + 2 >= nb || std::isnan(c[b + 2])) {
        EXPECT_TRUE(std::isnan(side)) << "symbol " << y << " bar " << b;
      } else {
        EXPECT_EQ(side, c[b + 2] > c[b] ? 1.0 : -1.0) << "symbol " << y << " bar " << b;
        ++events;
      }
    }
  }
  ASSERT_GT(volatility_checked, 2000u);
  ASSERT_GT(events, 500u);
  // The labels are the triple-barrier core's on these series (its rules are
  // worked by hand in test_label_triple_barrier.cpp).
  kbt::BarrierInputs in;
  in.n_symbols = ns;
  in.n_bars = nb;
  in.open = bars.columns.at("open").data();
  in.high = bars.columns.at("high").data();
  in.low = bars.columns.at("low").data();
  in.close = close.data();
  in.volatility = r.volatility.data();
  in.side = r.side.data();
  const auto expected = kbt::triple_barrier_reference(in, r.settings);
  EXPECT_EQ(r.labels.label, expected.label);
  EXPECT_EQ(r.labels.barrier, expected.barrier);
  EXPECT_EQ(r.labels.touch_bar, expected.touch_bar);
  for (std::size_t s = 0; s < r.settings.size(); ++s) EXPECT_GT(r.events[s], 0u) << "setting " << s;
}

TEST(LabelJob, EverySpaceGivesTheReferenceBits) {
  const kbt::RunConfig config = kbt::parse_job_config(kConfig, "label.yaml", "");
  const kbt::BarData bars = bars_with_gap();
  const kbt::LabelJobResult ref = kbt::run_label_job(config, bars, "reference");
  std::size_t outcomes[4] = {0, 0, 0, 0};
  for (const auto b : ref.labels.barrier) ++outcomes[b];
  ASSERT_GT(outcomes[kbt::detail::barrier_profit], 0u);
  ASSERT_GT(outcomes[kbt::detail::barrier_stop], 0u);
  ASSERT_GT(outcomes[kbt::detail::barrier_vertical], 0u);
  const auto spaces = kbt::enabled_execution_spaces();
  ASSERT_FALSE(spaces.empty());
  for (const auto& space : spaces) {
    SCOPED_TRACE(space.name);
    const kbt::LabelJobResult r = kbt::run_label_job(config, bars, space.name);
    EXPECT_EQ(r.device, space.name);
    const auto same_series = [](const std::vector<double>& a, const std::vector<double>& b) {
      if (a.size() != b.size()) return false;
      for (std::size_t i = 0; i < a.size(); ++i)
        if (!same_bits(a[i], b[i])) return false;
      return true;
    };
    EXPECT_TRUE(same_series(r.volatility, ref.volatility));
    EXPECT_TRUE(same_series(r.side, ref.side));
    EXPECT_TRUE(same_series(r.labels.ret, ref.labels.ret));
    EXPECT_EQ(r.labels.label, ref.labels.label);
    EXPECT_EQ(r.labels.barrier, ref.labels.barrier);
    EXPECT_EQ(r.labels.touch_bar, ref.labels.touch_bar);
    EXPECT_EQ(r.events, ref.events);
  }
  // `auto` is Kokkos' default execution space.
  for (const auto& space : spaces)
    if (space.is_default) EXPECT_EQ(kbt::choose_job_device("auto"), space.name);
}

TEST(LabelJob, ExpressionsOfTheWrongKindAreRefusedAtTheirLine) {
  const kbt::BarData bars = bars_with_gap();
  const auto error_of = [&](const std::string& yaml) {
    try {
      kbt::run_label_job(kbt::parse_job_config(yaml, "l.yaml", ""), bars, "reference");
    } catch (const kbt::Error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const std::string head = "job: label\ndata: x.h5\nlabel:\n  horizon: 5\n";
  EXPECT_NE(error_of(head + "  volatility: close > open\n").find("l.yaml:5:15: label.volatility must be a number"),
            std::string::npos)
      << error_of(head + "  volatility: close > open\n");
  EXPECT_NE(error_of(head + "  volatility: 0.01\n  events: close\n").find("l.yaml:6:11: label.events must be a condition"),
            std::string::npos)
      << error_of(head + "  volatility: 0.01\n  events: close\n");
  EXPECT_NE(error_of(head + "  volatility: rolling_std(clos, 5)\n").find("l.yaml:5:"), std::string::npos);
}

TEST(LabelJob, ASpaceThisBuildLacksIsRefused) {
  std::size_t refused = 0;
  for (const std::string name : {"serial", "openmp", "cuda"}) {
    bool enabled = false;
    for (const auto& s : kbt::enabled_execution_spaces()) enabled = enabled || s.name == name;
    if (enabled) {
      EXPECT_EQ(kbt::choose_job_device(name), name);
      continue;
    }
    try {
      kbt::choose_job_device(name);
      ADD_FAILURE() << name << " is not enabled, yet chosen";
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), kbt::ErrorCategory::unsupported);
      EXPECT_NE(std::string(e.what()).find("device '" + name + "' is not enabled"), std::string::npos) << e.what();
      ++refused;
    }
  }
  if (refused == 0) GTEST_SKIP() << "this build enables serial, openmp and cuda: nothing to refuse";
}

}  // namespace

// docs/label.md: `side` and `volatility` are names in the keys after them, as
// the guide's example writes `events: side != lag(side, 1)`; a signal of
// either name is refused at its line.
TEST(LabelJob, SideAndVolatilityAreNamesInTheKeysAfterThem) {
  const kbt::RunConfig config = kbt::parse_job_config(
      "job: label\ndata: unused.h5\nlabel:\n"
      "  volatility: rolling_std(log(close / lag(close, 1)), 20)\n"
      "  side: where(sma(close, 10) > sma(close, 50), 1, -1)\n"
      "  events: side != lag(side, 1) and volatility > 0\n"
      "  horizon: 10\n",
      "label.yaml", "");
  const kbt::BarData bars = bars_with_gap();
  const kbt::LabelJobResult r = kbt::run_label_job(config, bars, "reference");
  const std::size_t nb = bars.n_bars();
  const auto& close = bars.columns.at("close");
  // By hand: the side of each bar from the SMAs, an event where it changed.
  const auto sma = [&](std::size_t y, std::size_t b, std::size_t w) -> double {
    if (b + 1 < w) return NAN;
    double s = 0;
    for (std::size_t i = b + 1 - w; i <= b; ++i) s += close[y * nb + i];
    return s / static_cast<double>(w);
  };
  std::size_t events = 0;
  for (std::size_t y = 0; y < bars.n_symbols(); ++y)
    for (std::size_t b = 1; b < nb; ++b) {
      const auto side_at = [&](std::size_t t) -> double {
        const double f = sma(y, t, 10), s = sma(y, t, 50);
        return std::isnan(f) || std::isnan(s) ? NAN : (f > s ? 1.0 : -1.0);
      };
      const double now = side_at(b), before = side_at(b - 1);
      const bool event = !std::isnan(now) && !std::isnan(before) && now != before && r.volatility[y * nb + b] > 0;
      EXPECT_EQ(!std::isnan(r.side[y * nb + b]), event) << "symbol " << y << " bar " << b;
      events += event;
    }
  EXPECT_GT(events, 10u);

  const kbt::RunConfig clash = kbt::parse_job_config(
      "job: label\ndata: unused.h5\nlabel:\n  signals:\n    side: close\n"
      "  volatility: rolling_std(log(close / lag(close, 1)), 20)\n  side: 1\n  horizon: 10\n",
      "clash.yaml", "");
  try {
    kbt::run_label_job(clash, bars, "reference");
    FAIL() << "a signal named side was accepted";
  } catch (const kbt::Error& e) {
    EXPECT_NE(std::string(e.what()).find("clash.yaml:5"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("'side' is the name of label.side"), std::string::npos) << e.what();
  }
}
