#pragma once
// "Did you mean ...?" suggestions for misspelt config keys (the edit
// distance is kbt::edit_distance, kbt/lang/diagnostics.hpp).

#include <string>
#include <vector>

namespace kbt::detail {

// The candidate closest to `word`, if close enough to be a plausible typo
// (distance 1 to a candidate of up to 3 characters, 2 up to 6, 3 beyond); "" otherwise.
std::string closest_match(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace kbt::detail
