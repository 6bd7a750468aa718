#pragma once
// The whole job of a sweep config, as `kbt run` does it (docs/api.md "The
// sweep job"): the sweep, the verification and validation stages, and — with
// an output path — the run lock, the checkpoint and its resume, and every
// output written together or not at all. The one flow the CLI and the Python
// module (`kbt.run`) both call; run_sweep (sweep/run_sweep.hpp) is its first
// stage alone.

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/progress.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/validation/validation.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>

namespace kbt {

struct SweepJobOptions {
  std::string device;  // empty: the config's sweep.device
  int threads = 0;     // host threads of the reference engine and the stages; 0 = all cores
  std::optional<std::uint64_t> sample;  // a deterministic random subset of this many combos
  std::uint64_t sample_seed = 0;
  std::string calibration;  // calibration file of the device choice (empty: the default)
  bool verify = true;       // false: no verification stage (as verify.top_n: 0)
  std::uint64_t checkpoint_combos = 0;  // combos per chunk (0: the config's, else auto)

  // The results file. Empty: nothing is written, no checkpoint is kept and
  // the rows stay in memory. Else, as `kbt run --out`: one job per output at
  // a time (run_lock.hpp), every chunk committed to <out>.partial.h5, and the
  // results file (with the top-K CSV when output.csv) moved into place last.
  std::string out;
  bool resume = false;         // continue the checkpoint of `out` (it must exist)
  std::string resume_command;  // stored in the checkpoint: how to continue it
  std::string resume_option = "--resume";  // how the caller asks for `resume`, for messages

  double seconds_load = 0;  // the caller's loading of config and bars, for the profile

  // Shared among processes (docs/mpi.md): every process calls
  // run_sweep_job with the same config, bars and options; the root locks,
  // checkpoints, runs the stages and writes, the others only simulate their
  // share of the sweep (their result has no rows). Not owned.
  ChunkExchange* exchange = nullptr;

  bool quiet = false;                              // no notes or warnings on stderr
  std::function<void(const std::string&)> warn;    // warnings (SweepRequest::warn)
  std::function<void(const SweepProgress&)> progress;  // the sweep's chunks, then the verification's candidates
};

struct SweepJobResult {
  SweepOutcome sweep;  // its profile also holds the stages' and the write's seconds
  std::optional<VerificationResults> verification;
  std::optional<ValidationResults> validation;
  std::string out, csv;  // what was written (empty: nothing)
  double seconds_write = 0;
};

// Runs the sweep job of `config` on `bars`. Fails before any work, at the
// config line, for a verification window the data cannot hold; for an
// existing checkpoint of `out` without `resume` (naming it and its progress),
// and for `resume` without one. A verification mismatch is not thrown here:
// the results keep it (check_no_mismatch, verify.hpp, fails the run).
SweepJobResult run_sweep_job(const RunConfig& config, const BarData& bars, const SweepJobOptions& options);

}  // namespace kbt
