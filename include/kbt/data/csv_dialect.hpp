#pragma once
// How a CSV file is written: its delimiter, whether it has a header line, and
// its decimal mark. The defaults detect the first two per file, which covers
// the exports of spreadsheets, brokers and exchanges; the rules are in
// docs/data-format.md "CSV dialects".

#include <map>
#include <string>

namespace kbt {

enum class CsvHeader { detect, present, absent };

struct CsvDialect {
  // 0 detects per file from its first non-blank line: the most frequent of
  // tab, ';', '|' and ',' outside double quotes (',' when none occurs).
  char delimiter = 0;
  CsvHeader header = CsvHeader::detect;
  // "1,5" is 1.5 and '.' groups thousands ("1.000,5"); off: '.' is the
  // decimal mark and ',' groups thousands ("1,000.5").
  bool decimal_comma = false;
};

// Parses a --delimiter value: one character, or the names tab, comma,
// semicolon, pipe. Throws kbt::Error(config) naming `option` otherwise.
char parse_csv_delimiter(const std::string& text, const std::string& option);

// Parses a --header value: auto, yes, no.
CsvHeader parse_csv_header(const std::string& text, const std::string& option);

}  // namespace kbt
