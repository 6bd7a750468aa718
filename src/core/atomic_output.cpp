#include <kbt/core/atomic_output.hpp>
#include <kbt/core/error.hpp>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <system_error>
#include <unistd.h>

namespace kbt {
namespace {

constexpr const char* temp_infix = ".partial.";

}  // namespace

AtomicOutput::AtomicOutput(std::string final_path)
    : final_path_(std::move(final_path)), temp_path_(final_path_ + temp_infix + std::to_string(::getpid())) {
  std::remove(temp_path_.c_str());
}

AtomicOutput::AtomicOutput(std::string final_path, std::string existing)
    : final_path_(std::move(final_path)), temp_path_(std::move(existing)), owns_temp_(false) {}

AtomicOutput::~AtomicOutput() {
  if (!committed_ && owns_temp_) std::remove(temp_path_.c_str());
}

void AtomicOutput::commit() {
  if (std::rename(temp_path_.c_str(), final_path_.c_str()) != 0) {
    throw Error(ErrorCategory::io, "cannot move '" + temp_path_ + "' to '" + final_path_ +
                                       "': " + std::strerror(errno));
  }
  committed_ = true;
}

bool AtomicOutput::commit_exclusive() {
  if (::link(temp_path_.c_str(), final_path_.c_str()) == 0) {
    std::remove(temp_path_.c_str());
    committed_ = true;
    return true;
  }
  if (errno == EEXIST) return false;
  if (errno == EPERM || errno == EOPNOTSUPP || errno == ENOSYS) {  // no hard links here
    commit();
    return true;
  }
  throw Error(ErrorCategory::io, "cannot link '" + temp_path_ + "' to '" + final_path_ + "': " + std::strerror(errno));
}

AtomicOutput& AtomicOutputSet::add(std::string final_path) {
  outputs_.emplace_back(std::move(final_path));
  return outputs_.back();
}

void AtomicOutputSet::adopt(std::string existing, std::string final_path) {
  outputs_.emplace_back(std::move(final_path), std::move(existing));
}

void AtomicOutputSet::commit() {
  auto moved = outputs_.begin();
  try {
    for (; moved != outputs_.end(); ++moved) moved->commit();
  } catch (...) {
    for (auto it = outputs_.begin(); it != moved; ++it) std::remove(it->final_path().c_str());
    throw;
  }
}

int remove_orphaned_temporaries(const std::string& final_path) {
  namespace fs = std::filesystem;
  const fs::path target(final_path);
  const fs::path dir = target.parent_path().empty() ? fs::path(".") : target.parent_path();
  const std::string prefix = target.filename().string() + temp_infix;
  std::error_code ec;
  int removed = 0;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const std::string name = it->path().filename().string();
    if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0) continue;
    const std::string pid_text = name.substr(prefix.size());
    if (pid_text.find_first_not_of("0123456789") != std::string::npos || pid_text.size() > 9) continue;
    const long pid = std::strtol(pid_text.c_str(), nullptr, 10);
    // A live process (or one we may not signal) may still be writing it.
    if (pid <= 0 || ::kill(static_cast<pid_t>(pid), 0) == 0 || errno != ESRCH) continue;
    std::error_code rm;
    if (fs::remove(it->path(), rm)) ++removed;
  }
  return removed;
}

}  // namespace kbt
