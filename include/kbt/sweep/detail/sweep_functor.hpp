#pragma once
// The sweep kernel (docs/sweep.md): one combo per thread, streaming over bars
// with its state in per-thread memory. Each block of bars is evaluated by the
// BlockEvaluator, then the PortfolioStep (kbt/simulation/portfolio_step.hpp)
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

  // Equity and exposure of window bars whose add_bar is deferred (paired combos).
  static constexpr int deferred_bars = 64;
  struct DeferredBars {
    Real equity[deferred_bars];
    int exposed[deferred_bars];
    int count;
  };

  // Where step() leaves a bar's outcome: add_bar, or the deferred buffer.
  template <class Accumulator>
  struct BarSink {
    Accumulator& acc;
    DeferredBars* deferred;
    KOKKOS_FORCEINLINE_FUNCTION void operator()(const BarOutcome<Real>& bar) const {
      if (deferred) {
        deferred->equity[deferred->count] = bar.equity;
        deferred->exposed[deferred->count] = bar.exposed ? 1 : 0;
        deferred->count += 1;
      } else {
        acc.add_bar(bar.equity, bar.exposed);
      }
    }
  };

  // Bars [t0 + b0, t0 + b1) of the current block (already evaluated). With
  // `deferred`, each bar's outcome is recorded instead of fed to add_bar: the
  // bar fields of the accumulator are disjoint from the fill, trade and
  // funding fields, so feeding them later, in bar order, gives the same bits.
  // Host spaces compile the loop over bars once per signal form, so that no
  // bar tests the form; a GPU keeps one loop (a uniform branch per bar costs
  // a warp next to nothing, a second copy of the step costs registers).
  template <int NSym, int StepKind, class Account>
  KOKKOS_FORCEINLINE_FUNCTION void advance(const Step& portfolio, int i, Symbol* st, Account& a, int t0, int b0,
                                           int b1, DeferredBars* deferred) const {
    const PortfolioSignals<Real> sig = eval.signals_of(i, t0);
    const int window_begin = portfolio.rules.window_begin;
    const int warm_end = window_begin - t0 < b0 ? b0 : (window_begin - t0 < b1 ? window_begin - t0 : b1);
    portfolio.template warm_up<NSym>(sig, st, b0, warm_end);
    if constexpr (host_space) {
      if (portfolio.position_form) steps<NSym, StepKind, 1>(portfolio, sig, st, a, t0, warm_end, b1, deferred);
      else steps<NSym, StepKind, 0>(portfolio, sig, st, a, t0, warm_end, b1, deferred);
    } else {
      steps<NSym, StepKind, -1>(portfolio, sig, st, a, t0, warm_end, b1, deferred);
    }
  }

  // Window bars [t0 + b0, t0 + b1) of the block, for a signal form Form
  // (PortfolioStep::targets). On host spaces the window's last bar (it closes
  // the open trades) is stepped on its own, so that the loop over the others
  // tests nothing per bar for it; a GPU tests it per bar, as a second copy of
  // the step cost its kernels up to 14 registers.
  template <int NSym, int StepKind, int Form, class Account>
  KOKKOS_FORCEINLINE_FUNCTION void steps(const Step& portfolio, const PortfolioSignals<Real>& sig, Symbol* st,
                                         Account& a, int t0, int b0, int b1, DeferredBars* deferred) const {
    const int last = portfolio.rules.window_end - 1 - t0;
    BarSink<decltype(a.acc)> sink{a.acc, deferred};
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
  KOKKOS_FORCEINLINE_FUNCTION static void finish_into(const Accumulator& acc, const Rows& rows, long row) {
    Real result[n_metrics];
    acc.finish(result);
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
      eval.evaluate_block(i, t0, nb);
      advance<NSym, StepKind>(step_of<StepKind>(i), i, st, a, t0, 0, nb, nullptr);
    }
    write_metrics(i, a);
  }

  // Two combos on one thread (host spaces): each block is evaluated and
  // simulated for one combo, then the other, and the bar metrics of both are
  // accumulated in one loop, so that the two chains of divisions of the
  // metrics (docs/metrics.md) overlap instead of following each other.
  template <int NSym, int StepKind, unsigned Groups>
  KOKKOS_FORCEINLINE_FUNCTION void simulate_pair(int i0, Symbol* st0, int i1, Symbol* st1) const {
    simulate_pair_with<NSym, StepKind, Groups>(step_of<StepKind>(i0), i0, st0, step_of<StepKind>(i1), i1, st1);
  }

  template <int NSym, int StepKind, unsigned Groups>
  KOKKOS_FORCEINLINE_FUNCTION void simulate_pair_with(const Step& step0, int i0, Symbol* st0, const Step& step1,
                                                      int i1, Symbol* st1) const {
    Step::template reset<NSym>(st0, portfolio.n_sym);
    Step::template reset<NSym>(st1, portfolio.n_sym);
    Acct<Groups> a0 = step0.template open_account<BasicMetricsAccumulator<Real, Groups>>();
    Acct<Groups> a1 = step1.template open_account<BasicMetricsAccumulator<Real, Groups>>();
    DeferredBars d0, d1;
    const int end = portfolio.rules.window_end, block = eval.block;
    for (int t0 = 0; t0 < end; t0 += block) {
      const int nb = end - t0 < block ? end - t0 : block;
      eval.evaluate_block(i0, t0, nb);
      eval.evaluate_block(i1, t0, nb);
      for (int b0 = 0; b0 < nb; b0 += deferred_bars) {
        const int b1 = nb - b0 < deferred_bars ? nb : b0 + deferred_bars;
        d0.count = 0;
        d1.count = 0;
        advance<NSym, StepKind>(step0, i0, st0, a0, t0, b0, b1, &d0);
        advance<NSym, StepKind>(step1, i1, st1, a1, t0, b0, b1, &d1);
        for (int k = 0; k < d0.count; ++k) {  // same window: d1.count == d0.count
          a0.acc.add_bar(d0.equity[k], d0.exposed[k] != 0);
          a1.acc.add_bar(d1.equity[k], d1.exposed[k] != 0);
        }
      }
    }
    write_metrics(i0, a0);
    write_metrics(i1, a1);
  }

  // Thread `i` runs combo i, or with `pair_combos` combos 2i and 2i + 1 (the
  // last thread of an odd chunk runs one). Only host spaces compile the paired
  // path: on a GPU its buffers would cost registers and stack in every thread.
  static constexpr bool can_pair = host_space;
  int pair_combos = 0;
  int chunk_count = 0;  // combos in this chunk

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
    if constexpr (can_pair && Symbols == any_symbols) {
      if (pair_combos) {
        const int i0 = 2 * thread;
        eval.prepare(i0);
        if (i0 + 1 < chunk_count) {
          eval.prepare(i0 + 1);
          with_symbol_path<Symbols>(Combos<StepKind, Groups, true>{*this}, i0);
        } else {
          simulate_one<StepKind, Groups, Symbols>(i0);
        }
        return;
      }
    }
    eval.prepare(thread);
    simulate_one<StepKind, Groups, Symbols>(thread);
  }

  // Combo i, or with Pair combos i and i + 1 on one host thread
  // (simulate_pair), of a kernel compiled for a step kind and metric set, on
  // the path for NSym (with_symbol_path): one symbol's state in registers,
  // several symbols' in their rows of `sym`.
  template <int StepKind, unsigned Groups, bool Pair>
  struct Combos {
    const SweepFunctor& f;
    template <int NSym>
    KOKKOS_FORCEINLINE_FUNCTION void path(int i) const {
      if constexpr (NSym == 1) {
        Symbol one[1];
        if constexpr (Pair) {
          Symbol two[1];
          f.template simulate_pair<1, StepKind, Groups>(i, one, i + 1, two);
        } else {
          f.template simulate<1, StepKind, Groups>(i, one);
        }
      } else {
        if constexpr (Pair) f.template simulate_pair<0, StepKind, Groups>(i, &f.sym(i, 0), i + 1, &f.sym(i + 1, 0));
        else f.template simulate<0, StepKind, Groups>(i, &f.sym(i, 0));
      }
    }
  };

  template <int StepKind, unsigned Groups, int Symbols>
  KOKKOS_FORCEINLINE_FUNCTION void simulate_one(int i) const {
    with_symbol_path<Symbols>(Combos<StepKind, Groups, false>{*this}, i);
  }

  // Calls paths.path<NSym>(i) with the NSym that a kernel compiled for
  // `Symbols` runs: 1 (one symbol, its state in registers) or 0 (several,
  // their states in a row of `sym`); with any_symbols it is chosen per thread.
  // The one place that maps a symbol count to a path (the sweep, its pairs of
  // combos on host threads, and the window pass). NSym stays a compile-time
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

  // A variant's launch bounds (Kokkos::LaunchBounds): the fp32 general step
  // with a reduced metric set is held to 96 registers on a GPU (five blocks of
  // 128 threads per SM), which it fits with no spill where unbounded ptxas
  // gave one of them 102; the close-fill kinds spill under the same bound, so
  // every other variant is left to the compiler (docs/kernels.md "The sweep
  // kernels"). Host spaces ignore launch bounds.
  template <int StepKind, unsigned Groups>
  using launch_bounds =
      std::conditional_t<!host_space && std::is_same<Real, float>::value &&
                             StepKind == int(PortfolioStepKind::general) && Groups != metric_group::all,
                         Kokkos::LaunchBounds<128, 5>, Kokkos::LaunchBounds<>>;

  // Threads to launch for `count` combos.
  int threads_for(int count) const { return can_pair && pair_combos ? (count + 1) / 2 : count; }

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
