// Fused compare-selects (docs/kernels.md "Fused compare-selects"): which
// comparisons the sweep kernel evaluates inside the `where` that reads them,
// and that every comparison so fused gives the reference engine's bits.

#include <gtest/gtest.h>
#include <kbt/sweep/detail/functor_setup.hpp>
#include <kbt/sweep/fused_selects.hpp>

#include "support/sweep_parity.hpp"

#include <cstring>
#include <string>
#include <vector>

using namespace kbt::test::parity;

namespace {

std::string strategy(const std::string& signals_and_outputs) {
  return "data: unused.h5\nstrategy:\n  params:\n    a: {values: [3, 8]}\n    b: {values: [5, 13]}\n"
         "  constraints: [\"a < b\"]\n" +
         signals_and_outputs + "simulation:\n  fee_bps: 4\n";
}

kbt::BarData bars() {
  kbt::BarData b = kbt::test::synthetic_bars(1, 600, 17);
  kbt::test::add_gap(b, 0, 200, 5);
  return b;
}

// The registers that compute a series comparison which depends on the params
// (the constraint `a < b` is a scalar one).
std::vector<std::size_t> swept_comparisons(const kbt::Program& p) {
  std::vector<std::size_t> out;
  for (std::size_t r = 0; r < p.code.size(); ++r) {
    const kbt::OpCode op = p.code[r].op;
    const bool cmp = op == kbt::OpCode::lt || op == kbt::OpCode::le || op == kbt::OpCode::gt ||
                     op == kbt::OpCode::ge || op == kbt::OpCode::eq || op == kbt::OpCode::ne;
    if (cmp && p.code[r].is_series && p.code[r].depends_on_params) out.push_back(r);
  }
  return out;
}

// The sweep functor the kernel's own setup makes for `c` on the host space,
// with the default options: what it fused and how it computes the position.
kbt::SweepFunctor<Kokkos::DefaultHostExecutionSpace, double> host_sweep_functor(const Case& c) {
  kbt::detail::ScratchShape shape;
  return kbt::detail::make_sweep_functor<Kokkos::DefaultHostExecutionSpace, double>(
      c.program, kbt::make_sweep_plan(c.program, c.bars), c.bars,
      kbt::resolve_simulation(c.config.simulation, c.bars), {}, shape);
}

// fusable_compares of the one swept comparison of `yaml`'s strategy.
bool comparison_is_fused(const std::string& yaml) {
  const Case c = prepare_yaml(yaml, bars(), 1);
  const auto cmp = swept_comparisons(c.program);
  EXPECT_EQ(cmp.size(), 1u) << yaml;
  if (cmp.size() != 1) return false;
  return kbt::fusable_compares(c.program, kbt::make_sweep_plan(c.program, c.bars)).at(cmp[0]);
}

}  // namespace

TEST(FusedSelects, OnlyAComparisonReadOnceAsTheConditionOfAWhereIsFused) {
  EXPECT_TRUE(comparison_is_fused(strategy("  position: where(sma(close, a) > sma(close, b), 1, -1)\n")));
  EXPECT_TRUE(comparison_is_fused(
      strategy("  signals:\n    x: close - sma(close, a)\n  position: where(x <= 0, 1, 0) * 0.5\n")));
  // Read twice: the comparison is stored, as any register.
  EXPECT_FALSE(comparison_is_fused(strategy(
      "  signals:\n    c: sma(close, a) > sma(close, b)\n  position: where(c, 1, 0) - where(c, 0, 1)\n")));
  // `ne` (fusable_compares says why).
  EXPECT_FALSE(comparison_is_fused(strategy("  position: where(sma(close, a) != sma(close, b), 1, -1)\n")));
  // A strategy output (read by the portfolio).
  EXPECT_FALSE(comparison_is_fused(strategy(
      "  long_entry: sma(close, a) > sma(close, b)\n  long_exit: close < open\n")));
  // Read by a `where`, but as a value, not as its condition.
  EXPECT_FALSE(comparison_is_fused(
      strategy("  position: where(close > open, sma(close, a) > sma(close, b), -1)\n")));
}

TEST(FusedSelects, EveryFusedComparisonGivesTheReferenceBits) {
  // Comparisons of hoisted rows, of streamed registers and with a scalar; the
  // signs compare equal often, so that `==` trades.
  const std::vector<std::string> conditions = {
      "sma(close, a) > sma(close, b)", "sma(close, a) <= sma(close, b)", "x < y", "x >= y", "x == y",
      "close - sma(close, b) > a",
  };
  for (const std::string& condition : conditions) {
    SCOPED_TRACE(condition);
    const Case c = prepare_yaml(strategy("  signals:\n    x: sign(close - sma(close, a))\n"
                                         "    y: sign(close - sma(close, b))\n  position: where(" +
                                         condition + ", 1, -1)\n"),
                                bars(), 3);
    // The case is about a fused comparison: the kernel's own setup must fuse it.
    const auto f = host_sweep_functor(c);
    const auto cmp = swept_comparisons(c.program);
    ASSERT_EQ(cmp.size(), 1u);
    ASSERT_EQ(f.eval.home(cmp[0]), int(kbt::RegisterHome::fused)) << "not fused: the case tests nothing";
    for (const auto& d : devices())
      for (int block : {7, 64}) {
        SCOPED_TRACE(d + ", block " + std::to_string(block));
        expect_parity(c, d, 0, block);
      }
  }
}

TEST(FusedSelects, EvaluatingTheComparisonItselfGivesTheReferenceSeries) {
  // `kbt eval` and labels evaluate one register, which may be a comparison
  // that a sweep would fuse: its series must still be there.
  const kbt::BarData b = bars();
  std::vector<kbt::ParamSpec> params(1);
  params[0].name = "a", params[0].values = {6}, params[0].is_integer = true;
  const auto compile = [&](const std::string& text) {
    return kbt::compile_expression(kbt::SourceText{text, "<test>", 1, 1}, kbt::schema_of(b), params);
  };
  const kbt::Program with_where = compile("where(close - sma(close, a) > 0, 1, -1)");
  const kbt::Program alone = compile("close - sma(close, a) > 0");
  const auto cmp = swept_comparisons(with_where);
  ASSERT_EQ(cmp.size(), 1u);
  ASSERT_TRUE(kbt::fusable_compares(with_where, kbt::make_sweep_plan(with_where, b)).at(cmp[0]));
  const std::vector<double> values{6};
  const auto want = kbt::evaluate_expression_reference(alone, b, values.data());
  std::size_t ones = 0, zeros = 0;
  for (double v : want) ones += v == 1.0 ? 1 : 0, zeros += v == 0.0 ? 1 : 0;
  ASSERT_GT(ones * zeros, 0u) << "vacuous: the comparison is constant";
  for (const auto& d : devices()) {
    const auto got = kbt::evaluate_register_kernel_on(d, false, with_where, kbt::make_sweep_plan(with_where, b), b,
                                                      values, static_cast<int>(cmp[0]));
    ASSERT_EQ(got.size(), want.size());
    for (std::size_t k = 0; k < want.size(); ++k)
      EXPECT_EQ(std::memcmp(&got[k], &want[k], sizeof(double)), 0) << d << " bar " << k << ": " << got[k];
  }
}

namespace {

// Whether the sweep kernel's own setup computes `c`'s position per bar
// (sweep/detail/compared_select.hpp).
bool position_is_per_bar(const Case& c) { return host_sweep_functor(c).position_per_bar != 0; }

}  // namespace

TEST(PositionPerBar, OnlyASelectOfSeriesThatNeedNoEvaluationIsComputedPerBar) {
  const auto per_bar = [](const std::string& outputs) {
    return position_is_per_bar(prepare_yaml(strategy(outputs), bars(), 1));
  };
  EXPECT_TRUE(per_bar("  position: where(sma(close, a) > sma(close, b), 1, -1)\n"));
  EXPECT_TRUE(per_bar("  position: where(close <= sma(close, b), a / 10, 0)\n"));
  // A streamed operand, a streamed select, `==`, entries and exits.
  EXPECT_FALSE(per_bar("  position: where(close - sma(close, a) > 0, 1, -1)\n"));
  EXPECT_FALSE(per_bar("  position: where(sma(close, a) > sma(close, b), 1, -1) * 0.5\n"));
  EXPECT_FALSE(per_bar("  position: where(sma(close, a) == sma(close, b), 1, -1)\n"));
  EXPECT_FALSE(per_bar("  long_entry: sma(close, a) > sma(close, b)\n  long_exit: close < open\n"));
}

TEST(PositionPerBar, EveryComparisonAndStepGivesTheReferenceBits) {
  // Each ordering comparison (`>` and `>=` swap their operands), hoisted,
  // materialized and scalar operands, on the three compiled portfolio steps
  // and with one and three symbols; each run also with the block evaluated.
  const std::vector<std::string> positions = {
      "where(sma(close, a) > sma(close, b), 1, -1)", "where(sma(close, a) >= sma(close, b), 1, 0)",
      "where(sma(close, a) < sma(close, b), 0.5, -1)", "where(close <= sma(close, b), a / 10, -0.5)",
  };
  const std::vector<std::string> settings = {"", "  borrow_rate: 0.2\n", "  stop_loss: 0.01\n  fill: next_open\n"};
  for (const std::string& position : positions)
    for (const std::string& extra : settings)
      for (std::size_t n_sym : {std::size_t(1), std::size_t(3)}) {
        SCOPED_TRACE(position + " | " + extra + " | " + std::to_string(n_sym) + " symbols");
        kbt::BarData b = kbt::test::synthetic_bars(n_sym, 600, 17);
        kbt::test::add_gap(b, n_sym - 1, 200, 5);
        const Case c = prepare_yaml(strategy("  position: " + position + "\n") + extra, b, 3);
        ASSERT_TRUE(position_is_per_bar(c)) << "computed from an evaluated block: the case tests nothing";
        for (const auto& d : devices())
          for (int block : {7, 64})
            for (bool per_bar : {true, false}) {
              SCOPED_TRACE(d + ", block " + std::to_string(block) + (per_bar ? ", per bar" : ", evaluated"));
              expect_parity(c, d, 0, block, per_bar);
            }
      }
}
