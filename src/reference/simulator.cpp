// The reference portfolio simulator. Every step below is written as it is
// specified in docs/semantics.md, in the same order; a sweep kernel mirrors it
// operation for operation, so do not reorder arithmetic here without updating
// the document and the kernels.

#include <kbt/reference/simulator.hpp>

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics_accumulator.hpp>

#include <algorithm>
#include <string>

namespace kbt {

const char* to_string(ExitReason reason) noexcept {
  switch (reason) {
    case ExitReason::signal: return "signal";
    case ExitReason::stop_loss: return "stop_loss";
    case ExitReason::take_profit: return "take_profit";
    case ExitReason::trailing_stop: return "trailing_stop";
    case ExitReason::end_of_data: return "end_of_data";
    case ExitReason::ruin: return "ruin";
  }
  return "unknown";
}

namespace {

void validate_signals(const BarData& bars, const StrategyOutputs& sig) {
  const std::size_t n = bars.n_symbols() * bars.n_bars();
  if (sig.n_symbols != bars.n_symbols() || sig.n_bars != bars.n_bars())
    throw Error(ErrorCategory::internal,
                "simulate_reference: strategy outputs are " + std::to_string(sig.n_symbols) +
                    " symbols x " + std::to_string(sig.n_bars) + " bars, the data " +
                    std::to_string(bars.n_symbols()) + " x " + std::to_string(bars.n_bars()));
  auto check = [&](const std::vector<double>& v, const char* name, bool required) {
    if ((required || !v.empty()) && v.size() != n)
      throw Error(ErrorCategory::internal, std::string("simulate_reference: strategy output '") +
                                               name + "' has " + std::to_string(v.size()) +
                                               " values, expected " + std::to_string(n));
  };
  if (sig.form == StrategyOutputs::Form::position) {
    check(sig.target, "target", true);
  } else {
    check(sig.long_entry, "long_entry", false);
    check(sig.long_exit, "long_exit", false);
    check(sig.short_entry, "short_entry", false);
    check(sig.short_exit, "short_exit", false);
  }
  for (const auto& column : {"open", "high", "low", "close"})
    if (!bars.has_column(column))
      throw Error(ErrorCategory::data_format,
                  std::string("simulate_reference: the data has no '") + column + "' column");
}

int sign_of(double x) { return x > 0 ? 1 : (x < 0 ? -1 : 0); }

// Per-symbol state: the position and the trade it belongs to.
struct SymbolState {
  double units = 0;          // signed units held
  double held_target = 0;    // effective target of the last fill (0 after a stop exit)
  double mark = 0;           // last non-NaN close (read only while units != 0)

  // Position form: the strategy's target with NaN carried forward, and the stop lock.
  double carried_target = 0;
  bool locked = false;
  double lock_target = 0;
  // Entries form: bar of the last stop exit (entries ignored on that bar).
  long stop_bar = -1;

  // next_open: the order decided at the previous close.
  bool pending = false;
  double pending_target = 0;

  // The open trade (units != 0).
  int side = 0;
  std::size_t entry_bar = 0;
  double entry_price = 0;
  double open_units = 0;
  double best_price = 0;     // highest high (long) / lowest low (short) since entry, for trailing
  double cash_flow = 0;      // sum of the trade's cash flows so far
  double fees = 0, funding = 0, borrow = 0;
};

class ReferenceSimulator {
 public:
  ReferenceSimulator(const BarData& bars, const ResolvedSimulation& sim,
                     const StrategyOutputs& sig, const SimulationOptions& opts)
      : bars_(bars), sim_(sim), sig_(sig), opts_(opts) {}

  SimulationResult run() {
    validate_signals(bars_, sig_);
    if (sim_.fee_rate.size() != bars_.n_symbols())
      throw Error(ErrorCategory::internal, "simulate_reference: the settings were resolved for other data");
    result_.window = sim_.window;
    result_.periods_per_year = sim_.periods_per_year;
    result_.periods_per_year_source = sim_.periods_per_year_source;
    n_sym_ = bars_.n_symbols();
    n_bars_ = bars_.n_bars();
    open_ = &bars_.columns.at("open");
    high_ = &bars_.columns.at("high");
    low_ = &bars_.columns.at("low");
    close_ = &bars_.columns.at("close");
    funding_rate_ = bars_.has_column("funding_rate") ? &bars_.columns.at("funding_rate") : nullptr;
    state_.assign(n_sym_, SymbolState{});
    acc_ = MetricsAccumulator(sim_.initial_capital);
    cash_ = sim_.initial_capital;

    const std::size_t begin = result_.window.begin, end = result_.window.end;
    if (end > n_bars_) throw Error(ErrorCategory::internal, "simulate_reference: the scoring window is beyond the data");
    // Warm-up: the carried position target follows the strategy from bar 0.
    if (sig_.form == StrategyOutputs::Form::position)
      for (std::size_t t = 0; t < begin; ++t)
        for (std::size_t s = 0; s < n_sym_; ++s) carry_target(s, t);

    if (opts_.keep_equity) {
      result_.equity.reserve(end - begin);
      result_.cash.reserve(end - begin);
      result_.units.reserve((end - begin) * n_sym_);
      result_.open_pnl.reserve(end - begin);
    }
    for (std::size_t t = begin; t < end; ++t) step(t, t + 1 == end);
    result_.metrics = acc_.finish_row({sim_.initial_capital, result_.periods_per_year});
    return std::move(result_);
  }

 private:
  double at(const std::vector<double>* column, std::size_t s, std::size_t t) const {
    return (*column)[s * n_bars_ + t];
  }
  bool bar_valid(std::size_t s, std::size_t t) const { return !math::isnan(at(close_, s, t)); }

  void step(std::size_t t, bool last_bar) {
    // A ruined account has halted: it holds nothing, its cash and equity are
    // 0 and its bars are not scored (docs/semantics.md "Ruin").
    if (result_.ruin_bar) {
      if (opts_.keep_equity) {
        result_.equity.push_back(0.0);
        result_.cash.push_back(0.0);
        result_.units.insert(result_.units.end(), n_sym_, 0.0);
        result_.open_pnl.push_back(0.0);
      }
      return;
    }
    // Steps numbered as in docs/semantics.md "One bar t of the window".
    // 1. next_open: the orders decided at the previous close fill at this open.
    if (sim_.fill == SimulationSettings::Fill::next_open) fill_pending_orders(t);

    // 2. The bar is exposed when a position is held now.
    bool exposed = false;
    for (std::size_t s = 0; s < n_sym_; ++s) exposed = exposed || state_[s].units != 0;
    // 3. Stops, intra-bar, on every position held at this point.
    for (std::size_t s = 0; s < n_sym_; ++s) check_stops(s, t);

    // 4. Borrow and funding on positions held through the bar.
    for (std::size_t s = 0; s < n_sym_; ++s) charge_carry(s, t);

    // 5. Mark to the close.
    for (std::size_t s = 0; s < n_sym_; ++s)
      if (bar_valid(s, t)) state_[s].mark = at(close_, s, t);

    // 6. The strategy's decision (none on the last window bar).
    if (sig_.form == StrategyOutputs::Form::position)
      for (std::size_t s = 0; s < n_sym_; ++s) carry_target(s, t);
    if (!last_bar) decide(t);

    // 7. Equity at the close, into the metrics; <= 0: the account is ruined.
    double equity = marked_equity();
    if (equity <= 0) {
      ruin(t, equity);
      equity = 0;
    }
    acc_.add_bar(equity, exposed);
    if (opts_.keep_equity) {
      result_.equity.push_back(equity);
      result_.cash.push_back(cash_);
      double open_pnl = 0;
      for (const SymbolState& st : state_) {
        result_.units.push_back(st.units);
        if (st.units != 0) open_pnl += st.cash_flow + st.units * st.mark;
      }
      result_.open_pnl.push_back(open_pnl);
    }

    // 8. End of the window: open positions are closed at the mark for the statistics.
    if (last_bar)
      for (std::size_t s = 0; s < n_sym_; ++s)
        if (state_[s].units != 0) {
          SymbolState& st = state_[s];
          st.cash_flow += st.units * st.mark;
          close_trade(s, t, st.mark, ExitReason::end_of_data);
        }
  }

  // docs/semantics.md "Ruin": every open position is closed at its mark
  // without costs, pending orders lapse, cash becomes 0.
  void ruin(std::size_t t, double equity) {
    result_.ruin_bar = t;
    result_.ruin_equity = equity;
    for (std::size_t s = 0; s < n_sym_; ++s) {
      SymbolState& st = state_[s];
      st.pending = false;
      st.held_target = 0;
      if (st.units != 0) {
        st.cash_flow += st.units * st.mark;
        close_trade(s, t, st.mark, ExitReason::ruin);
        st.units = 0;
      }
    }
    cash_ = 0;
  }

  // cash + sum of units * mark over held symbols, in symbol order.
  double marked_equity() const {
    double equity = cash_;
    for (const SymbolState& st : state_)
      if (st.units != 0) equity += st.units * st.mark;
    return equity;
  }

  void carry_target(std::size_t s, std::size_t t) {
    const double v = sig_.target[s * n_bars_ + t];
    if (!math::isnan(v)) state_[s].carried_target = v;
  }

  static bool fires(const std::vector<double>& v, std::size_t i) {
    return !v.empty() && !math::isnan(v[i]) && v[i] != 0.0;
  }

  // The side the entries/exits form wants for symbol s at bar t, given the actual side.
  double desired_side(std::size_t s, std::size_t t) const {
    const SymbolState& st = state_[s];
    const int actual = sign_of(st.held_target);
    if (!bar_valid(s, t) || st.stop_bar == static_cast<long>(t)) return actual;
    const std::size_t i = s * n_bars_ + t;
    const bool le = fires(sig_.long_entry, i), lx = fires(sig_.long_exit, i);
    const bool se = fires(sig_.short_entry, i), sx = fires(sig_.short_exit, i);
    if (actual > 0) return (lx || se) ? (se ? -1.0 : 0.0) : 1.0;
    if (actual < 0) return (sx || le) ? (le ? 1.0 : 0.0) : -1.0;
    if (le && !se) return 1.0;
    if (se && !le) return -1.0;
    return 0.0;
  }

  void decide(std::size_t t) {
    const bool position_form = sig_.form == StrategyOutputs::Form::position;
    // Raw targets, weighting, then the gross leverage cap (symbol order).
    std::vector<double>& eff = effective_;
    eff.assign(n_sym_, 0.0);
    double gross = 0;
    for (std::size_t s = 0; s < n_sym_; ++s) {
      SymbolState& st = state_[s];
      double raw;
      if (position_form) {
        if (st.locked && st.carried_target != st.lock_target) st.locked = false;
        raw = st.carried_target;
      } else {
        raw = desired_side(s, t);
      }
      eff[s] = sim_.weighting == SimulationSettings::Weighting::equal
                   ? raw / static_cast<double>(n_sym_)
                   : raw;
      gross += math::fabs(eff[s]);
    }
    if (gross > sim_.max_gross_leverage) {
      const double scale = sim_.max_gross_leverage / gross;
      for (double& e : eff) e = e * scale;
    }
    const double equity = marked_equity();
    if (!(equity > 0)) return;  // no decision: the account is ruined at this close ("Ruin")
    for (std::size_t s = 0; s < n_sym_; ++s) {
      SymbolState& st = state_[s];
      double target = eff[s];
      if (position_form && st.locked) target = 0;
      if (target == st.held_target) continue;
      if (sim_.fill == SimulationSettings::Fill::close) {
        if (bar_valid(s, t)) fill(s, t, target, equity, at(close_, s, t));
      } else {
        st.pending = true;
        st.pending_target = target;
      }
    }
  }

  void fill_pending_orders(std::size_t t) {
    bool any = false;
    for (const SymbolState& st : state_) any = any || st.pending;
    if (!any) return;
    // One sizing equity for every fill at this open, marked at the open.
    double equity = cash_;
    for (std::size_t s = 0; s < n_sym_; ++s) {
      const SymbolState& st = state_[s];
      if (st.units == 0) continue;
      const double o = at(open_, s, t);
      equity += st.units * (math::isnan(o) ? st.mark : o);
    }
    for (std::size_t s = 0; s < n_sym_; ++s) {
      SymbolState& st = state_[s];
      if (!st.pending) continue;
      st.pending = false;
      const double o = at(open_, s, t);
      if (math::isnan(o) || !bar_valid(s, t)) continue;  // cannot fill: the order lapses
      fill(s, t, st.pending_target, equity, o);
    }
  }

  // Trades symbol s to `target` (fraction of `equity`) at reference price `price`.
  void fill(std::size_t s, std::size_t t, double target, double equity, double price) {
    SymbolState& st = state_[s];
    if (!(equity > 0)) target = 0;  // ruined: no exposure
    st.held_target = target;
    const double new_units = target == 0 ? 0.0 : target * equity / price;
    const double old_units = st.units;
    if (old_units != 0 && sign_of(new_units) != sign_of(old_units)) {
      // Closing leg (and, for a reversal, an opening leg below).
      const double exec = execute(s, -old_units, price);
      st.units = 0;
      close_trade(s, t, exec, ExitReason::signal);
    }
    if (new_units == 0 || new_units == old_units) return;
    if (st.units == 0) {
      const double exec = execute(s, new_units, price);
      st.units = new_units;
      open_trade(s, t, exec);
    } else {
      execute(s, new_units - old_units, price);  // resize within the trade
      st.units = new_units;
    }
  }

  // Cash flows of one fill of `delta` units at reference price `price`; returns
  // the executed price.
  double execute(std::size_t s, double delta, double price) {
    SymbolState& st = state_[s];
    const double exec = delta > 0 ? price * (1.0 + sim_.slippage) : price * (1.0 - sim_.slippage);
    const double notional = math::fabs(delta) * exec;
    const double fee = notional * sim_.fee_rate[s];
    cash_ -= delta * exec;
    cash_ -= fee;
    st.cash_flow -= delta * exec;
    st.cash_flow -= fee;
    st.fees += fee;
    acc_.add_fill(notional, fee);
    return exec;
  }

  void open_trade(std::size_t s, std::size_t t, double exec) {
    SymbolState& st = state_[s];
    st.side = sign_of(st.units);
    st.entry_bar = t;
    st.entry_price = exec;
    st.open_units = st.units;
    st.best_price = exec;
    // The opening fill's flows were booked by execute() into a fresh trade.
  }

  void close_trade(std::size_t s, std::size_t t, double exit_price, ExitReason reason) {
    SymbolState& st = state_[s];
    const double notional = math::fabs(st.open_units) * st.entry_price;
    const double ret = st.cash_flow / notional;
    const double duration = static_cast<double>(t - st.entry_bar);
    acc_.add_trade(ret, duration);
    if (opts_.keep_ledger) {
      Trade tr;
      tr.symbol = s;
      tr.side = st.side;
      tr.entry_bar = st.entry_bar;
      tr.exit_bar = t;
      tr.entry_price = st.entry_price;
      tr.exit_price = exit_price;
      tr.units = st.open_units;
      tr.pnl = st.cash_flow;
      tr.trade_return = ret;
      tr.fees = st.fees;
      tr.funding = st.funding;
      tr.borrow = st.borrow;
      tr.exit_reason = reason;
      result_.trades.push_back(tr);
    }
    st.cash_flow = 0;
    st.fees = st.funding = st.borrow = 0;
  }

  void check_stops(std::size_t s, std::size_t t) {
    SymbolState& st = state_[s];
    if (st.units == 0) return;
    const bool any_stop = sim_.stop_loss || sim_.take_profit || sim_.trailing_stop;
    if (!any_stop) return;
    const double o = at(open_, s, t), h = at(high_, s, t), l = at(low_, s, t);
    if (math::isnan(o) || math::isnan(h) || math::isnan(l) || !bar_valid(s, t)) return;

    const bool is_long = st.side > 0;
    const bool has_stop = sim_.stop_loss || sim_.trailing_stop;
    // The stop level: the tighter of stop-loss and trailing (trailing uses the best
    // price up to the previous bar).
    double stop_level = 0;
    ExitReason stop_reason = ExitReason::stop_loss;
    if (sim_.stop_loss)
      stop_level = is_long ? st.entry_price * (1.0 - *sim_.stop_loss)
                           : st.entry_price * (1.0 + *sim_.stop_loss);
    if (sim_.trailing_stop) {
      const double trail = is_long ? st.best_price * (1.0 - *sim_.trailing_stop)
                                   : st.best_price * (1.0 + *sim_.trailing_stop);
      const bool tighter = !sim_.stop_loss || (is_long ? trail > stop_level : trail < stop_level);
      if (tighter) {
        stop_level = trail;
        stop_reason = ExitReason::trailing_stop;
      }
    }
    double target_level = 0;
    if (sim_.take_profit)
      target_level = is_long ? st.entry_price * (1.0 + *sim_.take_profit)
                             : st.entry_price * (1.0 - *sim_.take_profit);

    bool exit = false;
    double price = 0;
    ExitReason reason = ExitReason::signal;
    if (has_stop && (is_long ? o <= stop_level : o >= stop_level)) {
      exit = true, price = o, reason = stop_reason;  // gapped through the stop
    } else if (sim_.take_profit && (is_long ? o >= target_level : o <= target_level)) {
      exit = true, price = o, reason = ExitReason::take_profit;  // gapped through the target
    } else {
      const bool stop_hit = has_stop && (is_long ? l <= stop_level : h >= stop_level);
      const bool target_hit = sim_.take_profit && (is_long ? h >= target_level : l <= target_level);
      const bool stop_wins = sim_.sltp_priority == SimulationSettings::SltpPriority::stop_first;
      if (stop_hit && (!target_hit || stop_wins)) {
        exit = true, price = stop_level, reason = stop_reason;
      } else if (target_hit) {
        exit = true, price = target_level, reason = ExitReason::take_profit;
      }
    }

    if (exit) {
      const double exec = execute(s, -st.units, price);
      st.units = 0;
      st.held_target = 0;
      st.locked = true;
      st.lock_target = st.carried_target;
      st.stop_bar = static_cast<long>(t);
      close_trade(s, t, exec, reason);
      return;
    }
    // Still held: the bar's extreme feeds the trailing level of the next bar.
    if (is_long ? h > st.best_price : l < st.best_price) st.best_price = is_long ? h : l;
  }

  void charge_carry(std::size_t s, std::size_t t) {
    SymbolState& st = state_[s];
    if (st.units == 0 || !bar_valid(s, t)) return;
    const double c = at(close_, s, t);
    if (st.units < 0 && sim_.borrow_per_bar != 0) {
      const double cost = math::fabs(st.units) * c * sim_.borrow_per_bar;
      cash_ -= cost;
      st.cash_flow -= cost;
      st.borrow += cost;
    }
    if (funding_rate_) {
      const double rate = at(funding_rate_, s, t);
      if (!math::isnan(rate)) {
        const double cost = st.units * c * rate;
        cash_ -= cost;
        st.cash_flow -= cost;
        st.funding += cost;
        acc_.add_funding(cost);
      }
    }
  }

  const BarData& bars_;
  const ResolvedSimulation& sim_;
  const StrategyOutputs& sig_;
  const SimulationOptions& opts_;
  SimulationResult result_;
  std::size_t n_sym_ = 0, n_bars_ = 0;
  const std::vector<double>* open_ = nullptr;
  const std::vector<double>* high_ = nullptr;
  const std::vector<double>* low_ = nullptr;
  const std::vector<double>* close_ = nullptr;
  const std::vector<double>* funding_rate_ = nullptr;
  std::vector<SymbolState> state_;
  std::vector<double> effective_;  // decide()'s per-symbol targets, reused every bar
  MetricsAccumulator acc_;
  double cash_ = 0;
};

}  // namespace

SimulationResult simulate_reference(const BarData& bars, const ResolvedSimulation& sim,
                                    const StrategyOutputs& signals, const SimulationOptions& opts) {
  if (opts.score_end_bar || opts.score_end_time_ns)
    throw Error(ErrorCategory::internal, "simulate_reference: a resolved simulation has its scoring window already");
  return ReferenceSimulator(bars, sim, signals, opts).run();
}

SimulationResult simulate_reference(const BarData& bars, const SimulationSettings& sim,
                                    const StrategyOutputs& signals, const SimulationOptions& opts) {
  const ResolvedSimulation resolved =
      resolve_simulation(sim, bars, ScoreEnd{opts.score_end_bar, opts.score_end_time_ns});
  SimulationOptions recording = opts;
  recording.score_end_bar.reset();
  recording.score_end_time_ns.reset();
  return simulate_reference(bars, resolved, signals, recording);
}

}  // namespace kbt
