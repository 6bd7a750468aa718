#pragma once
// The sweep kernel as a run sees it: a runner set up once, then called per
// chunk of combos (checkpoint chunks, the best rows, validation candidates),
// and what each call returns. The implementation for one execution space and
// real type is KernelSweeper (detail/kernel_sweeper.hpp); sweep_kernel.hpp
// makes one by device name.

#include <kbt/config/run_config.hpp>
#include <kbt/simulation/resolved_simulation.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <type_traits>
#include <vector>

namespace kbt {

// Top-K selected where the metrics are (device_top_k.hpp), for `kbt run`.
struct KernelTopKRequest {
  Objective objective;
  std::size_t k = 0;
  std::vector<std::uint64_t> combo_ids;  // [n_combos]: ties are broken by id
};
struct KernelSweepOutput {
  std::vector<double> metrics;     // [n_combos][n_metrics], row-major
  std::vector<std::size_t> top_k;  // rows, best first
  // run_windows: the metrics are [W][n_combos][n_metrics]; per window its
  // top-K rows, and with one window and periods the returns [P][n_combos].
  std::vector<std::vector<std::size_t>> window_top_k;
  std::vector<double> period_returns;
  // Phases of this call (seconds, each fenced) and the kernel's memory.
  double seconds_upload = 0;    // the combos' params and hoisting rows, scratch
  double seconds_hoist = 0;     // fold kernels computing the hoisted series
  double seconds_kernel = 0;    // the sweep kernel
  double seconds_topk = 0;      // top-K selection on the space
  double seconds_download = 0;  // metrics and top-K rows to the host
  std::size_t kernel_bytes = 0; // every View of the kernel and its series after this call
  std::size_t hoist_tiles = 0;  // tiles of windows this call started
  std::size_t hoisted_series = 0;  // series it computed: the windows its combos use that were not resident
};

// A sweep kernel set up once for a run — program, data, fold inputs uploaded,
// memory for the hoisted series allocated — that then simulates any number of
// combo lists (checkpoint chunks): per call only the combos' params, hoisting
// rows and metrics move, and the scratch is reused. It reads the SweepPlan it
// was made from: keep the plan alive while the runner is used.
class KernelSweepRunner {
 public:
  virtual ~KernelSweepRunner() = default;
  // combo_params: [n][n_params]; top_k.combo_ids: [n].
  virtual KernelSweepOutput run(const std::vector<double>& combo_params, const KernelTopKRequest& top_k) = 0;
  // The combos on several windows in one pass (fp64): each block of bars is
  // evaluated once for all of them (detail/window_sweep.hpp). With one window
  // and `period_last` (each period's last bar), also their period returns.
  virtual KernelSweepOutput run_windows(const std::vector<double>& combo_params,
                                        const std::vector<ScoringWindow>& windows,
                                        const std::vector<std::size_t>& period_last,
                                        const KernelTopKRequest& top_k) = 0;
  // Hoisted series resident at once and the tiles of windows the grid needs.
  virtual std::size_t hoist_rows() const = 0;
  virtual std::size_t hoist_tiles() const = 0;
  // Whether rows in grid order revisit tiles (HoistTiling::recomputes_along_rows).
  virtual bool hoist_recomputes_along_rows() const = 0;
  // The scoring window of later run() calls (initially the resolved
  // simulation's); indicators still warm up on all bars before it.
  virtual void set_scoring_window(const ScoringWindow& window) = 0;
  // The metric set of later run() calls (initially the options'): the smallest
  // compiled set holding `groups` (metrics/metric_set.hpp).
  virtual void set_metric_groups(unsigned groups) = 0;
};

// The memory a sweep on ExecSpace may use when the config does not say: on a
// GPU three quarters of its free memory; on the host half of the available
// memory, at most 2 GiB (1 GiB of hoisted series: every window of a 1,000-value
// axis over 100k bars stays resident, and the process stays under 2 GB).
std::size_t host_available_memory_bytes();
template <class ExecSpace>
std::size_t default_memory_budget() {
#ifdef KOKKOS_ENABLE_CUDA
  if (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    std::size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) == cudaSuccess) return free_bytes / 4 * 3;
  }
#endif
  return std::min<std::size_t>(std::size_t(2) << 30, host_available_memory_bytes() / 2);
}

}  // namespace kbt
