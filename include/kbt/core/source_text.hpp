#pragma once
// A piece of user-written text (an expression, a constraint) with where it came
// from, so that every language error can name file, line and column.

#include <string>

namespace kbt {

struct SourceText {
  std::string text;
  std::string file;  // config path, or "<expr>" for text given on the command line
  int line = 0;      // 1-based line of the first character of `text`, 0 if unknown
  int column = 0;    // 1-based column of the first character of `text`, 0 if unknown

  // "file:line:col" (or as much of it as is known).
  std::string where() const {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (line > 0) s += ":" + std::to_string(line);
    if (column > 0) s += ":" + std::to_string(column);
    return s;
  }
};

}  // namespace kbt
