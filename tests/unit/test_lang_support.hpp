#pragma once
// Helpers for the language and reference-evaluator tests: tiny BarData built in
// code, one-line expression evaluation, NaN-aware series comparison.

#include <gtest/gtest.h>
#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>

#include <cmath>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace kbt::test {

inline const double NaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr std::int64_t hour_ns = 3600LL * 1000000000LL;

// One or more symbols, columns given per symbol: cols[name][symbol] = values.
inline BarData make_bars(const std::vector<std::string>& symbols,
                         const std::map<std::string, std::vector<std::vector<double>>>& cols,
                         std::vector<std::int64_t> timestamps = {}) {
  BarData d;
  d.symbols = symbols;
  const std::size_t n = cols.begin()->second.at(0).size();
  if (timestamps.empty())
    for (std::size_t b = 0; b < n; ++b) timestamps.push_back(static_cast<std::int64_t>(b) * hour_ns);
  d.timestamps = timestamps;
  for (const auto& [name, per_symbol] : cols) {
    std::vector<double>& c = d.columns[name];
    for (const auto& v : per_symbol) c.insert(c.end(), v.begin(), v.end());
  }
  return d;
}

// One symbol "AAA" with just a close column.
inline BarData close_only(const std::vector<double>& close) {
  return make_bars({"AAA"}, {{"close", {close}}});
}

inline ParamSpec param(const std::string& name, std::vector<double> values) {
  ParamSpec p;
  p.name = name;
  p.kind = ParamSpec::Kind::values;
  p.values = std::move(values);
  p.is_integer = true;
  for (double v : p.values) p.is_integer = p.is_integer && v == std::floor(v);
  p.origin = SourceText{"", "cfg.yaml", 3, 5};
  return p;
}

inline SourceText expr_text(const std::string& text) { return SourceText{text, "<expr>", 1, 1}; }

// Evaluates `expr` on `data` with params (each at its first value unless `values` given).
inline std::vector<double> eval(const BarData& data, const std::string& expr,
                                const std::vector<ParamSpec>& params = {},
                                std::vector<double> values = {}) {
  const Program p = compile_expression(expr_text(expr), schema_of(data), params);
  if (values.empty())
    for (const auto& ps : params) values.push_back(ps.values.at(0));
  return evaluate_expression_reference(p, data, values.data());
}

// The language error message of compiling `expr`, or "" when it compiles.
inline std::string compile_error(const BarData& data, const std::string& expr,
                                 const std::vector<ParamSpec>& params = {},
                                 ErrorCategory expected = ErrorCategory::language) {
  try {
    compile_expression(expr_text(expr), schema_of(data), params);
  } catch (const Error& e) {
    EXPECT_EQ(e.category(), expected) << e.what();
    return e.what();
  }
  return "";
}

inline void expect_series(const std::vector<double>& actual, const std::vector<double>& expected,
                          double tol = 0.0) {
  ASSERT_EQ(actual.size(), expected.size());
  for (std::size_t i = 0; i < actual.size(); ++i) {
    if (std::isnan(expected[i])) {
      EXPECT_TRUE(std::isnan(actual[i])) << "at " << i << ": expected NaN, got " << actual[i];
    } else if (tol == 0.0) {
      EXPECT_EQ(actual[i], expected[i]) << "at " << i;
    } else {
      EXPECT_NEAR(actual[i], expected[i], tol) << "at " << i;
    }
  }
}

inline bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

}  // namespace kbt::test
