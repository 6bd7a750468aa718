// drive_sweep: chunks, commits, progress and the top-K merge.

#include <kbt/sweep/sweep_driver.hpp>

#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/top_k.hpp>

#include <algorithm>
#include <chrono>

namespace kbt {
namespace {

// The global top-K among candidate rows of `metrics`.
std::vector<std::size_t> merge_top_k(const std::vector<std::size_t>& candidates, const std::vector<double>& metrics,
                                     const PreparedSweep& sweep, const EngineTopK& top_k) {
  std::vector<double> cand_metrics;
  std::vector<std::uint64_t> cand_ids;
  cand_metrics.reserve(candidates.size() * n_metrics);
  for (const std::size_t row : candidates) {
    cand_metrics.insert(cand_metrics.end(), metrics.begin() + static_cast<std::ptrdiff_t>(row * n_metrics),
                        metrics.begin() + static_cast<std::ptrdiff_t>((row + 1) * n_metrics));
    cand_ids.push_back(sweep.combo_ids[row]);
  }
  std::vector<std::size_t> rows;
  for (const std::size_t j : select_top_k(cand_metrics, cand_ids, top_k.objective, top_k.k))
    rows.push_back(candidates[j]);
  return rows;
}

}  // namespace

DriverResult drive_sweep(SweepEngine& engine, const PreparedSweep& sweep, const EngineTopK& top_k,
                         std::vector<double>& metrics, const DriverOptions& options) {
  const std::size_t n = sweep.n_combos();
  if (metrics.size() != n * n_metrics) throw Error(ErrorCategory::internal, "drive_sweep: metrics matrix of the wrong size");
  if (options.resumed > n || options.chunk_combos == 0)
    throw Error(ErrorCategory::internal, "drive_sweep: bad resume point or chunk size");
  const std::size_t chunk = static_cast<std::size_t>(options.chunk_combos);
  DriverResult result;
  std::vector<std::size_t> candidates;
  // Rows done before (a checkpoint's), a chunk at a time (bounded extra memory).
  for (std::size_t first = 0; first < options.resumed; first += chunk) {
    const std::size_t count = std::min(chunk, options.resumed - first);
    const std::vector<double> done(metrics.begin() + static_cast<std::ptrdiff_t>(first * n_metrics),
                                   metrics.begin() + static_cast<std::ptrdiff_t>((first + count) * n_metrics));
    const std::vector<std::uint64_t> ids(sweep.combo_ids.begin() + static_cast<std::ptrdiff_t>(first),
                                         sweep.combo_ids.begin() + static_cast<std::ptrdiff_t>(first + count));
    for (const std::size_t row : select_top_k(done, ids, top_k.objective, top_k.k)) candidates.push_back(first + row);
  }
  if (options.progress) options.progress(options.resumed);
  for (std::size_t first = options.resumed; first < n; first += chunk, ++result.chunks) {
    const std::size_t count = std::min(chunk, n - first);
    EngineOutput out = engine.run(first, first + count, {}, top_k);
    if (out.metrics.size() != count * n_metrics || out.top_k.size() != 1)
      throw Error(ErrorCategory::internal, "sweep engine returned the wrong shape");
    std::copy(out.metrics.begin(), out.metrics.end(), metrics.begin() + static_cast<std::ptrdiff_t>(first * n_metrics));
    for (const std::size_t row : out.top_k[0]) candidates.push_back(first + row);
    EnginePhases& p = result.phases;
    p.upload += out.phases.upload, p.fold_kernels += out.phases.fold_kernels, p.kernel += out.phases.kernel;
    p.top_k += out.phases.top_k, p.download += out.phases.download;
    p.hoist_tiles_computed += out.phases.hoist_tiles_computed;
    p.kernel_bytes = std::max(p.kernel_bytes, out.phases.kernel_bytes);
    if (options.commit) options.commit(first, count, &metrics[first * n_metrics]);
    if (options.progress) options.progress(first + count);
  }
  const auto t_merge = std::chrono::steady_clock::now();
  result.top_k = merge_top_k(candidates, metrics, sweep, top_k);
  result.seconds_merge = std::chrono::duration<double>(std::chrono::steady_clock::now() - t_merge).count();
  return result;
}

}  // namespace kbt
