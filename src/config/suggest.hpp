#pragma once
// "Did you mean ...?" suggestions for misspelt names.

#include <string>
#include <vector>

namespace kbt::detail {

// Optimal-string-alignment edit distance (insert, delete, substitute, swap adjacent).
std::size_t edit_distance(const std::string& a, const std::string& b);

// The candidate closest to `word`, if close enough to be a plausible typo
// (distance 1 to a candidate of up to 3 characters, 2 up to 6, 3 beyond); "" otherwise.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace kbt::detail
