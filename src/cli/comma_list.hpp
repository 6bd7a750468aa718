#pragma once
// A comma-separated list as the CLI reads it (`--symbols A,B`, the run
// profile's per-rank entries): its items in order, empty ones kept; none for
// an empty text.

#include <string>
#include <vector>

namespace kbt::cli {

std::vector<std::string> split_list(const std::string& text);

}  // namespace kbt::cli
