#pragma once
// Functor for the ops whose every output is an independent function of a
// window of inputs: rolling_std, zscore, roc, lag, lead (rolling_sum and
// rolling_mean share their sums across windows: shared_start_sums.hpp).
// Parallel over (task, symbol, chunk of bars). Each output is computed by the
// plain definition (window_ops.hpp), O(w) per bar.
//
// Chunks: on host spaces one work item computes `chunk` = 8 consecutive bars
// together, with one accumulator per bar. Every accumulator still adds its own
// window oldest -> newest, so the bits are those of window_sum, but the eight
// independent add chains fill the FP pipeline and vectorise (a single chain is
// bound by add latency). On devices (CUDA) a work item is one bar: threads are
// the parallelism there, and neighbouring threads read neighbouring bars.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include <kbt/kernels/detail/fold_task.hpp>
#include <kbt/kernels/detail/window_ops.hpp>

// Fully unroll the per-bar loops of a chunk so that the accumulators live in
// registers (GCC otherwise keeps the array in memory and each add waits on a
// store-to-load round trip). nvcc's device pass takes CUDA's `unroll`; its
// host pass (GCC behind nvcc's front end) takes neither spelling without a
// warning, so a CUDA build's host spaces go without the hint.
#if defined(__CUDA_ARCH__) || defined(__clang__)
#define KBT_UNROLL_CHUNK _Pragma("unroll")
#elif defined(__GNUC__) && !defined(__CUDACC__)
#define KBT_UNROLL_CHUNK _Pragma("GCC unroll 16")
#else
#define KBT_UNROLL_CHUNK
#endif

namespace kbt::kernels {

// Bars per work item of PerBarFold on ExecSpace.
template <class ExecSpace>
constexpr int per_bar_chunk() {
  return Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename ExecSpace::memory_space>::accessible
             ? 8
             : 1;
}

template <class ExecSpace, class Real>
struct PerBarFold {
  using views = FoldViews<ExecSpace, Real>;
  static constexpr int chunk = per_bar_chunk<ExecSpace>();

  typename views::input_view inputs;
  typename views::series_view series;
  typename views::task_view tasks;  // only per-bar ops
  int n_sym = 0;
  int n_bars = 0;

  std::int64_t chunks_per_row() const { return (static_cast<std::int64_t>(n_bars) + chunk - 1) / chunk; }

  // Number of work items for the whole task list.
  std::int64_t size() const {
    return static_cast<std::int64_t>(tasks.extent(0)) * n_sym * chunks_per_row();
  }

  KOKKOS_INLINE_FUNCTION static Real one_bar(const FoldTask& task, const Real* row, int t, int n) {
    switch (task.op) {
      case FoldOp::rolling_std: return rolling_std_at(row, t, task.window);
      case FoldOp::zscore: return zscore_at(row, t, task.window);
      case FoldOp::roc: return roc_at(row, t, task.window);
      case FoldOp::lag: return lag_at(row, t, task.window);
      case FoldOp::lead: return lead_at(row, t, task.window, n);
      // Not per-bar ops: never scheduled here (FoldHoister sorts them out).
      default: return kbt::math::quiet_nan<Real>();
    }
  }

  // The bars t0 .. t0 + chunk - 1, all past warm-up, of rolling_std or zscore:
  // the same sums as window_sum / window_variance, one accumulator per bar.
  KOKKOS_INLINE_FUNCTION static void full_chunk(const FoldTask& task, const Real* row, int t0,
                                                Real* out) {
    const int w = task.window;
    const Real* base = row + (t0 - w + 1);
    Real acc[chunk];
    KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) acc[j] = base[j];
    for (int k = 1; k < w; ++k)
      KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) acc[j] += base[k + j];
    Real mean[chunk];
    KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) mean[j] = acc[j] / static_cast<Real>(w);
    KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) {
      const Real d = base[j] - mean[j];
      acc[j] = d * d;
    }
    for (int k = 1; k < w; ++k)
      KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) {
        const Real d = base[k + j] - mean[j];
        acc[j] += d * d;
      }
    KBT_UNROLL_CHUNK for (int j = 0; j < chunk; ++j) {
      const Real sd = kbt::math::sqrt(acc[j] / static_cast<Real>(w - 1));
      out[j] = task.op == FoldOp::rolling_std ? sd : kbt::ops::div<Real>(row[t0 + j] - mean[j], sd);
    }
  }

  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i) const {
    const std::int64_t n_chunks = (static_cast<std::int64_t>(n_bars) + chunk - 1) / chunk;
    const std::int64_t per_task = static_cast<std::int64_t>(n_sym) * n_chunks;
    const std::int64_t k = i / per_task;
    const std::int64_t rest = i - k * per_task;
    const int s = static_cast<int>(rest / n_chunks);
    const int t0 = static_cast<int>(rest - static_cast<std::int64_t>(s) * n_chunks) * chunk;
    const FoldTask task = tasks(k);
    const Real* row = &inputs(task.input, s, 0);
    Real* out = &series(task.series, s, 0);
    const bool windowed = task.op == FoldOp::rolling_std || task.op == FoldOp::zscore;
    if (chunk > 1 && windowed && t0 >= task.window - 1 && t0 + chunk <= n_bars) {
      full_chunk(task, row, t0, out + t0);
      return;
    }
    const int end = t0 + chunk < n_bars ? t0 + chunk : n_bars;
    for (int t = t0; t < end; ++t) out[t] = one_bar(task, row, t, n_bars);
  }
};

}  // namespace kbt::kernels
