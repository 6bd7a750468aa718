#include "data/csv_table.hpp"

#include <kbt/data/time_format.hpp>
#include <kbt/core/error.hpp>

#include <csv.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <sys/stat.h>

namespace kbt::detail {
namespace {

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && (s[b] == ' ' || s[b] == '\t' || s[b] == '\r')) ++b;
  while (e > b && (s[e - 1] == ' ' || s[e - 1] == '\t' || s[e - 1] == '\r')) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool is_blank(const std::string& line) { return trim(line).empty(); }

// The physical lines of `text` (LF, CRLF or a lone CR), each with its terminator.
std::vector<std::string_view> physical_lines(const std::string& text) {
  std::vector<std::string_view> lines;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t nl = text.find_first_of("\r\n", pos);
    const std::size_t end = nl == std::string::npos ? text.size() : nl + (text.compare(nl, 2, "\r\n") == 0 ? 2 : 1);
    lines.emplace_back(text.data() + pos, end - pos);
    pos = end;
  }
  return lines;
}

// The most frequent candidate outside double quotes; ties go to the rarer
// delimiter (a decimal-comma file "t;1,5;2,5" is ';'-separated).
char detect_delimiter(std::string_view line) {
  constexpr std::array<char, 4> candidates = {'\t', ';', '|', ','};
  std::array<std::size_t, 4> count{};
  bool quoted = false;
  for (char c : line) {
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    for (std::size_t i = 0; i < candidates.size(); ++i) count[i] += c == candidates[i];
  }
  std::size_t most = 0;
  for (std::size_t n : count) most = std::max(most, n);
  if (most == 0) return ',';
  std::size_t best = 0;
  while (count[best] != most) ++best;  // the first of the tied, in the order above
  return candidates[best];
}

bool is_value(const std::string& field, bool decimal_comma) {
  return field.empty() || parse_timestamp_ns(field) || parse_csv_number(field, decimal_comma);
}

bool looks_like_header(const std::vector<std::string>& fields, bool decimal_comma) {
  for (const auto& f : fields)
    if (!is_value(f, decimal_comma)) return true;
  return false;
}

// libcsv's callbacks collect records here.
struct Collector {
  std::vector<CsvRow> records;
  CsvRow current;
  std::size_t record_line = 0;
};

void on_field(void* text, std::size_t len, void* data) {
  auto* c = static_cast<Collector*>(data);
  if (c->current.fields.empty()) c->current.line = c->record_line;
  // An empty field may come with a null buffer.
  c->current.fields.push_back(trim(text ? std::string(static_cast<const char*>(text), len) : std::string()));
}

void on_record(int, void* data) {
  auto* c = static_cast<Collector*>(data);
  bool blank = true;
  for (const auto& f : c->current.fields) blank = blank && f.empty();
  if (!blank) c->records.push_back(std::move(c->current));
  c->current = CsvRow{};
}

// Only the space is trimmed by libcsv, so that a tab stays a delimiter.
int is_space(unsigned char c) { return c == ' '; }

std::vector<CsvRow> parse_records(const std::string& path, const std::string& text, char delimiter) {
  csv_parser parser;
  if (csv_init(&parser, CSV_STRICT | CSV_STRICT_FINI | CSV_APPEND_NULL) != 0)
    throw Error(ErrorCategory::io, "cannot read '" + path + "': out of memory");
  csv_set_delim(&parser, static_cast<unsigned char>(delimiter));
  csv_set_space_func(&parser, is_space);
  Collector collector;
  std::size_t line_no = 0;
  bool ok = true;
  for (std::string_view line : physical_lines(text)) {
    ++line_no;
    // A record starts on this line unless a quoted field runs on from the last one.
    if (parser.pstate == 0) collector.record_line = line_no;
    if (csv_parse(&parser, line.data(), line.size(), on_field, on_record, &collector) != line.size()) {
      ok = false;
      break;
    }
  }
  if (ok && csv_fini(&parser, on_field, on_record, &collector) != 0) ok = false;
  const int error = csv_error(&parser);
  csv_free(&parser);
  if (!ok) {
    if (error == CSV_EPARSE)
      fail_csv(path, line_no,
               "malformed quoting (a quote inside an unquoted field, text after a closing quote, or an unclosed "
               "quote)");
    throw Error(ErrorCategory::io, "cannot read '" + path + "': " + csv_strerror(error));
  }
  return std::move(collector.records);
}

std::string read_file(const std::string& path) {
  struct stat st;
  if (::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
    throw Error(ErrorCategory::io, "cannot open '" + path + "': is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCategory::io, "cannot open '" + path + "': " + std::strerror(errno));
  std::ostringstream buffer;
  buffer << in.rdbuf();
  if (in.bad()) throw Error(ErrorCategory::io, "cannot read '" + path + "'");
  std::string text = buffer.str();
  if (text.rfind("\xEF\xBB\xBF", 0) == 0) text.erase(0, 3);  // UTF-8 byte-order mark
  return text;
}

// `text` without its thousands grouping and with '.' as the decimal mark, or
// nullopt when a grouping mark is not between groups of three digits.
std::optional<std::string> ungrouped(const std::string& text, bool decimal_comma) {
  const char group = decimal_comma ? '.' : ',';
  const char point = decimal_comma ? ',' : '.';
  std::size_t begin = text.size() && (text[0] == '+' || text[0] == '-') ? 1 : 0;
  std::size_t end = begin;  // end of the integer part
  while (end < text.size() && ((text[end] >= '0' && text[end] <= '9') || text[end] == group)) ++end;
  std::string out = text.substr(0, begin);
  if (text.find(group, begin) < end) {
    std::size_t digits = 0;
    bool first_group = true;
    for (std::size_t i = begin; i <= end; ++i) {
      if (i == end || text[i] == group) {
        if (first_group ? (digits == 0 || digits > 3) : digits != 3) return std::nullopt;
        first_group = false;
        digits = 0;
      } else {
        out += text[i];
        ++digits;
      }
    }
  } else {
    out += text.substr(begin, end - begin);
  }
  for (std::size_t i = end; i < text.size(); ++i) {
    if (text[i] == group) return std::nullopt;
    out += text[i] == point ? '.' : text[i];
  }
  return out;
}

}  // namespace

void fail_csv(const std::string& path, std::size_t line, const std::string& message) {
  throw Error(ErrorCategory::data_format, path + ":" + std::to_string(line) + ": " + message);
}

std::optional<double> parse_csv_number(const std::string& field, bool decimal_comma) {
  if (field.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::string l = lower(field);
  if (l == "nan" || l == "-nan" || l == "+nan") return std::numeric_limits<double>::quiet_NaN();
  const auto plain = ungrouped(field, decimal_comma);
  if (!plain || plain->empty()) return std::nullopt;
  // Digits, sign, point and exponent only: rejects inf, hex floats and words.
  for (char c : *plain)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(plain->c_str(), &end);
  if (end != plain->c_str() + plain->size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

CsvTable read_csv_table(const std::string& path, const CsvDialect& dialect) {
  const std::string text = read_file(path);
  CsvTable table;
  table.path = path;
  table.delimiter = dialect.delimiter;
  if (table.delimiter == 0) {
    table.delimiter = ',';
    for (std::string_view line : physical_lines(text))
      if (!is_blank(std::string(line))) {
        table.delimiter = detect_delimiter(line);
        break;
      }
  }
  std::vector<CsvRow> records = parse_records(path, text, table.delimiter);
  if (records.empty()) throw Error(ErrorCategory::data_format, path + ": file is empty");
  const bool header = dialect.header == CsvHeader::present ||
                      (dialect.header == CsvHeader::detect && looks_like_header(records[0].fields, dialect.decimal_comma));
  if (header) {
    table.has_header = true;
    table.header_line = records[0].line;
    for (const auto& f : records[0].fields) table.header.push_back(lower(f));
    records.erase(records.begin());
  }
  table.rows = std::move(records);
  if (table.rows.empty())
    throw Error(ErrorCategory::data_format, path + ": no data rows (only a header at line " +
                                                std::to_string(table.header_line) + ")");
  return table;
}

}  // namespace kbt::detail
