#include "config/suggest.hpp"

#include <kbt/lang/diagnostics.hpp>

#include <algorithm>

namespace kbt::detail {

std::string closest_match(const std::string& word, const std::vector<std::string>& candidates) {
  std::string best;
  std::size_t best_distance = static_cast<std::size_t>(-1);
  for (const auto& c : candidates) {
    const std::size_t len = c.size();
    const std::size_t limit = len <= 3 ? 1 : (len <= 6 ? 2 : 3);
    const std::size_t d = static_cast<std::size_t>(kbt::edit_distance(word, c));
    if (d <= limit && d < best_distance) {
      best = c;
      best_distance = d;
    }
  }
  return best;
}

}  // namespace kbt::detail
