#pragma once
// Error reporting for the strategy language: positions inside an expression are
// turned into "file:line:col" from the SourceText the expression came from, and
// misspelled names get a "did you mean" suggestion.

#include <kbt/core/error.hpp>
#include <kbt/core/source_text.hpp>

#include <string>
#include <vector>

namespace kbt {

// "file:line:col" of byte `offset` inside `source.text`. On the first line the column
// is source.column + offset; after a newline inside the text it restarts at 1.
std::string location_of(const SourceText& source, int offset);

// Throws kbt::Error(category, "<location>: <problem>") followed by the source line and
// a caret under the offending column.
[[noreturn]] void fail_at(const SourceText& source, int offset, const std::string& problem,
                          ErrorCategory category = ErrorCategory::language);

// Optimal-string-alignment edit distance (insertions, deletions, substitutions and
// adjacent transpositions each cost 1).
int edit_distance(const std::string& a, const std::string& b);

// "; did you mean 'x'?" for the closest candidate within a small edit distance, or "".
std::string did_you_mean(const std::string& name, const std::vector<std::string>& candidates);

}  // namespace kbt
