#include "output/number_format.hpp"

#include <cmath>
#include <cstdio>

namespace kbt::detail {

std::string format_table_number(double v) {
  if (std::isnan(v)) return "nan";
  char buf[64];
  if (v == std::floor(v) && std::fabs(v) < 1e15) std::snprintf(buf, sizeof buf, "%.0f", v);
  else if (std::fabs(v) >= 1e5 || std::fabs(v) < 1e-3) std::snprintf(buf, sizeof buf, "%.4g", v);
  else std::snprintf(buf, sizeof buf, "%.4f", v);
  return buf;
}

}  // namespace kbt::detail
