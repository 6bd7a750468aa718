#pragma once
// Functor for rolling_sum and rolling_mean over many windows of one input
// (docs/kernels.md, "Sums that share their start").
//
// The definition (window_ops.hpp) adds a window oldest -> newest, starting
// from its oldest value, so the sum of window w ending at bar t is the running
// sum started at bar b = t - w + 1 after w values. Every window of an input
// that starts at b is therefore one prefix of the same running sum: one work
// item per start b adds x[b], x[b+1], ... up to the largest window once and
// writes each window's value as the count reaches it (to bar b + w - 1). The
// bits are window_sum's, and a grid of windows costs max(w) adds per bar
// instead of the sum of all w.
//
// Parallel over (group, symbol, chunk of starts); a group is one input's
// tasks, sorted by window. As in PerBarFold, a host work item runs `chunk`
// neighbouring starts together (independent add chains that vectorise); on
// devices a work item is one start, and neighbouring threads read and write
// neighbouring bars.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <kbt/kernels/detail/fold_task.hpp>
#include <kbt/kernels/detail/per_bar_fold.hpp>

namespace kbt::kernels {

template <class ExecSpace, class Real>
struct SharedStartSumFold {
  using views = FoldViews<ExecSpace, Real>;
  static constexpr int chunk = per_bar_chunk<ExecSpace>();

  typename views::input_view inputs;
  typename views::series_view series;
  typename views::task_view tasks;     // rolling_sum / rolling_mean, grouped by input, windows ascending
  typename views::offset_view groups;  // group g is tasks [groups(g), groups(g + 1))
  int n_sym = 0;
  int n_bars = 0;

  KOKKOS_INLINE_FUNCTION std::int64_t chunks_per_row() const {
    return (static_cast<std::int64_t>(n_bars) + chunk - 1) / chunk;
  }
  std::int64_t size() const {
    return groups.extent(0) < 2 ? 0 : static_cast<std::int64_t>(groups.extent(0) - 1) * n_sym * chunks_per_row();
  }

  KOKKOS_INLINE_FUNCTION void write(const FoldTask& task, int s, int t, Real sum) const {
    series(task.series, s, t) = task.op == FoldOp::rolling_mean ? sum / static_cast<Real>(task.window) : sum;
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t n_chunks = chunks_per_row();
    const std::int64_t per_group = static_cast<std::int64_t>(n_sym) * n_chunks;
    const std::int64_t g = i / per_group;
    const std::int64_t rest = i - g * per_group;
    const int s = static_cast<int>(rest / n_chunks);
    const int b0 = static_cast<int>(rest - static_cast<std::int64_t>(s) * n_chunks) * chunk;
    const std::int64_t first = groups(g), last = groups(g + 1);
    const Real* row = &inputs(tasks(first).input, s, 0);
    const int widest = tasks(last - 1).window;
    const int n_starts = b0 + chunk <= n_bars ? chunk : n_bars - b0;

    // The warm-up: bar b of a window w > b + 1 has too few values before it.
    for (int j = 0; j < n_starts; ++j)
      for (std::int64_t k = last; k-- > first && tasks(k).window > b0 + j + 1;)
        series(tasks(k).series, s, b0 + j) = kbt::math::quiet_nan<Real>();

    if (n_starts == chunk && b0 + chunk - 1 + widest - 1 < n_bars) {
      // Every start of the chunk reaches every window: `chunk` chains in step.
      const Real* base = row + b0;
      Real acc[chunk];
      KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) acc[j] = base[j];
      int count = 1;
      for (std::int64_t k = first; k < last; ++k) {
        const FoldTask task = tasks(k);
        for (; count < task.window; ++count)
          KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) acc[j] += base[count + j];
        KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) write(task, s, b0 + j + task.window - 1, acc[j]);
      }
      return;
    }
    // The last starts of a row: each runs until its windows pass the last bar.
    for (int j = 0; j < n_starts; ++j) {
      const int b = b0 + j;
      Real acc = row[b];
      int count = 1;
      for (std::int64_t k = first; k < last; ++k) {
        const FoldTask task = tasks(k);
        if (b + task.window > n_bars) break;
        for (; count < task.window; ++count) acc += row[b + count];
        write(task, s, b + task.window - 1, acc);
      }
    }
  }
};

}  // namespace kbt::kernels
