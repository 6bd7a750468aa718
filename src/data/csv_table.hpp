#pragma once
// Reading a CSV file into trimmed fields with their 1-based line numbers
// (internal). Parsed by libcsv in strict mode: quoted fields may hold the
// delimiter, doubled quotes and line breaks; the delimiter and the header are
// detected or given (kbt::CsvDialect). Blank lines are skipped.

#include <kbt/data/csv_dialect.hpp>

#include <optional>
#include <string>
#include <vector>

namespace kbt::detail {

struct CsvRow {
  std::size_t line = 0;  // 1-based line in the file where the record starts
  std::vector<std::string> fields;
};

struct CsvTable {
  std::string path;
  char delimiter = ',';
  bool has_header = false;
  std::vector<std::string> header;  // lower-cased; empty when has_header is false
  std::size_t header_line = 0;
  std::vector<CsvRow> rows;         // data rows only
};

// Reads `path`; throws kbt::Error(io) when it cannot be read and
// kbt::Error(data_format) naming file:line when it is malformed (a stray
// quote), empty, or has a header but no data rows. With CsvHeader::detect the
// first record is a header when one of its fields is neither a time, a number
// nor empty.
CsvTable read_csv_table(const std::string& path, const CsvDialect& dialect = {});

// A CSV number: a decimal/scientific float, or nan / NaN / empty for a
// missing value (NaN). Thousands may be grouped in threes ("1,000.5", or
// "1.000,5" with a decimal comma). nullopt for anything else (including inf).
std::optional<double> parse_csv_number(const std::string& field, bool decimal_comma = false);

// "path:line: message" as a kbt::Error(data_format).
[[noreturn]] void fail_csv(const std::string& path, std::size_t line, const std::string& message);

}  // namespace kbt::detail
