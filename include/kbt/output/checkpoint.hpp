#pragma once
// The checkpoint of a running sweep (docs/results.md "Incomplete runs and
// --resume"): a sibling HDF5 file `<results>.partial.h5` holding the run's
// identity, every combo's params and the metrics of the combos finished so
// far. Its root attribute `complete` is 0, so that no results reader takes it
// for a finished run; `combos_done` counts the finished combos (rows
// [0, combos_done) of /metrics are final).

#include <kbt/output/results.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbt {

// What a checkpoint must share with the run that resumes it.
struct CheckpointIdentity {
  std::string kbt_version;
  std::string config_yaml;  // the config text as run
  std::string data_path;    // absolute
  std::string data_digest;  // of the data as loaded (include/kbt/data/data_digest.hpp)
  std::string device;       // the space that runs the sweep ("reference", "serial", ...)
  std::string precision;    // fp64 | fp32
  std::string sample;       // "none" or the --sample count
  std::string sample_seed;
  std::string symbols;      // the config's symbol subset, comma-separated
  std::uint64_t n_combos = 0;

  // kbt_version, data_path (made absolute) and data_digest filled in; the
  // data is identified by its content, not by the file's size or mtime.
  static CheckpointIdentity for_data(const std::string& data_path, const std::string& data_digest);
};

// "<results_path>.partial.h5".
std::string checkpoint_path_for(const std::string& results_path);

struct CheckpointStatus {
  std::uint64_t combos_done = 0, combos_total = 0;
  std::string results_path, resume_command;
};
// The status attributes of a checkpoint file; throws kbt::Error when `path`
// is not one (or cannot be opened now).
CheckpointStatus read_checkpoint_status(const std::string& path);

class Checkpoint {
 public:
  // Writes a new checkpoint with 0 combos done (atomically: the file appears
  // whole, and only if no checkpoint is at `path`). `results` supplies
  // param_names, combo_ids and params.
  static Checkpoint create(const std::string& path, const CheckpointIdentity& identity, const SweepResults& results,
                           const std::string& results_path, const std::string& resume_command);
  // Opens an existing checkpoint, refuses it (kbt::Error naming what differs)
  // unless it belongs to this run, and copies the finished rows' metrics into
  // `metrics` ([n_combos][n_metrics], row-major, already sized).
  static Checkpoint resume(const std::string& path, const CheckpointIdentity& identity, const SweepResults& results,
                           std::vector<double>& metrics);

  // The file stays open (read-write, without HDF5's file lock) from create()
  // or resume() until destruction, so that readers of the live checkpoint
  // (`kbt show`, h5dump, h5py with default locking) never make a commit fail.
  ~Checkpoint();
  Checkpoint(Checkpoint&& other) noexcept;
  Checkpoint& operator=(Checkpoint&&) = delete;
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t combos_done() const { return done_; }
  // Writes rows [first, first + count) (`metrics` points at row `first` of a
  // row-major [n][n_metrics] matrix), flushes, then sets combos_done to
  // first + count. `first` must equal combos_done(). An interruption at any
  // point leaves a checkpoint whose combos_done rows are whole.
  void commit(std::uint64_t first, std::uint64_t count, const double* metrics);

 private:
  Checkpoint(std::string path, std::int64_t file, std::uint64_t done, std::uint64_t total)
      : path_(std::move(path)), file_(file), done_(done), total_(total) {}
  std::string path_;
  std::int64_t file_ = -1;  // the HDF5 file identifier (hid_t)
  std::uint64_t done_ = 0, total_ = 0;
};

// Removes the checkpoint file (no error when absent).
void remove_checkpoint(const std::string& path);

}  // namespace kbt
