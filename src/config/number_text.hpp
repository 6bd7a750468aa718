#pragma once
// Numbers as written in a config: strict parsing (the whole text, finite values
// only) and shortest round-trip formatting for messages and summaries.

#include <cstdint>
#include <optional>
#include <string>

namespace kbt::detail {

// A finite decimal or integer literal ("5", "-0.25", "1e-3"); nullopt otherwise
// (words, hex, inf, nan, trailing characters).
std::optional<double> parse_number(const std::string& text);

// An integer literal, or a number literal with an integral value ("1e6");
// nullopt when not integral or outside the int64 range.
std::optional<std::int64_t> parse_integer(const std::string& text);

// An exact decimal: value = mantissa / 10^decimals, |mantissa| < 2^53, decimals <= 15.
struct Decimal {
  std::int64_t mantissa = 0;
  int decimals = 0;
};
// nullopt when `text` is not a number literal or has too many significant digits.
std::optional<Decimal> parse_decimal(const std::string& text);

// Shortest text that reads back as the same double ("0.1", "5", "1e+20"; "nan",
// "inf"): config messages, summaries, the top-K CSV and CSV bars.
std::string format_number(double value);

// 1234567 -> "1,234,567".
std::string format_count(std::uint64_t value);

}  // namespace kbt::detail
