// The verification stage: top-N candidates re-run on the reference engine.

#include <kbt/config/config_loader.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/shared_pieces.hpp>
#include <kbt/sweep/top_k.hpp>
#include <kbt/verify/verify.hpp>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include "config/number_text.hpp"
#include "sweep/host_parallel.hpp"

namespace kbt {
namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

bool same_objective(const Objective& a, const Objective& b) {
  return a.metric == b.metric && a.maximize == b.maximize && a.min_trades == b.min_trades;
}

std::string describe_window(const BarData& bars, const ScoringWindow& w) {
  return "bars [" + std::to_string(w.begin) + ", " + std::to_string(w.end) + "): " +
         format_iso8601_utc(bars.timestamps[w.begin]) + " to " + format_iso8601_utc(bars.timestamps[w.end - 1]);
}

// The simulation settings and options of a verification: the request's window
// bounds over the run's settings.
void verify_settings(const RunConfig& config, const VerifyRequest& request, SimulationSettings& sim,
                     SimulationOptions& options) {
  if (request.score_start_bar && request.score_start_time_ns)
    throw Error(ErrorCategory::config, "verify.score_start: give a bar index or a timestamp, not both");
  sim = config.simulation;
  if (request.score_start_bar || request.score_start_time_ns) {
    sim.score_start_bar = request.score_start_bar;
    sim.score_start_time_ns = request.score_start_time_ns;
  }
  options.score_end_bar = request.score_end_bar;
  options.score_end_time_ns = request.score_end_time_ns;
}

// The request's end, or the sweep's own (the train window's with a holdout).
ScoreEnd verify_end(const RunConfig& config, const BarData& bars, const SimulationOptions& options) {
  if (options.score_end_bar || options.score_end_time_ns) return ScoreEnd{options.score_end_bar, options.score_end_time_ns};
  if (const auto split = resolve_holdout(config, bars))
    return ScoreEnd{static_cast<std::int64_t>(split->train.end), std::nullopt};
  return ScoreEnd{};
}

}  // namespace

std::uint64_t automatic_verify_count(std::uint64_t rows) {
  constexpr std::uint64_t at_least = 20;
  const std::uint64_t share = (rows + 99) / 100;  // 1 %, rounded up
  return std::min(rows, std::min(max_automatic_verify_count, std::max(at_least, share)));
}

VerifyRequest verify_request_from_config(const RunConfig& config) {
  VerifyRequest r;
  r.top_n = config.verify.top_n;
  r.threads = config.verify.threads;
  r.score_start_bar = config.verify.score_start_bar;
  r.score_start_time_ns = config.verify.score_start_time_ns;
  r.score_end_bar = config.verify.score_end_bar;
  r.score_end_time_ns = config.verify.score_end_time_ns;
  r.sweep_precision = config.sweep.precision;
  return r;
}

ScoringWindow resolve_verify_window(const RunConfig& config, const BarData& bars, const VerifyRequest& request) {
  SimulationSettings sim;
  SimulationOptions options;
  verify_settings(config, request, sim, options);
  // Errors name the verify keys, not simulation.score_start.
  try {
    return resolve_scoring_window(bars, sim, verify_end(config, bars, options));
  } catch (const Error& e) {
    throw Error(e.category(), std::string("verification window (verify.score_start / verify.score_end): ") + e.what());
  }
}

VerificationResults verify_candidates(const RunConfig& config, const BarData& bars, const SweepResults& sweep,
                                      const VerifyRequest& request) {
  using Clock = std::chrono::steady_clock;
  const auto t0 = Clock::now();
  if (request.top_n && *request.top_n < 0) throw Error(ErrorCategory::config, "verify.top_n must be >= 0");
  if (request.rank_threshold < 0) throw Error(ErrorCategory::config, "verification rank threshold must be >= 0");
  const Objective& sweep_objective = config.sweep.objective;
  const Objective objective = request.objective.value_or(sweep_objective);
  if (metric_index(objective.metric) < 0)
    throw Error(ErrorCategory::config, "verification objective: " + unknown_metric_message(objective.metric));

  // Settings shared by every candidate: periods_per_year resolved once (the
  // simulator would infer it again per call), the verification window.
  const ScoringWindow window = resolve_verify_window(config, bars, request);
  SimulationSettings sim;
  SimulationOptions options;
  verify_settings(config, request, sim, options);
  {
    const ScoreEnd end = verify_end(config, bars, options);  // the train window's end with a holdout
    options.score_end_bar = end.bar;
    options.score_end_time_ns = end.time_ns;
  }
  const ResolvedSimulation sweep_sim = resolve_simulation(config, bars);
  sim.periods_per_year = sweep_sim.periods_per_year;  // the sweep's annualisation, whatever window is verified
  const ScoringWindow sweep_window = sweep_sim.window;

  const Program program = compile_strategy(config.strategy, schema_of(bars));
  // Column of each program param in the sweep's params (the file may order them differently).
  std::vector<std::size_t> param_column;
  for (const auto& name : program.param_names) {
    const auto it = std::find(sweep.param_names.begin(), sweep.param_names.end(), name);
    if (it == sweep.param_names.end())
      throw Error(ErrorCategory::data_format, "the sweep results have no column for parameter '" + name + "'");
    param_column.push_back(static_cast<std::size_t>(it - sweep.param_names.begin()));
  }

  VerificationResults v;
  const std::uint64_t n_rows = sweep.rows ? sweep.n_rows() : sweep.best.size();  // rows kept: at least the best
  const auto top_n = static_cast<std::size_t>(request.top_n ? static_cast<std::uint64_t>(*request.top_n)
                                                            : automatic_verify_count(n_rows));
  // The sweep's best rows when they are enough, else a selection over every
  // row; either way their values as the rows hold them (a results file's
  // /metrics, not the copy in /topk).
  const RowTable candidates =
      !sweep.rows ? sweep.best.first(top_n)
      : top_n <= sweep.best.size()
          ? read_rows(*sweep.rows, std::vector<std::uint64_t>(sweep.best.rows.begin(),
                                                              sweep.best.rows.begin() + static_cast<std::ptrdiff_t>(top_n)))
          : select_top_rows(*sweep.rows, sweep_objective, top_n);
  ChunkExchange* const exchange = request.exchange;
  const bool root = !exchange || exchange->is_root();
  std::vector<double> candidate_params = candidates.params;  // the root's, to every process
  if (exchange) exchange->broadcast(candidate_params);
  const std::size_t n = root ? candidates.size() : candidate_params.size() / std::max<std::size_t>(1, sweep.param_names.size());
  v.rows = candidates.rows;
  v.combo_ids = candidates.combo_ids;
  v.param_names = sweep.param_names;
  v.params = candidate_params;
  v.sweep_metrics = candidates.metrics;
  for (std::size_t i = 0; i < n; ++i) v.rank_before.push_back(i + 1);
  v.metrics.assign(n * n_metrics, 0.0);
  v.selection = "the best " + detail::format_count(n) + " of " + detail::format_count(n_rows) + " rows by " + sweep_objective.metric +
                (request.top_n ? " (verify.top_n: " + std::to_string(*request.top_n) + ")"
                               : " (verify.top_n: auto, 1% of the rows, at least 20, at most " +
                                     detail::format_count(max_automatic_verify_count) + ")");
  if (n < top_n) v.selection += "; the other rows are not eligible (NaN objective or fewer than min_trades trades)";
  // As many threads as asked, but never more than candidates (host_parallel_for's rule).
  v.threads = static_cast<unsigned>(
      std::min<std::size_t>(detail::resolve_thread_count(request.threads), std::max<std::size_t>(n, 1)));

  // Resolved once; each candidate takes its own swept settings (docs/semantics.md "Swept settings").
  const ResolvedSimulation resolved =
      resolve_simulation(sim, bars, ScoreEnd{options.score_end_bar, options.score_end_time_ns});
  SimulationOptions recording = options;
  recording.score_end_bar.reset();
  recording.score_end_time_ns.reset();
  std::mutex progress_mutex;
  std::size_t done = 0;
  // Shared: this process's candidates are every size-th from its rank.
  const std::vector<std::size_t> mine = my_pieces(exchange, n);
  detail::host_parallel_for(mine.size(), v.threads, [&](std::size_t k) {
    const std::size_t i = mine[k];
    std::vector<double> values(param_column.size());
    const double* row = candidate_params.data() + i * sweep.param_names.size();
    for (std::size_t p = 0; p < values.size(); ++p) values[p] = row[param_column[p]];
    const StrategyOutputs signals = evaluate_strategy_reference(program, bars, values.data());
    const SimulationResult r =
        simulate_reference(bars, combo_simulation(resolved, program.param_names, values.data()), signals, recording);
    std::copy(r.metrics.begin(), r.metrics.end(), v.metrics.begin() + static_cast<std::ptrdiff_t>(i * n_metrics));
    if (request.progress && root) {
      const std::lock_guard<std::mutex> lock(progress_mutex);
      request.progress(++done, n);
    }
  });
  // The others' candidates to the root, which fills their slots.
  gather_pieces(
      exchange, n,
      [&](std::size_t i) {
        return std::vector<double>(v.metrics.begin() + static_cast<std::ptrdiff_t>(i * n_metrics),
                                   v.metrics.begin() + static_cast<std::ptrdiff_t>((i + 1) * n_metrics));
      },
      [&](std::size_t i, const std::vector<double>& metrics) {
        if (metrics.size() != n_metrics)
          throw Error(ErrorCategory::internal, "verification: a candidate of the wrong shape arrived");
        std::copy(metrics.begin(), metrics.end(), v.metrics.begin() + static_cast<std::ptrdiff_t>(i * n_metrics));
        if (request.progress) request.progress(++done, n);
      });
  if (!root) return v;  // partial: the root holds the stage

  v.rank_after.assign(n, 0);
  const auto order = select_top_k(v.metrics, v.combo_ids, objective, n);
  for (std::size_t j = 0; j < order.size(); ++j) v.rank_after[order[j]] = j + 1;

  v.window_begin = window.begin;
  v.window_end = window.end;
  v.window = describe_window(bars, window);
  v.same_window = window.begin == sweep_window.begin && window.end == sweep_window.end;
  v.objective = objective;
  v.sweep_precision = request.sweep_precision;
  v.rank_threshold = request.rank_threshold;
  const bool fp64 = request.sweep_precision == "fp64";
  v.mismatch_checked = v.same_window && fp64;
  v.rank_checked = v.same_window && !fp64 && same_objective(objective, sweep_objective);
  v.mismatch.assign(n, 0);
  v.rank_moved.assign(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    if (v.mismatch_checked) {
      const double* before = candidates.metrics_of(i);
      const double* after = &v.metrics[i * n_metrics];
      for (std::size_t m = 0; m < n_metrics; ++m)  // the metrics the sweep computed
        if (has_metric(candidates.metric_mask, static_cast<int>(m)) && !same_bits(before[m], after[m])) v.mismatch[i] = 1;
    }
    if (v.rank_checked) {
      const auto a = static_cast<std::int64_t>(v.rank_after[i]), b = static_cast<std::int64_t>(v.rank_before[i]);
      if (a == 0 || std::llabs(a - b) > request.rank_threshold) v.rank_moved[i] = 1;
    }
  }
  v.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  return v;
}

void parse_window_bound(const std::string& text, const std::string& what, std::optional<std::int64_t>& bar,
                        std::optional<std::int64_t>& time_ns) {
  bar.reset();
  time_ns.reset();
  if (!text.empty() && text.find_first_not_of("0123456789") == std::string::npos && text.size() < 19) {
    bar = std::stoll(text);
    return;
  }
  if (const auto t = parse_iso8601_ns(text)) {
    time_ns = *t;
    return;
  }
  throw Error(ErrorCategory::config, what + ": '" + text +
                                         "' is neither a bar index (integer >= 0) nor an ISO-8601 UTC timestamp "
                                         "such as 2021-06-01 or 2021-06-01T12:00:00Z");
}

}  // namespace kbt
