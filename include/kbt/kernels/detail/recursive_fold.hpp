#pragma once
// Functor for the recursive ops (ema, rsi, atr): each output depends on every
// earlier bar, so one work item runs one (task, symbol) series sequentially
// over the bars (recursive_ops.hpp). Parallel over tasks x symbols.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <kbt/kernels/detail/fold_task.hpp>
#include <kbt/kernels/detail/recursive_ops.hpp>

namespace kbt::kernels {

template <class ExecSpace, class Real>
struct RecursiveFold {
  using views = FoldViews<ExecSpace, Real>;

  typename views::input_view inputs;
  typename views::series_view series;
  typename views::task_view tasks;  // ema / rsi / atr only
  int n_sym = 0;
  int n_bars = 0;

  std::int64_t size() const { return static_cast<std::int64_t>(tasks.extent(0)) * n_sym; }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t k = i / n_sym;
    const int s = static_cast<int>(i - k * n_sym);
    const FoldTask task = tasks(k);
    Real* out = &series(task.series, s, 0);
    const Real* x = &inputs(task.input, s, 0);
    switch (task.op) {
      case FoldOp::ema: ema_series(x, out, n_bars, task.window); break;
      case FoldOp::rsi: rsi_series(x, out, n_bars, task.window); break;
      case FoldOp::atr:
        atr_series(&inputs(task.high, s, 0), &inputs(task.low, s, 0), x, out, n_bars, task.window);
        break;
      default:  // not a recursive op: never scheduled here
        for (int t = 0; t < n_bars; ++t) out[t] = kbt::math::quiet_nan<Real>();
        break;
    }
  }
};

}  // namespace kbt::kernels
