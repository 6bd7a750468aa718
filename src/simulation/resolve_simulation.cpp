// Resolution of the simulation settings against the data (docs/semantics.md
// "Settings"): the only place that validates the `simulation:` numbers,
// converts bps to fractions, looks fees up per venue, infers the periods per
// year and resolves the scoring window.

#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/simulation/setting_units.hpp>

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/time_format.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <string>

namespace kbt {
namespace {

// Prefix of an error about `key`: "" for bare settings, "file:line:col: " for a config.
using Locate = std::function<std::string(const char* key)>;

std::string no_location(const char*) { return std::string(); }

[[noreturn]] void fail(const Locate& where, const char* key, const std::string& message) {
  throw Error(ErrorCategory::config, where(key) + key + ": " + message);
}

bool is_finite(double x) { return !math::isnan(x) && x - x == 0.0; }

// Five significant digits, for messages ("251.94", "8760").
std::string short_number(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.5g", x);
  return text;
}

// First bar whose timestamp is >= t (n_bars when none).
std::size_t first_bar_at_or_after(const BarData& bars, std::int64_t t) {
  const auto it = std::lower_bound(bars.timestamps.begin(), bars.timestamps.end(), t);
  return static_cast<std::size_t>(it - bars.timestamps.begin());
}

void validate_settings(const SimulationSettings& sim, const Locate& where) {
  if (!(is_finite(sim.initial_capital) && sim.initial_capital > 0))
    fail(where, "simulation.initial_capital", "must be a positive number");
  // Far above any book, far below where units x price x leverage overflow (at
  // 1e308 every metric came out NaN and the run reported `top 0`).
  if (!(sim.initial_capital <= max_initial_capital))
    fail(where, "simulation.initial_capital",
         "must be at most 1e18: larger capital overflows the simulation's products (units x price x leverage); "
         "scale the currency unit instead");
  if (!(is_finite(sim.fee_bps) && sim.fee_bps >= 0)) fail(where, "simulation.fee_bps", "must be a number >= 0");
  if (!(is_finite(sim.slippage_bps) && sim.slippage_bps >= 0))
    fail(where, "simulation.slippage_bps", "must be a number >= 0");
  if (!(is_finite(sim.borrow_rate) && sim.borrow_rate >= 0))
    fail(where, "simulation.borrow_rate", "must be a number >= 0");
  if (!(is_finite(sim.max_gross_leverage) && sim.max_gross_leverage > 0))
    fail(where, "simulation.max_gross_leverage", "must be a positive number");
  const std::pair<const char*, const std::optional<double>*> stops[] = {
      {"simulation.stop_loss", &sim.stop_loss},
      {"simulation.take_profit", &sim.take_profit},
      {"simulation.trailing_stop", &sim.trailing_stop}};
  for (const auto& [key, value] : stops)
    if (*value && !(is_finite(**value) && **value > 0)) fail(where, key, "must be a positive fraction or null");
}

ScoringWindow scoring_window(const BarData& bars, const SimulationSettings& sim, const ScoreEnd& given_end,
                             const Locate& where) {
  const std::size_t n = bars.n_bars();
  // An end given by the caller (kbt verify, kbt plot) replaces the config's.
  const bool given = given_end.bar || given_end.time_ns;
  const ScoreEnd end = given ? given_end : ScoreEnd{sim.score_end_bar, sim.score_end_time_ns};
  const char* end_key = given ? "score_end" : "simulation.score_end";
  if (sim.score_start_bar && sim.score_start_time_ns)
    fail(where, "simulation.score_start", "give a bar index or a timestamp, not both");
  if (end.bar && end.time_ns) fail(where, end_key, "give a bar index or a timestamp, not both");
  ScoringWindow w{0, n};
  if (sim.score_start_bar) {
    if (*sim.score_start_bar < 0 || static_cast<std::size_t>(*sim.score_start_bar) >= n)
      fail(where, "simulation.score_start",
           "bar index " + std::to_string(*sim.score_start_bar) + " is outside the data's " + std::to_string(n) +
               " bars");
    w.begin = static_cast<std::size_t>(*sim.score_start_bar);
  } else if (sim.score_start_time_ns) {
    w.begin = first_bar_at_or_after(bars, *sim.score_start_time_ns);
  }
  if (end.bar) {
    if (*end.bar < 0 || static_cast<std::size_t>(*end.bar) > n)
      fail(where, end_key,
           "bar index " + std::to_string(*end.bar) + " is outside the data's " + std::to_string(n) + " bars");
    w.end = static_cast<std::size_t>(*end.bar);
  } else if (end.time_ns) {
    w.end = first_bar_at_or_after(bars, *end.time_ns);
  }
  if (w.begin >= w.end)
    fail(where, (end.bar || end.time_ns) && !given ? "simulation.score_end" : "simulation.score_start",
         "the scoring window [" + std::to_string(w.begin) + ", " + std::to_string(w.end) + ") holds no bar of the data's " +
             std::to_string(n));
  return w;
}

constexpr double ns_per_day = 86400.0 * 1e9;
// ResolvedSimulation::periods_per_year_source when the config sets it.
constexpr const char* given_periods_per_year = "simulation.periods_per_year";
constexpr double ns_per_year = 365.0 * ns_per_day;

// 365 days over the (lower) median spacing of the window's bars: what the
// bars claim to be; reported beside the density when the two disagree.
double periods_per_year_by_spacing(const BarData& bars, const ScoringWindow& w) {
  std::vector<std::int64_t> spacing(w.end - w.begin - 1);
  for (std::size_t i = w.begin + 1; i < w.end; ++i) spacing[i - w.begin - 1] = bars.timestamps[i] - bars.timestamps[i - 1];
  const std::size_t mid = (spacing.size() - 1) / 2;  // lower median: an exact integer, no averaging
  std::nth_element(spacing.begin(), spacing.begin() + static_cast<long>(mid), spacing.end());
  return spacing[mid] > 0 ? ns_per_year / static_cast<double>(spacing[mid]) : 0.0;
}

// docs/metrics.md "Annualisation": as given, else the bar density of the
// scoring window, (bars - 1) intervals over its elapsed time, per 365 days.
// Evenly spaced bars give exactly 365 days over their spacing; weekday-only
// daily bars about 252; 24/7 hourly bars 8,760.
void resolve_periods_per_year(const BarData& bars, const SimulationSettings& sim, const ScoringWindow& w,
                              const Locate& where, ResolvedSimulation& r) {
  const std::size_t n = w.end - w.begin;
  if (n >= 2) r.periods_per_year_by_spacing = periods_per_year_by_spacing(bars, w);
  if (sim.periods_per_year) {
    if (!(is_finite(*sim.periods_per_year) && *sim.periods_per_year > 0))
      fail(where, "simulation.periods_per_year", "must be a positive number");
    r.periods_per_year = *sim.periods_per_year;
    r.periods_per_year_source = given_periods_per_year;
    return;
  }
  if (n < 2)
    fail(where, "simulation.periods_per_year",
         "cannot be inferred from a scoring window of " + std::to_string(n) + " bar(s); set it");
  const std::int64_t elapsed = bars.timestamps[w.end - 1] - bars.timestamps[w.begin];
  if (elapsed <= 0) fail(where, "simulation.periods_per_year", "timestamps are not increasing; cannot infer it");
  const auto intervals = static_cast<std::int64_t>(n - 1);
  // Evenly spaced bars divide exactly: 365 days over the one spacing, the same
  // bits as the spacing rule (an int64 of nanoseconds may not fit a double).
  r.periods_per_year = elapsed % intervals == 0
                           ? ns_per_year / static_cast<double>(elapsed / intervals)
                           : static_cast<double>(intervals) * (ns_per_year / static_cast<double>(elapsed));
  r.periods_per_year_source = "inferred: " + std::to_string(n) + " bars over " +
                              short_number(static_cast<double>(elapsed) / ns_per_day) +
                              " days of the scoring window";
}

std::vector<double> fee_bps(const BarData& bars, const SimulationSettings& sim, const Locate& where) {
  std::vector<double> fees(bars.n_symbols(), sim.fee_bps);
  if (sim.fee_bps_by_venue.empty()) return fees;
  if (bars.venues.size() != bars.n_symbols())
    fail(where, "simulation.fee_bps", "a per-venue map needs data with venues (/venues); give one number instead");
  for (std::size_t s = 0; s < bars.n_symbols(); ++s) {
    const auto it = sim.fee_bps_by_venue.find(bars.venues[s]);
    if (it == sim.fee_bps_by_venue.end())
      fail(where, "simulation.fee_bps", "no fee for venue '" + bars.venues[s] + "' of symbol '" + bars.symbols[s] + "'");
    if (!(is_finite(it->second) && it->second >= 0))
      fail(where, "simulation.fee_bps", "fee of venue '" + it->first + "' must be a number >= 0");
    fees[s] = it->second;
  }
  return fees;
}

ResolvedSimulation resolve(const SimulationSettings& sim, const BarData& bars, const ScoreEnd& end,
                           const Locate& where) {
  validate_settings(sim, where);
  ResolvedSimulation r;
  r.window = scoring_window(bars, sim, end, where);
  // One annualisation per run: that of the config's own scoring window,
  // whatever end a caller gives (kbt verify, kbt plot) or a holdout splits off.
  const bool given_end = end.bar || end.time_ns;
  resolve_periods_per_year(bars, sim, given_end ? scoring_window(bars, sim, ScoreEnd{}, where) : r.window, where, r);
  r.fee_rate = fee_bps(bars, sim, where);
  for (double& f : r.fee_rate) f = fraction_of_bps(f);
  r.initial_capital = sim.initial_capital;
  r.fill = sim.fill;
  r.slippage = fraction_of_bps(sim.slippage_bps);
  r.borrow_per_bar = sim.borrow_rate / r.periods_per_year;
  r.stop_loss = sim.stop_loss;
  r.take_profit = sim.take_profit;
  r.trailing_stop = sim.trailing_stop;
  r.sltp_priority = sim.sltp_priority;
  r.max_gross_leverage = sim.max_gross_leverage;
  r.weighting = sim.weighting;
  r.has_funding = bars.has_column("funding_rate");
  r.swept = sim.swept;
  // Swept settings are taken per combo by the general step only (the
  // close-fill kernels keep the run's rules out of their registers).
  if (r.fill == SimulationSettings::Fill::next_open || r.has_stops() || r.swept.any())
    r.step = PortfolioStepKind::general;
  else
    r.step = r.borrow_per_bar != 0 || r.has_funding ? PortfolioStepKind::close_fills_with_carry
                                                    : PortfolioStepKind::close_fills;
  return r;
}

}  // namespace

ResolvedSimulation combo_simulation(const ResolvedSimulation& sim, const std::vector<std::string>& param_names,
                                    const double* values) {
  if (!sim.swept.any()) return sim;
  const auto value_of = [&](const std::string& name) {
    for (std::size_t p = 0; p < param_names.size(); ++p)
      if (param_names[p] == name) return values[p];
    throw Error(ErrorCategory::internal, "swept setting: the program has no param '" + name + "'");
  };
  ResolvedSimulation r = sim;
  const SweptSettings& w = sim.swept;
  if (!w.stop_loss.empty()) r.stop_loss = value_of(w.stop_loss);
  if (!w.take_profit.empty()) r.take_profit = value_of(w.take_profit);
  if (!w.trailing_stop.empty()) r.trailing_stop = value_of(w.trailing_stop);
  if (!w.fee_bps.empty()) r.fee_rate.assign(r.fee_rate.size(), fraction_of_bps(value_of(w.fee_bps)));
  if (!w.slippage_bps.empty()) r.slippage = fraction_of_bps(value_of(w.slippage_bps));
  if (!w.max_gross_leverage.empty()) r.max_gross_leverage = value_of(w.max_gross_leverage);
  return r;
}

ResolvedSimulation resolve_simulation(const SimulationSettings& sim, const BarData& bars, const ScoreEnd& end) {
  return resolve(sim, bars, end, no_location);
}

ResolvedSimulation resolve_simulation(const RunConfig& config, const BarData& bars, const ScoreEnd& end) {
  ResolvedSimulation r = resolve(config.simulation, bars, end, [&config](const char* key) {
    return config.where(std::string(key).rfind("simulation.", 0) == 0 ? key : std::string("simulation.") + key) + ": ";
  });
  if (end.bar || end.time_ns) return r;  // an explicit window (kbt verify, kbt plot): no split
  if (const auto split = resolve_holdout(config, bars)) {
    r.window = split->train;
    r.test_window = split->test;
  }
  return r;
}

std::vector<TrainTest> resolve_walk_forward(const RunConfig& config, const BarData& bars) {
  std::vector<TrainTest> folds;
  if (!config.validation.walk_forward) return folds;
  const WalkForwardSettings& wf = *config.validation.walk_forward;
  const ScoringWindow w = resolve_scoring_window(bars, config.simulation);
  const std::size_t n = bars.n_bars();
  const auto fail_at = [&](const std::string& key, const std::string& message) {
    throw Error(ErrorCategory::config, config.where("validation.walk_forward." + key) + ": validation.walk_forward." +
                                           key + ": " + message);
  };
  // A fold boundary: its bar (n + 1 when a length runs past the data: a
  // window that would end there is not whole) and, after a calendar span, the
  // time the span reached before it was moved to a bar. Spans add up in time,
  // not in bars, so that on data with gaps (weekends, holidays) train + test
  // from one start ends where step + train from it begins (docs/validation.md).
  struct Boundary {
    std::size_t bar;
    std::int64_t time;
  };
  const auto at_bar = [&](std::size_t b) { return Boundary{b, b < n ? bars.timestamps[b] : bars.timestamps.back() + 1}; };
  const auto after = [&](const Boundary& from, const WindowLength& length) -> Boundary {
    if (from.bar >= n) return {n + 1, from.time};
    if (length.bars > 0) return at_bar(std::min<std::size_t>(n + 1, from.bar + static_cast<std::size_t>(length.bars)));
    const std::int64_t until = parse_calendar_span(length.span)->advance(from.time);
    return {until > bars.timestamps.back() + 1 ? n + 1 : first_bar_at_or_after(bars, until), until};
  };
  // Consecutive test windows (step = test, the default): the next test starts
  // where the last ended, whatever calendar arithmetic (month ends) says.
  const bool consecutive = wf.step.bars == wf.test.bars && wf.step.span == wf.test.span;
  Boundary roll = at_bar(w.begin);
  std::size_t previous_test_end = 0;
  for (std::size_t f = 0;; ++f) {
    if (f > 0) {
      const Boundary next = after(roll, wf.step);
      if (next.bar <= roll.bar && next.time <= roll.time)
        fail_at("step", "it does not advance past bar " + std::to_string(roll.bar));
      roll = next;
    }
    std::size_t train_begin = wf.anchored ? w.begin : roll.bar;
    // The embargo: a train window does not start just after an earlier test window.
    if (!wf.anchored && f > 0 && train_begin >= previous_test_end &&
        train_begin < previous_test_end + static_cast<std::size_t>(wf.embargo))
      train_begin = previous_test_end + static_cast<std::size_t>(wf.embargo);
    const Boundary train_end = after(roll, wf.train);
    Boundary test_begin = wf.purge == 0 ? train_end : at_bar(train_end.bar + static_cast<std::size_t>(wf.purge));
    if (consecutive && !folds.empty() && test_begin.bar < folds.back().test.end) test_begin = at_bar(folds.back().test.end);
    const std::size_t test_end = after(test_begin, wf.test).bar;
    if (test_begin.bar >= w.end || test_end > w.end || test_end <= test_begin.bar || train_begin >= train_end.bar) break;
    if (!folds.empty() && test_begin.bar < folds.back().test.end)
      fail_at("step", "the test windows would overlap (a step shorter than test): the out-of-sample equity "
                      "stitches them end to end");
    folds.push_back(TrainTest{{train_begin, train_end.bar}, {test_begin.bar, test_end}});
    previous_test_end = test_end;
  }
  if (folds.empty())
    fail_at("train", "the scoring window [" + std::to_string(w.begin) + ", " + std::to_string(w.end) +
                         ") holds no whole fold of train, purge and test");
  return folds;
}

std::optional<TrainTest> resolve_holdout(const RunConfig& config, const BarData& bars) {
  const ValidationSettings& v = config.validation;
  if (!v.has_holdout()) return std::nullopt;
  const ScoringWindow w = resolve_scoring_window(bars, config.simulation);
  const std::size_t len = w.end - w.begin;
  std::size_t test_begin = w.end;
  if (v.holdout_fraction) {
    const auto held = static_cast<std::size_t>(std::floor(*v.holdout_fraction * static_cast<double>(len)));
    test_begin = w.end - std::min(held, len);
  } else if (v.holdout_bars) {
    test_begin = static_cast<std::uint64_t>(*v.holdout_bars) >= len ? w.begin : w.end - static_cast<std::size_t>(*v.holdout_bars);
  } else {
    test_begin = first_bar_at_or_after(bars, *v.holdout_time_ns);
  }
  if (!(test_begin > w.begin && test_begin < w.end))
    throw Error(ErrorCategory::config,
                config.where("validation.holdout") + ": validation.holdout: the scoring window [" +
                    std::to_string(w.begin) + ", " + std::to_string(w.end) + ") split at bar " +
                    std::to_string(test_begin) + " leaves " +
                    (test_begin <= w.begin ? "no train bar; hold out less" : "no test bar; hold out more"));
  return TrainTest{{w.begin, test_begin}, {test_begin, w.end}};
}

void check_scoring_windows(const std::vector<ScoringWindow>& windows, std::size_t n_bars) {
  for (const ScoringWindow& w : windows)
    if (!(w.begin < w.end && w.end <= n_bars))
      throw Error(ErrorCategory::internal, "scoring window [" + std::to_string(w.begin) + ", " +
                                               std::to_string(w.end) + ") is not inside the data's " +
                                               std::to_string(n_bars) + " bars");
}

ResolvedSimulation evaluation_only(const BarData& bars) {
  ResolvedSimulation r;
  r.initial_capital = 1;
  r.fee_rate.assign(bars.n_symbols(), 0.0);
  r.periods_per_year = 1;
  r.window = ScoringWindow{0, bars.n_bars()};
  r.has_funding = bars.has_column("funding_rate");
  r.step = PortfolioStepKind::close_fills;
  return r;
}

ScoringWindow resolve_scoring_window(const BarData& bars, const SimulationSettings& sim, const ScoreEnd& end) {
  return scoring_window(bars, sim, end, no_location);
}

double resolve_periods_per_year(const BarData& bars, const SimulationSettings& sim) {
  ResolvedSimulation r;
  resolve_periods_per_year(bars, sim, scoring_window(bars, sim, ScoreEnd{}, no_location), no_location, r);
  return r.periods_per_year;
}

std::optional<std::string> annualisation_warning(const ResolvedSimulation& sim) {
  const double by_spacing = sim.periods_per_year_by_spacing, used = sim.periods_per_year;
  if (sim.periods_per_year_source == given_periods_per_year || !(by_spacing > 0) ||
      std::abs(by_spacing - used) <= 0.1 * used)
    return std::nullopt;
  return "the bars' usual spacing is " + short_number(by_spacing) +
         " per year of 365 days, but the scoring window holds " + short_number(used) +
         " bars per year (gaps: weekends, holidays, sessions); metrics are annualised at " +
         short_number(used) + " (" + sim.periods_per_year_source +
         "); set simulation.periods_per_year to choose another";
}


}  // namespace kbt
