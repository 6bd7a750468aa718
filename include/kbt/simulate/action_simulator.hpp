#pragma once
// The action-driven simulation on a Kokkos space (docs/simulate.md): an
// object that owns the bars on the device, uploaded once, so that a training
// loop calls run() once per epoch without uploading the data again or
// allocating (the scratch grows to the largest call and stays).
//
//   kbt::ActionSimulator<Kokkos::DefaultExecutionSpace> sim(bars, resolved);
//   for (int epoch = 0; ...; ++epoch) {
//     policy_rollouts(actions);                    // the caller's View [trial][symbol][bar]
//     sim.run(actions, settings, out);             // metrics (and per-bar features) in out's Views
//   }
//
// fp64 results are bit-identical to simulate_actions_reference.

#include <kbt/core/error.hpp>
#include <kbt/simulate/action_simulation.hpp>
#include <kbt/simulate/detail/action_functors.hpp>
#include <kbt/simulation/portfolio_upload.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>

namespace kbt {

// Where a run writes, on the simulator's memory space. `metrics` is required
// ([trials][n_metrics]); the per-bar views are optional (extent 0: not
// computed): equity, drawdown, open_pnl and reward [trials][window bars],
// units [trials][window bars][symbols]. Each needs equity.
template <class Mem, class Real = double>
struct ActionOutputs {
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> metrics, equity, drawdown, open_pnl, reward;
  Kokkos::View<Real***, Kokkos::LayoutRight, Mem> units;
};

template <class ExecSpace, class Real = double>
class ActionSimulator {
 public:
  using Mem = typename ExecSpace::memory_space;
  using Actions = Kokkos::View<const double***, Kokkos::LayoutRight, Mem>;
  using Outputs = ActionOutputs<Mem, Real>;

  // `sim` resolved for `bars` (resolve_simulation; with_spread for a spread).
  ActionSimulator(const BarData& bars, const ResolvedSimulation& sim)
      : initial_capital_(sim.initial_capital) {
    bars_.timestamps = bars.timestamps;  // the axes only: the prices live on the device
    bars_.symbols = bars.symbols;
    trials_.portfolio = upload_portfolio_step<ExecSpace, Real>(bars, sim, true);
    n_window_ = static_cast<std::size_t>(sim.window.end - sim.window.begin);
  }

  std::size_t n_symbols() const { return bars_.n_symbols(); }
  std::size_t n_bars() const { return bars_.n_bars(); }
  std::size_t n_window_bars() const { return n_window_; }

  // Simulates every trial of `actions` ([trials][symbols][bars]) into `out`.
  // Checks first, on the device: the shapes (actions and outputs) and every
  // action; kbt::Error(config) names the first bad one.
  void run(const Actions& actions, const ActionSettings& settings, const Outputs& out,
           const RewardSettings& rewards = {}) {
    const auto n_trials = actions.extent(0);
    check_shapes(actions, settings, out, rewards);
    {
      detail::FirstBadAction<Mem> find{actions, settings.kind == ActionKind::discrete ? 1 : 0,
                                       static_cast<std::int64_t>(n_symbols() * n_bars()),
                                       static_cast<std::int64_t>(n_bars())};
      const auto n = static_cast<std::int64_t>(actions.size());
      std::int64_t first = n;
      Kokkos::parallel_reduce("kbt::simulate::check_actions",
                              Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(0, n), find,
                              Kokkos::Min<std::int64_t>(first));
      if (first < n) {
        double value = 0;
        Kokkos::deep_copy(Kokkos::View<double, Kokkos::HostSpace>(&value),
                          Kokkos::View<const double, Mem>(actions.data() + first));
        ActionMatrix shape{nullptr, n_trials, n_symbols(), n_bars()};
        throw Error(ErrorCategory::config,
                    bad_action_message(shape, bars_, settings, static_cast<std::size_t>(first), value));
      }
    }
    if (targets_.extent(0) < n_trials) {
      targets_ = decltype(targets_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::targets")),
                                    n_trials, n_symbols(), n_bars());
      states_ = decltype(states_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::trial_states")),
                                  n_trials, n_symbols());
    }
    const auto trials = static_cast<std::int64_t>(n_trials);
    detail::ActionTargets<Real, typename ExecSpace::array_layout, Mem> to_targets{actions, targets_,
                                                settings.kind == ActionKind::discrete ? 1 : 0,
                                                1.0 - settings.cash_reserve};
    Kokkos::parallel_for("kbt::simulate::targets",
                         Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<3>>(
                             {0, 0, 0}, {trials, static_cast<std::int64_t>(n_symbols()),
                                         static_cast<std::int64_t>(n_bars())}),
                         to_targets);
    trials_.targets = targets_;
    trials_.states = states_;
    trials_.metrics = out.metrics;
    trials_.equity = out.equity;
    trials_.units = out.units;
    trials_.drawdown = out.drawdown;
    trials_.open_pnl = out.open_pnl;
    launch(static_cast<int>(n_trials));
    if (out.reward.extent(0) > 0) {
      detail::TrialRewards<Real, Mem> r{out.equity, out.reward, static_cast<Real>(initial_capital_),
                                        static_cast<Real>(rewards.eta),
                                        rewards.kind == RewardKind::log_return ? 0
                                        : rewards.kind == RewardKind::pnl     ? 1
                                                                              : 2,
                                        differential_sharpe_warm_up(rewards.eta)};
      Kokkos::parallel_for("kbt::simulate::rewards", Kokkos::RangePolicy<ExecSpace>(0, static_cast<int>(n_trials)), r);
    }
    ExecSpace().fence();
  }

  // The host way in: the actions uploaded, checked there by run() above, the
  // results brought back (an allocation per call; a training loop uses run() above).
  ActionSimulationResult run(const ActionMatrix& actions, const ActionSettings& settings, bool keep_bars,
                             const RewardSettings& rewards = {}) {
    check_action_shape(actions, bars_, settings);  // before the upload; the values are checked there
    if (!actions.data) throw Error(ErrorCategory::internal, "actions: no data");
    using HostActions = Kokkos::View<const double***, Kokkos::LayoutRight, Kokkos::HostSpace,
                                     Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const auto dev = Kokkos::create_mirror_view_and_copy(
        Mem(), HostActions(actions.data, actions.n_trials, actions.n_symbols, actions.n_bars));
    const std::size_t nt = actions.n_trials, nw = keep_bars ? n_window_ : 0, ns = keep_bars ? n_symbols() : 0;
    Outputs out;
    out.metrics = decltype(out.metrics)("kbt::trial_metrics", nt, n_metrics);
    out.equity = decltype(out.equity)("kbt::trial_equity", keep_bars ? nt : 0, nw);
    out.drawdown = decltype(out.drawdown)("kbt::trial_drawdown", keep_bars ? nt : 0, nw);
    out.open_pnl = decltype(out.open_pnl)("kbt::trial_open_pnl", keep_bars ? nt : 0, nw);
    out.reward = decltype(out.reward)("kbt::trial_reward", keep_bars ? nt : 0, nw);
    out.units = decltype(out.units)("kbt::trial_units", keep_bars ? nt : 0, nw, ns);
    run(dev, settings, out, rewards);
    ActionSimulationResult r;
    r.n_trials = nt;
    r.n_symbols = n_symbols();
    r.n_window_bars = n_window_;
    const auto down = [](const auto& view, std::vector<double>& host) {
      const auto mirror = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
      host.assign(mirror.data(), mirror.data() + mirror.size());
    };
    down(out.metrics, r.metrics);
    if (keep_bars) {
      down(out.equity, r.equity);
      down(out.units, r.units);
      down(out.drawdown, r.drawdown);
      down(out.open_pnl, r.open_pnl);
      down(out.reward, r.reward);
    }
    return r;
  }

 private:
  BarData bars_;  // the shape, names and times for messages (no columns)
  double initial_capital_ = 0;
  std::size_t n_window_ = 0;
  detail::ActionTrials<ExecSpace, Real> trials_;
  Kokkos::View<Real***, typename ExecSpace::array_layout, Mem> targets_;
  Kokkos::View<PortfolioSymbol<Real>**, Kokkos::LayoutRight, Mem> states_;

  void check_shapes(const Actions& actions, const ActionSettings& settings, const Outputs& out,
                    const RewardSettings& rewards) const {
    // The settings and the actions' shape, as the host check says them (it
    // reads no action: every value is checked on the device).
    check_action_shape(ActionMatrix{nullptr, actions.extent(0), actions.extent(1), actions.extent(2)}, bars_,
                       settings);
    const auto n = actions.extent(0);
    const auto bad = [&](const char* what) {
      throw Error(ErrorCategory::config, std::string("simulate: the ") + what + " view's shape does not match " +
                                             std::to_string(n) + " trials x " + std::to_string(n_window_) +
                                             " window bars x " + std::to_string(n_symbols()) + " symbols");
    };
    if (out.metrics.extent(0) != n || out.metrics.extent(1) != n_metrics) bad("metrics");
    const bool keep = out.equity.extent(0) > 0;
    const auto bars_view_ok = [&](const auto& v) { return v.extent(0) == 0 || (v.extent(0) == n && v.extent(1) == n_window_); };
    if (!bars_view_ok(out.equity) || !bars_view_ok(out.drawdown) || !bars_view_ok(out.open_pnl) ||
        !bars_view_ok(out.reward))
      bad("equity, drawdown, open_pnl or reward");
    if (out.units.extent(0) != 0 && (out.units.extent(0) != n || out.units.extent(1) != n_window_ ||
                                     out.units.extent(2) != n_symbols()))
      bad("units");
    if (!keep && (out.drawdown.extent(0) || out.open_pnl.extent(0) || out.reward.extent(0) || out.units.extent(0)))
      throw Error(ErrorCategory::config, "simulate: per-bar drawdown, units, open_pnl and rewards need the equity view");
    if (out.reward.extent(0)) check_reward_settings(rewards);
  }

  void launch(int n_trials) const {
    const auto go = [&](auto kind) {
      detail::ActionTrialsLaunch<ExecSpace, Real, decltype(kind)::value> l{trials_};
      Kokkos::parallel_for("kbt::simulate::trials", Kokkos::RangePolicy<ExecSpace>(0, n_trials), l);
    };
    switch (PortfolioStepKind(trials_.portfolio.rules.step)) {
      case PortfolioStepKind::close_fills:
        return go(std::integral_constant<int, int(PortfolioStepKind::close_fills)>{});
      case PortfolioStepKind::close_fills_with_carry:
        return go(std::integral_constant<int, int(PortfolioStepKind::close_fills_with_carry)>{});
      default: return go(std::integral_constant<int, int(PortfolioStepKind::general)>{});
    }
  }
};

}  // namespace kbt
