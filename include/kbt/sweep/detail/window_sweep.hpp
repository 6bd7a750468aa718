#pragma once
// The sweep kernel over several scoring windows in one pass (docs/sweep.md
// "Several windows in one pass"): indicators warm up on all history and a
// window only chooses where a portfolio starts and stops, so each block of
// bars is evaluated once per combo and every window that still runs is
// advanced over it by the same PortfolioStep as the one-window kernel, with
// its own portfolio and metrics (one account per window, kept in memory
// between blocks and in registers within one). The walk-forward ranks every
// fold's train window this way, and the validation stage re-simulates its
// candidates with their per-period returns (one window, `period_last` set).
// Each window's operations are those of its own run, in the same order: the
// bits are the one-window kernel's and the reference's.

#include <kbt/sweep/detail/sweep_functor.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>

namespace kbt {

template <class Functor, int StepKind, unsigned Groups, int Symbols>
struct WindowSweepLaunch {
  using memory_space = typename Functor::memory_space;
  using Real = typename Functor::real_type;
  using Step = typename Functor::Step;
  using Symbol = typename Functor::Symbol;
  using Acct = typename Functor::template Acct<Groups>;
  // A window's account and where its period returns stand.
  struct State {
    Acct a;
    double previous;  // equity at the end of the previous period
    int next_period;
  };

  Functor f;
  Kokkos::View<const int**, Kokkos::LayoutRight, memory_space> windows;  // [W][2]: [begin, end)
  int n_windows = 0;
  // Combo `first + i` of the loaded list is row out_row(first + i) of the
  // call (the call runs its combos tile by tile of hoisted windows).
  Kokkos::View<const long*, memory_space> out_row;
  long n_rows = 0;
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> out;   // [W * n_rows][n_metrics]
  Kokkos::View<State**, Kokkos::LayoutRight, memory_space> states;  // [chunk][W]
  Kokkos::View<Symbol**, Kokkos::LayoutRight, memory_space> sym;    // [chunk][W * n_sym]
  // With one window: period q ends at bar period_last(q); its return goes to
  // period_returns(q, row) (docs/validation.md "Periods").
  Kokkos::View<const int*, memory_space> period_last;
  Kokkos::View<double**, Kokkos::LayoutRight, memory_space> period_returns;

  // Where step() leaves a bar's outcome: the window's metrics and, at the end
  // of a period, its return (computed in double, as the host's period_returns).
  struct Sink {
    const WindowSweepLaunch& launch;
    State& s;
    int t;
    long row;
    KOKKOS_FORCEINLINE_FUNCTION void operator()(const BarOutcome<Real>& bar) const {
      s.a.acc.add_bar(bar.equity, bar.exposed);
      if (launch.period_returns.data() != nullptr && s.next_period < int(launch.period_last.extent(0)) &&
          launch.period_last(s.next_period) == t) {
        const double e = double(bar.equity);
        launch.period_returns(s.next_period, row) = e / s.previous - 1.0;
        s.previous = e;
        s.next_period += 1;
      }
    }
    // A bar after the ruin bar: not scored; a period ending there returns -1
    // when the ruin was in it, else 0 (docs/validation.md "Periods"), as
    // period_returns() reads the equity curve, 0 from the ruin on.
    KOKKOS_FORCEINLINE_FUNCTION void after_ruin(int) const {
      if (launch.period_returns.data() != nullptr && s.next_period < int(launch.period_last.extent(0)) &&
          launch.period_last(s.next_period) == t) {
        launch.period_returns(s.next_period, row) = s.previous > 0.0 ? -1.0 : 0.0;
        s.previous = 0.0;
        s.next_period += 1;
      }
    }
  };

  // Bars [t0, t0 + b1) of window [begin, end) (the block is evaluated):
  // warm-up before its begin, then the portfolio step, as
  // SweepFunctor::advance. The step's own window is not read.
  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION void advance(const Step& step, const PortfolioSignals<Real>& sig, Symbol* st, State& s,
                                           int begin, int end, int t0, int b1, long row) const {
    const int warm_end = begin - t0 < 0 ? 0 : (begin - t0 < b1 ? begin - t0 : b1);
    step.template warm_up<NSym>(sig, st, 0, warm_end);
    for (int b = warm_end; b < b1; ++b) {
      const int t = t0 + b;
      Sink sink{*this, s, t, row};
      step.template step<NSym, StepKind>(sig, st, t, b, t + 1 == end, s.a, sink);
    }
  }

  // Combo i on the path for NSym (SweepFunctor::with_symbol_path).
  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION void path(int i) const {
    const Step& run = f.portfolio;  // the settings no combo sweeps (SweepFunctor::simulate)
    const int n_sym = run.n_sym;
    const long row = out_row(f.eval.first + i);
    int end = 0;
    for (int w = 0; w < n_windows; ++w) {
      Step::template reset<NSym>(&sym(i, w * n_sym), n_sym);
      states(i, w) = State{run.template open_account<BasicMetricsAccumulator<Real, Groups>>(),
                           double(run.rules.initial_capital), 0};
      end = windows(w, 1) > end ? windows(w, 1) : end;
    }
    for (int t0 = 0; t0 < end; t0 += f.eval.block) {
      const int nb = end - t0 < f.eval.block ? end - t0 : f.eval.block;
      f.eval.evaluate_block(i, t0, nb);
      const PortfolioSignals<Real> sig = f.eval.signals_of(i, t0);
      // Per block, as SweepFunctor::simulate; shared by the windows, which
      // pass their bounds to advance (a copy per window cost registers).
      decltype(auto) step = f.template step_of<StepKind>(i);
      for (int w = 0; w < n_windows; ++w) {
        const int w_begin = windows(w, 0), w_end = windows(w, 1);
        if (t0 >= w_end) continue;
        const int b1 = w_end - t0 < nb ? w_end - t0 : nb;
        State s = states(i, w);
        Symbol* row_states = &sym(i, w * n_sym);
        if constexpr (NSym == 1) {
          Symbol one[1] = {row_states[0]};
          advance<1>(step, sig, one, s, w_begin, w_end, t0, b1, row);
          row_states[0] = one[0];
        } else {
          advance<NSym>(step, sig, row_states, s, w_begin, w_end, t0, b1, row);
        }
        states(i, w) = s;
      }
    }
    // Every window has ended (`end` is the last one's): its metrics, after
    // the loop, where the block's state is no longer live beside finish()'s.
    for (int w = 0; w < n_windows; ++w) f.finish_into(states(i, w).a.acc, out, w * n_rows + row);
  }

  // Symbols: as SweepFunctor::run_thread's (one kernel per symbol count on a GPU).
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    f.eval.prepare(i);
    f.template with_symbol_path<Symbols>(*this, i);
  }
};

namespace detail {

// Where a window pass writes: the call's metrics [W * n_rows][n_metrics] and,
// with one window, its period returns.
template <class MemorySpace>
struct WindowTargets {
  Kokkos::View<const int**, Kokkos::LayoutRight, MemorySpace> windows;
  Kokkos::View<const long*, MemorySpace> out_row;  // [loaded combos]
  long n_rows = 0;
  Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace> metrics;
  Kokkos::View<const int*, MemorySpace> period_last;
  Kokkos::View<double**, Kokkos::LayoutRight, MemorySpace> period_returns;
};

// Runs every loaded combo of `f` on every window, chunk by chunk, and fences.
template <class ExecSpace, class Real>
void launch_window_sweep(const ExecSpace& exec, const SweepFunctor<ExecSpace, Real>& f, std::size_t n_combos,
                         std::size_t chunk, const WindowTargets<typename ExecSpace::memory_space>& to) {
  using Functor = SweepFunctor<ExecSpace, Real>;
  const int n_windows = static_cast<int>(to.windows.extent(0));
  for (std::size_t first = 0; first < n_combos; first += chunk) {
    const std::size_t count = std::min(chunk, n_combos - first);
    f.with_variant([&](auto kind, auto groups, auto symbols) {
      using Launch = WindowSweepLaunch<Functor, decltype(kind)::value, decltype(groups)::value, decltype(symbols)::value>;
      Launch l;
      l.f = f;
      l.f.eval.first = static_cast<long>(first);
      l.f.metrics = Kokkos::View<double**, typename Functor::memory_space>();  // written through l.out
      l.windows = to.windows;
      l.n_windows = n_windows;
      l.out_row = to.out_row;
      l.n_rows = to.n_rows;
      l.out = to.metrics;
      l.states = decltype(l.states)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::window_states")),
                                    count, static_cast<std::size_t>(n_windows));
      l.sym = decltype(l.sym)(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kbt::window_symbols")), count,
                              Functor::symbol_row(static_cast<std::size_t>(n_windows * f.portfolio.n_sym)));
      l.period_last = to.period_last;
      l.period_returns = to.period_returns;
      const Kokkos::RangePolicy<ExecSpace, Kokkos::Schedule<Kokkos::Dynamic>> policy(exec, 0, static_cast<int>(count),
                                                                                     Kokkos::ChunkSize(1));
      Kokkos::parallel_for("kbt::sweep_windows", policy, l);
    });
  }
  exec.fence();
}

}  // namespace detail

}  // namespace kbt
