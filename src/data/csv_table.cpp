#include "data/csv_table.hpp"

#include <kbt/data/time_format.hpp>
#include <kbt/core/error.hpp>

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

std::vector<std::string> split_fields(const std::string& line) {
  std::vector<std::string> fields;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = line.find(',', start);
    std::string f = trim(line.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (f.size() >= 2 && f.front() == '"' && f.back() == '"') f = trim(f.substr(1, f.size() - 2));
    fields.push_back(f);
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  return fields;
}

bool is_blank(const std::string& line) { return trim(line).empty(); }

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool looks_like_header(const std::vector<std::string>& fields) {
  if (!parse_timestamp_ns(fields[0])) return true;
  for (std::size_t i = 1; i < fields.size(); ++i)
    if (!parse_csv_number(fields[i])) return true;
  return false;
}

}  // namespace

void fail_csv(const std::string& path, std::size_t line, const std::string& message) {
  throw Error(ErrorCategory::data_format, path + ":" + std::to_string(line) + ": " + message);
}

std::optional<double> parse_csv_number(const std::string& field) {
  if (field.empty()) return std::numeric_limits<double>::quiet_NaN();
  const std::string l = lower(field);
  if (l == "nan" || l == "-nan" || l == "+nan") return std::numeric_limits<double>::quiet_NaN();
  // Digits, sign, point and exponent only: rejects inf, hex floats and words.
  for (char c : field)
    if (!((c >= '0' && c <= '9') || c == '.' || c == '-' || c == '+' || c == 'e' || c == 'E')) return std::nullopt;
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(field.c_str(), &end);
  if (end != field.c_str() + field.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

CsvTable read_csv_table(const std::string& path) {
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

  CsvTable table;
  table.path = path;
  std::size_t line_no = 0, pos = 0;
  bool first = true;
  while (pos < text.size()) {
    // Lines end in LF, CRLF or a lone CR (classic Mac OS, some exports).
    const std::size_t nl = text.find_first_of("\r\n", pos);
    const std::string line = text.substr(pos, nl == std::string::npos ? std::string::npos : nl - pos);
    pos = nl == std::string::npos ? text.size() : nl + (text.compare(nl, 2, "\r\n") == 0 ? 2 : 1);
    ++line_no;
    if (is_blank(line)) continue;
    std::vector<std::string> fields = split_fields(line);
    if (first) {
      first = false;
      if (looks_like_header(fields)) {
        table.has_header = true;
        table.header_line = line_no;
        for (auto& f : fields) table.header.push_back(lower(f));
        continue;
      }
    }
    table.rows.push_back({line_no, std::move(fields)});
  }
  if (first) throw Error(ErrorCategory::data_format, path + ": file is empty");
  if (table.rows.empty())
    throw Error(ErrorCategory::data_format, path + ": no data rows (only a header at line " +
                                                std::to_string(table.header_line) + ")");
  return table;
}

}  // namespace kbt::detail
