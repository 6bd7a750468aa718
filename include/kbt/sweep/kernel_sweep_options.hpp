#pragma once
// How a kernel sweep runs: memory, chunks, blocks, fusion. Results never
// depend on these; they trade memory for speed.

#include <Kokkos_Core.hpp>

#include <cstddef>

namespace kbt {

struct KernelSweepOptions {
  // Memory the sweep may use on its space (bytes); 0 = default_memory_budget.
  // Half of it bounds the hoisted series of a tile of windows
  // (hoist_tiling.hpp), a quarter the per-chunk scratch.
  std::size_t memory_budget_bytes = 0;
  // Upper bound on the per-chunk scratch (bytes); 0 = a quarter of the budget,
  // at most 512 MiB.
  std::size_t scratch_budget_bytes = 0;
  // Hoisted series resident at once (0 = derived from the budget). For tests.
  std::size_t hoist_rows = 0;
  // Fixed chunk size in combos (0 = derived from the budget). For tests.
  std::size_t chunk_combos = 0;
  // Bars per evaluation block (0 = the space's default, default_block_bars).
  // Results do not depend on it; it trades scratch memory for dispatch cost.
  int block_bars = 0;
  // The metric set the kernel accumulates (one of compiled_metric_sets,
  // metrics/metric_set.hpp); the other metrics come back NaN.
  unsigned metric_groups = 15;  // metric_group::all
  // Evaluate a comparison read only by a `where` inside that where's loop
  // (sweep/fused_selects.hpp; host spaces only, a GPU ignores it). Off where
  // every register must stay readable:
  // evaluating one register (`kbt eval`, labels) may ask for the comparison.
  bool fuse_compare_selects = true;
  // Compute a position of the form where(x < z, a, b) in the step loop, from
  // series that need no evaluation (sweep/detail/compared_select.hpp; host
  // spaces only). Off for tests that compare it with the evaluated block.
  bool position_per_bar = true;
};

// 64 bars on host spaces (decode each instruction once per 64 bars, loops the
// compiler vectorises, scratch that stays in L1); 16 on a GPU, where dispatch
// is uniform across a warp and the scratch lives in global memory.
template <class ExecSpace>
int default_block_bars() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible ? 64 : 16;
}

}  // namespace kbt
