#pragma once
// The sweep kernel (docs/sweep.md): one combo per thread, streaming over bars
// with its state in per-thread memory. Each block of bars is evaluated by the
// BlockEvaluator (or, for a position that is one compared select, not at all:
// compared_select.hpp), then the PortfolioStep (kbt/simulation/portfolio_step.hpp)
// walks it bar by bar, and the metrics accumulator reduces the bars to the
// metrics of the run's metric set (metrics/metric_set.hpp; a compile-time
// choice made once per launch) in the same pass. A single-symbol run keeps its
// portfolio state in registers. Written once, templated on the execution space
// and the real type.

#include <kbt/metrics/metrics_accumulator.hpp>
#include <kbt/simulation/portfolio_step.hpp>
#include <kbt/sweep/detail/block_evaluator.hpp>
#include <kbt/sweep/detail/cache_lines.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace kbt {

template <class ExecSpace, class Real>
struct SweepFunctor {
  using memory_space = typename ExecSpace::memory_space;
  using real_type = Real;
  using Evaluator = BlockEvaluator<ExecSpace, Real>;
  using Step = PortfolioStep<ExecSpace, Real>;
  using Symbol = PortfolioSymbol<Real>;
  template <unsigned Groups>
  using Acct = Account<Real, BasicMetricsAccumulator<Real, Groups>>;
  // Per-combo symbol states, one contiguous row per combo (read through a pointer).
  using SymbolStates = Kokkos::View<Symbol**, Kokkos::LayoutRight, memory_space>;
  // Host threads (Serial, OpenMP, ...) rather than a GPU's.
  static constexpr bool host_space = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;

  // The row length of SymbolStates for n symbols. On host spaces a row is
  // whole cache lines: threads on neighbouring combos write their states on
  // every bar and would otherwise stall on each other's lines (as the scratch
  // rows, functor_setup.hpp). A GPU keeps rows unpadded.
  static std::size_t symbol_row(std::size_t n) { return host_space ? whole_cache_lines<Symbol>(n) : n; }

  Evaluator eval;
  Step portfolio;
  SymbolStates sym;                                // [combo in chunk][symbol]
  Kokkos::View<double**, memory_space> metrics;    // [combo][n_metrics]; NaN outside the metric set
  unsigned metric_groups = metric_group::all;      // one of compiled_metric_sets
  // Evaluation only (no simulation): register to write per symbol and bar.
  int emit_register = -1;
  Kokkos::View<Real**, memory_space> emitted;      // [symbol][bar]

  // Set on host spaces when the run's position is a select computed per bar
  // (compared_select.hpp): its blocks are not evaluated, the step loop reads
  // the position's operands.
  int position_per_bar = 0;

  // Feeds each bar's outcome to the accumulator's add_bar (a bar after a
  // ruin is not scored: docs/semantics.md "Ruin").
  template <class Accumulator>
  struct AddBar {
    Accumulator& acc;
    KOKKOS_FORCEINLINE_FUNCTION void operator()(const BarOutcome<Real>& bar) const {
      acc.add_bar(bar.equity, bar.exposed);
    }
    KOKKOS_FORCEINLINE_FUNCTION void after_ruin(int) const {}  // not scored
  };

  // The bars of the block at t0 (already evaluated, unless the position is
  // computed per bar). Host spaces compile the loop over bars once per signal
  // form, so that no bar tests the form; a GPU keeps one loop (a uniform
  // branch per bar costs a warp next to nothing, a second copy of the step
  // costs registers).
  template <int NSym, int StepKind, class Account>
  KOKKOS_FORCEINLINE_FUNCTION void advance(const Step& portfolio, int i, Symbol* st, Account& a, int t0,
                                           int nb) const {
    if constexpr (host_space) {
      if (position_per_bar)
        return advance_in_form<NSym, StepKind, 1>(portfolio, eval.compared_signals_of(i, t0), st, a, t0, nb);
      const PortfolioSignals<Real> sig = eval.signals_of(i, t0);
      if (portfolio.position_form) advance_in_form<NSym, StepKind, 1>(portfolio, sig, st, a, t0, nb);
      else advance_in_form<NSym, StepKind, 0>(portfolio, sig, st, a, t0, nb);
    } else {
      advance_in_form<NSym, StepKind, -1>(portfolio, eval.signals_of(i, t0), st, a, t0, nb);
    }
  }

  // Bars [t0, t0 + nb): warm-up before the scoring window, then the step.
  template <int NSym, int StepKind, int Form, class Signals, class Account>
  KOKKOS_FORCEINLINE_FUNCTION void advance_in_form(const Step& portfolio, const Signals& sig, Symbol* st, Account& a,
                                                   int t0, int nb) const {
    const int window_begin = portfolio.rules.window_begin;
    const int warm_end = window_begin - t0 < 0 ? 0 : (window_begin - t0 < nb ? window_begin - t0 : nb);
    portfolio.template warm_up<NSym>(sig, st, 0, warm_end);
    steps<NSym, StepKind, Form>(portfolio, sig, st, a, t0, warm_end, nb);
  }

  // Window bars [t0 + b0, t0 + b1) of the block, for a signal form Form
  // (PortfolioStep::targets). On host spaces the window's last bar (it closes
  // the open trades) is stepped on its own, so that the loop over the others
  // tests nothing per bar for it; a GPU tests it per bar, as a second copy of
  // the step cost its kernels up to 14 registers.
  template <int NSym, int StepKind, int Form, class Signals, class Account>
  KOKKOS_FORCEINLINE_FUNCTION void steps(const Step& portfolio, const Signals& sig, Symbol* st, Account& a, int t0,
                                         int b0, int b1) const {
    const int last = portfolio.rules.window_end - 1 - t0;
    AddBar<decltype(a.acc)> sink{a.acc};
    if constexpr (host_space) {
      const int plain_end = last < b1 ? (last > b0 ? last : b0) : b1;
      for (int b = b0; b < plain_end; ++b)
        portfolio.template step<NSym, StepKind, Form>(sig, st, t0 + b, b, false, a, sink);
      if (last >= b0 && last < b1)
        portfolio.template step<NSym, StepKind, Form>(sig, st, t0 + last, last, true, a, sink);
    } else {
      for (int b = b0; b < b1; ++b) portfolio.template step<NSym, StepKind, Form>(sig, st, t0 + b, b, b == last, a, sink);
    }
  }

  // An account's metrics, finished, into row `row` of a [rows][n_metrics]
  // View of doubles (NaN outside the metric set): the sweep's and the window
  // pass's.
  template <class Accumulator, class Rows>
  KOKKOS_FORCEINLINE_FUNCTION void finish_into(const Accumulator& acc, const Rows& rows, long row) const {
    Real result[n_metrics];
    acc.finish(result, portfolio.metrics_basis());
    for (int m = 0; m < int(n_metrics); ++m) rows(row, m) = double(result[m]);
  }

  template <class Account>
  KOKKOS_FORCEINLINE_FUNCTION void write_metrics(int i, const Account& a) const {
    finish_into(a.acc, metrics, eval.first + i);
  }

  // The portfolio step of combo i with its swept settings (docs/semantics.md
  // "Swept settings"). Only the general step takes them (resolve_simulation
  // makes a run with swept settings general): per-combo rules live in
  // registers, which the close-fill kernels then need not hold.
  KOKKOS_FORCEINLINE_FUNCTION Step step_with_settings_of(int i) const {
    Step step = portfolio;
    if (portfolio.rules.any_swept) {
      const auto row = eval.first + i;
      step.rules = portfolio.rules.of_combo([&](int p) { return eval.params(row, p); });
    }
    return step;
  }

  // The step of combo i for a compiled step kind: a copy with its swept
  // settings for the general step, the run's own step (no copy) for the
  // close-fill kinds, which take no swept settings.
  template <int StepKind>
  KOKKOS_FORCEINLINE_FUNCTION decltype(auto) step_of(int i) const {
    if constexpr (StepKind == int(PortfolioStepKind::general)) {
      return step_with_settings_of(i);
    } else {
      return (portfolio);  // const Step&
    }
  }

  // The combo's swept settings are read again for every block, after its
  // evaluation: held across the evaluator instead, they cost a GPU thread
  // about ten registers for nothing (docs/kernels.md "The sweep kernels").
  // Neither the window, the initial capital nor the periods per year is ever
  // swept, so the account opens and the loop ends with the run's rules.
  template <int NSym, int StepKind, unsigned Groups>
  KOKKOS_FORCEINLINE_FUNCTION void simulate(int i, Symbol* st) const {
    Step::template reset<NSym>(st, portfolio.n_sym);
    Acct<Groups> a = portfolio.template open_account<BasicMetricsAccumulator<Real, Groups>>();
    const int end = portfolio.rules.window_end, block = eval.block;
    for (int t0 = 0; t0 < end; t0 += block) {
      const int nb = end - t0 < block ? end - t0 : block;
      if (!host_space || !position_per_bar) eval.evaluate_block(i, t0, nb);
      advance<NSym, StepKind>(step_of<StepKind>(i), i, st, a, t0, nb);
    }
    write_metrics(i, a);
  }

  // Evaluation only (emit_register >= 0): one combo's register, every bar.
  KOKKOS_INLINE_FUNCTION void operator()(const int thread) const {
    const int i = thread, n_bars = eval.n_bars, block = eval.block;
    eval.prepare(i);
    for (int t0 = 0; t0 < n_bars; t0 += block) {
      const int nb = n_bars - t0 < block ? n_bars - t0 : block;
      eval.evaluate_block(i, t0, nb);
      for (int b = 0; b < nb; ++b)
        for (int s = 0; s < eval.n_sym; ++s) emitted(s, t0 + b) = eval.value(i, emit_register, s, t0 + b, b);
    }
  }

  // How many symbols a kernel is compiled for (the Symbols parameter of
  // run_thread): one, whose state lives in registers; several, whose states
  // live in `sym`; or either, chosen per thread at run time.
  static constexpr int one_symbol = 1, several_symbols = 0, any_symbols = -1;
  // A GPU gets one kernel for each: with both paths in one kernel its body
  // grows past the size up to which nvcc inlines it into the kernel entry, and
  // as a called function it read the functor through a pointer and held about
  // 60 more registers (docs/kernels.md "The sweep kernels"). Host compilers
  // inline either way, so host spaces keep one kernel (and half the code).
  static constexpr bool kernel_per_symbol_count = !host_space;

  // Thread `thread` of a sweep whose portfolio step kind, metric set and
  // symbol count are compile-time ones (SweepLaunch, one kernel each: on a
  // GPU each gets its own register allocation).
  template <int StepKind, unsigned Groups, int Symbols>
  KOKKOS_INLINE_FUNCTION void run_thread(const int thread) const {
    eval.prepare(thread);
    simulate_one<StepKind, Groups, Symbols>(thread);
  }

  // Combo i of a kernel compiled for a step kind and metric set, on the path
  // for NSym (with_symbol_path): one symbol's state in registers, several
  // symbols' in their row of `sym`.
  template <int StepKind, unsigned Groups>
  struct Combos {
    const SweepFunctor& f;
    template <int NSym>
    KOKKOS_FORCEINLINE_FUNCTION void path(int i) const {
      if constexpr (NSym == 1) {
        Symbol one[1];
        f.template simulate<1, StepKind, Groups>(i, one);
      } else {
        f.template simulate<0, StepKind, Groups>(i, &f.sym(i, 0));
      }
    }
  };

  template <int StepKind, unsigned Groups, int Symbols>
  KOKKOS_FORCEINLINE_FUNCTION void simulate_one(int i) const {
    with_symbol_path<Symbols>(Combos<StepKind, Groups>{*this}, i);
  }

  // Calls paths.path<NSym>(i) with the NSym that a kernel compiled for
  // `Symbols` runs: 1 (one symbol, its state in registers) or 0 (several,
  // their states in a row of `sym`); with any_symbols it is chosen per thread.
  // The one place that maps a symbol count to a path (the sweep and the window pass). NSym stays a compile-time
  // argument, so that a GPU's kernels stay one per symbol count, and no lambda
  // stands between the kernel and its body: GCC kept a lambda's body out of
  // line, at about 17 more instructions per bar-combo
  // (benchmarks/instructions_per_bar.sh).
  template <int Symbols, class Paths>
  KOKKOS_FORCEINLINE_FUNCTION void with_symbol_path(const Paths& paths, int i) const {
    if constexpr (Symbols == one_symbol) {
      paths.template path<1>(i);
    } else if constexpr (Symbols == several_symbols) {
      paths.template path<0>(i);
    } else if (portfolio.n_sym == 1) {
      paths.template path<1>(i);
    } else {
      paths.template path<0>(i);
    }
  }

  // Calls f(kind, groups, symbols), each a std::integral_constant: the run's
  // step kind (PortfolioRules::step), its metric set and the symbol count the
  // kernel is compiled for (any_symbols on host spaces). On the host.
  template <class F>
  void with_variant(F&& f) const {
    constexpr unsigned returns = metric_group::returns, drawdown = metric_group::drawdown;
    const auto by_symbols = [&](auto kind, auto groups) {
      if constexpr (kernel_per_symbol_count) {
        if (portfolio.n_sym == 1) return f(kind, groups, std::integral_constant<int, one_symbol>{});
        return f(kind, groups, std::integral_constant<int, several_symbols>{});
      } else {
        return f(kind, groups, std::integral_constant<int, any_symbols>{});
      }
    };
    const auto by_set = [&](auto kind) {
      switch (metric_groups) {
        case 0: return by_symbols(kind, std::integral_constant<unsigned, 0>{});
        case returns: return by_symbols(kind, std::integral_constant<unsigned, returns>{});
        case returns | drawdown: return by_symbols(kind, std::integral_constant<unsigned, returns | drawdown>{});
        default: return by_symbols(kind, std::integral_constant<unsigned, metric_group::all>{});
      }
    };
    switch (PortfolioStepKind(portfolio.rules.step)) {
      case PortfolioStepKind::close_fills:
        return by_set(std::integral_constant<int, int(PortfolioStepKind::close_fills)>{});
      case PortfolioStepKind::close_fills_with_carry:
        return by_set(std::integral_constant<int, int(PortfolioStepKind::close_fills_with_carry)>{});
      default: return by_set(std::integral_constant<int, int(PortfolioStepKind::general)>{});
    }
  }

  // A variant's launch bounds (Kokkos::LaunchBounds): on a GPU the general
  // step with a reduced metric set is held to the register budget of
  // docs/kernels.md "CUDA: registers and spills" — 128 in fp64 (four blocks of
  // 128 threads per SM), 96 in fp32 (five) — which it fits with no spill where
  // unbounded ptxas gave its one-symbol returns + drawdown variant 132 (fp64)
  // and 102 (fp32). The close-fill kinds fit unbounded and spilled under the
  // fp32 bound, so every other variant is left to the compiler. Host spaces
  // ignore launch bounds.
  template <int StepKind, unsigned Groups>
  using launch_bounds = std::conditional_t<
      !host_space && StepKind == int(PortfolioStepKind::general) && Groups != metric_group::all,
      std::conditional_t<std::is_same<Real, float>::value, Kokkos::LaunchBounds<128, 5>, Kokkos::LaunchBounds<128, 4>>,
      Kokkos::LaunchBounds<>>;

  // Bytes of every View the functor holds (the run profile's kernel memory).
  std::size_t bytes() const {
    return eval.bytes() + portfolio.bytes() + sym.span() * sizeof(Symbol) + metrics.span() * sizeof(double) +
           emitted.span() * sizeof(Real);
  }
};

// One variant of the sweep kernel as its own functor (one kernel per step
// kind, metric set and, on a GPU, symbol count).
template <class Functor, int StepKind, unsigned Groups, int Symbols>
struct SweepLaunch {
  Functor f;
  KOKKOS_INLINE_FUNCTION void operator()(const int thread) const {
    f.template run_thread<StepKind, Groups, Symbols>(thread);
  }
};

}  // namespace kbt
