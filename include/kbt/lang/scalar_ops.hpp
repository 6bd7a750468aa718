#pragma once
// The pointwise semantics of the strategy language, one function shared by the
// reference evaluator, scan tapes and (later) Kokkos kernels so that every engine
// computes the same bits. Callable on host and device: kbt::math only, no
// exceptions, no std:: math.
//
// Booleans are three-valued: 1 = true, 0 = false, NaN = unknown.

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/lang/program.hpp>

namespace kbt::ops {

template <class Real>
KOKKOS_INLINE_FUNCTION Real nan() {
  return kbt::math::quiet_nan<Real>();
}

// x / y, NaN when y == 0 (never +-inf from a division by zero).
template <class Real>
KOKKOS_INLINE_FUNCTION Real div(Real x, Real y) {
  return y == Real(0) ? nan<Real>() : x / y;
}

// log(x), NaN when x <= 0 (never -inf).
template <class Real>
KOKKOS_INLINE_FUNCTION Real log(Real x) {
  return x > Real(0) ? kbt::math::log(x) : nan<Real>();
}

template <class Real>
KOKKOS_INLINE_FUNCTION Real truth(bool b) {
  return b ? Real(1) : Real(0);
}

// v, or NaN when a or b is NaN. The value is computed either way and the
// test has no short circuit: with no control flow, the block evaluator's
// loops over a block of bars vectorise (docs/kernels.md "Branch-free selects").
template <class Real>
KOKKOS_INLINE_FUNCTION Real unless_nan(Real a, Real b, Real v) {
  const bool a_nan = kbt::math::isnan(a), b_nan = kbt::math::isnan(b);
  return (a_nan | b_nan) ? nan<Real>() : v;
}

// Three-valued comparison: unknown when either side is NaN.
template <class Real>
KOKKOS_INLINE_FUNCTION Real equal(Real x, Real y) {
  return unless_nan(x, y, truth<Real>(kbt::math::fabs(x - y) < kbt::math::epsilon<Real>()));
}

// NaN-propagating min and max of the language (a tie returns b).
template <class Real>
KOKKOS_INLINE_FUNCTION Real min(Real a, Real b) {
  return unless_nan(a, b, a < b ? a : b);
}
template <class Real>
KOKKOS_INLINE_FUNCTION Real max(Real a, Real b) {
  return unless_nan(a, b, a > b ? a : b);
}

// Kleene logic.
template <class Real>
KOKKOS_INLINE_FUNCTION Real logical_and(Real x, Real y) {
  if (x == Real(0) || y == Real(0)) return Real(0);
  if (kbt::math::isnan(x) || kbt::math::isnan(y)) return nan<Real>();
  return Real(1);
}
template <class Real>
KOKKOS_INLINE_FUNCTION Real logical_or(Real x, Real y) {
  if ((!kbt::math::isnan(x) && x != Real(0)) || (!kbt::math::isnan(y) && y != Real(0)))
    return Real(1);
  if (kbt::math::isnan(x) || kbt::math::isnan(y)) return nan<Real>();
  return Real(0);
}
template <class Real>
KOKKOS_INLINE_FUNCTION Real logical_not(Real x) {
  if (kbt::math::isnan(x)) return nan<Real>();
  return truth<Real>(x == Real(0));
}

// Applies a pointwise opcode (OpCode::neg .. OpCode::fillna) to its operands.
// Unused operands are ignored. Any other opcode yields NaN.
template <class Real>
KOKKOS_FORCEINLINE_FUNCTION Real apply_pointwise(OpCode op, Real a, Real b, Real c) {
  using kbt::math::isnan;
  switch (op) {
    case OpCode::neg: return -a;
    case OpCode::add: return a + b;
    case OpCode::sub: return a - b;
    case OpCode::mul: return a * b;
    case OpCode::div: return div(a, b);
    case OpCode::lt: return unless_nan(a, b, truth<Real>(a < b));
    case OpCode::le: return unless_nan(a, b, truth<Real>(a <= b));
    case OpCode::gt: return unless_nan(a, b, truth<Real>(a > b));
    case OpCode::ge: return unless_nan(a, b, truth<Real>(a >= b));
    case OpCode::eq: return equal(a, b);
    case OpCode::ne: return logical_not(equal(a, b));
    case OpCode::logical_and: return logical_and(a, b);
    case OpCode::logical_or: return logical_or(a, b);
    case OpCode::logical_not: return logical_not(a);
    case OpCode::abs: return kbt::math::fabs(a);
    case OpCode::sqrt: return a >= Real(0) ? kbt::math::sqrt(a) : nan<Real>();
    case OpCode::log: return log(a);
    case OpCode::exp: return kbt::math::exp(a);
    case OpCode::sign:
      if (isnan(a)) return nan<Real>();
      return a > Real(0) ? Real(1) : (a < Real(0) ? Real(-1) : Real(0));
    case OpCode::min: return min(a, b);
    case OpCode::max: return max(a, b);
    case OpCode::clip:
      if (isnan(a) || isnan(b) || isnan(c)) return nan<Real>();
      return a < b ? b : (a > c ? c : a);
    case OpCode::where: return unless_nan(a, a, a != Real(0) ? b : c);
    case OpCode::isnan: return truth<Real>(isnan(a));
    case OpCode::fillna: return isnan(a) ? b : a;
    default: return nan<Real>();
  }
}

}  // namespace kbt::ops
