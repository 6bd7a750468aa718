#pragma once
// Syntax tree of one strategy expression (docs/language.md), as produced by the parser.
// Every node keeps the byte offset of its first character in the source text so
// that later errors (unknown names, types) can point at line and column.

#include <string>
#include <vector>

namespace kbt {

struct AstNode {
  enum class Kind {
    number,  // 1.5, 20, 1e-3
    string,  // "4h" (only meaningful as the timeframe of htf())
    name,    // close, fast, kf.level, close@BBB, kf.level@BBB
    call,    // sma(close, fast)
    unary,   // op is "-" or "not"
    binary   // op is one of + - * / < <= > >= == != and or
  };
  Kind kind = Kind::number;
  std::string text;    // name / function name / operator / string contents
  std::string field;   // name only: the part after '.', e.g. "level" in kf.level
  std::string symbol;  // name only: the part after '@', e.g. "BBB" in close@BBB
  double number = 0.0;
  int offset = 0;         // byte offset of the node in the source text
  int field_offset = -1;  // offset of `field`, when present
  int symbol_offset = -1; // offset of `symbol`, when present
  int depth = 1;          // nesting depth of this subtree (leaves are 1)
  std::vector<AstNode> args;  // operands (unary: 1, binary: 2) or call arguments
};

}  // namespace kbt
