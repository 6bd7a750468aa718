#pragma once
// The simulation settings of a run resolved against its data, once: the one
// home of every rule that turns the config's `simulation:` keys into the
// numbers a portfolio simulation reads (docs/semantics.md "Settings"). The
// reference simulator, the kernels' portfolio step and `kbt check` all read a
// ResolvedSimulation; none of them converts bps or looks up a venue itself.

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

// Scoring window as bar indices [begin, end).
struct ScoringWindow {
  std::size_t begin = 0;
  std::size_t end = 0;
  friend bool operator==(const ScoringWindow& a, const ScoringWindow& b) {
    return a.begin == b.begin && a.end == b.end;
  }
  friend bool operator!=(const ScoringWindow& a, const ScoringWindow& b) { return !(a == b); }
};

// An optional end of the scoring window (exclusive; default: the end of the
// data): a bar index, or a timestamp (the window ends before the first bar at
// or after it).
struct ScoreEnd {
  std::optional<std::int64_t> bar;
  std::optional<std::int64_t> time_ns;
};

// Which compiled portfolio step a run needs (the kernels compile one per kind;
// the reference engine reads the rules directly). Close fills without stops do
// no next-open orders, stop checks or stop locks, and without borrow or a
// funding column no carrying costs either: those rules would do nothing there.
// Swept settings (taken per combo) make a run general too.
enum class PortfolioStepKind : int { general = 0, close_fills = 1, close_fills_with_carry = 2 };

// The largest simulation.initial_capital (docs/config.md "simulation").
inline constexpr double max_initial_capital = 1e18;

struct ResolvedSimulation {
  double initial_capital = 0;
  SimulationSettings::Fill fill = SimulationSettings::Fill::close;
  std::vector<double> fee_rate;  // per symbol: fraction of notional (bps / 10000)
  double slippage = 0;           // fraction of the reference price (bps / 10000)
  double borrow_per_bar = 0;     // annual borrow rate / periods_per_year
  double periods_per_year = 0;   // as given, or the scoring window's bar density (docs/metrics.md "Annualisation")
  std::string periods_per_year_source;     // "simulation.periods_per_year" or "inferred: N bars over D days ..."
  double periods_per_year_by_spacing = 0;  // 365 days over the window's median spacing (0: under 2 bars)
  std::optional<double> stop_loss, take_profit, trailing_stop;  // fractions
  SimulationSettings::SltpPriority sltp_priority = SimulationSettings::SltpPriority::stop_first;
  double max_gross_leverage = 1;
  SimulationSettings::Weighting weighting = SimulationSettings::Weighting::raw;
  ScoringWindow window;       // the sweep's scoring window (the train window with a holdout)
  std::optional<ScoringWindow> test_window;  // validation.holdout: the held-out rest of the window
  bool has_funding = false;  // the data has a funding_rate column
  PortfolioStepKind step = PortfolioStepKind::general;
  SweptSettings swept;  // settings each combo takes from its params (combo_simulation)

  // With a swept stop, some combo has it (the run's step checks stops).
  bool has_stops() const {
    return stop_loss || take_profit || trailing_stop || !swept.stop_loss.empty() || !swept.take_profit.empty() ||
           !swept.trailing_stop.empty();
  }
};

// The settings of one combo (docs/semantics.md "Swept settings"): each swept
// setting of `sim` replaced by the combo's value of its param, converted as
// resolve_simulation converts the number it replaces. `param_names` and
// `values` are the program's params in order. `sim` itself without swept settings.
ResolvedSimulation combo_simulation(const ResolvedSimulation& sim, const std::vector<std::string>& param_names,
                                    const double* values);

// Resolves `sim` on `bars`. Throws kbt::Error(config) for invalid settings
// (naming the key), an empty or out-of-range scoring window, a per-venue fee
// map that misses a venue, or periods_per_year that cannot be inferred.
ResolvedSimulation resolve_simulation(const SimulationSettings& sim, const BarData& bars, const ScoreEnd& end = {});

// The same for a run config: every error starts with the file:line:col of the
// key at fault (RunConfig::where). With validation.holdout the window is the
// train window and test_window the held-out one.
ResolvedSimulation resolve_simulation(const RunConfig& config, const BarData& bars, const ScoreEnd& end = {});

// validation.holdout on the config's scoring window (docs/validation.md
// "Train and test"): the window [begin, end) split at the test window's first
// bar; nullopt without a holdout. kbt::Error(config) at validation.holdout when
// either side would hold no bar.
struct TrainTest {
  ScoringWindow train, test;
};
std::optional<TrainTest> resolve_holdout(const RunConfig& config, const BarData& bars);

// validation.walk_forward on the config's scoring window (docs/validation.md
// "Walk-forward"): the folds in time order, each a train window and the test
// window after it; empty without walk_forward. kbt::Error(config) at the
// walk_forward key when no whole fold fits, a step does not advance, or test
// windows would overlap.
std::vector<TrainTest> resolve_walk_forward(const RunConfig& config, const BarData& bars);

// Settings for evaluating a program on `bars` without a simulation (`kbt eval
// --device`): no fees, the whole data as the window, one period per year.
ResolvedSimulation evaluation_only(const BarData& bars);

// Throws kbt::Error(internal) naming the first window of `windows` that is
// empty or not inside `n_bars` bars (windows an engine is asked to score).
void check_scoring_windows(const std::vector<ScoringWindow>& windows, std::size_t n_bars);

// The parts, for callers that need only one of them.
ScoringWindow resolve_scoring_window(const BarData& bars, const SimulationSettings& sim, const ScoreEnd& end = {});
// periods_per_year as given, or the bar density of the scoring window of
// `sim` (before any holdout split): (bars - 1) intervals over the elapsed
// time, per 365 days (docs/metrics.md "Annualisation").
double resolve_periods_per_year(const BarData& bars, const SimulationSettings& sim);

// A warning when the inferred periods per year and the bars' median spacing
// disagree by more than 10 % (daily bars without weekends: 252 against 365).
std::optional<std::string> annualisation_warning(const ResolvedSimulation& sim);

}  // namespace kbt
