#pragma once
// How kbt prints a metric or param value in its tables (kbt run, show, verify).

#include <string>
#include <vector>

namespace kbt::detail {

// Integers without decimals, large or tiny values in %.4g, others with 4 decimals; "nan".
std::string format_table_number(double v);

// Rows of cells as an indented table: two spaces before, right-aligned
// columns two spaces apart (verification and validation reports).
std::string format_table(const std::vector<std::vector<std::string>>& rows);

}  // namespace kbt::detail
