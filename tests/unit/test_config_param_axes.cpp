// Expansion of parameter axes, against hand-computed values.

#include <gtest/gtest.h>
#include <kbt/core/error.hpp>

#include "config/param_axes.hpp"

#include <cmath>
#include <vector>

using kbt::detail::expand_linspace;
using kbt::detail::expand_logspace;
using kbt::detail::expand_range;
using kbt::detail::NumberArg;

namespace {
NumberArg num(const char* text) { return NumberArg{std::strtod(text, nullptr), text}; }
constexpr std::uint64_t big = 100000000;
}  // namespace

TEST(ParamAxes, IntegerRangeIsInclusive) {
  EXPECT_EQ(expand_range(num("5"), num("20"), num("5"), big), (std::vector<double>{5, 10, 15, 20}));
  EXPECT_EQ(expand_range(num("5"), num("22"), num("5"), big), (std::vector<double>{5, 10, 15, 20}));
  EXPECT_EQ(expand_range(num("7"), num("7"), num("1"), big), (std::vector<double>{7}));
  EXPECT_EQ(expand_range(num("5"), num("100"), num("1"), big).size(), 96u);
  EXPECT_EQ(expand_range(num("-3"), num("3"), num("2"), big), (std::vector<double>{-3, -1, 1, 3}));
}

TEST(ParamAxes, DecimalRangeGivesTheWrittenLiterals) {
  // 0.1 + 2*0.1 is 0.30000000000000004 in binary floating point; the axis must hold
  // the double nearest to 0.3, i.e. the literal a user would type.
  const auto v = expand_range(num("0.1"), num("0.5"), num("0.1"), big);
  ASSERT_EQ(v.size(), 5u);
  EXPECT_EQ(v, (std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5}));
  EXPECT_NE(0.1 + 2 * 0.1, 0.3);  // the trap this avoids
  // 0.7/0.1 is 6.999999999999999 in floating point: the count must still be 7.
  const auto w = expand_range(num("0.1"), num("0.7"), num("0.1"), big);
  EXPECT_EQ(w, (std::vector<double>{0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7}));
  EXPECT_EQ(expand_range(num("1"), num("2"), num("0.25"), big), (std::vector<double>{1, 1.25, 1.5, 1.75, 2}));
  EXPECT_EQ(expand_range(num("1e-3"), num("3e-3"), num("1e-3"), big), (std::vector<double>{0.001, 0.002, 0.003}));
  EXPECT_EQ(expand_range(num("-0.2"), num("0.2"), num("0.1"), big), (std::vector<double>{-0.2, -0.1, 0, 0.1, 0.2}));
}

TEST(ParamAxes, NonDecimalRangeUsesStartPlusIStep) {
  // 20 significant digits: not representable exactly, falls back to start + i*step.
  const auto v = expand_range(num("0.12345678901234567890"), num("1"), num("0.5"), big);
  ASSERT_EQ(v.size(), 2u);
  EXPECT_EQ(v[0], 0.12345678901234567890);
  EXPECT_EQ(v[1], 0.12345678901234567890 + 0.5);
}

TEST(ParamAxes, RangeErrors) {
  try {
    expand_range(num("1"), num("10"), num("0"), big);
    FAIL();
  } catch (const kbt::detail::AxisError& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::grid);
    EXPECT_EQ(e.argument, 2);
  }
  try {
    expand_range(num("10"), num("1"), num("1"), big);
    FAIL();
  } catch (const kbt::detail::AxisError& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::grid);
    EXPECT_EQ(e.argument, -1);
  }
  try {
    expand_range(num("0"), num("1000"), num("1"), 1000);  // 1001 values > 1000
    FAIL();
  } catch (const kbt::detail::AxisError& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::limit);
    EXPECT_NE(std::string(e.what()).find("1,001"), std::string::npos) << e.what();
  }
  // Huge non-decimal ranges are refused before allocating anything.
  EXPECT_THROW(expand_range(num("0"), num("1e300"), num("1e-300"), big), kbt::detail::AxisError);
}

TEST(ParamAxes, Linspace) {
  EXPECT_EQ(expand_linspace(0, 1, 5, big), (std::vector<double>{0, 0.25, 0.5, 0.75, 1}));
  EXPECT_EQ(expand_linspace(2, 2.5, 1, big), (std::vector<double>{2}));
  const auto v = expand_linspace(0, 1, 3, big);
  EXPECT_EQ(v, (std::vector<double>{0, 0.5, 1}));
  // The last value is exactly stop even when (stop-start)/(n-1) is inexact.
  const auto w = expand_linspace(0.1, 0.7, 7, big);
  EXPECT_EQ(w.back(), 0.7);
  EXPECT_EQ(w.front(), 0.1);
  EXPECT_THROW(expand_linspace(0, 1, 0, big), kbt::detail::AxisError);
}

TEST(ParamAxes, LogspaceUsesActualEndpoints) {
  const auto v = expand_logspace(1, 1000, 4, big);
  ASSERT_EQ(v.size(), 4u);
  EXPECT_EQ(v[0], 1);
  EXPECT_DOUBLE_EQ(v[1], 10);
  EXPECT_DOUBLE_EQ(v[2], 100);
  EXPECT_EQ(v[3], 1000);
  const auto w = expand_logspace(0.001, 0.1, 3, big);
  EXPECT_EQ(w[0], 0.001);
  EXPECT_DOUBLE_EQ(w[1], 0.01);
  EXPECT_EQ(w[2], 0.1);
  // 2, 2*sqrt(2)... : geometric with ratio sqrt(2) between 2 and 4.
  const auto g = expand_logspace(2, 4, 3, big);
  EXPECT_NEAR(g[1], 2 * std::sqrt(2.0), 1e-15);
  EXPECT_THROW(expand_logspace(0, 1, 3, big), kbt::detail::AxisError);
  EXPECT_THROW(expand_logspace(1, -1, 3, big), kbt::detail::AxisError);
}

TEST(ParamAxes, IntegralDetection) {
  EXPECT_TRUE(kbt::detail::all_integral({5, 10, -3}));
  EXPECT_FALSE(kbt::detail::all_integral({5, 10.5}));
  EXPECT_FALSE(kbt::detail::all_integral({1e300}));
}
