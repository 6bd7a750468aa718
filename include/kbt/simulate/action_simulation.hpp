#pragma once
// Action-driven simulation (docs/simulate.md): trials of actions, one per bar
// and symbol, simulated with the sweep's rules (fills, fees per venue,
// slippage, borrow, funding, stops) and reduced to the 21 metrics, per-bar
// portfolio features and rewards. This header: the actions, their checks and
// their targets, the rewards, and the plain host reference every Kokkos run
// (action_simulator.hpp) is tested against bit for bit in fp64.

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/simulation/resolved_simulation.hpp>

#include <cmath>
#include <cstddef>
#include <string>
#include <vector>

namespace kbt {

// What an action means.
enum class ActionKind {
  exposure,  // a target exposure in [-1, 1] (fraction of equity; negative: short)
  discrete   // 0 hold (the previous target stays), 1 buy (go long, +1), 2 sell (go short, -1)
};

struct ActionSettings {
  ActionKind kind = ActionKind::exposure;
  // Fraction of equity kept uninvested, in [0, 1): every target is scaled by
  // (1 - cash_reserve).
  double cash_reserve = 0;
  // The bid-ask spread in bps: every fill crosses half of it, added to the
  // simulation's slippage_bps (with_spread).
  double spread_bps = 0;
};

// Actions [n_trials][n_symbols][n_bars], row-major, symbols and bars as the data's.
struct ActionMatrix {
  const double* data = nullptr;
  std::size_t n_trials = 0, n_symbols = 0, n_bars = 0;
};

// kbt::Error(config) before any work for: a shape that is not the data's
// (symbols, bars), no trials, settings out of range, and the first action that
// is NaN, outside [-1, 1] (exposure) or not 0/1/2 (discrete), naming its trial,
// symbol and bar time.
void check_actions(const ActionMatrix& actions, const BarData& bars, const ActionSettings& settings);

// The part of check_actions that reads no action: the settings and the shape.
void check_action_shape(const ActionMatrix& actions, const BarData& bars, const ActionSettings& settings);

// The first bad action of `actions` as the message check_actions gives
// (index into the matrix, flat); for checks that ran elsewhere (a device).
std::string bad_action_message(const ActionMatrix& shape, const BarData& bars, const ActionSettings& settings,
                               std::size_t index, double value);

// The simulation settings of an action run: `sim` with half the spread added
// to the slippage.
SimulationSettings with_spread(SimulationSettings sim, double spread_bps);

// Rewards per window bar, from the equity at each close (docs/simulate.md "Rewards").
enum class RewardKind { log_return, pnl, differential_sharpe };

struct RewardSettings {
  RewardKind kind = RewardKind::log_return;
  double eta = 0.01;  // differential Sharpe: the moving averages' adaptation rate, in (0, 1]
};

// kbt::Error(config) for an eta outside (0, 1].
void check_reward_settings(const RewardSettings& rewards);

// The differential Sharpe's warm-up (docs/simulate.md "Rewards"): for the first
// ceil(1 / eta) bars its moments are the plain mean and mean square of the
// returns so far (rate 1/k), and the reward is 0; from then on they move at
// rate eta. Starting the moving averages at 0 instead made the second bar
// divide by a variance of eta * r1^2 (a reward of 2e5 on bar 1 of a real run).
// (An eta outside (0, 1] is refused by check_reward_settings; this stays defined.)
inline int differential_sharpe_warm_up(double eta) {
  const double bars = eta > 0 ? std::ceil(1.0 / eta) : HUGE_VAL;
  return bars < 2147483647.0 ? static_cast<int>(bars) : 2147483647;
}

struct ActionSimulationResult {
  std::size_t n_trials = 0, n_symbols = 0, n_window_bars = 0;
  std::vector<double> metrics;   // [trial][n_metrics], kbt::Metric order
  // With keep_bars (else empty), per window bar:
  std::vector<double> equity;    // [trial][bar] equity at the close
  std::vector<double> units;     // [trial][bar][symbol] units held at the close
  std::vector<double> open_pnl;  // [trial][bar] unrealised PnL: the open trades' cash flows + units * close
  std::vector<double> drawdown;  // [trial][bar] 1 - equity / running peak (the peak includes the initial capital)
  std::vector<double> reward;    // [trial][bar]
};

// The plain host way: each trial's targets through the reference simulator
// (src/reference/simulator.cpp), rewards by plain loops.
ActionSimulationResult simulate_actions_reference(const BarData& bars, const ResolvedSimulation& sim,
                                                  const ActionMatrix& actions, const ActionSettings& settings,
                                                  bool keep_bars = false, const RewardSettings& rewards = {});

}  // namespace kbt
