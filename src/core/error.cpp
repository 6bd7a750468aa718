#include <kbt/core/error.hpp>

namespace kbt {

const char* to_string(ErrorCategory category) noexcept {
  switch (category) {
    case ErrorCategory::io: return "io";
    case ErrorCategory::data_format: return "data_format";
    case ErrorCategory::config: return "config";
    case ErrorCategory::language: return "language";
    case ErrorCategory::grid: return "grid";
    case ErrorCategory::limit: return "limit";
    case ErrorCategory::unsupported: return "unsupported";
    case ErrorCategory::verification: return "verification";
    case ErrorCategory::internal: return "internal";
  }
  return "internal";
}

}  // namespace kbt
