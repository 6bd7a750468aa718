// drive_sweep_shared: one sweep's chunks among several processes (docs/mpi.md).

#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/sweep/sweep_driver.hpp>
#include <kbt/sweep/top_k.hpp>

#include <algorithm>
#include <chrono>
#include <cstring>
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

namespace {

// A table of best rows as doubles (rows and combo ids bit for bit), to travel
// as a chunk's metrics do: [n, then per row: row, id, params, metrics].
double as_double(std::uint64_t u) {
  double d;
  std::memcpy(&d, &u, sizeof d);
  return d;
}
std::uint64_t as_uint(double d) {
  std::uint64_t u;
  std::memcpy(&u, &d, sizeof u);
  return u;
}

std::vector<double> packed(const RowTable& t) {
  std::vector<double> out{static_cast<double>(t.size())};
  for (std::size_t i = 0; i < t.size(); ++i) {
    out.push_back(as_double(t.rows[i]));
    out.push_back(as_double(t.combo_ids[i]));
    out.insert(out.end(), t.params_of(i), t.params_of(i) + t.n_params);
    out.insert(out.end(), t.metrics_of(i), t.metrics_of(i) + n_metrics);
  }
  return out;
}

void offer_packed(TopRows& best, const std::vector<double>& in, std::size_t n_params) {
  const std::size_t stride = 2 + n_params + n_metrics;
  const std::size_t n = in.empty() ? 0 : static_cast<std::size_t>(in[0]);
  if (in.size() != 1 + n * stride) throw Error(ErrorCategory::internal, "walk-forward: best rows of the wrong shape arrived");
  for (std::size_t i = 0; i < n; ++i) {
    const double* r = in.data() + 1 + i * stride;
    best.offer(as_uint(r[0]), as_uint(r[1]), r + 2, r + 2 + n_params);
  }
}

}  // namespace

std::vector<RowTable> rank_on_windows_shared(SweepEngine& engine, const PreparedSweep& sweep,
                                             const std::vector<ScoringWindow>& windows, const EngineTopK& top_k,
                                             std::uint64_t chunk_combos, ChunkExchange& exchange) {
  const std::size_t n = sweep.n_combos(), np = sweep.n_params(), n_windows = windows.size();
  const std::size_t chunk = static_cast<std::size_t>(std::max<std::uint64_t>(chunk_combos, 1));
  const std::size_t n_chunks = (n + chunk - 1) / chunk;
  std::vector<TopRows> best(n_windows, TopRows(top_k.objective, top_k.k, np));
  exchange.start();
  while (const auto c = exchange.claim(n_chunks))
    detail::rank_chunk_on_windows(engine, sweep, windows, top_k, *c * chunk, std::min(chunk, n - *c * chunk), best);
  if (!exchange.is_root()) {
    for (std::size_t w = 0; w < n_windows; ++w) exchange.send(w, packed(best[w].best()));
    exchange.finish_sends();
    return {};
  }
  std::vector<double> in;
  for (std::size_t received = 0; received < (static_cast<std::size_t>(exchange.size()) - 1) * n_windows; ++received) {
    const auto w = exchange.receive(true, in);
    if (!w || *w >= n_windows) throw Error(ErrorCategory::internal, "walk-forward: best rows of no window arrived");
    offer_packed(best[*w], in, np);
  }
  exchange.finish_sends();
  return detail::best_tables(best, sweep.metrics);
}

}  // namespace kbt
