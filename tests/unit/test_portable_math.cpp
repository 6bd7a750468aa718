// kbt::detail::portable::{exp,log,pow} against the host libm (an independent
// implementation): at most 1 ulp apart on seeded random arguments over the whole
// range, and exact on the special values C/IEEE define.
#include <kbt/core/detail/portable_math.hpp>

#include <gtest/gtest.h>

#include <cfloat>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <sstream>
#include <string>

namespace pm = kbt::detail::portable;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
constexpr double kMinSub = std::numeric_limits<double>::denorm_min();

std::uint64_t bits(double x) {
  std::uint64_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}
std::uint32_t bits(float x) {
  std::uint32_t u;
  std::memcpy(&u, &x, sizeof u);
  return u;
}

// Distance in representable numbers between two values of the same sign
// class (maps the sign-magnitude encoding onto a monotone integer line).
std::int64_t ordered(double x) {
  const std::int64_t i = static_cast<std::int64_t>(bits(x));
  return i < 0 ? std::numeric_limits<std::int64_t>::min() - i : i;
}
std::uint64_t ulps(double a, double b) {
  const std::int64_t d = ordered(a) - ordered(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}
std::int64_t ordered(float x) {
  const std::int32_t i = static_cast<std::int32_t>(bits(x));
  return i < 0 ? std::numeric_limits<std::int32_t>::min() - static_cast<std::int64_t>(i) : i;
}
std::uint64_t ulps(float a, float b) {
  const std::int64_t d = ordered(a) - ordered(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

std::string hex(double x) {
  std::ostringstream out;
  out << std::hexfloat << x;
  return out.str();
}

// Same value (bit for bit, so +0 != -0), or both NaN.
::testing::AssertionResult same(double expected, double actual) {
  if (std::isnan(expected) && std::isnan(actual)) return ::testing::AssertionSuccess();
  if (bits(expected) == bits(actual)) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "expected " << hex(expected) << ", got " << hex(actual);
}

// Tracks the worst case of a random sweep so a failure names its argument.
struct Worst {
  std::uint64_t max_ulps = 0;
  double x = 0, y = 0;
  double ours = 0, libm = 0;
  long exact = 0, total = 0;
  void add(double ours_, double libm_, double x_, double y_ = 0) {
    const std::uint64_t d = (std::isnan(ours_) && std::isnan(libm_)) ? 0 : ulps(ours_, libm_);
    ++total;
    if (d == 0) ++exact;
    if (d > max_ulps) {
      max_ulps = d;
      x = x_;
      y = y_;
      ours = ours_;
      libm = libm_;
    }
  }
  std::string describe() const {
    std::ostringstream out;
    out << "worst " << max_ulps << " ulp at x=" << hex(x) << " y=" << hex(y) << ": ours " << hex(ours)
        << ", libm " << hex(libm) << "; identical " << exact << "/" << total;
    return out.str();
  }
};

double log_uniform(std::mt19937_64& rng, double lo, double hi) {
  std::uniform_real_distribution<double> u(std::log(lo), std::log(hi));
  return std::exp(u(rng));
}

}  // namespace

TEST(PortableMath, ExpWithinOneUlpOfLibm) {
  std::mt19937_64 rng(20261201);
  Worst worst;
  std::uniform_real_distribution<double> full(-745.2, 709.8), unit(-1.0, 1.0);
  for (int i = 0; i < 200000; ++i) {
    const double x = full(rng);
    worst.add(pm::exp(x), std::exp(x), x);
  }
  for (int i = 0; i < 100000; ++i) {
    const double x = unit(rng);
    worst.add(pm::exp(x), std::exp(x), x);
  }
  for (int i = 0; i < 50000; ++i) {  // tiny |x|, both signs: the 1 + x and k == 0 paths
    const double x = (i % 2 ? -1 : 1) * log_uniform(rng, 1e-30, 0.5);
    worst.add(pm::exp(x), std::exp(x), x);
  }
  for (int i = 0; i < 20000; ++i) {  // subnormal results
    const double x = std::uniform_real_distribution<double>(-745.13, -708.4)(rng);
    worst.add(pm::exp(x), std::exp(x), x);
  }
  EXPECT_LE(worst.max_ulps, 1u) << worst.describe();
}

TEST(PortableMath, ExpSpecialValues) {
  EXPECT_TRUE(same(1.0, pm::exp(0.0)));
  EXPECT_TRUE(same(1.0, pm::exp(-0.0)));
  EXPECT_TRUE(same(kInf, pm::exp(kInf)));
  EXPECT_TRUE(same(0.0, pm::exp(-kInf)));
  EXPECT_TRUE(std::isnan(pm::exp(kNaN)));
  EXPECT_TRUE(std::isnan(pm::exp(-kNaN)));
  EXPECT_TRUE(same(kInf, pm::exp(709.79)));
  EXPECT_TRUE(same(kInf, pm::exp(DBL_MAX)));
  EXPECT_TRUE(same(0.0, pm::exp(-746.0)));
  EXPECT_TRUE(same(0.0, pm::exp(-DBL_MAX)));
  EXPECT_TRUE(same(1.0 + kMinSub, pm::exp(kMinSub)));  // rounds to 1
  EXPECT_TRUE(same(1.0, pm::exp(kMinSub)));
  EXPECT_TRUE(same(kMinSub, pm::exp(-745.13)));  // smallest subnormal
  // Largest finite result: exp(log(DBL_MAX)) stays finite.
  EXPECT_TRUE(std::isfinite(pm::exp(7.09782712893383973096e+02)));
  EXPECT_LE(ulps(pm::exp(7.09782712893383973096e+02), std::exp(7.09782712893383973096e+02)), 1u);
  EXPECT_LE(ulps(pm::exp(1.0), 2.718281828459045), 1u);  // e
}

TEST(PortableMath, LogWithinOneUlpOfLibm) {
  std::mt19937_64 rng(20261202);
  Worst worst;
  // Uniform over the bit patterns of positive finite doubles: every binade,
  // subnormals included.
  std::uniform_int_distribution<std::uint64_t> pattern(1, 0x7fefffffffffffffull);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t u = pattern(rng);
    double x;
    std::memcpy(&x, &u, sizeof x);
    worst.add(pm::log(x), std::log(x), x);
  }
  std::uniform_real_distribution<double> around_one(0.5, 2.0);
  for (int i = 0; i < 100000; ++i) {
    const double x = around_one(rng);
    worst.add(pm::log(x), std::log(x), x);
  }
  for (int i = 0; i < 50000; ++i) {  // 1 +- tiny: the |f| < 2^-20 path
    const double x = 1.0 + (i % 2 ? -1 : 1) * log_uniform(rng, 1e-17, 1e-5);
    worst.add(pm::log(x), std::log(x), x);
  }
  EXPECT_LE(worst.max_ulps, 1u) << worst.describe();
}

TEST(PortableMath, LogSpecialValues) {
  EXPECT_TRUE(same(0.0, pm::log(1.0)));
  EXPECT_TRUE(same(-kInf, pm::log(0.0)));
  EXPECT_TRUE(same(-kInf, pm::log(-0.0)));
  EXPECT_TRUE(same(kInf, pm::log(kInf)));
  EXPECT_TRUE(std::isnan(pm::log(-1.0)));
  EXPECT_TRUE(std::isnan(pm::log(-kMinSub)));
  EXPECT_TRUE(std::isnan(pm::log(-kInf)));
  EXPECT_TRUE(std::isnan(pm::log(kNaN)));
  EXPECT_LE(ulps(pm::log(kMinSub), -744.4400719213812), 1u);  // -1074 ln 2
  EXPECT_LE(ulps(pm::log(DBL_MAX), 709.782712893384), 1u);
  EXPECT_TRUE(same(0.6931471805599453, pm::log(2.0)));  // ln 2, correctly rounded
  EXPECT_TRUE(same(1.0, pm::log(2.718281828459045)));
}

TEST(PortableMath, PowWithinOneUlpOfLibm) {
  std::mt19937_64 rng(20261203);
  Worst worst;
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  // Positive x over the whole range, y chosen so that y*log2(x) covers
  // [-1100, 1030]: normal, subnormal, overflowing and underflowing results.
  for (int i = 0; i < 200000; ++i) {
    const double x = log_uniform(rng, 1e-300, 1e300);
    const double target = -1100.0 + 2130.0 * unit(rng);
    const double y = target / std::log2(x);
    worst.add(pm::pow(x, y), std::pow(x, y), x, y);
  }
  // Moderate arguments (typical of compounding: (1+r)^n, n^(1/k)).
  for (int i = 0; i < 100000; ++i) {
    const double x = 0.5 + 1.5 * unit(rng);
    const double y = -300.0 + 600.0 * unit(rng);
    worst.add(pm::pow(x, y), std::pow(x, y), x, y);
  }
  // Negative x with integer y (odd and even), and x near 1 with |y| > 2^31.
  for (int i = 0; i < 50000; ++i) {
    const double x = -log_uniform(rng, 1e-3, 1e3);
    const double y = std::floor(-100.0 + 200.0 * unit(rng));
    worst.add(pm::pow(x, y), std::pow(x, y), x, y);
  }
  for (int i = 0; i < 20000; ++i) {
    const double x = 1.0 + (i % 2 ? -1 : 1) * log_uniform(rng, 1e-16, 1e-7);
    const double y = (i % 3 ? -1 : 1) * log_uniform(rng, 4.3e9, 1e12);
    worst.add(pm::pow(x, y), std::pow(x, y), x, y);
  }
  EXPECT_LE(worst.max_ulps, 1u) << worst.describe();
}

TEST(PortableMath, PowIsExactOnRepresentableIntegerPowers) {
  for (int base = 2; base <= 15; ++base) {
    double expected = 1.0;
    for (int n = 1; n <= 60; ++n) {
      expected *= base;
      if (expected > 9007199254740992.0) break;  // 2^53: products stop being exact
      EXPECT_TRUE(same(expected, pm::pow(static_cast<double>(base), static_cast<double>(n))))
          << base << "^" << n;
      EXPECT_TRUE(same(n % 2 ? -expected : expected,
                       pm::pow(-static_cast<double>(base), static_cast<double>(n))))
          << "-" << base << "^" << n;
    }
  }
  EXPECT_TRUE(same(1e22, pm::pow(10.0, 22.0)));
  EXPECT_TRUE(same(0.0625, pm::pow(2.0, -4.0)));
  EXPECT_TRUE(same(3.0, pm::pow(9.0, 0.5)));
}

TEST(PortableMath, PowSpecialValues) {
  // C11 Annex F.10.4.4, case by case.
  const double values[] = {0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.0, -2.0, 3.0, -3.0,
                           kInf, -kInf, kNaN, kMinSub, -kMinSub, DBL_MAX, -DBL_MAX};
  for (double x : values) {
    for (double y : values) {
      const double expected = std::pow(x, y);
      const double actual = pm::pow(x, y);
      // Zero, infinite, NaN and exactly representable results are exact; others
      // (0.5^-0.5 = sqrt 2) within 1 ulp.
      if (expected == 0 || !std::isfinite(expected) || expected == std::nearbyint(expected)) {
        EXPECT_TRUE(same(expected, actual)) << "pow(" << hex(x) << ", " << hex(y) << ")";
      } else {
        EXPECT_LE(ulps(expected, actual), 1u) << "pow(" << hex(x) << ", " << hex(y) << ")";
      }
    }
  }
  EXPECT_TRUE(same(1.0, pm::pow(kNaN, 0.0)));
  EXPECT_TRUE(same(1.0, pm::pow(kNaN, -0.0)));
  EXPECT_TRUE(same(1.0, pm::pow(1.0, kNaN)));
  EXPECT_TRUE(same(1.0, pm::pow(-1.0, kInf)));
  EXPECT_TRUE(same(-kInf, pm::pow(-0.0, -3.0)));
  EXPECT_TRUE(same(kInf, pm::pow(-0.0, -2.0)));
  EXPECT_TRUE(same(kInf, pm::pow(0.0, -kInf)));
  EXPECT_TRUE(same(-0.0, pm::pow(-0.0, 3.0)));
  EXPECT_TRUE(same(0.0, pm::pow(-0.0, 4.0)));
  EXPECT_TRUE(same(-kInf, pm::pow(-kInf, 3.0)));
  EXPECT_TRUE(same(-0.0, pm::pow(-kInf, -3.0)));
  EXPECT_TRUE(same(kInf, pm::pow(-kInf, 0.5)));
  EXPECT_TRUE(std::isnan(pm::pow(-8.0, 1.0 / 3.0)));
  EXPECT_TRUE(std::isnan(pm::pow(-1.0, 0.5)));
  EXPECT_TRUE(same(kInf, pm::pow(2.0, 1024.0)));
  EXPECT_TRUE(same(-kInf, pm::pow(-2.0, 1025.0)));
  EXPECT_TRUE(same(kMinSub, pm::pow(2.0, -1074.0)));
  EXPECT_TRUE(same(0.0, pm::pow(2.0, -1075.0)));  // a tie, rounds to even (0)
  EXPECT_TRUE(same(-0.0, pm::pow(-2.0, -1077.0)));
  EXPECT_TRUE(same(kInf, pm::pow(1.0000001, 1e20)));  // |y| > 2^64
  EXPECT_TRUE(same(0.0, pm::pow(0.9999999, 1e20)));
}

TEST(PortableMath, NaNResultsAreCanonical) {
  // One NaN encoding everywhere, so that host and device agree bit for bit.
  const std::uint64_t canonical = 0x7ff8000000000000ull;
  EXPECT_EQ(canonical, bits(pm::exp(-kNaN)));
  EXPECT_EQ(canonical, bits(pm::log(-1.0)));
  EXPECT_EQ(canonical, bits(pm::log(-kNaN)));
  EXPECT_EQ(canonical, bits(pm::pow(-2.0, 0.5)));
  EXPECT_EQ(canonical, bits(pm::pow(-kNaN, 2.0)));
}

TEST(PortableMath, FloatOverloadsWithinOneUlpOfLibm) {
  std::mt19937_64 rng(20261204);
  std::uint64_t worst_exp = 0, worst_log = 0, worst_pow = 0;
  std::uniform_real_distribution<float> exp_arg(-103.9f, 88.7f), base(0.01f, 100.0f), expo(-15.0f, 15.0f);
  std::uniform_int_distribution<std::uint32_t> pattern(1, 0x7f7fffffu);
  for (int i = 0; i < 100000; ++i) {
    const float x = exp_arg(rng);
    worst_exp = std::max(worst_exp, ulps(pm::exp(x), std::exp(x)));
    const std::uint32_t u = pattern(rng);
    float lx;
    std::memcpy(&lx, &u, sizeof lx);
    worst_log = std::max(worst_log, ulps(pm::log(lx), std::log(lx)));
    const float b = base(rng), e = expo(rng);
    worst_pow = std::max(worst_pow, ulps(pm::pow(b, e), std::pow(b, e)));
  }
  EXPECT_LE(worst_exp, 1u);
  EXPECT_LE(worst_log, 1u);
  EXPECT_LE(worst_pow, 1u);
  EXPECT_TRUE(std::isinf(pm::exp(89.0f)));
  EXPECT_EQ(0.0f, pm::exp(-104.0f));
  EXPECT_TRUE(std::isnan(pm::log(-1.0f)));
  EXPECT_EQ(-std::numeric_limits<float>::infinity(), pm::log(0.0f));
  EXPECT_EQ(1.0f, pm::pow(std::numeric_limits<float>::quiet_NaN(), 0.0f));
}
