#pragma once
// The steps drive_sweep and drive_sweep_shared (sweep_driver.hpp) share.

#include <kbt/sweep/sweep_driver.hpp>
#include <kbt/sweep/top_k.hpp>

#include <chrono>
#include <cstddef>
#include <vector>

namespace kbt::detail {

// Times the top-K merge (DriverResult::seconds_merge).
struct MergeTimer {
  double seconds = 0;
  template <class F>
  void operator()(F&& f) {
    const auto t0 = std::chrono::steady_clock::now();
    f();
    seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
};

// The ranking of a sweep from options.resumed on: the rows of combos
// [0, options.resumed) (a checkpoint's) already offered, and the progress told.
TopRows start_ranking(const DriverOptions& options, const EngineTopK& top_k, std::size_t n_params, MergeTimer& timed);

// Combos [first, first + count) ranked on every window into best[w].
void rank_chunk_on_windows(SweepEngine& engine, const PreparedSweep& sweep, const std::vector<ScoringWindow>& windows,
                           const EngineTopK& top_k, std::size_t first, std::size_t count, std::vector<TopRows>& best);

// Each window's best rows, holding the sweep's metric set.
std::vector<RowTable> best_tables(const std::vector<TopRows>& best, MetricMask metrics);

// A chunk's engine phases added to the sum (kernel_bytes: the maximum).
void add_phases(EnginePhases& sum, const EnginePhases& chunk);

// The best rows get every metric, on the same engine (docs/metrics.md "Metric
// sets"), when the sweep's metric set is smaller.
void complete_best_rows(SweepEngine& engine, const PreparedSweep& sweep, DriverResult& result);

}  // namespace kbt::detail
