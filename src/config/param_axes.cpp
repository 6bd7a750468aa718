#include "config/param_axes.hpp"

#include "config/number_text.hpp"

#include <algorithm>
#include <cmath>

namespace kbt::detail {

namespace {

constexpr std::int64_t two_pow_53 = std::int64_t(1) << 53;

void check_count(std::uint64_t count, std::uint64_t max_values) {
  if (count > max_values)
    throw AxisError(ErrorCategory::limit, -1,
                    "the axis has " + format_count(count) + " values, more than sweep.max_combos = " +
                        format_count(max_values));
}

void check_n(std::int64_t n, std::uint64_t max_values) {
  if (n < 1) throw AxisError(ErrorCategory::grid, 2, "n must be >= 1 (got " + std::to_string(n) + ")");
  check_count(static_cast<std::uint64_t>(n), max_values);
}

// Scales m / 10^from to a mantissa over 10^to (to >= from); false if |result| >= 2^53.
bool rescale(std::int64_t m, int from, int to, std::int64_t& out) {
  for (int i = from; i < to; ++i) {
    if (m >= two_pow_53 / 10 + 1 || m <= -(two_pow_53 / 10 + 1)) return false;
    m *= 10;
  }
  if (m >= two_pow_53 || m <= -two_pow_53) return false;
  out = m;
  return true;
}

}  // namespace

std::vector<double> expand_range(const NumberArg& start, const NumberArg& stop, const NumberArg& step,
                                 std::uint64_t max_values) {
  if (!(step.value > 0))
    throw AxisError(ErrorCategory::grid, 2, "step must be > 0 (got " + step.text + ")");
  if (start.value > stop.value)
    throw AxisError(ErrorCategory::grid, -1,
                    "start " + start.text + " is greater than stop " + stop.text + " (the range would be empty)");

  const auto ds = parse_decimal(start.text), de = parse_decimal(stop.text), dp = parse_decimal(step.text);
  if (ds && de && dp) {
    const int d = std::max({ds->decimals, de->decimals, dp->decimals});
    std::int64_t s = 0, e = 0, p = 0;
    if (rescale(ds->mantissa, ds->decimals, d, s) && rescale(de->mantissa, de->decimals, d, e) &&
        rescale(dp->mantissa, dp->decimals, d, p) && p > 0 && e >= s) {
      const std::uint64_t count = static_cast<std::uint64_t>((e - s) / p) + 1;
      check_count(count, max_values);
      const double scale = std::pow(10.0, d);  // exact for d <= 15
      std::vector<double> values(count);
      for (std::uint64_t i = 0; i < count; ++i) {
        const std::int64_t k = s + static_cast<std::int64_t>(i) * p;  // |k| <= max(|s|, |e|) < 2^53
        values[i] = d == 0 ? static_cast<double>(k) : static_cast<double>(k) / scale;
      }
      return values;
    }
  }
  const double steps = (stop.value - start.value) / step.value + 1e-9;
  if (!(steps < static_cast<double>(max_values)))
    throw AxisError(ErrorCategory::limit, -1,
                    "the axis has about " + format_number(std::floor(steps) + 1) +
                        " values, more than sweep.max_combos = " + format_count(max_values));
  const std::uint64_t count = static_cast<std::uint64_t>(std::floor(steps)) + 1;
  check_count(count, max_values);
  std::vector<double> values(count);
  for (std::uint64_t i = 0; i < count; ++i) values[i] = start.value + static_cast<double>(i) * step.value;
  return values;
}

std::vector<double> expand_linspace(double start, double stop, std::int64_t n, std::uint64_t max_values) {
  check_n(n, max_values);
  std::vector<double> values(static_cast<std::size_t>(n));
  if (n == 1) {
    values[0] = start;
    return values;
  }
  const double step = (stop - start) / static_cast<double>(n - 1);
  for (std::int64_t i = 0; i < n; ++i) values[static_cast<std::size_t>(i)] = start + static_cast<double>(i) * step;
  values.back() = stop;
  return values;
}

std::vector<double> expand_logspace(double start, double stop, std::int64_t n, std::uint64_t max_values) {
  if (!(start > 0)) throw AxisError(ErrorCategory::grid, 0, "start must be > 0 (got " + format_number(start) + ")");
  if (!(stop > 0)) throw AxisError(ErrorCategory::grid, 1, "stop must be > 0 (got " + format_number(stop) + ")");
  check_n(n, max_values);
  std::vector<double> values(static_cast<std::size_t>(n));
  values[0] = start;
  if (n == 1) return values;
  const double lo = std::log10(start), step = (std::log10(stop) - lo) / static_cast<double>(n - 1);
  for (std::int64_t i = 1; i + 1 < n; ++i)
    values[static_cast<std::size_t>(i)] = std::pow(10.0, lo + static_cast<double>(i) * step);
  values.back() = stop;
  return values;
}

bool all_integral(const std::vector<double>& values) {
  for (double v : values)
    if (!(std::floor(v) == v) || std::fabs(v) > 9007199254740992.0) return false;
  return true;
}

}  // namespace kbt::detail
