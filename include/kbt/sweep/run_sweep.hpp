#pragma once
// Running a whole sweep from a run config and bar data already in memory: the
// entry point for `kbt run` and for HPC codes that link kbt (docs/api.md).

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/sweep/chunk_exchange.hpp>
#include <kbt/sweep/progress.hpp>
#include <kbt/output/results.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace kbt {

struct SweepRequest {
  std::string device;                   // empty: the config's sweep.device
  int threads = 0;                      // host threads for the reference engine; 0 = all cores
  std::optional<std::uint64_t> sample;  // run a deterministic random subset of this many combos
  std::uint64_t sample_seed = 0;
  bool quiet = false;                   // no warnings or notes on stderr
  // Where warnings go, one message at a time (without "kbt: warning: "):
  // unset, to stderr unless quiet. Called on the calling thread.
  std::function<void(const std::string&)> warn;
  // Calibration file for the device choice (docs/calibration.md); empty:
  // $KBT_CALIBRATION, else the default location.
  std::string calibration;

  // Chunks and checkpoints (docs/sweep.md, docs/results.md). Combos run in
  // chunks of this many (0: the config's sweep.checkpoint_combos).
  std::uint64_t checkpoint_combos = 0;
  // Non-empty: every finished chunk is committed to this checkpoint file
  // (checkpoint.hpp). It must not exist unless `resume` is set; with `resume`
  // it must exist and belong to the same run, and its finished combos are
  // not simulated again.
  std::string checkpoint_path;
  bool resume = false;
  std::string results_path;    // stored in the checkpoint: the file the run will write
  std::string resume_command;  // stored in the checkpoint: how to continue it
  std::string resume_option = "--resume";  // how the caller asks for `resume`, for messages
  // Called before the first chunk and after each chunk (on the calling thread).
  std::function<void(const SweepProgress&)> progress;
  // The best rows kept beyond the top-K (SweepResults::best): at least this
  // many when the sweep has them, e.g. verify.top_n for the verification stage.
  std::size_t best_rows = 0;
  // Shared among processes (docs/mpi.md; kbt/mpi/mpi_exchange.hpp): every
  // process calls run_sweep with the same config, bars and request; the
  // root's outcome is the single process's, the others' have no rows. Not
  // owned.
  ChunkExchange* exchange = nullptr;

  // Hands `message` to `warn`, else prints it on stderr unless quiet.
  void warning(const std::string& message) const;
};

struct SweepOutcome {
  // Its rows live in the checkpoint when the request named one (streamed
  // there chunk by chunk; nothing grid-sized stays in memory), else in memory.
  SweepResults results;
  // The run's checkpoint, every combo done: Checkpoint::finish() makes it the
  // results file (what `kbt run` does). Null without checkpoint_path.
  std::shared_ptr<Checkpoint> checkpoint;
  RunProfile profile;
  std::string device_used;                     // "reference", "serial", ...
  std::optional<std::string> fallback_reason;  // stable `unsupported:<reason>` string
  // Combos ruined (final_equity 0, docs/semantics.md "Ruin") among every row,
  // and the combo ids of the first few of them (by row). Counted by the root.
  std::uint64_t ruined = 0;
  std::vector<std::uint64_t> ruined_combo_ids;
};

// Combos per chunk: `configured` when > 0, else auto: a chunk of about 2^26
// bar x symbol x combo steps per host thread of `device` ("reference", "serial",
// "openmp": `host_threads` threads), 2^33 on "cuda" (a few seconds of a simple
// strategy), clamped to [256, 4,194,304] combos.
std::uint64_t resolve_checkpoint_combos(std::uint64_t configured, std::size_t n_bars, std::size_t n_symbols,
                                        const std::string& device, unsigned host_threads);

// Loads the config's data file, restricted to config.symbols when given.
BarData load_run_data(const RunConfig& config);

// Compiles the strategy, expands the grid, applies constraints (and sampling),
// simulates every combo and selects the top-K.
SweepOutcome run_sweep(const RunConfig& config, const BarData& bars, const SweepRequest& request = {});

}  // namespace kbt
