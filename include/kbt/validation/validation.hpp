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
#include <kbt/sweep/chunk_exchange.hpp>
#include <kbt/validation/pbo.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

// validation.walk_forward (docs/validation.md "Walk-forward").
struct WalkForwardFold {
  ScoringWindow train, test;
  RowTable best;                      // its top-K on the train window, best first, all 21 metrics there
  std::vector<double> test_metrics;   // [K][n_metrics]: the same rows on the test window
  std::vector<std::uint64_t> rank_out_of_sample;  // 1-based by the objective on the test window; 0 = not eligible
  double rank_correlation = 0;        // Spearman of in-sample and test ranks
};
struct WalkForwardResults {
  std::vector<WalkForwardFold> folds;  // in time order; each fold's choice is best.rows[0]
  ScoringWindow stitched;              // from the first test window's start to the last's end
  std::vector<double> stitched_metrics;  // [n_metrics]: the chosen combos spliced, one simulation
  std::vector<double> stitched_equity;   // at each bar of `stitched`
  double efficiency = 0;               // mean test objective / mean train objective of the choices
  std::vector<double> param_drift;     // per param: mean |change| between folds / the axis range
  double stability = 0;                // 1 - the mean drift
  std::size_t distinct_choices = 0;
};

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

  // PBO over the sweep's configurations: every combo, or a uniform sample of
  // validation.pbo_configs of them (pbo_configurations < n_trials).
  std::optional<PboResult> pbo;
  std::string pbo_skipped;                 // why there is no PBO, when there is none
  std::uint64_t pbo_configurations = 0;    // how many it ranked
  std::uint64_t pbo_sample_seed = 0;       // the sample's seed, when it is one

  // Holdout: the candidates on the test window.
  std::vector<double> test_metrics;        // [K][n_metrics]
  std::vector<std::uint64_t> rank_in_sample, rank_out_of_sample;  // 1-based; 0 = not eligible out of sample
  double rank_correlation = 0;             // Spearman over the candidates eligible on both

  std::optional<WalkForwardResults> walk_forward;

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
// `exchange`: shared among processes (docs/mpi.md), every process calls it;
// the candidates and the walk-forward are shared, the root's result is the
// single process's and the others' partial.
ValidationResults run_validation(const RunConfig& config, const BarData& bars, const SweepResults& sweep,
                                 const std::string& device, int threads, ChunkExchange* exchange = nullptr);

// The walk-forward of `config` (its folds by resolve_walk_forward): every
// combo ranked on every train window in one pass of the engine of `device`
// ("reference" or a Kokkos space, fp64), each fold's top-K scored on its test
// window, and the stitched out-of-sample run of the folds' choices.
// Shared among the processes of `exchange`, the ranking's chunks are
// shared; the root's result is the single process's, the others' empty.
WalkForwardResults run_walk_forward(const RunConfig& config, const BarData& bars, const std::string& device,
                                    int threads, ChunkExchange* exchange = nullptr);

// A few lines for the terminal.
std::string format_validation_summary(const ValidationResults& v, std::size_t show = 10);

}  // namespace kbt
