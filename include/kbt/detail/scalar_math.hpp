#pragma once
// The scalar math every engine uses, so that the reference engine and the
// Kokkos kernels agree on every bit. Callable on host and device.
//
// sqrt/fabs are exact (IEEE correctly rounded or exact) everywhere and forward
// to Kokkos math. exp/log/pow are NOT correctly rounded by vendor libraries and
// differ between glibc and CUDA; they use kbt's own implementation
// (kbt/detail/portable_math.hpp, within 1 ulp, the same bits on every space
// provided FMA contraction is off — see docs/building.md).

#include <Kokkos_Core.hpp>
#include <kbt/detail/portable_math.hpp>

namespace kbt::math {

#if KOKKOS_VERSION >= 30700
#define KBT_KOKKOS_MATH Kokkos
#else
#define KBT_KOKKOS_MATH Kokkos::Experimental
#endif

KOKKOS_INLINE_FUNCTION double sqrt(double x) { return KBT_KOKKOS_MATH::sqrt(x); }
KOKKOS_INLINE_FUNCTION float sqrt(float x) { return KBT_KOKKOS_MATH::sqrt(x); }
KOKKOS_INLINE_FUNCTION double exp(double x) { return detail::portable::exp(x); }
KOKKOS_INLINE_FUNCTION float exp(float x) { return detail::portable::exp(x); }
KOKKOS_INLINE_FUNCTION double log(double x) { return detail::portable::log(x); }
KOKKOS_INLINE_FUNCTION float log(float x) { return detail::portable::log(x); }
KOKKOS_INLINE_FUNCTION double pow(double x, double y) { return detail::portable::pow(x, y); }
KOKKOS_INLINE_FUNCTION float pow(float x, float y) { return detail::portable::pow(x, y); }
KOKKOS_INLINE_FUNCTION double fabs(double x) { return KBT_KOKKOS_MATH::fabs(x); }
KOKKOS_INLINE_FUNCTION float fabs(float x) { return KBT_KOKKOS_MATH::fabs(x); }
KOKKOS_INLINE_FUNCTION bool isnan(double x) { return KBT_KOKKOS_MATH::isnan(x); }
KOKKOS_INLINE_FUNCTION bool isnan(float x) { return KBT_KOKKOS_MATH::isnan(x); }

#undef KBT_KOKKOS_MATH

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
  return Kokkos::Experimental::epsilon<T>::value;
}

}  // namespace kbt::math
