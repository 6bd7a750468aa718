#pragma once
// Parser for strategy expressions (grammar in docs/language.md).
// Errors: kbt::Error(ErrorCategory::language) "file:line:col: <problem>; expected <what>",
// or ErrorCategory::limit when the text or its nesting exceeds the limits below.

#include <kbt/lang/ast.hpp>
#include <kbt/core/source_text.hpp>

#include <cstddef>
#include <string>

namespace kbt {

// Limits that turn hostile or accidental inputs into clear errors instead of
// stack overflows or runaway memory.
inline constexpr int max_expression_depth = 256;            // nesting of operators/calls/parens
inline constexpr std::size_t max_expression_chars = 65536;  // characters in one expression

AstNode parse_expression(const SourceText& source);

// True for the reserved words and, or, not.
bool is_keyword(const std::string& word);
// True when `word` is a valid identifier ([A-Za-z_][A-Za-z0-9_]*) and not a keyword.
bool is_identifier(const std::string& word);

}  // namespace kbt
