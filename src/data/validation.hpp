#pragma once
// Layout checks shared by the HDF5 reader, the writer and the importers
// (internal). Messages: "<origin>: dataset <name>: <problem>".

#include <cstdint>
#include <string>
#include <vector>

namespace kbt::detail {

[[noreturn]] void fail_dataset(const std::string& origin, const std::string& dataset,
                               const std::string& problem);

// Timestamp as "<ns> (<ISO UTC>)" for messages.
std::string describe_time(std::int64_t ns);

// Strictly increasing; names the first offending index and both values.
void check_strictly_increasing(const std::vector<std::int64_t>& ts, const std::string& origin,
                               const std::string& dataset);

// Non-empty and unique names.
void check_names(const std::vector<std::string>& names, const std::string& origin,
                 const std::string& dataset, const char* what);

}  // namespace kbt::detail
