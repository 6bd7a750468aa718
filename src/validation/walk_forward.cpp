// The walk-forward (include/kbt/validation/validation.hpp, docs/validation.md "Walk-forward").

#include <kbt/validation/validation.hpp>

#include <kbt/config/param_grid.hpp>
#include <kbt/core/error.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/sweep/shared_pieces.hpp>
#include <kbt/sweep/sweep_driver.hpp>
#include <kbt/sweep/sweep_engine.hpp>
#include <kbt/sweep/top_k.hpp>
#include <kbt/validation/sharpe_statistics.hpp>

#include <algorithm>
#include <cmath>
#include <set>

#include "sweep/host_parallel.hpp"

namespace kbt {
namespace {

// The metrics of `rows` (a fold's best, best first) on `window`, in that order.
std::vector<double> metrics_on(SweepEngine& engine, const std::vector<std::uint64_t>& rows, const ScoringWindow& window) {
  std::vector<std::size_t> order(rows.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return rows[a] < rows[b]; });
  std::vector<std::uint64_t> ascending;
  for (const std::size_t i : order) ascending.push_back(rows[i]);
  const std::vector<double> m = engine.all_metrics(ascending, window);
  std::vector<double> out(m.size());
  for (std::size_t k = 0; k < order.size(); ++k)
    std::copy_n(m.begin() + static_cast<std::ptrdiff_t>(k * n_metrics), n_metrics,
                out.begin() + static_cast<std::ptrdiff_t>(order[k] * n_metrics));
  return out;
}

// A fold's best rows with every metric on its train and on its test window.
struct FoldScores {
  std::vector<double> train, test;  // [rows][n_metrics], best first
};

// Every fold's scores. Shared among processes: the root's best rows of each
// fold go to every process, fold f is scored on rank f % size, and the root
// gathers them (the others' result is partial).
std::vector<FoldScores> score_folds(SweepEngine& engine, const std::vector<RowTable>& best,
                                    const std::vector<TrainTest>& windows, ChunkExchange* exchange) {
  const std::size_t n_folds = windows.size();
  std::vector<std::vector<std::uint64_t>> rows(n_folds);
  for (std::size_t f = 0; f < n_folds && f < best.size(); ++f) rows[f] = best[f].rows;
  if (exchange) {  // per fold: its row count, then its rows
    std::vector<double> flat;
    for (const auto& r : rows) {
      flat.push_back(static_cast<double>(r.size()));
      for (const std::uint64_t row : r) flat.push_back(static_cast<double>(row));
    }
    exchange->broadcast(flat);
    std::size_t at = 0;
    for (auto& r : rows) {
      r.resize(static_cast<std::size_t>(flat.at(at++)));
      for (auto& row : r) row = static_cast<std::uint64_t>(flat.at(at++));
    }
  }
  std::vector<FoldScores> scores(n_folds);
  for (const std::size_t f : my_pieces(exchange, n_folds)) {
    if (rows[f].empty()) continue;
    scores[f].train = metrics_on(engine, rows[f], windows[f].train);
    scores[f].test = metrics_on(engine, rows[f], windows[f].test);
  }
  // Fold f travels as its train metrics, then its test metrics.
  gather_pieces(
      exchange, n_folds,
      [&](std::size_t f) {
        std::vector<double> out = scores[f].train;
        out.insert(out.end(), scores[f].test.begin(), scores[f].test.end());
        return out;
      },
      [&](std::size_t f, const std::vector<double>& values) {
        const std::size_t half = rows[f].size() * n_metrics;
        if (values.size() != 2 * half) throw Error(ErrorCategory::internal, "walk-forward: a fold of the wrong shape arrived");
        scores[f].train.assign(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(half));
        scores[f].test.assign(values.begin() + static_cast<std::ptrdiff_t>(half), values.end());
      });
  return scores;
}

// The folds' choices spliced into one strategy output: in fold f's test
// window the outputs of its choice, elsewhere flat (target 0; exits).
StrategyOutputs spliced(const std::vector<StrategyOutputs>& chosen, const std::vector<WalkForwardFold>& folds) {
  StrategyOutputs out;
  out.form = chosen.front().form;
  out.n_symbols = chosen.front().n_symbols;
  out.n_bars = chosen.front().n_bars;
  const std::size_t size = out.n_symbols * out.n_bars;
  const bool position = out.form == StrategyOutputs::Form::position;
  if (position) {
    out.target.assign(size, 0.0);
  } else {
    out.long_entry.assign(size, 0.0), out.short_entry.assign(size, 0.0);
    out.long_exit.assign(size, 1.0), out.short_exit.assign(size, 1.0);
  }
  const auto copy = [&](const std::vector<double>& from, std::vector<double>& to, std::size_t s, std::size_t b, double absent) {
    to[s * out.n_bars + b] = from.empty() ? absent : from[s * out.n_bars + b];
  };
  for (std::size_t f = 0; f < folds.size(); ++f)
    for (std::size_t s = 0; s < out.n_symbols; ++s)
      for (std::size_t b = folds[f].test.begin; b < folds[f].test.end; ++b) {
        if (position) {
          copy(chosen[f].target, out.target, s, b, 0.0);
        } else {
          copy(chosen[f].long_entry, out.long_entry, s, b, 0.0);
          copy(chosen[f].short_entry, out.short_entry, s, b, 0.0);
          copy(chosen[f].long_exit, out.long_exit, s, b, 0.0);
          copy(chosen[f].short_exit, out.short_exit, s, b, 0.0);
        }
      }
  return out;
}

}  // namespace

WalkForwardResults run_walk_forward(const RunConfig& config, const BarData& bars, const std::string& device,
                                    int threads, ChunkExchange* exchange) {
  WalkForwardResults wf;
  const std::vector<TrainTest> windows = resolve_walk_forward(config, bars);
  const PreparedSweep sweep = prepare_sweep(config, bars);
  const auto engine = make_validation_engine(sweep, bars, device, threads);
  std::vector<ScoringWindow> train;
  for (const TrainTest& w : windows) train.push_back(w.train);
  const EngineTopK top{config.sweep.objective, static_cast<std::size_t>(config.validation.top_k)};
  unsigned host_threads = detail::resolve_thread_count(threads);
  const std::uint64_t chunk = resolve_checkpoint_combos(config.sweep.checkpoint_combos, bars.n_bars(), bars.n_symbols(),
                                                        device, host_threads);
  const std::uint64_t shared_chunk = exchange ? exchange->broadcast(chunk) : chunk;  // the root's chunks
  const std::vector<RowTable> best = exchange ? rank_on_windows_shared(*engine, sweep, train, top, shared_chunk, *exchange)
                                              : rank_on_windows(*engine, sweep, train, top, chunk);
  const std::vector<FoldScores> scores = score_folds(*engine, best, windows, exchange);
  if (exchange && !exchange->is_root()) return wf;  // its folds are sent: the root holds the stage
  const int objective = metric_index(config.sweep.objective.metric);
  double is_sum = 0, oos_sum = 0;
  std::size_t counted = 0;
  for (std::size_t f = 0; f < windows.size(); ++f) {
    WalkForwardFold fold;
    fold.train = windows[f].train;
    fold.test = windows[f].test;
    fold.best = best[f];
    if (fold.best.size() > 0) {
      fold.best.metrics = scores[f].train;  // all 21 on the train window
      fold.best.metric_mask = all_metrics_mask;
      fold.test_metrics = scores[f].test;
      std::vector<std::uint64_t> in_sample;
      for (std::size_t i = 0; i < fold.best.size(); ++i) in_sample.push_back(i + 1);
      fold.rank_out_of_sample.assign(fold.best.size(), 0);
      const auto order = select_top_k(fold.test_metrics, fold.best.combo_ids, config.sweep.objective, fold.best.size());
      for (std::size_t r = 0; r < order.size(); ++r) fold.rank_out_of_sample[order[r]] = r + 1;
      fold.rank_correlation = stats::rank_correlation(in_sample, fold.rank_out_of_sample);
      const double is = fold.best.metrics_of(0)[objective], oos = fold.test_metrics[static_cast<std::size_t>(objective)];
      if (std::isfinite(is) && std::isfinite(oos)) is_sum += is, oos_sum += oos, ++counted;
    }
    wf.folds.push_back(std::move(fold));
  }
  wf.efficiency = counted > 0 && is_sum != 0 ? (oos_sum / double(counted)) / (is_sum / double(counted))
                                             : std::nan("");
  // Every fold chose a combo: splice them, simulate once, keep the equity.
  const bool all_chose = std::all_of(wf.folds.begin(), wf.folds.end(), [](const WalkForwardFold& f) { return f.best.size() > 0; });
  if (all_chose) {
    std::vector<StrategyOutputs> chosen;
    std::set<std::uint64_t> ids;
    for (const WalkForwardFold& f : wf.folds) {
      std::vector<double> values(sweep.n_params());
      // The program's params are the grid's, in the same order (prepare_sweep).
      std::copy_n(f.best.params_of(0), sweep.n_params(), values.begin());
      chosen.push_back(evaluate_strategy_reference(sweep.program, bars, values.data()));
      ids.insert(f.best.combo_ids[0]);
    }
    wf.distinct_choices = ids.size();
    ResolvedSimulation sim = sweep.sim;
    sim.window = ScoringWindow{wf.folds.front().test.begin, wf.folds.back().test.end};
    wf.stitched = sim.window;
    SimulationOptions keep;
    keep.keep_equity = true;
    const SimulationResult r = simulate_reference(bars, sim, spliced(chosen, wf.folds), keep);
    wf.stitched_metrics.assign(r.metrics.begin(), r.metrics.end());
    wf.stitched_equity = r.equity;
    // How far the choices move between folds, per param, over its axis range.
    const ParamGrid grid(config.strategy.params);
    double drift_sum = 0;
    for (std::size_t p = 0; p < sweep.n_params(); ++p) {
      const auto& values = grid.axis(p).values;
      const double range = *std::max_element(values.begin(), values.end()) - *std::min_element(values.begin(), values.end());
      double d = 0;
      for (std::size_t f = 1; f < wf.folds.size(); ++f)
        d += std::fabs(wf.folds[f].best.params_of(0)[p] - wf.folds[f - 1].best.params_of(0)[p]);
      const double drift = wf.folds.size() > 1 && range > 0 ? d / double(wf.folds.size() - 1) / range : 0.0;
      wf.param_drift.push_back(drift);
      drift_sum += drift;
    }
    wf.stability = sweep.n_params() > 0 ? 1.0 - drift_sum / double(sweep.n_params()) : 1.0;
  }
  return wf;
}

}  // namespace kbt
