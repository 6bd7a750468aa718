// The sweep plan's materialized series (param-free, computed once per run on
// the host) against the definition of the expression computed here by hand:
// the plan must hold the same bits the language defines, gaps included.

#include <gtest/gtest.h>
#include <kbt/data/data_io.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <cmath>
#include <cstring>
#include <vector>

namespace {

kbt::BarData gappy_bars() {
  kbt::SynthOptions o;
  o.n_symbols = 2;
  o.n_bars = 300;
  o.seed = 21;
  kbt::BarData bars = kbt::synth_bars(o);
  for (std::size_t b = 100; b < 104; ++b) {  // a gap in the second symbol
    bars.columns.at("close")[bars.n_bars() + b] = std::nan("");
    bars.columns.at("open")[bars.n_bars() + b] = std::nan("");
  }
  return bars;
}

}  // namespace

TEST(SweepPlan, MaterializedSeriesHoldTheDefinitionsBits) {
  const kbt::BarData bars = gappy_bars();
  // where(c > o, c - o, (o - c) / 2) and a rolling sum of 3 bars of close.
  const kbt::Program program = kbt::compile_expression(
      kbt::SourceText{"where(close > open, close - open, (open - close) / 2) + rolling_sum(close, 3)", "--expr", 1, 1},
      kbt::schema_of(bars), {});
  const kbt::SweepPlan plan = kbt::make_sweep_plan(program, bars);
  const auto reg = static_cast<std::size_t>(program.expression);
  ASSERT_EQ(plan.home.at(reg), kbt::RegisterHome::materialized);
  const std::vector<double>& got = plan.materialized.at(static_cast<std::size_t>(plan.home_index.at(reg)));
  const std::size_t n = bars.n_bars();
  ASSERT_EQ(got.size(), bars.n_symbols() * n);
  const auto& close = bars.columns.at("close");
  const auto& open = bars.columns.at("open");
  std::size_t finite = 0, nan = 0;
  for (std::size_t s = 0; s < bars.n_symbols(); ++s)
    for (std::size_t t = 0; t < n; ++t) {
      const double c = close[s * n + t], o = open[s * n + t];
      double want = std::nan("");
      if (t >= 2 && !std::isnan(c) && !std::isnan(o)) {
        const double sum = close[s * n + t - 2] + close[s * n + t - 1] + c;  // oldest first
        want = (c > o ? c - o : (o - c) / 2) + sum;
      }
      if (std::isnan(want)) {
        ++nan;
        EXPECT_TRUE(std::isnan(got[s * n + t])) << "symbol " << s << " bar " << t;
      } else {
        ++finite;
        EXPECT_EQ(std::memcmp(&want, &got[s * n + t], sizeof want), 0)
            << "symbol " << s << " bar " << t << ": " << got[s * n + t] << " vs " << want;
      }
    }
  EXPECT_GT(finite, 500u);   // not vacuous
  EXPECT_GE(nan, 2u * 2 + 4 + 2);  // warm-up of both symbols, the gap and the bars its window reaches
}
