#pragma once
// The kernels of an action-driven simulation (docs/simulate.md), written once
// for every space and real type: actions to targets, one trial per thread
// through the sweep's PortfolioStep, and rewards from the equity. Independent
// of the host reference (src/simulate/action_reference.cpp); the two agree bit
// for bit in fp64 (tests/unit/test_simulate_actions.cpp).

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/metrics/metrics_accumulator.hpp>
#include <kbt/simulation/portfolio_step.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>

namespace kbt::detail {

// An action that is not one: NaN, outside [-1, 1] (exposure), not 0/1/2 (discrete).
KOKKOS_INLINE_FUNCTION bool bad_action(double a, int discrete) {
  return discrete ? !(a == 0 || a == 1 || a == 2) : !(a >= -1 && a <= 1);
}

// The smallest index of a bad action (or `n` when none): a min-reduction.
template <class Mem>
struct FirstBadAction {
  Kokkos::View<const double***, Kokkos::LayoutRight, Mem> actions;
  int discrete = 0;
  std::int64_t per_trial = 0, n_bars = 0;
  KOKKOS_INLINE_FUNCTION void operator()(const std::int64_t i, std::int64_t& first) const {
    const std::int64_t t = i / per_trial, r = i - t * per_trial;
    if (i < first && bad_action(actions(t, r / n_bars, r % n_bars), discrete)) first = i;
  }
};

// targets = the action's target: exposure * scale; discrete 0 -> NaN (hold),
// 1 -> scale, 2 -> -scale; scale = 1 - cash_reserve.
template <class Real, class Layout, class Mem>
struct ActionTargets {
  Kokkos::View<const double***, Kokkos::LayoutRight, Mem> actions;
  Kokkos::View<Real***, Layout, Mem> targets;
  int discrete = 0;
  double scale = 1;
  KOKKOS_INLINE_FUNCTION void operator()(const int trial, const int symbol, const int bar) const {
    const double a = actions(trial, symbol, bar);
    double target;
    if (!discrete) target = a * scale;
    else if (a == 0) target = math::quiet_nan<double>();
    else target = a == 1 ? scale : -scale;
    targets(trial, symbol, bar) = static_cast<Real>(target);
  }
};

// One trial per thread: its targets through the portfolio step over the
// scoring window, the 21 metrics, and (when the views are not empty) the
// equity, units, unrealised PnL and drawdown of every window bar.
template <class ExecSpace, class Real>
struct ActionTrials {
  using Mem = typename ExecSpace::memory_space;
  using Step = PortfolioStep<ExecSpace, Real>;
  using Symbol = PortfolioSymbol<Real>;
  using Accumulator = BasicMetricsAccumulator<Real, metric_group::all>;
  Step portfolio;
  // [trial][symbol][bar] in the space's layout: on a GPU (LayoutLeft) the
  // threads of a warp, neighbouring trials, read one bar from adjacent words.
  Kokkos::View<const Real***, typename ExecSpace::array_layout, Mem> targets;
  Kokkos::View<Symbol**, Kokkos::LayoutRight, Mem> states;        // [trial][symbol] (multi-symbol runs)
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> metrics;         // [trial][n_metrics]
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> equity;          // [trial][window bar] or empty
  Kokkos::View<Real***, Kokkos::LayoutRight, Mem> units;          // [trial][window bar][symbol] or empty
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> drawdown;        // [trial][window bar] or empty
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> open_pnl;        // [trial][window bar] or empty

  // Called before the last bar's trades close, so the open trades are still open.
  template <int NSym>
  struct Sink {
    Accumulator& acc;
    const Step& step;
    const Symbol* st;
    Real* equity;    // null: not kept
    Real* open_pnl;  // null: not kept
    KOKKOS_FORCEINLINE_FUNCTION void operator()(const BarOutcome<Real>& bar) const {
      acc.add_bar(bar.equity, bar.exposed);
      if (equity) *equity = bar.equity;
      if (!open_pnl) return;
      Real pnl = 0;
      for (int s = 0; s < step.template symbols<NSym>(); ++s)
        if (st[s].units != Real(0)) pnl += st[s].cash_flow + st[s].units * st[s].mark;
      *open_pnl = pnl;
    }
    // After the ruin bar (docs/semantics.md "Ruin"): not scored, equity 0.
    KOKKOS_FORCEINLINE_FUNCTION void after_ruin(int) const {
      if (equity) *equity = Real(0);
      if (open_pnl) *open_pnl = Real(0);
    }
  };

  template <int NSym, int StepKind>
  KOKKOS_INLINE_FUNCTION void simulate(const int trial, Symbol* st) const {
    const Step& step = portfolio;
    Step::template reset<NSym>(st, step.n_sym);
    Account<Real, Accumulator> a = step.template open_account<Accumulator>();
    PortfolioSignals<Real> sig{};
    sig.position = SeriesRun<Real>{&targets(trial, 0, 0), static_cast<long>(targets.stride(1)),
                                   static_cast<long>(targets.stride(2))};
    const int begin = step.rules.window_begin, end = step.rules.window_end;
    // Each per-bar view is optional; all of them need equity (ActionSimulator checks).
    const bool keep = equity.extent(0) > 0, keep_units = units.extent(0) > 0, keep_drawdown = drawdown.extent(0) > 0;
    step.template warm_up<NSym>(sig, st, 0, begin);
    Real peak = step.rules.initial_capital;
    for (int t = begin; t < end; ++t) {
      const int k = t - begin;
      Sink<NSym> sink{a.acc, step, st, keep ? &equity(trial, k) : nullptr,
                      open_pnl.extent(0) > 0 ? &open_pnl(trial, k) : nullptr};
      step.template step<NSym, StepKind>(sig, st, t, t, t + 1 == end, a, sink);
      if (!keep) continue;
      if (keep_units)
        for (int s = 0; s < step.template symbols<NSym>(); ++s) units(trial, k, s) = st[s].units;
      const Real e = equity(trial, k);
      if (e > peak) peak = e;
      if (keep_drawdown) drawdown(trial, k) = (peak - e) / peak;
    }
    Real out[n_metrics];
    a.acc.finish(out, step.metrics_basis());
    for (int m = 0; m < int(n_metrics); ++m) metrics(trial, m) = out[m];
  }

  template <int StepKind>
  KOKKOS_INLINE_FUNCTION void run(const int trial) const {
    if (portfolio.n_sym == 1) {
      Symbol one[1];
      simulate<1, StepKind>(trial, one);
    } else {
      simulate<0, StepKind>(trial, &states(trial, 0));
    }
  }
};

// The kernel of one compiled step (PortfolioRules::step): each its own launch.
template <class ExecSpace, class Real, int StepKind>
struct ActionTrialsLaunch {
  ActionTrials<ExecSpace, Real> f;
  KOKKOS_INLINE_FUNCTION void operator()(const int trial) const { f.template run<StepKind>(trial); }
};

// Rewards of one trial per thread from its window equity (docs/simulate.md
// "Rewards"); kind: 0 log return, 1 PnL, 2 differential Sharpe.
template <class Real, class Mem>
struct TrialRewards {
  Kokkos::View<const Real**, Kokkos::LayoutRight, Mem> equity;
  Kokkos::View<Real**, Kokkos::LayoutRight, Mem> reward;
  Real initial = 0, eta = 0;
  int kind = 0;
  int warm_up = 0;  // differential_sharpe_warm_up(eta)
  KOKKOS_INLINE_FUNCTION void operator()(const int trial) const {
    Real before = initial, mean = 0, second = 0;
    for (int k = 0; k < int(equity.extent(1)); ++k) {
      const Real now = equity(trial, k);
      if (kind == 0) {
        reward(trial, k) = math::log(now / before);
      } else if (kind == 1) {
        reward(trial, k) = now - before;
      } else {
        // Moody & Saffell: D = (B dA - A dB / 2) / (B - A^2)^(3/2), before the update;
        // during the warm-up the moments are the sample ones and D is 0.
        const Real r = now / before - Real(1);
        const Real d_mean = r - mean, d_second = r * r - second;
        const Real variance = second - mean * mean;
        const bool warming = k < warm_up;
        reward(trial, k) = !warming && variance > Real(0)
                               ? (second * d_mean - Real(0.5) * mean * d_second) / (variance * math::sqrt(variance))
                               : Real(0);
        const Real rate = warming ? Real(1) / static_cast<Real>(k + 1) : eta;
        mean = mean + rate * d_mean;
        second = second + rate * d_second;
      }
      before = now;
    }
  }
};

}  // namespace kbt::detail
