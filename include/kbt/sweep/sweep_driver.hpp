#pragma once
// The chunk driver, written once for every engine: runs a prepared sweep's
// combos through a SweepEngine chunk by chunk (docs/sweep.md "Checkpoint
// chunks"), hands each finished chunk's metrics to a commit callback (the
// checkpoint, or memory) and a progress callback, and merges the per-chunk
// top-Ks into the global best rows. The top-K of the union of per-chunk
// top-Ks is the global one: the order (objective, then combo id) is total.
// The driver itself keeps only the best rows and one chunk.

#include <kbt/output/result_rows.hpp>
#include <kbt/sweep/chunk_exchange.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/sweep_engine.hpp>

#include <cstddef>
#include <cstdint>
#include <functional>
#include <vector>

namespace kbt {

struct DriverOptions {
  std::uint64_t chunk_combos = 1;  // combos per chunk (resolve_checkpoint_combos)
  // Combos [0, resumed) are done already: their rows are read back from
  // `done_rows` (a checkpoint's) a block at a time and only enter the top-K.
  std::size_t resumed = 0;
  const ResultRows* done_rows = nullptr;
  // After each chunk: its first row, its size and its metrics [count][n_metrics].
  std::function<void(std::size_t first, std::size_t count, const double* metrics)> commit;
  // Before the first chunk and after each one: combos done so far.
  std::function<void(std::size_t done)> progress;
};

struct DriverResult {
  // The best top_k.k eligible rows of the sweep, best first, with all 21
  // metrics (simulated again when the sweep's metric set is smaller).
  RowTable best;
  std::size_t chunks = 0;          // chunks simulated by this call
  std::size_t combos = 0;          // and their combos
  EnginePhases phases;             // summed over the chunks (kernel_bytes: the maximum)
  double seconds_merge = 0;        // the host merge of the chunks' top-Ks
  double seconds_best_rows = 0;    // the best rows' other metrics
};

// The best `top_k.k` rows of the sweep on each of `windows` (one pass over the
// combos, chunk by chunk, every window per chunk), best first, with the
// engine's metric set: the walk-forward's per-fold ranking.
std::vector<RowTable> rank_on_windows(SweepEngine& engine, const PreparedSweep& sweep,
                                      const std::vector<ScoringWindow>& windows, const EngineTopK& top_k,
                                      std::uint64_t chunk_combos);

// The same shared among the processes of `exchange` (docs/mpi.md): each
// claims chunks from the shared counter and ranks them on every window; the
// root merges every process's best rows per window (the order is total, so
// the result is rank_on_windows', bit for bit). Elsewhere: empty.
std::vector<RowTable> rank_on_windows_shared(SweepEngine& engine, const PreparedSweep& sweep,
                                             const std::vector<ScoringWindow>& windows, const EngineTopK& top_k,
                                             std::uint64_t chunk_combos, ChunkExchange& exchange);

// Simulates combos [options.resumed, n) of `sweep` on its own scoring window;
// their metrics go to options.commit, chunk by chunk.
DriverResult drive_sweep(SweepEngine& engine, const PreparedSweep& sweep, const EngineTopK& top_k,
                         const DriverOptions& options);

// The same sweep shared among the processes of `exchange` (docs/mpi.md): the
// chunks of combos [options.resumed, n) are claimed from the exchange's
// counter, so that a slower process simply takes fewer. On the root the
// result is drive_sweep's, bit for bit: every chunk is committed in chunk
// order (buffering those that arrive early) and ranked, and the best rows get
// every metric. Elsewhere `chunks` and `phases` count this process's share;
// commit and progress are called on the root only. `options` (chunk size,
// resume point) must be the root's on every process.
DriverResult drive_sweep_shared(SweepEngine& engine, const PreparedSweep& sweep, const EngineTopK& top_k,
                                const DriverOptions& options, ChunkExchange& exchange);

}  // namespace kbt
