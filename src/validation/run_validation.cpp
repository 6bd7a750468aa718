// The validation stage (include/kbt/validation/validation.hpp, docs/validation.md).

#include <kbt/validation/validation.hpp>

#include <kbt/core/error.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/shared_pieces.hpp>
#include <kbt/sweep/sweep_engine.hpp>
#include <kbt/sweep/top_k.hpp>
#include <kbt/validation/correlation.hpp>
#include <kbt/validation/period_returns.hpp>
#include <kbt/validation/sharpe_statistics.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <numeric>

#include "validation/candidate_scoring.hpp"
#include "validation/pbo_configurations.hpp"

namespace kbt {
namespace {

std::string describe(const BarData& bars, const ScoringWindow& w) {
  return "bars [" + std::to_string(w.begin) + ", " + std::to_string(w.end) + "): " +
         format_iso8601_utc(bars.timestamps[w.begin]) + " to " + format_iso8601_utc(bars.timestamps[w.end - 1]);
}

// The variance of the trials' Sharpe ratios per period: from every combo's
// `sharpe` (annualised with the bars' periods per year) when the rows hold it.
double trials_sharpe_variance(const SweepResults& sweep, double period_per_year, std::string& from) {
  if (sweep.rows && has_metric(sweep.rows->metric_mask(), int(Metric::sharpe))) {
    double n = 0, mean = 0, m2 = 0;  // Welford over the finite values
    for_each_row_block(*sweep.rows, 65536, RowParts{false, false, true},
                       [&](std::uint64_t, std::uint64_t count, const std::uint64_t*, const double*, const double* m) {
                         for (std::uint64_t i = 0; i < count; ++i) {
                           const double x = m[i * n_metrics + int(Metric::sharpe)];
                           if (!std::isfinite(x)) continue;
                           n += 1;
                           const double d = x - mean;
                           mean += d / n;
                           m2 += d * (x - mean);
                         }
                       });
    if (n > 1) {
      from = "every combo";
      return m2 / (n - 1) / period_per_year;  // (annual Sharpe / sqrt(periods a year))^2
    }
  }
  from = "the candidates";
  return std::numeric_limits<double>::quiet_NaN();
}

}  // namespace

ValidationResults run_validation(const RunConfig& config, const BarData& bars, const SweepResults& sweep,
                                 const std::string& device, int threads, ChunkExchange* exchange) {
  const auto t0 = std::chrono::steady_clock::now();
  const ValidationSettings& settings = config.validation;
  ValidationResults v;
  v.objective = config.sweep.objective;
  const ResolvedSimulation sim = resolve_simulation(config, bars);
  v.train = sim.window;
  v.test = sim.test_window;
  v.train_text = describe(bars, v.train);
  if (v.test) v.test_text = describe(bars, *v.test);
  v.period = settings.period == "bars" ? std::to_string(settings.period_bars) + " bars" : settings.period;
  v.n_trials = sweep.n_rows();
  v.param_names = sweep.param_names;

  // The candidates: the sweep's best rows (every metric), best first.
  const RowTable best = sweep.best.first(static_cast<std::size_t>(settings.top_k));
  const std::size_t k = best.size();
  v.rows = best.rows;
  v.combo_ids = best.combo_ids;
  v.params = best.params;
  v.metrics = best.metrics;

  // The candidates are re-simulated on the run's device (the kernel engine:
  // one pass per window for all of them, the period returns bucketed there).
  const PreparedSweep prepared = prepare_sweep(config, bars);
  std::vector<std::size_t> column;  // each of the sweep's params' column in the results
  for (const auto& name : prepared.param_names) {
    const auto it = std::find(v.param_names.begin(), v.param_names.end(), name);
    if (it == v.param_names.end())
      throw Error(ErrorCategory::data_format, "the sweep results have no column for parameter '" + name + "'");
    column.push_back(static_cast<std::size_t>(it - v.param_names.begin()));
  }
  const PeriodGrid grid = make_period_grid(bars, v.train, settings.period, settings.period_bars, sim.periods_per_year);
  const std::size_t p = grid.size();
  v.periods_per_year = grid.periods_per_year;
  v.period_start_ns = grid.start_ns;
  std::vector<double> params;
  for (std::size_t j = 0; j < k; ++j)
    for (const std::size_t c : column) params.push_back(best.params_of(j)[c]);
  detail::score_candidates(prepared, bars, device, threads, params, k, grid.last_bar, exchange, v);
  detail::pbo_over_configurations(config, prepared, bars, sweep, column, grid, device, threads, exchange, v);
  if (exchange && !exchange->is_root()) {  // its share is sent: the root holds the stage
    if (settings.walk_forward) run_walk_forward(config, bars, device, threads, exchange);
    return v;
  }

  // Per candidate: the moments of its period returns, PSR, MinTRL.
  std::vector<double> x(p);
  for (std::size_t j = 0; j < k; ++j) {
    for (std::size_t t = 0; t < p; ++t) x[t] = v.period_returns[t * k + j];
    const stats::Moments m = stats::moments(x.data(), p);
    v.sharpe.push_back(m.sharpe());
    v.skewness.push_back(m.skewness);
    v.kurtosis.push_back(m.kurtosis);
    v.psr.push_back(stats::probabilistic_sharpe(m.sharpe(), 0.0, double(p), m.skewness, m.kurtosis));
    v.min_trl.push_back(stats::min_track_record_length(m.sharpe(), 0.0, m.skewness, m.kurtosis, 0.95));
  }
  // The trials: correlation (effective number), the variance of their Sharpe ratios, SR0, DSR.
  if (k >= 2 && p >= 2) {
    const CorrelationSummary c = correlation_of(v.period_returns, p, k, device);
    v.mean_correlation = c.mean_off_diagonal;
    v.effective_rank = c.effective_rank;
  }
  v.effective_trials = stats::effective_trials_from_correlation(v.mean_correlation, double(std::max<std::uint64_t>(v.n_trials, 1)));
  v.sharpe_variance = trials_sharpe_variance(sweep, v.periods_per_year, v.sharpe_variance_from);
  if (!std::isfinite(v.sharpe_variance)) {
    const std::vector<double> finite = [&] {
      std::vector<double> out;
      for (const double s : v.sharpe)
        if (std::isfinite(s)) out.push_back(s);
      return out;
    }();
    v.sharpe_variance = finite.size() > 1 ? std::pow(stats::moments(finite.data(), finite.size()).std_dev, 2) : 0.0;
  }
  v.expected_max_sharpe = stats::expected_max_sharpe(v.effective_trials, v.sharpe_variance);
  for (std::size_t j = 0; j < k; ++j)
    v.dsr.push_back(stats::probabilistic_sharpe(v.sharpe[j], v.expected_max_sharpe, double(p), v.skewness[j], v.kurtosis[j]));

  // Holdout: the out-of-sample ranks.
  if (v.test) {
    for (std::size_t j = 0; j < k; ++j) v.rank_in_sample.push_back(j + 1);
    v.rank_out_of_sample.assign(k, 0);
    const auto order = select_top_k(v.test_metrics, v.combo_ids, v.objective, k);
    for (std::size_t r = 0; r < order.size(); ++r) v.rank_out_of_sample[order[r]] = r + 1;
    v.rank_correlation = stats::rank_correlation(v.rank_in_sample, v.rank_out_of_sample);
  }
  if (settings.walk_forward) v.walk_forward = run_walk_forward(config, bars, device, threads, exchange);
  v.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return v;
}

}  // namespace kbt
