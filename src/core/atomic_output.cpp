#include <kbt/core/atomic_output.hpp>
#include <kbt/core/error.hpp>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <unistd.h>

namespace kbt {

AtomicOutput::AtomicOutput(std::string final_path)
    : final_path_(std::move(final_path)),
      temp_path_(final_path_ + ".partial." + std::to_string(::getpid())) {
  std::remove(temp_path_.c_str());
}

AtomicOutput::~AtomicOutput() {
  if (!committed_) std::remove(temp_path_.c_str());
}

void AtomicOutput::commit() {
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    throw Error(ErrorCategory::io, "cannot move '" + temp_path_ + "' to '" + final_path_ +
                                       "': " + std::strerror(errno));
  }
  committed_ = true;
}

}  // namespace kbt
