#pragma once
// Expansion of one parameter axis ({range|linspace|logspace: [...]}) into its
// ordered values. Host-only; used by the config loader, rules in docs/config.md.

#include <kbt/core/error.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbt::detail {

// A number from the config with the text it was written as (the text gives the
// decimal precision that makes ranges decimal-exact).
struct NumberArg {
  double value = 0;
  std::string text;
};

// An invalid axis: category grid (empty or malformed axis) or limit (more values
// than allowed). `argument` is the 0-based position of the offending argument in
// [start, stop, step|n], or -1 when the axis as a whole is at fault. The message
// has no location; the loader adds it.
class AxisError : public Error {
 public:
  AxisError(ErrorCategory category, int argument_index, const std::string& message)
      : Error(category, message), argument(argument_index) {}
  int argument;
};

// Inclusive range. When start, stop and step are decimal literals with at most 15
// decimals (the usual case), values are (S + i*P) / 10^D computed on exact integers
// S, P scaled by the common decimal count D: [0.1, 0.5, 0.1] gives exactly the
// doubles 0.1, 0.2, 0.3, 0.4, 0.5 and the count is exact. Otherwise
// count = floor((stop - start)/step + 1e-9) + 1 and value i = start + i*step.
std::vector<double> expand_range(const NumberArg& start, const NumberArg& stop, const NumberArg& step,
                                 std::uint64_t max_values);

// n evenly spaced values from start to stop inclusive: start + i*(stop-start)/(n-1),
// the last one exactly stop; n = 1 gives {start}.
std::vector<double> expand_linspace(double start, double stop, std::int64_t n, std::uint64_t max_values);

// n geometrically spaced values from start to stop inclusive (the endpoints are the
// values themselves, not exponents; both must be > 0):
// 10^(log10(start) + i*(log10(stop)-log10(start))/(n-1)), endpoints exactly start, stop.
std::vector<double> expand_logspace(double start, double stop, std::int64_t n, std::uint64_t max_values);

// Every value is an integer of magnitude <= 2^53.
bool all_integral(const std::vector<double>& values);

}  // namespace kbt::detail
