#pragma once
// The portfolio step of the kernels: one bar of the simulation of
// docs/semantics.md for one combo (or one trial), host and device, templated
// on the execution space and the real type. The sweep kernel calls it for
// every bar of every combo; an action-driven simulation feeds it targets from
// an action matrix instead of a compiled program. It is the kernels' only
// implementation of the rules; the reference engine (src/reference/simulator.cpp)
// keeps its own plain one, the oracle it is tested against bit for bit, so
// every operation here follows that file in the same order.
//
// The strategy's outputs reach the step as PortfolioSignals: per output a
// pointer and two strides over (symbol, bar of the current block). Metric
// events go to an accumulator (metrics_accumulator.hpp) through an Account;
// the bar's equity and exposure go to the caller's sink, which feeds them to
// add_bar (and may keep them: the action simulation records equity); the bars
// after a ruin go to its after_ruin(t).

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/metrics/metrics_basis.hpp>
#include <kbt/simulation/portfolio_rules.hpp>

#include <Kokkos_Core.hpp>

namespace kbt {

// Per-symbol state of one combo (the reference's SymbolState, less the
// ledger-only fields).
template <class Real>
struct PortfolioSymbol {
  Real units, held_target, mark, carried_target, lock_target, pending_target;
  Real entry_price, open_units, best_price, cash_flow, effective;
  int locked, pending, side, entry_bar, stop_bar;
};

// One series over the current block of bars for every symbol: element (s, b)
// is p[s * sym_step + b * bar_step]; p is null for an output the strategy does
// not have.
template <class Real>
struct SeriesRun {
  const Real* p;
  long sym_step, bar_step;
  KOKKOS_FORCEINLINE_FUNCTION Real operator()(int s, int b) const { return p[s * sym_step + b * bar_step]; }
};

// The strategy outputs the step reads: a target position, or entries/exits.
// The position is any series read as position(s, b): a SeriesRun, or on host
// sweeps a select computed per bar (sweep/detail/compared_select.hpp).
template <class Real, class Position = SeriesRun<Real>>
struct PortfolioSignals {
  Position position;
  SeriesRun<Real> long_entry, long_exit, short_entry, short_exit;
};

// Cash and the metrics accumulator of one combo.
template <class Real, class Accumulator>
struct Account {
  Real cash;
  Accumulator acc;
};

// What a bar leaves for the metrics: the equity at its close and whether a
// position was held during it.
template <class Real>
struct BarOutcome {
  Real equity;
  bool exposed;
};

template <class ExecSpace, class Real>
struct PortfolioStep {
  using memory_space = typename ExecSpace::memory_space;
  using Column = Kokkos::View<Real*, memory_space>;
  using Symbol = PortfolioSymbol<Real>;

  // The data, [n_sym * n_bars] symbol-major, and the fee per symbol (fraction).
  Column open, high, low, close, funding, fee_rate;
  int has_funding = 0;
  int n_sym = 0, n_bars = 0;
  int position_form = 1;  // targets (1) or entries/exits (0)
  PortfolioRules<Real> rules;

  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION int symbols() const { return NSym > 0 ? NSym : n_sym; }

  // The signal form of a step: Form 1 (targets) or 0 (entries/exits) fixes it
  // at compile time, -1 reads position_form.
  template <int Form>
  KOKKOS_FORCEINLINE_FUNCTION bool targets() const { return Form < 0 ? position_form != 0 : Form == 1; }

  KOKKOS_FORCEINLINE_FUNCTION Real at(const Column& column, int s, int t) const { return column(s * n_bars + t); }
  KOKKOS_FORCEINLINE_FUNCTION bool bar_valid(int s, int t) const { return !math::isnan(at(close, s, t)); }
  KOKKOS_FORCEINLINE_FUNCTION static int sign_of(Real x) { return x > Real(0) ? 1 : (x < Real(0) ? -1 : 0); }

  // A combo's states before its first bar. NSym > 0 fixes the number of
  // symbols at compile time (a single-symbol state lives in registers).
  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION static void reset(Symbol* st, int n) {
    for (int s = 0; s < (NSym > 0 ? NSym : n); ++s) {
      Symbol zero{};
      zero.stop_bar = -1;
      st[s] = zero;
    }
  }

  template <class Acc>
  KOKKOS_FORCEINLINE_FUNCTION Account<Real, Acc> open_account() const {
    return Account<Real, Acc>{rules.initial_capital, Acc(rules.initial_capital)};
  }

  // What the accumulator's finish() needs of the run (never swept).
  KOKKOS_FORCEINLINE_FUNCTION MetricsBasis<Real> metrics_basis() const {
    return MetricsBasis<Real>{rules.initial_capital, rules.periods_per_year};
  }

  template <int NSym, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION Real marked_equity(const Symbol* st, const Account<Real, Acc>& a) const {
    Real equity = a.cash;
    for (int s = 0; s < symbols<NSym>(); ++s)
      if (st[s].units != Real(0)) equity += st[s].units * st[s].mark;
    return equity;
  }

  // Position form: the target with NaN carried forward (every bar from bar 0).
  template <class Signals>
  KOKKOS_FORCEINLINE_FUNCTION static void carry_target(const Signals& sig, Symbol& st, int s, int b) {
    const Real v = sig.position(s, b);
    if (!math::isnan(v)) st.carried_target = v;
  }

  KOKKOS_FORCEINLINE_FUNCTION static bool fires(const SeriesRun<Real>& run, int s, int b) {
    if (run.p == nullptr) return false;
    const Real v = run(s, b);
    return !math::isnan(v) && v != Real(0);
  }

  template <class Signals>
  KOKKOS_FORCEINLINE_FUNCTION Real desired_side(const Signals& sig, const Symbol& st, int s, int t, int b) const {
    const int actual = sign_of(st.held_target);
    if (!bar_valid(s, t) || st.stop_bar == t) return Real(actual);
    const bool le = fires(sig.long_entry, s, b), lx = fires(sig.long_exit, s, b);
    const bool se = fires(sig.short_entry, s, b), sx = fires(sig.short_exit, s, b);
    if (actual > 0) return (lx || se) ? (se ? Real(-1) : Real(0)) : Real(1);
    if (actual < 0) return (sx || le) ? (le ? Real(1) : Real(0)) : Real(-1);
    if (le && !se) return Real(1);
    if (se && !le) return Real(-1);
    return Real(0);
  }

  // Cash flows of one fill of `delta` units at reference price `price`;
  // returns the executed price.
  template <class Acc>
  KOKKOS_FORCEINLINE_FUNCTION Real execute(int s, Account<Real, Acc>& a, Symbol& st, Real delta, Real price) const {
    const Real exec = delta > Real(0) ? price * (Real(1) + rules.slippage) : price * (Real(1) - rules.slippage);
    const Real notional = math::fabs(delta) * exec;
    const Real fee = notional * (rules.has_fee_override ? rules.fee_override : fee_rate(s));
    a.cash -= delta * exec;
    a.cash -= fee;
    st.cash_flow -= delta * exec;
    st.cash_flow -= fee;
    a.acc.add_fill(notional, fee);
    return exec;
  }

  template <class Acc>
  KOKKOS_FORCEINLINE_FUNCTION void close_trade(Account<Real, Acc>& a, Symbol& st, int t) const {
    const Real notional = math::fabs(st.open_units) * st.entry_price;
    const Real ret = st.cash_flow / notional;
    a.acc.add_trade(ret, Real(t - st.entry_bar));
    st.cash_flow = Real(0);
  }

  // Trades symbol s to `target` (fraction of `equity`) at reference price `price`.
  template <class Acc>
  KOKKOS_FORCEINLINE_FUNCTION void fill(Symbol& st, int s, int t, Account<Real, Acc>& a, Real target, Real equity,
                                        Real price) const {
    if (!(equity > Real(0))) target = Real(0);
    st.held_target = target;
    const Real new_units = target == Real(0) ? Real(0) : target * equity / price;
    const Real old_units = st.units;
    if (old_units != Real(0) && sign_of(new_units) != sign_of(old_units)) {
      execute(s, a, st, -old_units, price);
      st.units = Real(0);
      close_trade(a, st, t);
    }
    if (new_units == Real(0) || new_units == old_units) return;
    if (st.units == Real(0)) {
      const Real exec = execute(s, a, st, new_units, price);
      st.units = new_units;
      st.side = sign_of(st.units);
      st.entry_bar = t;
      st.entry_price = exec;
      st.open_units = st.units;
      st.best_price = exec;
    } else {
      execute(s, a, st, new_units - old_units, price);
      st.units = new_units;
    }
  }

  // next_open: the orders decided at the previous close fill at this open,
  // all sized by one equity marked at the open.
  template <int NSym, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION void fill_pending_orders(Symbol* st, int t, Account<Real, Acc>& a) const {
    bool any = false;
    for (int s = 0; s < symbols<NSym>(); ++s) any = any || st[s].pending;
    if (!any) return;
    Real equity = a.cash;
    for (int s = 0; s < symbols<NSym>(); ++s) {
      if (st[s].units == Real(0)) continue;
      const Real o = at(open, s, t);
      equity += st[s].units * (math::isnan(o) ? st[s].mark : o);
    }
    for (int s = 0; s < symbols<NSym>(); ++s) {
      if (!st[s].pending) continue;
      st[s].pending = 0;
      const Real o = at(open, s, t);
      if (math::isnan(o) || !bar_valid(s, t)) continue;
      fill(st[s], s, t, a, st[s].pending_target, equity, o);
    }
  }

  template <class Acc>
  KOKKOS_INLINE_FUNCTION void check_stops(Symbol& st, int s, int t, Account<Real, Acc>& a) const {
    if (st.units == Real(0)) return;
    const Real o = at(open, s, t), h = at(high, s, t), l = at(low, s, t);
    if (math::isnan(o) || math::isnan(h) || math::isnan(l) || !bar_valid(s, t)) return;
    const bool is_long = st.side > 0;
    const bool has_stop = rules.has_stop_loss || rules.has_trailing_stop;
    Real stop_level = 0;
    if (rules.has_stop_loss)
      stop_level = is_long ? st.entry_price * (Real(1) - rules.stop_loss) : st.entry_price * (Real(1) + rules.stop_loss);
    if (rules.has_trailing_stop) {
      const Real trail = is_long ? st.best_price * (Real(1) - rules.trailing_stop)
                                 : st.best_price * (Real(1) + rules.trailing_stop);
      const bool tighter = !rules.has_stop_loss || (is_long ? trail > stop_level : trail < stop_level);
      if (tighter) stop_level = trail;
    }
    Real target_level = 0;
    if (rules.has_take_profit)
      target_level = is_long ? st.entry_price * (Real(1) + rules.take_profit)
                             : st.entry_price * (Real(1) - rules.take_profit);
    bool exit = false;
    Real price = 0;
    if (has_stop && (is_long ? o <= stop_level : o >= stop_level)) {
      exit = true, price = o;
    } else if (rules.has_take_profit && (is_long ? o >= target_level : o <= target_level)) {
      exit = true, price = o;
    } else {
      const bool stop_hit = has_stop && (is_long ? l <= stop_level : h >= stop_level);
      const bool target_hit = rules.has_take_profit && (is_long ? h >= target_level : l <= target_level);
      if (stop_hit && (!target_hit || rules.stop_first)) {
        exit = true, price = stop_level;
      } else if (target_hit) {
        exit = true, price = target_level;
      }
    }
    if (exit) {
      execute(s, a, st, -st.units, price);
      st.units = Real(0);
      st.held_target = Real(0);
      st.locked = 1;
      st.lock_target = st.carried_target;
      st.stop_bar = t;
      close_trade(a, st, t);
      return;
    }
    if (is_long ? h > st.best_price : l < st.best_price) st.best_price = is_long ? h : l;
  }

  template <class Acc>
  KOKKOS_FORCEINLINE_FUNCTION void charge_carry(Symbol& st, int s, int t, Account<Real, Acc>& a) const {
    if (st.units == Real(0) || !bar_valid(s, t)) return;
    const Real c = at(close, s, t);
    if (st.units < Real(0) && rules.borrow_per_bar != Real(0)) {
      const Real cost = math::fabs(st.units) * c * rules.borrow_per_bar;
      a.cash -= cost;
      st.cash_flow -= cost;
    }
    if (has_funding) {
      const Real rate = at(funding, s, t);
      if (!math::isnan(rate)) {
        const Real cost = st.units * c * rate;
        a.cash -= cost;
        st.cash_flow -= cost;
        a.acc.add_funding(cost);
      }
    }
  }

  // The strategy's decision at the close of bar t; returns the equity marked
  // after its fills (the same bits as marked_equity(); computed again only
  // when a fill happened).
  template <int NSym, int Step, int Form, class Signals, class Acc>
  KOKKOS_FORCEINLINE_FUNCTION Real decide(const Signals& sig, Symbol* st, int t, int b, Account<Real, Acc>& a) const {
    constexpr bool general = Step == int(PortfolioStepKind::general);
    Real gross = 0;
    for (int s = 0; s < symbols<NSym>(); ++s) {
      Real raw;
      if (targets<Form>()) {
        // Only a stop locks a symbol.
        if (general && st[s].locked && st[s].carried_target != st[s].lock_target) st[s].locked = 0;
        raw = st[s].carried_target;
      } else {
        raw = desired_side(sig, st[s], s, t, b);
      }
      st[s].effective = rules.weighting_equal ? raw / Real(n_sym) : raw;
      // The reference's 0 + |x| is |x| (|x| >= +0, or NaN, which fails the
      // cap's comparison either way): the first symbol needs no add.
      gross = s == 0 ? math::fabs(st[s].effective) : gross + math::fabs(st[s].effective);
    }
    if (gross > rules.max_gross_leverage) {
      const Real scale = rules.max_gross_leverage / gross;
      for (int s = 0; s < symbols<NSym>(); ++s) st[s].effective = st[s].effective * scale;
    }
    const Real equity = marked_equity<NSym>(st, a);
    // An equity not > 0 at the close: no decision, the account is ruined
    // (docs/semantics.md "Ruin").
    if (!(equity > Real(0))) return equity;
    bool filled = false;
    for (int s = 0; s < symbols<NSym>(); ++s) {
      Real target = st[s].effective;
      if (general && targets<Form>() && st[s].locked) target = Real(0);
      if (target == st[s].held_target) continue;
      if (!general || !rules.fill_next_open) {
        if (bar_valid(s, t)) {
          fill(st[s], s, t, a, target, equity, at(close, s, t));
          filled = true;
        }
      } else {
        st[s].pending = 1;
        st[s].pending_target = target;
      }
    }
    return filled ? marked_equity<NSym>(st, a) : equity;
  }

  // The account is ruined at bar t (docs/semantics.md "Ruin"): every open
  // position is closed at its mark without costs (its trade ends there),
  // pending orders lapse, cash becomes 0 and the bar's equity 0. Returns
  // false when the account was ruined at an earlier bar: only a ruin feeds the
  // metrics an equity <= 0, so their last equity tells. Holding nothing,
  // with no cash, the account then never trades again (decide() returns
  // before any order on an equity that is not > 0), and its bars are not
  // scored.
  template <int NSym, class Acc>
  KOKKOS_INLINE_FUNCTION bool ruin(Symbol* st, int t, Account<Real, Acc>& a) const {
    if (!(a.acc.prev_equity > Real(0))) return false;
    for (int s = 0; s < symbols<NSym>(); ++s) {
      st[s].pending = 0;
      st[s].held_target = Real(0);
      if (st[s].units != Real(0)) {
        st[s].cash_flow += st[s].units * st[s].mark;
        close_trade(a, st[s], t);
        st[s].units = Real(0);
      }
    }
    a.cash = Real(0);
    return true;
  }

  // Bars [b0, b1) of the block, before the scoring window, only carry the
  // target. One call per block, so that its read of position_form comes
  // before the step loop and the compiler keeps it in a register there.
  template <int NSym, class Signals>
  KOKKOS_FORCEINLINE_FUNCTION void warm_up(const Signals& sig, Symbol* st, int b0, int b1) const {
    if (position_form)
      for (int b = b0; b < b1; ++b)
        for (int s = 0; s < symbols<NSym>(); ++s) carry_target(sig, st[s], s, b);
  }

  // One bar t of the scoring window (b: its offset in the current block),
  // steps numbered as in docs/semantics.md. Step (a PortfolioStepKind) is the
  // compiled step; the rules it leaves out do nothing in the runs that use it.
  // Form (targets<Form>) may fix the signal form, so that a loop over bars
  // tests it once, not per bar.
  // The bar's outcome goes to sink(BarOutcome) before the last bar's trades
  // close: returned instead, its stores came after that code and cost the
  // sweep loop extra registers and instructions. A bar after the ruin bar
  // goes to sink.after_ruin(t) instead (it is not scored).
  template <int NSym, int Step, int Form = -1, class Signals, class Acc, class Sink>
  KOKKOS_FORCEINLINE_FUNCTION void step(const Signals& sig, Symbol* st, int t, int b, bool last_bar,
                                        Account<Real, Acc>& a, Sink& sink) const {
    constexpr bool general = Step == int(PortfolioStepKind::general);
    if (general && rules.fill_next_open) fill_pending_orders<NSym>(st, t, a);
    bool exposed = false;
    for (int s = 0; s < symbols<NSym>(); ++s) exposed = exposed || st[s].units != Real(0);
    if (general && rules.has_stops())
      for (int s = 0; s < symbols<NSym>(); ++s) check_stops(st[s], s, t, a);
    if (Step != int(PortfolioStepKind::close_fills))
      for (int s = 0; s < symbols<NSym>(); ++s) charge_carry(st[s], s, t, a);
    for (int s = 0; s < symbols<NSym>(); ++s)
      if (bar_valid(s, t)) st[s].mark = at(close, s, t);
    if (targets<Form>())
      for (int s = 0; s < symbols<NSym>(); ++s) carry_target(sig, st[s], s, b);
    Real equity = last_bar ? marked_equity<NSym>(st, a) : decide<NSym, Step, Form>(sig, st, t, b, a);
    // Ruin (docs/semantics.md "Ruin"): one compare per bar, not taken until
    // the account is ruined.
    if (equity <= Real(0)) {
      if (!ruin<NSym>(st, t, a)) return sink.after_ruin(t);
      equity = Real(0);
    }
    sink(BarOutcome<Real>{equity, exposed});
    if (last_bar)
      for (int s = 0; s < symbols<NSym>(); ++s) {
        if (st[s].units != Real(0)) {
          st[s].cash_flow += st[s].units * st[s].mark;
          close_trade(a, st[s], t);
        }
      }
  }

  // Bytes of the Views (the run profile's kernel memory).
  std::size_t bytes() const {
    return (open.span() + high.span() + low.span() + close.span() + funding.span() + fee_rate.span()) * sizeof(Real);
  }
};

}  // namespace kbt
