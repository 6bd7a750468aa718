// Action-driven simulation, the plain host way (docs/simulate.md): checks,
// targets, then every trial through the reference simulator, and rewards by
// plain loops.

#include <kbt/simulate/action_simulation.hpp>

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/reference/simulator.hpp>

#include <cmath>
#include <limits>

#include "config/number_text.hpp"

namespace kbt {
namespace {

bool action_ok(double a, ActionKind kind) {
  if (kind == ActionKind::discrete) return a == 0 || a == 1 || a == 2;
  return a >= -1 && a <= 1;  // false for NaN
}

// The target of one action (NaN: hold, the previous target stays).
double target_of(double a, const ActionSettings& s) {
  const double scale = 1.0 - s.cash_reserve;
  if (s.kind == ActionKind::exposure) return a * scale;
  if (a == 0) return std::numeric_limits<double>::quiet_NaN();
  return a == 1 ? scale : -scale;
}

// rewards[k] of one trial from its equity at each window close.
void rewards_of(const double* equity, std::size_t n, double initial, const RewardSettings& r, double* out) {
  double previous = initial, a = 0, b = 0;
  const std::size_t warm_up = static_cast<std::size_t>(differential_sharpe_warm_up(r.eta));
  for (std::size_t k = 0; k < n; ++k) {
    const double e = equity[k];
    if (r.kind == RewardKind::log_return) {
      out[k] = math::log(e / previous);
    } else if (r.kind == RewardKind::pnl) {
      out[k] = e - previous;
    } else {
      // Moody & Saffell's D with the moments before this bar's update; during
      // the warm-up the moments are the sample mean and mean square, and D is 0.
      const double ret = e / previous - 1.0;
      const double da = ret - a, db = ret * ret - b;
      const double variance = b - a * a;
      const bool warming = k < warm_up;
      out[k] = !warming && variance > 0 ? (b * da - 0.5 * a * db) / (variance * math::sqrt(variance)) : 0.0;
      const double rate = warming ? 1.0 / static_cast<double>(k + 1) : r.eta;
      a = a + rate * da;
      b = b + rate * db;
    }
    previous = e;
  }
}

}  // namespace

std::string bad_action_message(const ActionMatrix& shape, const BarData& bars, const ActionSettings& settings,
                               std::size_t index, double value) {
  const std::size_t per_trial = shape.n_symbols * shape.n_bars;
  const std::size_t trial = index / per_trial, symbol = index % per_trial / shape.n_bars, bar = index % shape.n_bars;
  return "actions: trial " + std::to_string(trial) + ", symbol " + bars.symbols.at(symbol) + ", bar " +
         std::to_string(bar) + " (" + format_iso8601_utc(bars.timestamps.at(bar)) + "): " +
         (std::isnan(value) ? std::string("NaN") : detail::format_number(value)) + " is not an action: " +
         (settings.kind == ActionKind::exposure ? "a target exposure is a number in [-1, 1]"
                                                : "a discrete action is 0 (hold), 1 (buy) or 2 (sell)");
}

void check_action_shape(const ActionMatrix& actions, const BarData& bars, const ActionSettings& s) {
  if (!(s.cash_reserve >= 0 && s.cash_reserve < 1))
    throw Error(ErrorCategory::config, "cash_reserve must be in [0, 1) (a fraction of equity kept uninvested)");
  if (!(s.spread_bps >= 0) || !std::isfinite(s.spread_bps))
    throw Error(ErrorCategory::config, "spread_bps must be a number >= 0");
  if (actions.n_trials == 0) throw Error(ErrorCategory::config, "actions: no trials");
  if (actions.n_symbols != bars.n_symbols() || actions.n_bars != bars.n_bars())
    throw Error(ErrorCategory::config, "actions: " + std::to_string(actions.n_trials) + " trials x " +
                                           std::to_string(actions.n_symbols) + " symbols x " +
                                           std::to_string(actions.n_bars) + " bars do not match the data's " +
                                           std::to_string(bars.n_symbols()) + " symbols x " +
                                           std::to_string(bars.n_bars()) + " bars");
}

void check_actions(const ActionMatrix& actions, const BarData& bars, const ActionSettings& s) {
  check_action_shape(actions, bars, s);
  if (!actions.data) throw Error(ErrorCategory::internal, "actions: no data");
  const std::size_t n = actions.n_trials * actions.n_symbols * actions.n_bars;
  for (std::size_t i = 0; i < n; ++i)
    if (!action_ok(actions.data[i], s.kind))
      throw Error(ErrorCategory::config, bad_action_message(actions, bars, s, i, actions.data[i]));
}

void check_reward_settings(const RewardSettings& r) {
  if (!(r.eta > 0 && r.eta <= 1))
    throw Error(ErrorCategory::config, "the differential Sharpe's eta must be in (0, 1] (its moving averages' rate)");
}

SimulationSettings with_spread(SimulationSettings sim, double spread_bps) {
  sim.slippage_bps = sim.slippage_bps + spread_bps / 2;
  return sim;
}

ActionSimulationResult simulate_actions_reference(const BarData& bars, const ResolvedSimulation& sim,
                                                  const ActionMatrix& actions, const ActionSettings& settings,
                                                  bool keep_bars, const RewardSettings& rewards) {
  check_actions(actions, bars, settings);
  if (keep_bars) check_reward_settings(rewards);
  const std::size_t ns = bars.n_symbols(), nb = bars.n_bars(), per_trial = ns * nb;
  ActionSimulationResult out;
  out.n_trials = actions.n_trials;
  out.n_symbols = ns;
  out.n_window_bars = sim.window.end - sim.window.begin;
  const std::size_t nw = out.n_window_bars;
  out.metrics.resize(actions.n_trials * n_metrics);
  if (keep_bars) {
    out.equity.resize(actions.n_trials * nw);
    out.units.resize(actions.n_trials * nw * ns);
    out.open_pnl.resize(actions.n_trials * nw);
    out.drawdown.resize(actions.n_trials * nw);
    out.reward.resize(actions.n_trials * nw);
  }
  SimulationOptions opts;
  opts.keep_equity = keep_bars;
  StrategyOutputs targets;
  targets.form = StrategyOutputs::Form::position;
  targets.n_symbols = ns;
  targets.n_bars = nb;
  targets.target.resize(per_trial);
  for (std::size_t trial = 0; trial < actions.n_trials; ++trial) {
    const double* a = actions.data + trial * per_trial;
    for (std::size_t i = 0; i < per_trial; ++i) targets.target[i] = target_of(a[i], settings);
    const SimulationResult r = simulate_reference(bars, sim, targets, opts);
    for (std::size_t m = 0; m < n_metrics; ++m) out.metrics[trial * n_metrics + m] = r.metrics[m];
    if (!keep_bars) continue;
    double* equity = out.equity.data() + trial * nw;
    double peak = sim.initial_capital;
    for (std::size_t k = 0; k < nw; ++k) {
      equity[k] = r.equity.at(k);
      out.open_pnl[trial * nw + k] = r.open_pnl.at(k);
      if (equity[k] > peak) peak = equity[k];
      out.drawdown[trial * nw + k] = (peak - equity[k]) / peak;
      for (std::size_t s = 0; s < ns; ++s) out.units[(trial * nw + k) * ns + s] = r.units.at(k * ns + s);
    }
    rewards_of(equity, nw, sim.initial_capital, rewards, out.reward.data() + trial * nw);
  }
  return out;
}

}  // namespace kbt
