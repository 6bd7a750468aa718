// drive_sweep: chunks, commits, progress and the top-K merge.

#include <kbt/sweep/sweep_driver.hpp>

#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/top_k.hpp>

#include "sweep/driver_steps.hpp"

#include <algorithm>
#include <chrono>

namespace kbt {

namespace detail {

TopRows start_ranking(const DriverOptions& options, const EngineTopK& top_k, std::size_t n_params, MergeTimer& timed) {
  TopRows best(top_k.objective, top_k.k, n_params);
  // Rows done before (a checkpoint's), a chunk at a time (bounded extra memory).
  if (options.resumed > 0) timed([&] {
    const std::size_t chunk = std::min(static_cast<std::size_t>(options.chunk_combos), options.resumed);
    std::vector<std::uint64_t> ids(chunk);
    std::vector<double> params(chunk * n_params), metrics(chunk * n_metrics);
    for (std::size_t first = 0; first < options.resumed; first += chunk) {
      const std::size_t count = std::min(chunk, options.resumed - first);
      options.done_rows->read(first, count, ids.data(), params.data(), metrics.data());
      best.offer_block(first, count, ids.data(), params.data(), metrics.data());
    }
  });
  if (options.progress) options.progress(options.resumed);
  return best;
}

void rank_chunk_on_windows(SweepEngine& engine, const PreparedSweep& sweep, const std::vector<ScoringWindow>& windows,
                           const EngineTopK& top_k, std::size_t first, std::size_t count, std::vector<TopRows>& best) {
  const std::size_t np = sweep.n_params();
  const EngineOutput out = engine.run(first, first + count, windows, top_k);
  if (out.metrics.size() != windows.size() * count * n_metrics || out.top_k.size() != windows.size())
    throw Error(ErrorCategory::internal, "sweep engine returned the wrong shape");
  std::vector<std::uint64_t> ids(count);
  std::vector<double> params(count * np);
  sweep.combos.read(first, count, ids.data(), params.data());
  for (std::size_t w = 0; w < windows.size(); ++w)
    for (const std::size_t row : out.top_k[w])
      best[w].offer(first + row, ids[row], params.data() + row * np, out.metrics.data() + (w * count + row) * n_metrics);
}

std::vector<RowTable> best_tables(const std::vector<TopRows>& best, MetricMask metrics) {
  std::vector<RowTable> tables;
  for (const TopRows& t : best) {
    tables.push_back(t.best());
    tables.back().metric_mask = metrics;
  }
  return tables;
}

void add_phases(EnginePhases& sum, const EnginePhases& chunk) {
  sum.upload += chunk.upload, sum.fold_kernels += chunk.fold_kernels, sum.kernel += chunk.kernel;
  sum.top_k += chunk.top_k, sum.download += chunk.download;
  sum.hoist_tiles_computed += chunk.hoist_tiles_computed;
  sum.hoisted_series_computed += chunk.hoisted_series_computed;
  sum.kernel_bytes = std::max(sum.kernel_bytes, chunk.kernel_bytes);
}

void complete_best_rows(SweepEngine& engine, const PreparedSweep& sweep, DriverResult& result) {
  // The best rows get every metric, on the same engine (docs/metrics.md "Metric sets").
  if (sweep.metric_groups != metric_group::all && result.best.size() > 0) {
    const auto t0 = std::chrono::steady_clock::now();
    std::vector<std::size_t> order(result.best.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return result.best.rows[a] < result.best.rows[b]; });
    std::vector<std::uint64_t> ascending;
    for (const std::size_t i : order) ascending.push_back(result.best.rows[i]);
    const std::vector<double> full = engine.all_metrics(ascending);
    if (full.size() != ascending.size() * n_metrics) throw Error(ErrorCategory::internal, "all_metrics: wrong shape");
    for (std::size_t k = 0; k < order.size(); ++k)
      std::copy_n(full.begin() + static_cast<std::ptrdiff_t>(k * n_metrics), n_metrics,
                  result.best.metrics.begin() + static_cast<std::ptrdiff_t>(order[k] * n_metrics));
    result.seconds_best_rows = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
}

}  // namespace detail

std::vector<RowTable> rank_on_windows(SweepEngine& engine, const PreparedSweep& sweep,
                                      const std::vector<ScoringWindow>& windows, const EngineTopK& top_k,
                                      std::uint64_t chunk_combos) {
  const std::size_t n = sweep.n_combos(), np = sweep.n_params();
  const std::size_t chunk = static_cast<std::size_t>(std::max<std::uint64_t>(chunk_combos, 1));
  std::vector<TopRows> best(windows.size(), TopRows(top_k.objective, top_k.k, np));
  for (std::size_t first = 0; first < n; first += chunk)
    detail::rank_chunk_on_windows(engine, sweep, windows, top_k, first, std::min(chunk, n - first), best);
  return detail::best_tables(best, sweep.metrics);
}

DriverResult drive_sweep(SweepEngine& engine, const PreparedSweep& sweep, const EngineTopK& top_k,
                         const DriverOptions& options) {
  const std::size_t n = sweep.n_combos();
  if (options.resumed > n || options.chunk_combos == 0 || (options.resumed > 0 && !options.done_rows))
    throw Error(ErrorCategory::internal, "drive_sweep: bad resume point or chunk size");
  const std::size_t chunk = static_cast<std::size_t>(options.chunk_combos);
  const std::size_t n_params = sweep.n_params();
  DriverResult result;
  detail::MergeTimer timed_merge;
  TopRows best = detail::start_ranking(options, top_k, n_params, timed_merge);
  std::vector<std::uint64_t> ids;
  std::vector<double> params;
  for (std::size_t first = options.resumed; first < n; first += chunk, ++result.chunks) {
    const std::size_t count = std::min(chunk, n - first);
    result.combos += count;
    EngineOutput out = engine.run(first, first + count, {}, top_k);
    if (out.metrics.size() != count * n_metrics || out.top_k.size() != 1)
      throw Error(ErrorCategory::internal, "sweep engine returned the wrong shape");
    ids.resize(count);
    params.resize(count * n_params);
    sweep.combos.read(first, count, ids.data(), params.data());
    timed_merge([&] {
      for (const std::size_t row : out.top_k[0])
        best.offer(first + row, ids[row], params.data() + row * n_params, out.metrics.data() + row * n_metrics);
    });
    detail::add_phases(result.phases, out.phases);
    if (options.commit) options.commit(first, count, out.metrics.data());
    if (options.progress) options.progress(first + count);
  }
  timed_merge([&] { result.best = best.best(); });
  result.seconds_merge = timed_merge.seconds;
  detail::complete_best_rows(engine, sweep, result);
  return result;
}

}  // namespace kbt
