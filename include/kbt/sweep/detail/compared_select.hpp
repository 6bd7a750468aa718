#pragma once
// A position computed per bar inside the sweep's step loop (docs/kernels.md
// "The position per bar"): where(x CMP z, then, otherwise) with a fused
// comparison (sweep/fused_selects.hpp) of series that need no evaluation
// (hoisted, materialized or scalar registers), as in
// `position: where(sma(close, fast) > sma(close, slow), 1, -1)`. Evaluated a
// block ahead, that position costs a store and a load per bar and a loop of
// its own, which the step's chain of divisions cannot overlap; read per bar it
// is four loads and two selects beside the step. Host sweeps only: on a GPU
// its four operand runs would be live beside the portfolio's state.
//
// Each value is the composition of the two ops' own definitions
// (lang/scalar_ops.hpp), so its bits are those of the evaluated block.

#include <kbt/lang/program.hpp>
#include <kbt/lang/scalar_ops.hpp>
#include <kbt/simulation/portfolio_step.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <vector>

namespace kbt {

// where(x < z, then, otherwise), or with or_equal where(x <= z, ...). `>` and
// `>=` swap x and z: lt and le test NaN in both operands alike, so
// gt(x, z) == lt(z, x) bit for bit.
template <class Real>
struct ComparedSelect {
  SeriesRun<Real> x, z, then, otherwise;
  bool or_equal;
  KOKKOS_FORCEINLINE_FUNCTION Real operator()(int s, int b) const {
    const Real xv = x(s, b), zv = z(s, b);
    const Real cond = or_equal ? ops::apply_pointwise<Real>(OpCode::le, xv, zv, xv)
                               : ops::apply_pointwise<Real>(OpCode::lt, xv, zv, xv);
    return ops::apply_pointwise<Real>(OpCode::where, cond, then(s, b), otherwise(s, b));
  }
};

// The comparisons a ComparedSelect computes.
inline bool is_ordering_comparison(OpCode op) {
  return op == OpCode::lt || op == OpCode::le || op == OpCode::gt || op == OpCode::ge;
}

// Whether a run's position can be computed per bar: it is the only streamed
// register, a `where` whose condition is a fused ordering comparison, and its
// four operands are read without evaluation. `homes` and `streamed` are the
// sweep's, after fusion (make_sweep_functor).
inline bool position_is_compared_select(const Program& program, const std::vector<RegisterHome>& homes,
                                        const std::vector<std::int32_t>& streamed) {
  if (program.form != StrategyOutputs::Form::position || program.position < 0) return false;
  if (streamed.size() != 1 || streamed[0] != program.position) return false;
  const Instr& select = program.code[static_cast<std::size_t>(program.position)];
  if (select.op != OpCode::where || select.a < 0 || select.b < 0 || select.c < 0) return false;
  if (homes[static_cast<std::size_t>(select.a)] != RegisterHome::fused) return false;
  const Instr& cmp = program.code[static_cast<std::size_t>(select.a)];
  if (!is_ordering_comparison(cmp.op) || cmp.a < 0 || cmp.b < 0) return false;
  const auto readable = [&](std::int32_t r) {
    const RegisterHome h = homes[static_cast<std::size_t>(r)];
    return h == RegisterHome::scalar || h == RegisterHome::materialized || h == RegisterHome::hoisted;
  };
  return readable(cmp.a) && readable(cmp.b) && readable(select.b) && readable(select.c);
}

}  // namespace kbt
