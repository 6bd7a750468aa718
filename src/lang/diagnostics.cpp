#include <kbt/lang/diagnostics.hpp>

#include <algorithm>

namespace kbt {

namespace {

struct LineCol {
  int line;       // 0 when unknown
  int column;     // 0 when unknown
  std::size_t line_start;  // offset of the start of the line inside the text
};

LineCol line_col(const SourceText& source, int offset) {
  const std::size_t end = std::min<std::size_t>(static_cast<std::size_t>(std::max(offset, 0)),
                                                source.text.size());
  int newlines = 0;
  std::size_t line_start = 0;
  for (std::size_t i = 0; i < end; ++i) {
    if (source.text[i] == '\n') {
      ++newlines;
      line_start = i + 1;
    }
  }
  LineCol lc{0, 0, line_start};
  if (source.line > 0) lc.line = source.line + newlines;
  const int within = static_cast<int>(end - line_start);
  if (newlines == 0) {
    lc.column = source.column > 0 ? source.column + within : within + 1;
  } else {
    lc.column = within + 1;
  }
  return lc;
}

}  // namespace

std::string location_of(const SourceText& source, int offset) {
  const LineCol lc = line_col(source, offset);
  std::string s = source.file.empty() ? std::string("<input>") : source.file;
  if (lc.line > 0) s += ":" + std::to_string(lc.line);
  // Without a line number a column is still useful for one-line expressions.
  if (lc.column > 0) s += ":" + std::to_string(lc.column);
  return s;
}

void fail_at(const SourceText& source, int offset, const std::string& problem,
             ErrorCategory category) {
  const LineCol lc = line_col(source, offset);
  std::size_t line_end = source.text.find('\n', lc.line_start);
  if (line_end == std::string::npos) line_end = source.text.size();
  const std::string line = source.text.substr(lc.line_start, line_end - lc.line_start);
  const std::size_t caret =
      std::min<std::size_t>(static_cast<std::size_t>(std::max(offset, 0)), source.text.size()) -
      lc.line_start;
  std::string message = location_of(source, offset) + ": " + problem;
  if (!line.empty() && line.size() <= 200) {
    message += "\n    " + line + "\n    " + std::string(caret, ' ') + "^";
  }
  throw Error(category, message);
}

int edit_distance(const std::string& a, const std::string& b) {
  const std::size_t n = a.size(), m = b.size();
  std::vector<std::vector<int>> d(n + 1, std::vector<int>(m + 1, 0));
  for (std::size_t i = 0; i <= n; ++i) d[i][0] = static_cast<int>(i);
  for (std::size_t j = 0; j <= m; ++j) d[0][j] = static_cast<int>(j);
  for (std::size_t i = 1; i <= n; ++i) {
    for (std::size_t j = 1; j <= m; ++j) {
      const int cost = a[i - 1] == b[j - 1] ? 0 : 1;
      d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost});
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1])
        d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
    }
  }
  return d[n][m];
}

std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates) {
  // One edit for names of one or two characters, two otherwise, so that short
  // names are not "corrected" into unrelated ones.
  const int limit = name.size() <= 2 ? 1 : 2;
  int best = limit + 1;
  std::string best_name;
  for (const auto& c : candidates) {
    if (c == name) continue;
    const int d = edit_distance(name, c);
    if (d < best) {
      best = d;
      best_name = c;
    }
  }
  if (best_name.empty()) return "";
  return "; did you mean '" + best_name + "'?";
}

}  // namespace kbt
