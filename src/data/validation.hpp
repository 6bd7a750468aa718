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

// The price columns (open, high, low, close): each value NaN (no bar) or a
// finite number > 0; names the symbol, bar and time of the first that is not.
// `values` is [symbol][bar] of `symbols` x `timestamps`.
bool is_price_column(const std::string& name);
void check_prices(const std::string& column, const std::vector<double>& values,
                  const std::vector<std::string>& symbols, const std::vector<std::int64_t>& timestamps,
                  const std::string& origin);

// Non-empty and unique names.
void check_names(const std::vector<std::string>& names, const std::string& origin,
                 const std::string& dataset, const char* what);

}  // namespace kbt::detail
