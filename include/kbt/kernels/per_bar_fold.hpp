#pragma once
// Functor for the ops whose every output is an independent function of a
// window of inputs: rolling_sum, rolling_mean, rolling_std, zscore, roc, lag.
// Parallel over (task, symbol, bar): one work item computes one output value
// by the plain definition (window_ops.hpp), O(w) per bar.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kbt/kernels/fold_task.hpp"
#include "kbt/kernels/window_ops.hpp"

namespace kbt::kernels {

template <class ExecSpace, class Real>
struct PerBarFold {
  using views = FoldViews<ExecSpace, Real>;

  typename views::input_view inputs;
  typename views::series_view series;
  typename views::task_view tasks;  // only per-bar ops
  int n_sym = 0;
  int n_bars = 0;

  // Number of work items for the whole task list.
  std::int64_t size() const {
    return static_cast<std::int64_t>(tasks.extent(0)) * n_sym * n_bars;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t per_task = static_cast<std::int64_t>(n_sym) * n_bars;
    const std::int64_t k = i / per_task;
    const std::int64_t rest = i - k * per_task;
    const int s = static_cast<int>(rest / n_bars);
    const int t = static_cast<int>(rest - static_cast<std::int64_t>(s) * n_bars);
    const FoldTask task = tasks(k);
    const Real* row = &inputs(task.input, s, 0);
    Real v;
    switch (task.op) {
      case FoldOp::rolling_sum: v = rolling_sum_at(row, t, task.window); break;
      case FoldOp::rolling_mean: v = rolling_mean_at(row, t, task.window); break;
      case FoldOp::rolling_std: v = rolling_std_at(row, t, task.window); break;
      case FoldOp::zscore: v = zscore_at(row, t, task.window); break;
      case FoldOp::roc: v = roc_at(row, t, task.window); break;
      case FoldOp::lag: v = lag_at(row, t, task.window); break;
      // Not per-bar ops: never scheduled here (FoldHoister sorts them out).
      default: v = kbt::math::quiet_nan<Real>(); break;
    }
    series(task.series, s, t) = v;
  }
};

}  // namespace kbt::kernels
