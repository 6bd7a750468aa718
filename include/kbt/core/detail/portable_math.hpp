#pragma once
// exp, log and pow written in plain IEEE-754 double arithmetic (+ - * /, exact
// bit manipulation), so that the host reference engine and every Kokkos
// execution space (Serial, OpenMP, CUDA) compute the same bits. Vendor libms
// (glibc, CUDA's libdevice) are each accurate to about half an ulp but round
// differently in the last bit; kbt's fp64 bit-parity rule (docs/metrics.md, docs/sweep.md) forbids
// that.
//
// Algorithms: the fdlibm ones (Sun Microsystems, also used by musl before 2018
// and by FreeBSD msun) — reimplemented here for 64-bit words and device code.
// Error against the exact value is below 1 ulp (fdlibm's own analysis);
// tests/unit/test_portable_math.cpp checks it against the host libm.
//
// Conditions for identical bits (docs/building.md):
//  * no FMA contraction: host code is compiled with -ffp-contract=off, CUDA
//    code with --fmad=false (the kbt CMake target sets both, PUBLIC);
//  * no fast-math (-ffast-math, --use_fast_math, -ftz=true);
//  * SSE2 / IEEE double hardware (no x87 extended precision).
// Every NaN result is the canonical quiet NaN 0x7ff8000000000000 (NaN payloads
// are not propagated: hardware differs in how it does that).
//
// float overloads compute in double and round once to float: the result is
// within 1 float ulp (almost always correctly rounded) and identical
// everywhere, at the price of fp64 arithmetic in fp32 kernels.
//
// The constants and the structure of the algorithms come from fdlibm:
// ====================================================
// Copyright (C) 1993, 2004 by Sun Microsystems, Inc. All rights reserved.
//
// Developed at SunSoft, a Sun Microsystems, Inc. business.
// Permission to use, copy, modify, and distribute this
// software is freely granted, provided that this notice
// is preserved.
// ====================================================

#include <Kokkos_Macros.hpp>

#include <cstdint>

namespace kbt::detail::portable {

// ---- exact bit access (no unions, no std::memcpy in device code) ----------

KOKKOS_INLINE_FUNCTION std::uint64_t to_bits(double x) {
#if defined(__CUDA_ARCH__)
  return static_cast<std::uint64_t>(__double_as_longlong(x));
#else
  std::uint64_t u;
  __builtin_memcpy(&u, &x, sizeof u);
  return u;
#endif
}

KOKKOS_INLINE_FUNCTION double from_bits(std::uint64_t u) {
#if defined(__CUDA_ARCH__)
  return __longlong_as_double(static_cast<long long>(u));
#else
  double x;
  __builtin_memcpy(&x, &u, sizeof x);
  return x;
#endif
}

KOKKOS_INLINE_FUNCTION std::uint32_t high_word(double x) {
  return static_cast<std::uint32_t>(to_bits(x) >> 32);
}
KOKKOS_INLINE_FUNCTION std::uint32_t low_word(double x) {
  return static_cast<std::uint32_t>(to_bits(x));
}
KOKKOS_INLINE_FUNCTION double from_words(std::uint32_t high, std::uint32_t low) {
  return from_bits((static_cast<std::uint64_t>(high) << 32) | low);
}
// x with its low 32 bits cleared: a "head" whose products with short numbers
// are exact.
KOKKOS_INLINE_FUNCTION double clear_low_word(double x) {
  return from_bits(to_bits(x) & 0xffffffff00000000ull);
}
KOKKOS_INLINE_FUNCTION double with_high_word(double x, std::uint32_t high) {
  return from_words(high, low_word(x));
}

KOKKOS_INLINE_FUNCTION double quiet_nan() { return from_bits(0x7ff8000000000000ull); }
KOKKOS_INLINE_FUNCTION double infinity() { return from_bits(0x7ff0000000000000ull); }

// 2^n for -1022 <= n <= 1023 (a normal number).
KOKKOS_INLINE_FUNCTION double two_to(int n) {
  return from_words(static_cast<std::uint32_t>(0x3ff + n) << 20, 0);
}

// y * 2^n with a single rounding (scalbn).
KOKKOS_INLINE_FUNCTION double scale_by_two_to(double y, int n) {
  const double two_to_1023 = two_to(1023);
  const double two_to_minus_969 = two_to(-969);
  if (n > 1023) {
    y *= two_to_1023;
    n -= 1023;
    if (n > 1023) {
      y *= two_to_1023;
      n -= 1023;
      if (n > 1023) n = 1023;
    }
  } else if (n < -1022) {
    // 2^-969 rather than 2^-1022 keeps the intermediate normal, so that only
    // the last multiplication rounds.
    y *= two_to_minus_969;
    n += 969;
    if (n < -1022) {
      y *= two_to_minus_969;
      n += 969;
      if (n < -1022) n = -1022;
    }
  }
  return y * two_to(n);
}

// Shared by exp and pow: exp(r) for |r| <= 0.5*ln2 is
// 1 + r + r*c/(2-c) with c = r - r^2*(P1 + ... + P5*r^8) (Remez, error < 2^-59).
struct ExpPoly {
  static constexpr double P1 = 1.66666666666666019037e-01;
  static constexpr double P2 = -2.77777777770155933842e-03;
  static constexpr double P3 = 6.61375632143793436117e-05;
  static constexpr double P4 = -1.65339022054652515390e-06;
  static constexpr double P5 = 4.13813679705723846039e-08;
  KOKKOS_INLINE_FUNCTION static double c(double r) {
    const double t = r * r;
    return r - t * (P1 + t * (P2 + t * (P3 + t * (P4 + t * P5))));
  }
};

// ---- exp ------------------------------------------------------------------

KOKKOS_INLINE_FUNCTION double exp(double x) {
  constexpr double overflow_above = 7.09782712893383973096e+02;
  constexpr double underflow_below = -7.45133219101941108420e+02;
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // 32 bits: k*ln2_hi exact
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  constexpr double inv_ln2 = 1.44269504088896338700e+00;
  constexpr double two_to_minus_1000 = 9.33263618503218878990e-302;

  const std::uint32_t word = high_word(x);
  const bool negative = (word >> 31) != 0;
  const std::uint32_t hx = word & 0x7fffffffu;

  if (hx >= 0x40862E42u) {  // |x| >= 709.78: non-finite, overflow or underflow
    if (hx >= 0x7ff00000u) {
      if (((hx & 0xfffffu) | low_word(x)) != 0) return quiet_nan();
      return negative ? 0.0 : x;  // exp(-inf) = 0, exp(inf) = inf
    }
    if (x > overflow_above) return infinity();
    if (x < underflow_below) return 0.0;
  }

  // Reduce: x = k*ln2 + r, |r| <= 0.5*ln2, r = hi - lo.
  double hi = 0.0;
  double lo = 0.0;
  int k = 0;
  if (hx > 0x3fd62e42u) {    // |x| > 0.5 ln2
    if (hx < 0x3FF0A2B2u) {  // and |x| < 1.5 ln2: k = +-1
      hi = negative ? x + ln2_hi : x - ln2_hi;
      lo = negative ? -ln2_lo : ln2_lo;
      k = negative ? -1 : 1;
    } else {
      k = static_cast<int>(inv_ln2 * x + (negative ? -0.5 : 0.5));
      const double dk = k;
      hi = x - dk * ln2_hi;
      lo = dk * ln2_lo;
    }
    x = hi - lo;
  } else if (hx < 0x3e300000u) {  // |x| < 2^-28: exp(x) rounds to 1 + x
    return 1.0 + x;
  }

  const double c = ExpPoly::c(x);
  if (k == 0) return 1.0 - ((x * c) / (c - 2.0) - x);
  const double y = 1.0 - ((lo - (x * c) / (2.0 - c)) - hi);
  if (k >= -1021) {
    if (k == 1024) return y * 2.0 * two_to(1023);  // 2^1024 is not a double
    return y * two_to(k);
  }
  return y * two_to(k + 1000) * two_to_minus_1000;  // subnormal result: one rounding
}

// ---- log ------------------------------------------------------------------

KOKKOS_INLINE_FUNCTION double log(double x) {
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // k*ln2_hi exact, |k| < 2000
  constexpr double ln2_lo = 1.90821492927058770002e-10;
  constexpr double two_to_54 = 1.80143985094819840000e+16;
  // log(1+f) = 2s + s*R(s^2), s = f/(2+f); Remez on [0, 0.1716], error < 2^-58.45.
  constexpr double Lg1 = 6.666666666666735130e-01;
  constexpr double Lg2 = 3.999999999940941908e-01;
  constexpr double Lg3 = 2.857142874366239149e-01;
  constexpr double Lg4 = 2.222219843214978396e-01;
  constexpr double Lg5 = 1.818357216161805012e-01;
  constexpr double Lg6 = 1.531383769920937332e-01;
  constexpr double Lg7 = 1.479819860511658591e-01;

  std::int32_t hx = static_cast<std::int32_t>(high_word(x));
  int k = 0;
  if (hx < 0x00100000) {  // negative, zero or subnormal
    if (((hx & 0x7fffffff) | static_cast<std::int32_t>(low_word(x))) == 0) return -infinity();
    if (hx < 0) return quiet_nan();
    k -= 54;
    x *= two_to_54;  // exact: scale the subnormal up
    hx = static_cast<std::int32_t>(high_word(x));
  }
  if (hx >= 0x7ff00000) return x == x ? x : quiet_nan();  // +inf or NaN
  k += (hx >> 20) - 1023;
  hx &= 0x000fffff;
  // Normalise the mantissa into [sqrt(2)/2, sqrt(2)): x = 2^k * (1+f).
  std::int32_t i = (hx + 0x95f64) & 0x100000;
  x = with_high_word(x, static_cast<std::uint32_t>(hx | (i ^ 0x3ff00000)));
  k += i >> 20;
  const double f = x - 1.0;
  const double dk = k;

  if ((0x000fffff & (2 + hx)) < 3) {  // -2^-20 <= f < 2^-20
    if (f == 0.0) return k == 0 ? 0.0 : dk * ln2_hi + dk * ln2_lo;
    const double r = f * f * (0.5 - 0.33333333333333333 * f);
    if (k == 0) return f - r;
    return dk * ln2_hi - ((r - dk * ln2_lo) - f);
  }
  const double s = f / (2.0 + f);
  const double z = s * s;
  const double w = z * z;
  const double t1 = w * (Lg2 + w * (Lg4 + w * Lg6));
  const double t2 = z * (Lg1 + w * (Lg3 + w * (Lg5 + w * Lg7)));
  const double r = t2 + t1;
  i = (hx - 0x6147a) | (0x6b851 - hx);
  if (i > 0) {  // f far from 0: the half-square form is more accurate
    const double hfsq = 0.5 * f * f;
    if (k == 0) return f - (hfsq - s * (hfsq + r));
    return dk * ln2_hi - ((hfsq - (s * (hfsq + r) + dk * ln2_lo)) - f);
  }
  if (k == 0) return f - s * (f - r);
  return dk * ln2_hi - ((s * (f - r) - dk * ln2_lo) - f);
}

// ---- sqrt -----------------------------------------------------------------
// IEEE sqrt is correctly rounded on every target; only the spelling differs.
KOKKOS_INLINE_FUNCTION double sqrt(double x) {
#if defined(__CUDA_ARCH__)
  return ::sqrt(x);
#else
  return __builtin_sqrt(x);
#endif
}

// ---- pow ------------------------------------------------------------------

KOKKOS_INLINE_FUNCTION double pow(double x, double y) {
  constexpr double two_to_53 = 9007199254740992.0;
  // (3/2)*(log(x) - 2s - 2/3*s^3) on the reduced interval.
  constexpr double L1 = 5.99999999999994648725e-01;
  constexpr double L2 = 4.28571428578550184252e-01;
  constexpr double L3 = 3.33333329818377432918e-01;
  constexpr double L4 = 2.72728123808534006489e-01;
  constexpr double L5 = 2.30660745775561754067e-01;
  constexpr double L6 = 2.06975017800338417784e-01;
  constexpr double lg2 = 6.93147180559945286227e-01;
  constexpr double lg2_h = 6.93147182464599609375e-01;
  constexpr double lg2_l = -1.90465429995776804525e-09;
  constexpr double ovt = 8.0085662595372944372e-17;  // -(1024 - log2(max + 0.5 ulp))
  constexpr double cp = 9.61796693925975554329e-01;  // 2/(3 ln2)
  constexpr double cp_h = 9.61796700954437255859e-01;
  constexpr double cp_l = -7.02846165095275826516e-09;
  constexpr double dp_h1 = 5.84962487220764160156e-01;  // log2(1.5) head
  constexpr double dp_l1 = 1.35003920212974897128e-08;  // log2(1.5) tail

  const std::int32_t hx = static_cast<std::int32_t>(high_word(x));
  const std::int32_t hy = static_cast<std::int32_t>(high_word(y));
  const std::uint32_t lx = low_word(x);
  const std::uint32_t ly = low_word(y);
  std::int32_t ix = hx & 0x7fffffff;
  const std::int32_t iy = hy & 0x7fffffff;

  if ((static_cast<std::uint32_t>(iy) | ly) == 0) return 1.0;  // x^0 = 1, even NaN^0
  if (hx == 0x3ff00000 && lx == 0) return 1.0;                  // 1^y = 1, even 1^NaN
  if (ix > 0x7ff00000 || (ix == 0x7ff00000 && lx != 0) || iy > 0x7ff00000 ||
      (iy == 0x7ff00000 && ly != 0))
    return quiet_nan();

  // For x < 0: is y an odd integer (1), an even integer (2) or neither (0)?
  int y_is_int = 0;
  if (hx < 0) {
    if (iy >= 0x43400000) {
      y_is_int = 2;  // |y| >= 2^53: even
    } else if (iy >= 0x3ff00000) {
      const int e = (iy >> 20) - 0x3ff;
      if (e > 20) {
        const std::uint32_t j = ly >> (52 - e);
        if ((j << (52 - e)) == ly) y_is_int = 2 - static_cast<int>(j & 1);
      } else if (ly == 0) {
        const std::int32_t j = iy >> (20 - e);
        if ((j << (20 - e)) == iy) y_is_int = 2 - static_cast<int>(j & 1);
      }
    }
  }

  if (ly == 0) {
    if (iy == 0x7ff00000) {                                    // y = +-inf
      if (((ix - 0x3ff00000) | static_cast<std::int32_t>(lx)) == 0) return 1.0;  // (-1)^+-inf
      if (ix >= 0x3ff00000) return hy >= 0 ? y : 0.0;            // |x| > 1
      return hy < 0 ? -y : 0.0;                                  // |x| < 1
    }
    if (iy == 0x3ff00000) return hy < 0 ? 1.0 / x : x;  // y = +-1
    if (hy == 0x40000000) return x * x;                  // y = 2
    if (hy == 0x3fe00000 && hx >= 0) return sqrt(x);     // y = 0.5, x >= +0
  }

  double ax = from_bits(to_bits(x) & 0x7fffffffffffffffull);
  if (lx == 0 && (ix == 0x7ff00000 || ix == 0 || ix == 0x3ff00000)) {  // x = +-0, +-inf, +-1
    double z = ax;
    if (hy < 0) z = 1.0 / z;
    if (hx < 0) {
      if (((ix - 0x3ff00000) | y_is_int) == 0) return quiet_nan();  // (-1)^non-integer
      if (y_is_int == 1) z = -z;
    }
    return z;
  }

  if (hx < 0 && y_is_int == 0) return quiet_nan();  // (x<0)^non-integer
  const double sign = (hx < 0 && y_is_int == 1) ? -1.0 : 1.0;

  // |y| > 2^31: the result over/underflows unless x is close to 1.
  if (iy > 0x41e00000) {
    if (iy > 0x43f00000) {  // |y| > 2^64: certain over/underflow
      if (ix <= 0x3fefffff) return hy < 0 ? infinity() : 0.0;
      return hy > 0 ? infinity() : 0.0;
    }
    if (ix < 0x3fefffff) return hy < 0 ? sign * infinity() : sign * 0.0;
    if (ix > 0x3ff00000) return hy > 0 ? sign * infinity() : sign * 0.0;
    // fdlibm approximates log(x) by a short series here, whose error, times a
    // huge y, costs hundreds of ulps; the general double-double log2 below is
    // accurate enough for any y.
  }

  // log2(|x|) = t1 + t2, t1 with its low word clear.
  double t1;
  double t2;
  {
    int n = 0;
    if (ix < 0x00100000) {  // subnormal x
      ax *= two_to_53;
      n -= 53;
      ix = static_cast<std::int32_t>(high_word(ax));
    }
    n += (ix >> 20) - 0x3ff;
    const std::int32_t j = ix & 0x000fffff;
    // Pick the interval: |x| < sqrt(3/2) -> around 1, < sqrt(3) -> around 1.5.
    int k;
    ix = j | 0x3ff00000;
    if (j <= 0x3988E) {
      k = 0;
    } else if (j < 0xBB67A) {
      k = 1;
    } else {
      k = 0;
      n += 1;
      ix -= 0x00100000;
    }
    ax = with_high_word(ax, static_cast<std::uint32_t>(ix));
    const double bp = k == 0 ? 1.0 : 1.5;
    const double dp_h = k == 0 ? 0.0 : dp_h1;
    const double dp_l = k == 0 ? 0.0 : dp_l1;

    // ss = s_h + s_l = (x - bp)/(x + bp)
    const double u = ax - bp;
    const double v = 1.0 / (ax + bp);
    const double ss = u * v;
    const double s_h = clear_low_word(ss);
    double t_h = from_words(static_cast<std::uint32_t>(((ix >> 1) | 0x20000000) + 0x00080000 + (k << 18)), 0);
    double t_l = ax - (t_h - bp);
    const double s_l = v * ((u - s_h * t_h) - s_h * t_l);
    // log(ax)
    double s2 = ss * ss;
    double r = s2 * s2 * (L1 + s2 * (L2 + s2 * (L3 + s2 * (L4 + s2 * (L5 + s2 * L6)))));
    r += s_l * (s_h + ss);
    s2 = s_h * s_h;
    t_h = clear_low_word(3.0 + s2 + r);
    t_l = r - ((t_h - 3.0) - s2);
    // u2 + v2 = ss*(1 + ...)
    const double u2 = s_h * t_h;
    const double v2 = s_l * t_h + t_l * ss;
    // 2/(3 log2) * (ss + ...)
    const double p_h = clear_low_word(u2 + v2);
    const double p_l = v2 - (p_h - u2);
    const double z_h = cp_h * p_h;
    const double z_l = cp_l * p_h + p_l * cp + dp_l;
    // log2(ax) = n + dp_h + z_h + z_l
    const double t = n;
    t1 = clear_low_word(((z_h + z_l) + dp_h) + t);
    t2 = z_l - (((t1 - t) - dp_h) - z_h);
  }

  // y * log2|x| = p_h + p_l, y split as y1 + (y - y1).
  const double y1 = clear_low_word(y);
  const double p_l = (y - y1) * t1 + y * t2;
  double p_h = y1 * t1;
  double z = p_l + p_h;
  std::int32_t j = static_cast<std::int32_t>(high_word(z));
  const std::int32_t i_lo = static_cast<std::int32_t>(low_word(z));
  if (j >= 0x40900000) {  // z >= 1024
    if (((j - 0x40900000) | i_lo) != 0) return sign * infinity();
    if (p_l + ovt > z - p_h) return sign * infinity();
  } else if ((j & 0x7fffffff) >= 0x4090cc00) {  // z <= -1075
    if (((j - static_cast<std::int32_t>(0xc090cc00u)) | i_lo) != 0) return sign * 0.0;
    if (p_l <= z - p_h) return sign * 0.0;
  }

  // 2^(p_h + p_l) = 2^n * 2^(remainder), |remainder| <= 0.5.
  const std::int32_t i = j & 0x7fffffff;
  int e = (i >> 20) - 0x3ff;
  int n = 0;
  if (i > 0x3fe00000) {  // |z| > 0.5: n = nearest integer to z
    n = j + (0x00100000 >> (e + 1));
    e = ((n & 0x7fffffff) >> 20) - 0x3ff;
    const double t = from_words(static_cast<std::uint32_t>(n & ~(0x000fffff >> e)), 0);
    n = ((n & 0x000fffff) | 0x00100000) >> (20 - e);
    if (j < 0) n = -n;
    p_h -= t;
  }
  const double t = clear_low_word(p_l + p_h);
  const double u = t * lg2_h;
  const double v = (p_l - (t - p_h)) * lg2 + t * lg2_l;
  z = u + v;
  const double w = v - (z - u);
  const double c = ExpPoly::c(z);
  const double r = (z * c) / (c - 2.0) - (w + z * w);
  z = 1.0 - (r - z);
  const std::int32_t zj = static_cast<std::int32_t>(high_word(z));
  const std::int64_t scaled = static_cast<std::int64_t>(zj) + static_cast<std::int64_t>(n) * (1 << 20);
  if (scaled < 0x00100000) {
    z = scale_by_two_to(z, n);  // subnormal result
  } else {
    z = with_high_word(z, static_cast<std::uint32_t>(scaled));
  }
  return sign * z;
}

// ---- float: via double, one rounding --------------------------------------

KOKKOS_INLINE_FUNCTION float exp(float x) {
  return static_cast<float>(exp(static_cast<double>(x)));
}
KOKKOS_INLINE_FUNCTION float log(float x) {
  return static_cast<float>(log(static_cast<double>(x)));
}
KOKKOS_INLINE_FUNCTION float pow(float x, float y) {
  return static_cast<float>(pow(static_cast<double>(x), static_cast<double>(y)));
}

}  // namespace kbt::detail::portable
