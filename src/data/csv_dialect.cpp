#include <kbt/data/csv_dialect.hpp>
#include <kbt/core/error.hpp>

namespace kbt {

char parse_csv_delimiter(const std::string& text, const std::string& option) {
  if (text == "tab" || text == "\\t" || text == "\t") return '\t';
  if (text == "comma") return ',';
  if (text == "semicolon") return ';';
  if (text == "pipe") return '|';
  if (text.size() == 1 && text[0] != '"' && text[0] != '\n' && text[0] != '\r' && text[0] != ' ') return text[0];
  throw Error(ErrorCategory::config, option + " '" + text +
                                         "': expected one character or tab, comma, semicolon, pipe "
                                         "(e.g. " + option + " ';')");
}

CsvHeader parse_csv_header(const std::string& text, const std::string& option) {
  if (text == "auto") return CsvHeader::detect;
  if (text == "yes") return CsvHeader::present;
  if (text == "no") return CsvHeader::absent;
  throw Error(ErrorCategory::config, option + " '" + text + "': expected auto, yes or no");
}

}  // namespace kbt
