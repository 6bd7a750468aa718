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
