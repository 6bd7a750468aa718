// The reference engine as a SweepEngine: combos in parallel on host threads,
// each evaluated once and simulated on every requested window.

#include <kbt/sweep/sweep_engine.hpp>

#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/top_k.hpp>
#include <kbt/validation/period_returns.hpp>

#include <algorithm>
#include <limits>
#include <string>

#include "sweep/host_parallel.hpp"

namespace kbt {

namespace {

class ReferenceEngine final : public SweepEngine {
 public:
  ReferenceEngine(const PreparedSweep& sweep, const BarData& bars, int threads)
      : sweep_(sweep), bars_(bars), threads_(detail::resolve_thread_count(threads)) {}

  const std::string& device() const override { return name_; }
  std::string top_k_selected_on() const override { return "host"; }

  EngineOutput run(std::size_t begin, std::size_t end, const std::vector<ScoringWindow>& windows,
                   const EngineTopK& top_k) override {
    if (begin > end || end > sweep_.n_combos())
      throw Error(ErrorCategory::internal, "reference engine: combo range out of bounds");
    check_scoring_windows(windows, bars_.n_bars());
    std::vector<ResolvedSimulation> sims;
    if (windows.empty()) sims.push_back(sweep_.sim);
    for (const ScoringWindow& w : windows) {
      sims.push_back(sweep_.sim);
      sims.back().window = w;
    }
    const std::size_t count = end - begin, n_windows = sims.size();
    EngineOutput out;
    out.metrics.assign(n_windows * count * n_metrics, 0.0);
    std::vector<std::uint64_t> ids(count);
    std::vector<double> params(count * sweep_.n_params());
    sweep_.combos.read(begin, count, ids.data(), params.data());
    detail::host_parallel_for(count, threads_, [&](std::size_t j) {
      const StrategyOutputs signals =
          evaluate_strategy_reference(sweep_.program, bars_, params.data() + j * sweep_.n_params(), &cache_);
      const double* values = params.data() + j * sweep_.n_params();
      for (std::size_t w = 0; w < n_windows; ++w) {
        const SimulationResult sim =
            simulate_reference(bars_, combo_simulation(sims[w], sweep_.program.param_names, values), signals);
        double* row = out.metrics.data() + (w * count + j) * n_metrics;
        // Every metric is computed; the sweep's set is what the rows keep.
        for (std::size_t m = 0; m < n_metrics; ++m)
          row[m] = has_metric(sweep_.metrics, static_cast<int>(m)) ? sim.metrics[m] : nan_;
      }
    });
    for (std::size_t w = 0; w < n_windows; ++w) {
      const std::vector<double> window_metrics(
          out.metrics.begin() + static_cast<std::ptrdiff_t>(w * count * n_metrics),
          out.metrics.begin() + static_cast<std::ptrdiff_t>((w + 1) * count * n_metrics));
      out.top_k.push_back(top_k.k ? select_top_k(window_metrics, ids, top_k.objective, top_k.k)
                                  : std::vector<std::size_t>{});
    }
    return out;
  }

  CandidateRuns run_candidates(const std::vector<double>& params, const ScoringWindow& window,
                               const std::vector<std::size_t>& period_last) override {
    check_scoring_windows({window}, bars_.n_bars());
    const std::size_t np = sweep_.n_params(), k = np == 0 ? 1 : params.size() / np, p = period_last.size();
    ResolvedSimulation sim = sweep_.sim;
    sim.window = window;
    PeriodGrid grid;
    grid.last_bar = period_last;
    SimulationOptions keep;
    keep.keep_equity = p > 0;
    CandidateRuns out;
    out.metrics.assign(k * n_metrics, 0.0);
    out.period_returns.assign(p * k, 0.0);
    detail::host_parallel_for(k, threads_, [&](std::size_t j) {
      const double* values = params.data() + j * np;
      const StrategyOutputs signals = evaluate_strategy_reference(sweep_.program, bars_, values, &cache_);
      const SimulationResult r =
          simulate_reference(bars_, combo_simulation(sim, sweep_.program.param_names, values), signals, keep);
      std::copy(r.metrics.begin(), r.metrics.end(), out.metrics.begin() + static_cast<std::ptrdiff_t>(j * n_metrics));
      if (p == 0) return;
      const std::vector<double> returns = period_returns(r.equity, sim.initial_capital, grid);
      for (std::size_t q = 0; q < p; ++q) out.period_returns[q * k + j] = returns[q];
    });
    return out;
  }

  std::vector<double> all_metrics(const std::vector<std::uint64_t>& rows,
                                  const std::optional<ScoringWindow>& window) override {
    if (rows.empty()) return {};
    return run_candidates(sweep_.combos.subset(rows).params(0, rows.size()), window ? *window : sweep_.sim.window, {})
        .metrics;
  }

 private:
  const PreparedSweep& sweep_;
  const BarData& bars_;
  unsigned threads_;
  const std::string name_ = "reference";
  // Param-free and window-only series are computed once and shared (same bits).
  ReferenceSeriesCache cache_;
  const double nan_ = std::numeric_limits<double>::quiet_NaN();
};

}  // namespace

std::unique_ptr<SweepEngine> make_reference_engine(const PreparedSweep& sweep, const BarData& bars, int threads) {
  return std::make_unique<ReferenceEngine>(sweep, bars, threads);
}

}  // namespace kbt
