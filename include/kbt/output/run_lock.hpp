#pragma once
// The lock of a run that writes one results file (docs/results.md "Faults"):
// `<results>.lock`, held with flock() for the run's whole life, so that a
// second run (or --resume) of the same output is refused while the first
// lives. The file names its holder (pid, host, start time) for that message.
// The kernel releases the lock when its holder dies, so a lock file left by a
// killed run never blocks the resume.

#include <string>

namespace kbt {

class RunLock {
 public:
  // "<results_path>.lock".
  static std::string path_for(const std::string& results_path);

  // Takes the lock of `results_path`'s run without waiting; throws
  // kbt::Error(io) naming the holder when another process holds it, or when
  // the lock file cannot be created.
  explicit RunLock(const std::string& results_path);
  ~RunLock();  // removes the lock file, then releases the lock
  RunLock(const RunLock&) = delete;
  RunLock& operator=(const RunLock&) = delete;

  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace kbt
