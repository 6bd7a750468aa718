#include "config/number_text.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace kbt::detail {

namespace {

constexpr std::int64_t two_pow_53 = std::int64_t(1) << 53;

// Validates the literal grammar: [+-] digits [. digits] [(e|E) [+-] digits], with at
// least one digit before the exponent. Fills the pieces for parse_decimal.
bool split_literal(const std::string& s, bool& negative, std::string& int_digits, std::string& frac_digits,
                   long& exponent) {
  std::size_t i = 0;
  negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') int_digits += s[i++];
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') frac_digits += s[i++];
  }
  if (int_digits.empty() && frac_digits.empty()) return false;
  exponent = 0;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) exp_negative = s[i++] == '-';
    std::string exp_digits;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') exp_digits += s[i++];
    if (exp_digits.empty() || exp_digits.size() > 4) return false;
    exponent = std::strtol(exp_digits.c_str(), nullptr, 10) * (exp_negative ? -1 : 1);
  }
  return i == s.size();
}

}  // namespace

std::optional<double> parse_number(const std::string& text) {
  bool negative = false;
  std::string int_digits, frac_digits;
  long exponent = 0;
  if (!split_literal(text, negative, int_digits, frac_digits, exponent)) return std::nullopt;
  errno = 0;
  const double v = std::strtod(text.c_str(), nullptr);
  if (!std::isfinite(v)) return std::nullopt;
  return v;
}

std::optional<std::int64_t> parse_integer(const std::string& text) {
  bool negative = false;
  std::string int_digits, frac_digits;
  long exponent = 0;
  if (!split_literal(text, negative, int_digits, frac_digits, exponent)) return std::nullopt;
  if (frac_digits.empty() && exponent == 0) {
    errno = 0;
    const long long v = std::strtoll(text.c_str(), nullptr, 10);
    if (errno == ERANGE) return std::nullopt;
    return static_cast<std::int64_t>(v);
  }
  const auto v = parse_number(text);
  if (!v || std::floor(*v) != *v || std::fabs(*v) >= 9.2e18) return std::nullopt;
  return static_cast<std::int64_t>(*v);
}

std::optional<Decimal> parse_decimal(const std::string& text) {
  bool negative = false;
  std::string int_digits, frac_digits;
  long exponent = 0;
  if (!split_literal(text, negative, int_digits, frac_digits, exponent)) return std::nullopt;
  while (!frac_digits.empty() && frac_digits.back() == '0') frac_digits.pop_back();
  std::string digits = int_digits + frac_digits;
  long decimals = static_cast<long>(frac_digits.size()) - exponent;
  std::size_t first = digits.find_first_not_of('0');
  digits = first == std::string::npos ? std::string("0") : digits.substr(first);
  if (digits == "0") return Decimal{0, 0};
  if (decimals < 0) {
    if (-decimals > 15) return std::nullopt;
    digits.append(static_cast<std::size_t>(-decimals), '0');
    decimals = 0;
  }
  if (digits.size() > 16 || decimals > 15) return std::nullopt;
  const std::int64_t m = std::strtoll(digits.c_str(), nullptr, 10);
  if (m >= two_pow_53) return std::nullopt;
  return Decimal{negative ? -m : m, static_cast<int>(decimals)};
}

std::string format_number(double value) {
  if (std::isnan(value)) return "nan";  // whatever its sign bit
  char buf[40];
  if (std::floor(value) == value && std::fabs(value) < 1e16) {
    std::snprintf(buf, sizeof buf, "%.0f", value);
    return buf;
  }
  // The shortest text that reads back as `value` (std::to_chars without a
  // precision: locale-independent, one call, no trial printing).
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, value);
  if (ec != std::errc()) return "nan";  // cannot happen: 40 bytes hold any double
  return std::string(buf, end);
}

std::string format_count(std::uint64_t value) {
  std::string digits = std::to_string(value), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace kbt::detail
