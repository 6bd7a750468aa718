#pragma once
// The device-side view types and the per-series descriptor the fold functors
// read. Inputs and outputs are [series][symbol][bar], LayoutRight: the bars of
// one (series, symbol) are contiguous, so neighbouring GPU threads (neighbouring
// bars) read neighbouring addresses and host loops stream.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <kbt/kernels/fold_request.hpp>

namespace kbt::kernels {

// A validated FoldRequest plus the index of the output series it fills.
struct FoldTask {
  FoldOp op;
  int input;
  int window;
  int high;
  int low;
  int series;
};

template <class ExecSpace, class Real>
struct FoldViews {
  using memory_space = typename ExecSpace::memory_space;
  // [n_inputs][n_sym][n_bars]
  using input_view = Kokkos::View<const Real***, Kokkos::LayoutRight, memory_space>;
  // [n_series][n_sym][n_bars]
  using series_view = Kokkos::View<Real***, Kokkos::LayoutRight, memory_space>;
  using task_view = Kokkos::View<const FoldTask*, memory_space>;
  using offset_view = Kokkos::View<const std::int64_t*, memory_space>;
  // 64-bit flat indices: series x symbols x bars exceeds 2^31 on big grids.
  using range_policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
};

}  // namespace kbt::kernels
