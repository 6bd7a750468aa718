// drive_sweep_shared: one sweep's chunks among several processes (docs/mpi.md).

#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/sweep_driver.hpp>
#include <kbt/sweep/top_k.hpp>

#include <algorithm>
#include <chrono>
#include <map>

#include "sweep/driver_steps.hpp"

namespace kbt {

DriverResult drive_sweep_shared(SweepEngine& engine, const PreparedSweep& sweep, const EngineTopK& top_k,
                                const DriverOptions& options, ChunkExchange& exchange) {
  const std::size_t n = sweep.n_combos(), n_params = sweep.n_params();
  if (options.resumed > n || options.chunk_combos == 0 || (exchange.is_root() && options.resumed > 0 && !options.done_rows))
    throw Error(ErrorCategory::internal, "drive_sweep_shared: bad resume point or chunk size");
  const std::size_t chunk = static_cast<std::size_t>(options.chunk_combos);
  const std::size_t n_chunks = (n - options.resumed + chunk - 1) / chunk;
  const auto first_of = [&](std::size_t c) { return options.resumed + c * chunk; };
  const auto count_of = [&](std::size_t c) { return std::min(chunk, n - first_of(c)); };
  const auto simulate = [&](std::size_t c, DriverResult& result) {
    EngineOutput out = engine.run(first_of(c), first_of(c) + count_of(c), {}, top_k);
    if (out.metrics.size() != count_of(c) * n_metrics) throw Error(ErrorCategory::internal, "sweep engine returned the wrong shape");
    detail::add_phases(result.phases, out.phases);
    ++result.chunks;
    result.combos += count_of(c);
    return std::move(out.metrics);
  };
  DriverResult result;
  exchange.start();
  if (!exchange.is_root()) {
    while (const auto c = exchange.claim(n_chunks)) exchange.send(*c, simulate(*c, result));
    exchange.finish_sends();
    return result;
  }

  // The root: its own chunks between the others' arrivals; commits in order.
  detail::MergeTimer timed_merge;
  TopRows best = detail::start_ranking(options, top_k, n_params, timed_merge);
  std::map<std::size_t, std::vector<double>> arrived;  // finished, not yet committed
  std::size_t next = 0;                                // the next chunk to commit
  std::vector<std::uint64_t> ids;
  std::vector<double> params;
  const auto commit_ready = [&] {
    for (auto it = arrived.find(next); it != arrived.end(); it = arrived.find(++next)) {
      const std::size_t first = first_of(next), count = count_of(next);
      ids.resize(count);
      params.resize(count * n_params);
      sweep.combos.read(first, count, ids.data(), params.data());
      timed_merge([&] { best.offer_block(first, count, ids.data(), params.data(), it->second.data()); });
      if (options.commit) options.commit(first, count, it->second.data());
      arrived.erase(it);
      if (options.progress) options.progress(first + count);
    }
  };
  const auto take_arrivals = [&](bool wait) {
    std::vector<double> metrics;
    for (bool block = wait; const auto c = exchange.receive(block, metrics); block = false) {
      if (*c >= n_chunks || metrics.size() != count_of(*c) * n_metrics)
        throw Error(ErrorCategory::internal, "drive_sweep_shared: a chunk of the wrong shape arrived");
      arrived.emplace(*c, std::move(metrics));
    }
  };
  while (const auto c = exchange.claim(n_chunks)) {
    arrived.emplace(*c, simulate(*c, result));
    take_arrivals(false);
    commit_ready();
  }
  while (next < n_chunks) {  // the others' last chunks
    take_arrivals(true);
    commit_ready();
  }
  exchange.finish_sends();
  timed_merge([&] { result.best = best.best(); });
  result.seconds_merge = timed_merge.seconds;
  detail::complete_best_rows(engine, sweep, result);
  return result;
}

}  // namespace kbt
