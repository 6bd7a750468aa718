#pragma once
// The scalar math every engine uses, so that the reference engine and the
// Kokkos kernels agree on every bit. Callable on host and device.
//
// sqrt/fabs are exact (IEEE correctly rounded or exact) everywhere and forward
// to Kokkos math. exp/log/pow are NOT correctly rounded by vendor libraries and
// differ between glibc and CUDA; they use kbt's own implementation
// (kbt/core/detail/portable_math.hpp, within 1 ulp, the same bits on every space
// provided FMA contraction is off — see docs/building.md).

#include <kbt/core/detail/portable_math.hpp>
#include <kbt/core/detail/kokkos_compat.hpp>

// x86-64 host code compiled by a GNU-compatible compiler selects with
// minsd/maxsd (see less_or below); device passes, other compilers and other
// CPUs use the plain conditional.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__CUDA_ARCH__) && !defined(__HIP_DEVICE_COMPILE__) && \
    !defined(__SYCL_DEVICE_ONLY__)
#define KBT_SSE_SELECT 1
#endif

namespace kbt::math {

KOKKOS_INLINE_FUNCTION double sqrt(double x) { return kx::math::sqrt(x); }
KOKKOS_INLINE_FUNCTION float sqrt(float x) { return kx::math::sqrt(x); }
KOKKOS_INLINE_FUNCTION double exp(double x) { return detail::portable::exp(x); }
KOKKOS_INLINE_FUNCTION float exp(float x) { return detail::portable::exp(x); }
KOKKOS_INLINE_FUNCTION double log(double x) { return detail::portable::log(x); }
KOKKOS_INLINE_FUNCTION float log(float x) { return detail::portable::log(x); }
KOKKOS_INLINE_FUNCTION double pow(double x, double y) { return detail::portable::pow(x, y); }
KOKKOS_INLINE_FUNCTION float pow(float x, float y) { return detail::portable::pow(x, y); }
KOKKOS_INLINE_FUNCTION double fabs(double x) { return kx::math::fabs(x); }
KOKKOS_INLINE_FUNCTION float fabs(float x) { return kx::math::fabs(x); }
KOKKOS_INLINE_FUNCTION bool isnan(double x) { return kx::math::isnan(x); }
KOKKOS_INLINE_FUNCTION bool isnan(float x) { return kx::math::isnan(x); }

// a < b ? a : b and a > b ? a : b, b when the two are unordered (a NaN):
// exactly the semantics of x86's minsd/maxsd, which compute them without a
// branch. GCC compiles the conditional to a branch where its result feeds
// further arithmetic, and a sweep kernel mispredicts it on about every other
// bar when the condition is the sign of a bar's return (docs/kernels.md
// "Branch-free selects"). Same bits as the conditional on every space.
// Inline assembly, not the _mm_min_sd intrinsic, whose vector operands cost
// two moves each; the VEX form where the compiler emits AVX code.
#ifdef KBT_SSE_SELECT
#ifdef __AVX__
#define KBT_SELECT_ASM(op, a, b) asm("v" op " %2, %1, %0" : "=x"(a) : "x"(a), "x"(b))
#else
#define KBT_SELECT_ASM(op, a, b) asm(op " %1, %0" : "+x"(a) : "x"(b))
#endif
// `a` becomes op(a, b): "min" or "max", sd for double, ss for float.
#define KBT_SELECT(op, a, b)                                                  \
  if constexpr (sizeof(a) == sizeof(double)) KBT_SELECT_ASM(op "sd", a, b); \
  else KBT_SELECT_ASM(op "ss", a, b)
#endif

template <bool Less, class Real>
KOKKOS_INLINE_FUNCTION Real select_or(Real a, Real b) {
#ifdef KBT_SSE_SELECT
  if constexpr (Less) {
    KBT_SELECT("min", a, b);
  } else {
    KBT_SELECT("max", a, b);
  }
  return a;
#else
  return (Less ? a < b : a > b) ? a : b;
#endif
}
template <class Real>
KOKKOS_INLINE_FUNCTION Real less_or(Real a, Real b) {
  return select_or<true>(a, b);
}
template <class Real>
KOKKOS_INLINE_FUNCTION Real greater_or(Real a, Real b) {
  return select_or<false>(a, b);
}

// NaN and epsilon without <limits> (not usable in CUDA device code pre-C++20;
// Kokkos 3.4 has no quiet_NaN trait).
template <class T>
KOKKOS_INLINE_FUNCTION T quiet_nan();
template <>
KOKKOS_INLINE_FUNCTION double quiet_nan<double>() {
  return __builtin_nan("");
}
template <>
KOKKOS_INLINE_FUNCTION float quiet_nan<float>() {
  return __builtin_nanf("");
}
template <class T>
KOKKOS_INLINE_FUNCTION T epsilon() {
  return kx::epsilon<T>();
}

}  // namespace kbt::math
