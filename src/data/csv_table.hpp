#pragma once
// Reading a CSV file into trimmed fields with their 1-based line numbers
// (internal). Comma-separated, one record per line, optional double quotes
// around a field (no embedded commas or newlines), blank lines skipped.

#include <optional>
#include <string>
#include <vector>

namespace kbt::detail {

struct CsvRow {
  std::size_t line = 0;  // 1-based line in the file
  std::vector<std::string> fields;
};

struct CsvTable {
  std::string path;
  bool has_header = false;
  std::vector<std::string> header;  // lower-cased; empty when has_header is false
  std::size_t header_line = 0;
  std::vector<CsvRow> rows;         // data rows only
};

// Reads `path`; throws kbt::Error(io) when it cannot be read and
// kbt::Error(data_format) when it is empty or has a header but no data rows.
// The first non-blank line is a header when its first field is not a
// timestamp or any other field is neither a number nor empty.
CsvTable read_csv_table(const std::string& path);

// A CSV number: a decimal/scientific float, or nan / NaN / empty for a
// missing value (NaN). nullopt for anything else (including inf).
std::optional<double> parse_csv_number(const std::string& field);

// "path:line: message" as a kbt::Error(data_format).
[[noreturn]] void fail_csv(const std::string& path, std::size_t line, const std::string& message);

}  // namespace kbt::detail
