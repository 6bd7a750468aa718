#pragma once
// Well-formed UTF-8 (RFC 3629), for text kbt reads from files: symbol names
// and the calibration file. Internal.

#include <cstddef>
#include <string>

namespace kbt::detail {

// The offset of the first byte of `s` that does not start or continue a
// well-formed UTF-8 sequence (no overlong forms, no surrogates, <= U+10FFFF);
// std::string::npos when `s` is well formed.
std::size_t first_non_utf8(const std::string& s);

inline bool is_utf8(const std::string& s) { return first_non_utf8(s) == std::string::npos; }

}  // namespace kbt::detail
