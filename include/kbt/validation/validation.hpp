#pragma once
// The validation stage of `kbt run` (docs/validation.md): is the winner real?
// After the sweep, its best `validation.top_k` candidates (by the objective,
// on the sweep's window: the train window with a holdout) are simulated again
// on the reference engine, their returns bucketed per period, and the stage
// reports, per candidate, the Probabilistic and Deflated Sharpe ratios and the
// Minimum Track Record Length; over the candidates, their correlation (the
// effective number of trials) and the Probability of Backtest Overfitting;
// with a holdout, every candidate's metrics on the test window and how the
// in-sample and out-of-sample ranks agree.

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/output/results.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/validation/pbo.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

struct ValidationResults {
  Objective objective;
  ScoringWindow train;                     // the sweep's window
  std::optional<ScoringWindow> test;       // validation.holdout
  std::string train_text, test_text;       // readable ("bars [a, b): from to to")
  std::string period;                      // day | week | month | <N> bars
  double periods_per_year = 0;             // of the periods, over the train window

  // The candidates, best first by the sweep's objective.
  std::vector<std::uint64_t> rows, combo_ids;
  std::vector<std::string> param_names;
  std::vector<double> params;              // [K][n_params]
  std::vector<double> metrics;             // [K][n_metrics] on the train window (the sweep's)
  // Their returns per period of the train window: [P][K], and each period's first bar.
  std::vector<std::int64_t> period_start_ns;
  std::vector<double> period_returns;
  // Per candidate, from its period returns.
  std::vector<double> sharpe, skewness, kurtosis;  // per period; kurtosis non-excess
  std::vector<double> psr, dsr, min_trl;           // PSR(0), DSR, MinTRL (periods, 95 %)

  // The trials: every combo of the sweep.
  std::uint64_t n_trials = 0;
  double mean_correlation = 0, effective_trials = 0, effective_rank = 0;
  double sharpe_variance = 0;              // of the trials' per-period Sharpe ratios
  std::string sharpe_variance_from;        // "every combo" (their sharpe) or "the candidates"
  double expected_max_sharpe = 0;          // SR0 of the DSR

  std::optional<PboResult> pbo;
  std::string pbo_skipped;                 // why there is no PBO, when there is none

  // Holdout: the candidates on the test window.
  std::vector<double> test_metrics;        // [K][n_metrics]
  std::vector<std::uint64_t> rank_in_sample, rank_out_of_sample;  // 1-based; 0 = not eligible out of sample
  double rank_correlation = 0;             // Spearman over the candidates eligible on both

  double seconds = 0;
  std::size_t n() const { return rows.size(); }
  std::size_t n_periods() const { return period_start_ns.size(); }
};

// Runs the stage for the run `config` on `bars` whose sweep gave `sweep` (its
// best rows hold at least the candidates when there are that many eligible).
// `device`: where PBO and the correlation run ("reference": the host's
// default space). kbt::Error(config) naming the validation key for what the
// data cannot support (too few periods for the PBO blocks is reported, not
// thrown: pbo_skipped).
ValidationResults run_validation(const RunConfig& config, const BarData& bars, const SweepResults& sweep,
                                 const std::string& device, int threads);

// A few lines for the terminal.
std::string format_validation_summary(const ValidationResults& v, std::size_t show = 10);

}  // namespace kbt
