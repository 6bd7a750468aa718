#pragma once
// How kbt prints a metric or param value in its tables (kbt run, show, verify).

#include <string>

namespace kbt::detail {

// Integers without decimals, large or tiny values in %.4g, others with 4 decimals; "nan".
std::string format_table_number(double v);

}  // namespace kbt::detail
