#pragma once
// Outputs are written to a temporary sibling and renamed into place only when
// complete, so a failed or interrupted write never leaves a file that looks
// finished (docs/testing.md).

#include <string>

namespace kbt {

class AtomicOutput {
 public:
  explicit AtomicOutput(std::string final_path);
  ~AtomicOutput();  // removes the temporary unless commit() succeeded
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  // Where to write now.
  const std::string& temp_path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }
  // Renames the temporary onto the final path; throws kbt::Error(io) on failure.
  void commit();

 private:
  std::string final_path_;
  std::string temp_path_;
  bool committed_ = false;
};

}  // namespace kbt
