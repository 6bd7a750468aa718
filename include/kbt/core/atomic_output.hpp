#pragma once
// Outputs are written to a temporary sibling `<final>.partial.<pid>` and
// renamed into place only when complete, so a failed or interrupted write
// never leaves a file that looks finished (docs/results.md "Faults").

#include <list>
#include <string>

namespace kbt {

class AtomicOutput {
 public:
  explicit AtomicOutput(std::string final_path);
  // A file already written at `existing` (a finished checkpoint) that
  // commit() moves to `final_path`; it is never removed by this object.
  AtomicOutput(std::string final_path, std::string existing);
  ~AtomicOutput();  // removes the temporary unless commit() succeeded (or it was adopted)
  AtomicOutput(const AtomicOutput&) = delete;
  AtomicOutput& operator=(const AtomicOutput&) = delete;

  // Where to write now.
  const std::string& temp_path() const { return temp_path_; }
  const std::string& final_path() const { return final_path_; }
  // Renames the temporary onto the final path; throws kbt::Error(io) on failure.
  void commit();
  // Links the temporary to the final path only if no file is there: of two
  // processes that commit the same path, the second gets false (and keeps its
  // temporary until destroyed). Falls back to rename() on a filesystem
  // without hard links. Throws kbt::Error(io) on other failures.
  bool commit_exclusive();

 private:
  std::string final_path_;
  std::string temp_path_;
  bool committed_ = false;
  bool owns_temp_ = true;
};

// The outputs of one job, committed together: either every one reaches its
// final path or (when a rename fails) the ones already moved are removed
// again and kbt::Error(io) is thrown. Outputs are committed in the order
// added, so the last one added (the primary file) appears last.
class AtomicOutputSet {
 public:
  AtomicOutput& add(std::string final_path);  // references stay valid
  // A file already written at `existing`, moved to `final_path` on commit().
  void adopt(std::string existing, std::string final_path);
  void commit();

 private:
  std::list<AtomicOutput> outputs_;
};

// Removes the temporaries `<final_path>.partial.<pid>` left by processes of
// this host that no longer run (a kbt killed while writing). Temporaries of
// live processes are kept. Returns how many were removed.
int remove_orphaned_temporaries(const std::string& final_path);

}  // namespace kbt
