#pragma once
// kbt reports every bad input with a kbt::Error: a category (stable, for tests
// and scripts) and a message that names the file, line or dataset at fault.

#include <stdexcept>
#include <string>

namespace kbt {

enum class ErrorCategory {
  io,           // file missing, unreadable, unwritable
  data_format,  // HDF5/CSV content violates the documented layout
  config,       // YAML syntax, unknown key, wrong type or value
  language,     // strategy expression: syntax, unknown name, type error
  grid,         // empty grid, bad range, constraints reject everything
  limit,        // a configured limit (combos, memory, nesting) exceeded
  unsupported,  // a request this build or device cannot serve
  verification, // re-run candidates disagree with the sweep (changed inputs, or a bug)
  internal      // a bug in kbt
};

// Stable lower-case name of a category ("data_format", ...).
const char* to_string(ErrorCategory category) noexcept;

class Error : public std::runtime_error {
 public:
  Error(ErrorCategory category, const std::string& message)
      : std::runtime_error(message), category_(category) {}
  ErrorCategory category() const noexcept { return category_; }

 private:
  ErrorCategory category_;
};

}  // namespace kbt
