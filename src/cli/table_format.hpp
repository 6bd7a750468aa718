#pragma once
// Plain-text table of result rows, as printed by `kbt run` and `kbt show`.

#include <kbt/output/results.hpp>

#include <string>
#include <vector>

namespace kbt::cli {

// Prints `rows` (best first) with rank, combo id, every param and the given metrics.
std::string format_result_table(const std::vector<std::string>& param_names, const RowTable& rows,
                                const std::vector<std::string>& metrics);

// Metrics shown by default.
const std::vector<std::string>& default_table_metrics();

}  // namespace kbt::cli
