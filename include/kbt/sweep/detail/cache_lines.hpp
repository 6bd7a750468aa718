#pragma once
// Per-combo rows padded to whole cache lines (host spaces): threads that run
// neighbouring combos write their rows on every bar, and rows sharing a line
// would stall each other (docs/sweep.md "The kernel").

#include <cstddef>

namespace kbt {

// The bytes of a cache line on the host CPUs kbt targets (x86-64, AArch64).
inline constexpr std::size_t cache_line_bytes = 64;

// The smallest count of T, at least n and at least 1, that fills whole cache
// lines: a row of that length starts a line whenever the first row does.
template <class T>
constexpr std::size_t whole_cache_lines(std::size_t n) {
  std::size_t per_lines = 1;  // the fewest T that fill whole lines
  while (per_lines * sizeof(T) % cache_line_bytes != 0) ++per_lines;
  const std::size_t at_least = n > 0 ? n : 1;
  return (at_least + per_lines - 1) / per_lines * per_lines;
}

}  // namespace kbt
