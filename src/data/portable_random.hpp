#pragma once
// A PRNG and the few transcendental functions synthetic data needs, written
// with only IEEE correctly rounded operations (+ - * / sqrt, frexp/ldexp) so that a seed
// gives the same bits on every platform and compiler: std:: distributions
// and libm exp/log are implementation-defined in their last bits (internal).

#include <cmath>
#include <cstdint>

namespace kbt::detail {

// Rounds `x` to double here. Wrapping every product that feeds an addition
// stops the compiler from fusing them into one fused multiply-add, which
// rounds once instead of twice and so changes the bits. GCC fuses by default
// whenever the target has FMA (-march=native, Kokkos_ARCH_* flags), whatever
// -std; a pragma would not bind GCC, and clang ignores it under
// -ffp-contract=fast. A volatile round trip binds every compiler.
inline double rounded(double x) {
  volatile double v = x;
  return v;
}

inline std::uint64_t splitmix64(std::uint64_t& state) {
  std::uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// xoshiro256** (Blackman & Vigna), seeded through splitmix64.
class Xoshiro256 {
 public:
  explicit Xoshiro256(std::uint64_t seed) {
    for (auto& word : s_) word = splitmix64(seed);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0];
    s_[3] ^= s_[1];
    s_[1] ^= s_[2];
    s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  // Uniform on [0, 1) with 53 random bits.
  double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

// exp(x): Cody-Waite reduction x = k ln2 + r, |r| <= ln2/2, then a degree-13
// Taylor polynomial (error < 1 ulp-ish; what matters here is determinism).
inline double portable_exp(double x) {
  if (x > 709.0) return HUGE_VAL;
  if (x < -745.0) return 0.0;
  constexpr double inv_ln2 = 1.4426950408889634;
  constexpr double ln2_hi = 6.93147180369123816490e-01;  // upper bits of ln 2
  constexpr double ln2_lo = 1.90821492927058770002e-10;  // ln 2 - ln2_hi
  const double k = std::floor(rounded(x * inv_ln2) + 0.5);
  const double r = (x - rounded(k * ln2_hi)) - rounded(k * ln2_lo);
  double p = 1.0 / 6227020800.0;  // 1/13!
  const double inv_fact[] = {1.0 / 479001600.0, 1.0 / 39916800.0, 1.0 / 3628800.0, 1.0 / 362880.0,
                             1.0 / 40320.0,     1.0 / 5040.0,     1.0 / 720.0,     1.0 / 120.0,
                             1.0 / 24.0,        1.0 / 6.0,        0.5,             1.0,
                             1.0};
  for (double c : inv_fact) p = rounded(p * r) + c;
  return std::ldexp(p, static_cast<int>(k));
}

// (Every product feeding a sum goes through rounded(), see above.)

// log(x) for x > 0: x = m 2^e with m in [sqrt(1/2), sqrt(2)), then
// log m = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.172, series to s^23.
inline double portable_log(double x) {
  if (!(x > 0.0)) return x == 0.0 ? -HUGE_VAL : NAN;
  int e = 0;
  double m = std::frexp(x, &e);  // m in [0.5, 1)
  if (m < 0.70710678118654752440) {
    m *= 2.0;
    --e;
  }
  const double s = (m - 1.0) / (m + 1.0);
  const double s2 = s * s;
  double sum = 1.0 / 23.0;
  for (int n = 21; n >= 1; n -= 2) sum = rounded(sum * s2) + 1.0 / n;
  constexpr double ln2 = 0.69314718055994530942;
  return rounded(static_cast<double>(e) * ln2) + rounded(2.0 * s * sum);
}

// Standard normal deviates by Marsaglia's polar method (needs only log and sqrt).
class NormalSource {
 public:
  explicit NormalSource(std::uint64_t seed) : rng_(seed) {}
  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    double v1, v2, s;
    do {
      v1 = rounded(2.0 * rng_.uniform()) - 1.0;
      v2 = rounded(2.0 * rng_.uniform()) - 1.0;
      s = rounded(v1 * v1) + rounded(v2 * v2);
    } while (s >= 1.0 || s == 0.0);
    const double f = std::sqrt(-2.0 * portable_log(s) / s);
    spare_ = v2 * f;
    has_spare_ = true;
    return v1 * f;
  }
  double uniform() { return rng_.uniform(); }

 private:
  Xoshiro256 rng_;
  double spare_ = 0.0;
  bool has_spare_ = false;
};

}  // namespace kbt::detail
