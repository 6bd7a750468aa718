#pragma once
// The checkpoint of a running sweep (docs/results.md "Incomplete runs and
// --resume"): a sibling HDF5 file `<results>.partial.h5` in the results
// layout holding the run's identity, every combo's id and params and the
// metrics of the combos finished so far. Its root attribute `complete` is 0,
// so that no results reader takes it for a finished run; `combos_done`
// counts the finished combos (rows [0, combos_done) of /metrics are final).
// The sweep streams its rows into it, and when the run finishes the
// checkpoint itself becomes the results file (finish(), then a rename): no
// process holds every row in memory, and no second copy of the rows is
// written (docs/results.md "Memory").

#include <kbt/config/combo_rows.hpp>
#include <kbt/output/results.hpp>

#include <cstdint>
#include <memory>
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

// The rules of docs/results.md "Incomplete runs and --resume": an existing
// `checkpoint` of `results_path` without `resume` is kbt::Error(config)
// naming its progress; `resume` without one is kbt::Error(io). Messages name
// `resume_option`, the caller's way to ask for a resume ("--resume" on the
// command line, "resume=True" in Python).
void check_checkpoint_presence(const std::string& checkpoint, const std::string& results_path, bool resume,
                               const std::string& resume_option = "--resume");

class Checkpoint : public std::enable_shared_from_this<Checkpoint> {
 public:
  // Writes a new checkpoint with 0 combos done (atomically: the file appears
  // whole, and only if no checkpoint is at `path`), with the ids and values
  // of every row of `combos` (written a block at a time).
  // `metrics`: the metric set every row holds (the others are not stored).
  static std::shared_ptr<Checkpoint> create(const std::string& path, const CheckpointIdentity& identity,
                                            const std::vector<std::string>& param_names, const ComboRows& combos,
                                            MetricMask metrics, const std::string& results_path,
                                            const std::string& resume_command);
  // Opens an existing checkpoint and refuses it (kbt::Error naming what
  // differs) unless it belongs to this run: the same identity and the same
  // combos (compared a block at a time). A checkpoint whose finish() was
  // interrupted is taken back to incomplete.
  static std::shared_ptr<Checkpoint> resume(const std::string& path, const CheckpointIdentity& identity,
                                            const std::vector<std::string>& param_names, const ComboRows& combos,
                                            MetricMask metrics);

  // The file stays open (read-write, without HDF5's file lock) from create()
  // or resume() until finish() or destruction, so that readers of the live
  // checkpoint (`kbt show`, h5dump, h5py with default locking) never make a
  // commit fail.
  ~Checkpoint();
  Checkpoint(const Checkpoint&) = delete;
  Checkpoint& operator=(const Checkpoint&) = delete;

  const std::string& path() const { return path_; }
  std::uint64_t combos_done() const { return done_; }
  std::uint64_t combos_total() const { return total_; }
  // Writes rows [first, first + count) (`metrics` row-major [count][n_metrics]),
  // flushes, then sets combos_done to first + count. `first` must equal
  // combos_done(). An interruption at any point leaves a checkpoint whose
  // combos_done rows are whole.
  void commit(std::uint64_t first, std::uint64_t count, const double* metrics);
  // The rows of the checkpoint, read from its file (metrics of rows past
  // combos_done() are not final); valid until finish().
  std::shared_ptr<const ResultRows> rows() const;

  // Makes the checkpoint a finished results file, in place: checks that
  // every combo is done, reserves the disk space of what it adds (so that a
  // full disk fails here with the checkpoint untouched), writes /topk,
  // /profile, /verify, /validation, kbt_version and last complete = 1, and closes the
  // file. The caller then moves it to the results path (AtomicOutputSet::
  // adopt). A process killed meanwhile leaves a checkpoint that --resume
  // finishes again.
  void finish(const SweepResults& results, const RunProfile& profile, const VerificationResults* verification,
              const ValidationResults* validation = nullptr);

 private:
  Checkpoint(std::string path, std::int64_t file, std::uint64_t done, std::uint64_t total, MetricMask metrics)
      : path_(std::move(path)), file_(file), done_(done), total_(total), metrics_(metrics) {}
  std::string path_;
  std::int64_t file_ = -1;  // the HDF5 file identifier (hid_t)
  std::uint64_t done_ = 0, total_ = 0;
  MetricMask metrics_ = all_metrics_mask;
};

// Removes the checkpoint file (no error when absent).
void remove_checkpoint(const std::string& path);

}  // namespace kbt
