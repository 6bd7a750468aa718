#pragma once
// The sweep kernel (SPEC §4-§6): one combo per thread, streaming over bars with
// its state in per-thread memory, evaluating the compiled program and
// simulating the portfolio, reduced to the 21 metrics in a single pass.
//
// The program is evaluated a block of bars at a time: each streamed
// instruction is decoded once per block and applied to `block` consecutive
// bars (a loop the compiler can vectorise), then the portfolio steps through
// the block bar by bar. Every series value is a function of earlier bars only
// and the portfolio never feeds back into the program, so the order changes
// no bit. A single-symbol run keeps its portfolio state in registers.
//
// Every rule mirrors the reference engine operation for operation
// (src/reference/evaluator*.cpp, src/reference/simulator.cpp, docs/semantics.md),
// so that fp64 metrics are bit-identical; the parity tests compare the bits.
// Written once, templated on the execution space and the real type.

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/lang/scalar_ops.hpp>
#include <kbt/metrics/metrics_accumulator.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace kbt {

// Per-thread, per-symbol portfolio state (the reference's SymbolState, less
// the ledger-only fields).
template <class Real>
struct SweepSymbolState {
  Real units, held_target, mark, carried_target, lock_target, pending_target;
  Real entry_price, open_units, best_price, cash_flow, effective;
  int locked, pending, side, entry_bar, stop_bar;
};

// Which portfolio step a run compiles. Most sweeps fill at the close and have
// no stops; their step is compiled without next-open orders, stop checks and
// stop locks, and without carrying costs when there are none (no borrow, no
// funding column). Those rules would do nothing there.
enum SweepStep : int { step_general = 0, step_close_fills = 1, step_close_fills_with_carry = 2 };

// Simulation settings, resolved on the host (fees per symbol are a View).
template <class Real>
struct SweepSimSettings {
  Real initial_capital = 0, slippage = 0, borrow_per_bar = 0, max_gross_leverage = 1;
  Real periods_per_year = 0;
  Real stop_loss = 0, take_profit = 0, trailing_stop = 0;
  int has_stop_loss = 0, has_take_profit = 0, has_trailing_stop = 0;
  int fill_next_open = 0, weighting_equal = 0, stop_first = 1;
  int window_begin = 0, window_end = 0;
  int portfolio_step = step_general;  // the SweepStep this run compiles
};

template <class ExecSpace, class Real>
struct SweepFunctor {
  using memory_space = typename ExecSpace::memory_space;
  template <class T>
  using V1 = Kokkos::View<T*, memory_space>;
  template <class T>
  using V2 = Kokkos::View<T**, memory_space>;
  // Per-combo symbol states, one contiguous row per combo (read through a pointer).
  using SymbolStates = Kokkos::View<SweepSymbolState<Real>**, Kokkos::LayoutRight, memory_space>;

  // The program.
  V1<Instr> code;
  V1<int> home, home_index, ring_offset, ring_capacity, state_offset, streamed;
  V1<int> cur_slot;        // per register: its slot in `cur` (scalar and streamed registers), else -1
  V1<int> stride;          // per register: bars of its timeframe (row length per symbol)
  V2<int> frame_visible;   // [frame][base bar] -> visible htf bar, -1 when none
  V1<ScanProgram> scans;
  V1<Instr> scan_tape;
  V1<int> scan_refs, scan_trigger, scan_state_offset;
  V1<int> scan_out_begin, scan_out_regs;  // per scan: its output registers, [begin(scan), begin(scan+1))
  int n_regs = 0, n_streamed = 0, n_sym = 0, n_bars = 0, n_params = 0, n_hoisted = 0;
  int position = -1, long_entry = -1, long_exit = -1, short_entry = -1, short_exit = -1;
  int position_form = 1;
  int block = 1;           // bars per evaluation block (the `cur` row holds block values per slot and symbol)

  // The data and the precomputed series.
  V1<Real> open, high, low, close, funding;
  int has_funding = 0;
  V2<Real> materialized, hoisted;
  V2<int> hoist_row;  // [combo][hoisted register] -> row of `hoisted`
  V2<Real> params;    // [combo][param]
  V1<Real> fee_rate;  // per symbol, fraction
  SweepSimSettings<Real> sim;

  // Per-thread scratch, indexed by the combo's index within the chunk.
  V2<Real> cur, ring, state, slots;
  SymbolStates sym;

  V2<double> metrics;  // [combo][n_metrics]
  // Evaluation only (no simulation): register to write per symbol and bar.
  int emit_register = -1;
  V2<Real> emitted;    // [symbol][bar]
  long first = 0;      // first combo of this chunk

  // ---- register values -------------------------------------------------------
  // `b` is the bar's offset in the current block (streamed registers hold one
  // value per bar of the block; scalars one value at offset 0).

  KOKKOS_FORCEINLINE_FUNCTION int cur_index(int r, int s, int b) const { return (cur_slot(r) * n_sym + s) * block + b; }

  KOKKOS_FORCEINLINE_FUNCTION Real value(int i, int r, int s, int t, int b) const {
    switch (home(r)) {
      case int(RegisterHome::scalar): return cur(i, cur_index(r, 0, 0));
      case int(RegisterHome::materialized): return materialized(home_index(r), s * stride(r) + t);
      case int(RegisterHome::hoisted): return hoisted(hoist_row(first + i, home_index(r)), s * stride(r) + t);
      default: return cur(i, cur_index(r, s, b));
    }
  }
  KOKKOS_INLINE_FUNCTION Real& out(int i, int r, int s, int b) const { return cur(i, cur_index(r, s, b)); }
  KOKKOS_INLINE_FUNCTION int window_of(int i, const Instr& ins) const {
    return ins.window_kind == WindowKind::constant ? ins.window : int(params(first + i, ins.window));
  }

  // ---- scalars ---------------------------------------------------------------

  KOKKOS_INLINE_FUNCTION Real scalar_operand(int i, int r) const { return r < 0 ? Real(0) : value(i, r, 0, 0, 0); }

  KOKKOS_INLINE_FUNCTION void evaluate_scalars(int i) const {
    for (int r = 0; r < n_regs; ++r) {
      if (home(r) != int(RegisterHome::scalar)) continue;
      const Instr ins = code(r);
      Real v;
      if (ins.op == OpCode::constant) v = Real(ins.constant);
      else if (ins.op == OpCode::param) v = params(first + i, ins.aux);
      else v = ops::apply_pointwise<Real>(ins.op, scalar_operand(i, ins.a), scalar_operand(i, ins.b),
                                          scalar_operand(i, ins.c));
      // Repeated over the block, so that a pointwise loop reads a scalar
      // operand like a streamed one (value() reads offset 0).
      for (int b = 0; b < block; ++b) out(i, r, 0, b) = v;
    }
  }

  // ---- pointwise ops over a block ---------------------------------------------

  // The values of one operand over the block: element b is p[b * step].
  struct Run {
    const Real* p;
    long step;
    KOKKOS_FORCEINLINE_FUNCTION Real operator[](int b) const { return p[b * step]; }
  };

  KOKKOS_INLINE_FUNCTION Run run_of(int i, int r, int s, int t0) const {
    switch (home(r)) {
      case int(RegisterHome::scalar): return Run{&cur(i, cur_index(r, 0, 0)), long(cur.stride(1))};
      case int(RegisterHome::materialized):
        return Run{&materialized(home_index(r), s * stride(r) + t0), long(materialized.stride(1))};
      case int(RegisterHome::hoisted):
        return Run{&hoisted(hoist_row(first + i, home_index(r)), s * stride(r) + t0), long(hoisted.stride(1))};
      default: return Run{&cur(i, cur_index(r, s, 0)), long(cur.stride(1))};
    }
  }

  // Every operand and the result one element apart (host Views): plain
  // arrays the compiler can vectorise. The result is never an operand (one
  // register per instruction).
  template <int Op>
  KOKKOS_INLINE_FUNCTION static void pointwise_loop(Real* KOKKOS_RESTRICT y, const Real* KOKKOS_RESTRICT a,
                                                    const Real* KOKKOS_RESTRICT b, const Real* KOKKOS_RESTRICT c,
                                                    int nb) {
    for (int k = 0; k < nb; ++k) y[k] = ops::apply_pointwise<Real>(OpCode(Op), a[k], b[k], c[k]);
  }
  template <int Op>
  KOKKOS_INLINE_FUNCTION static void pointwise_loop(Real* y, long ys, Run a, Run b, Run c, int nb) {
    if (ys == 1 && a.step == 1 && b.step == 1 && c.step == 1) return pointwise_loop<Op>(y, a.p, b.p, c.p, nb);
    for (int k = 0; k < nb; ++k) y[k * ys] = ops::apply_pointwise<Real>(OpCode(Op), a[k], b[k], c[k]);
  }

  // One pointwise instruction over `nb` bars of symbol s. The switch picks a
  // loop whose opcode is a constant, so the loop body has no dispatch. An
  // absent operand reads the first one's values (the opcode ignores it).
  KOKKOS_INLINE_FUNCTION void pointwise_block(int i, int r, const Instr& ins, int s, int t0, int nb) const {
    const Run a = run_of(i, ins.a, s, t0);
    const Run b = ins.b < 0 ? a : run_of(i, ins.b, s, t0), c = ins.c < 0 ? a : run_of(i, ins.c, s, t0);
    Real* y = &cur(i, cur_index(r, s, 0));
    const long ys = long(cur.stride(1));
    switch (ins.op) {
#define KBT_POINTWISE_CASE(name) \
  case OpCode::name: pointwise_loop<int(OpCode::name)>(y, ys, a, b, c, nb); break;
      KBT_POINTWISE_CASE(neg) KBT_POINTWISE_CASE(add) KBT_POINTWISE_CASE(sub) KBT_POINTWISE_CASE(mul)
      KBT_POINTWISE_CASE(div) KBT_POINTWISE_CASE(lt) KBT_POINTWISE_CASE(le) KBT_POINTWISE_CASE(gt)
      KBT_POINTWISE_CASE(ge) KBT_POINTWISE_CASE(eq) KBT_POINTWISE_CASE(ne) KBT_POINTWISE_CASE(logical_and)
      KBT_POINTWISE_CASE(logical_or) KBT_POINTWISE_CASE(logical_not) KBT_POINTWISE_CASE(abs)
      KBT_POINTWISE_CASE(sqrt) KBT_POINTWISE_CASE(log) KBT_POINTWISE_CASE(exp) KBT_POINTWISE_CASE(sign)
      KBT_POINTWISE_CASE(min) KBT_POINTWISE_CASE(max) KBT_POINTWISE_CASE(clip) KBT_POINTWISE_CASE(where)
      KBT_POINTWISE_CASE(isnan) KBT_POINTWISE_CASE(fillna)
#undef KBT_POINTWISE_CASE
      default:
        for (int k = 0; k < nb; ++k) y[k * ys] = ops::apply_pointwise<Real>(ins.op, a[k], b[k], c[k]);
    }
  }

  // ---- windowed ops over a per-thread ring buffer ----------------------------

  KOKKOS_INLINE_FUNCTION Real ring_at(int i, int base, int cap, int t) const { return ring(i, base + t % cap); }

  // x[t-w+1] + ... + x[t], left to right; NaN when any term is NaN.
  KOKKOS_INLINE_FUNCTION Real window_sum(int i, int base, int cap, int t, int w) const {
    Real s = ring_at(i, base, cap, t + 1 - w);
    if (math::isnan(s)) return ops::nan<Real>();
    for (int j = t + 2 - w; j <= t; ++j) {
      const Real x = ring_at(i, base, cap, j);
      if (math::isnan(x)) return ops::nan<Real>();
      s += x;
    }
    return s;
  }
  KOKKOS_INLINE_FUNCTION Real window_std(int i, int base, int cap, int t, int w, Real mean) const {
    Real d = ring_at(i, base, cap, t + 1 - w) - mean;
    Real ss = d * d;
    for (int j = t + 2 - w; j <= t; ++j) {
      d = ring_at(i, base, cap, j) - mean;
      ss += d * d;
    }
    return math::sqrt(ss / Real(w - 1));
  }

  KOKKOS_INLINE_FUNCTION Real windowed(int i, int r, const Instr& ins, int s, int t, int b) const {
    const Real nan = ops::nan<Real>();
    const int w = window_of(i, ins);
    const Real x = value(i, ins.a, s, t, b);
    const int cap = ring_capacity(r);
    const int base = ring_offset(r) + s * cap;
    if (ins.op == OpCode::ema) {
      const int st = state_offset(r) + 2 * s;
      if (math::isnan(x)) return nan;
      if (state(i, st) == Real(0)) {
        state(i, st) = Real(1);
        state(i, st + 1) = x;
      } else {
        const Real alpha = Real(2) / (Real(w) + Real(1));
        const Real keep = Real(1) - alpha;
        state(i, st + 1) = alpha * x + keep * state(i, st + 1);
      }
      return state(i, st + 1);
    }
    if (ins.op == OpCode::rsi) return rsi_step(i, r, x, w, s, t);
    ring(i, base + t % cap) = x;
    switch (ins.op) {
      case OpCode::lag: return t >= w ? ring_at(i, base, cap, t - w) : nan;
      case OpCode::roc: {
        if (t < w) return nan;
        const Real old = ring_at(i, base, cap, t - w);
        return ops::div<Real>(x - old, old);
      }
      case OpCode::rolling_sum:
        return t >= w - 1 ? window_sum(i, base, cap, t, w) : nan;
      case OpCode::rolling_mean:
        return t >= w - 1 ? window_sum(i, base, cap, t, w) / Real(w) : nan;
      case OpCode::rolling_std: {
        if (t < w - 1) return nan;
        const Real mean = window_sum(i, base, cap, t, w) / Real(w);
        return math::isnan(mean) ? nan : window_std(i, base, cap, t, w, mean);
      }
      case OpCode::zscore: {
        if (t < w - 1) return nan;
        const Real mean = window_sum(i, base, cap, t, w) / Real(w);
        if (math::isnan(mean)) return nan;
        const Real sd = window_std(i, base, cap, t, w, mean);
        return ops::div<Real>(x - mean, sd);
      }
      case OpCode::rolling_min:
      case OpCode::rolling_max: {
        if (t < w - 1) return nan;
        const bool is_min = ins.op == OpCode::rolling_min;
        Real m = ring_at(i, base, cap, t + 1 - w);
        for (int j = t + 1 - w; j <= t && !math::isnan(m); ++j) {
          const Real v = ring_at(i, base, cap, j);
          m = math::isnan(v) ? nan : (is_min ? (v < m ? v : m) : (v > m ? v : m));
        }
        return m;
      }
      default: return nan;
    }
  }

  // Wilder RSI (reference::rsi): gains/losses of x, seeded by the plain mean of
  // the first w consecutive valid values, then smoothed.
  KOKKOS_INLINE_FUNCTION Real rsi_step(int i, int r, Real x, int w, int s, int t) const {
    const Real nan = ops::nan<Real>();
    const int cap = ring_capacity(r);
    const int wcap = (cap - 2) / 2;
    const int xb = ring_offset(r) + s * cap, gb = xb + 2, lb = gb + wcap;
    const int st = state_offset(r) + 4 * s;  // run, seeded, s_gain, s_loss
    ring(i, xb + t % 2) = x;
    Real gain = nan, loss = nan;
    if (t >= 1) {
      const Real d = x - ring(i, xb + (t - 1) % 2);
      if (!math::isnan(d)) {
        gain = d > Real(0) ? d : Real(0);
        loss = d < Real(0) ? -d : Real(0);
      }
    }
    ring(i, gb + t % wcap) = gain;
    ring(i, lb + t % wcap) = loss;
    if (math::isnan(gain) || math::isnan(loss)) {
      state(i, st) = Real(0);
      return nan;
    }
    const Real wd = Real(w);
    if (state(i, st + 1) == Real(0)) {
      state(i, st) += Real(1);
      if (state(i, st) < wd) return nan;
      state(i, st + 2) = window_sum(i, gb, wcap, t, w) / wd;
      state(i, st + 3) = window_sum(i, lb, wcap, t, w) / wd;
      state(i, st + 1) = Real(1);
    } else {
      state(i, st + 2) = (state(i, st + 2) * (wd - Real(1)) + gain) / wd;
      state(i, st + 3) = (state(i, st + 3) * (wd - Real(1)) + loss) / wd;
    }
    const Real avg_gain = state(i, st + 2), avg_loss = state(i, st + 3);
    if (avg_loss == Real(0)) return avg_gain == Real(0) ? Real(50) : Real(100);
    return Real(100) - Real(100) / (Real(1) + avg_gain / avg_loss);
  }

  // ---- cross-sectional ops (reference::cs_*) --------------------------------

  KOKKOS_INLINE_FUNCTION void cross_sectional(int i, int r, const Instr& ins, int t, int b) const {
    const Real nan = ops::nan<Real>();
    if (ins.op == OpCode::cs_rank) {
      int valid = 0;
      for (int s = 0; s < n_sym; ++s) valid += math::isnan(value(i, ins.a, s, t, b)) ? 0 : 1;
      for (int s = 0; s < n_sym; ++s) {
        const Real x = value(i, ins.a, s, t, b);
        Real y = nan;
        if (!math::isnan(x)) {
          if (valid == 1) {
            y = Real(0.5);
          } else {
            int less = 0, equal = 0;
            for (int k = 0; k < n_sym; ++k) {
              const Real v = value(i, ins.a, k, t, b);
              if (math::isnan(v)) continue;
              if (v < x) ++less;
              else if (v == x) ++equal;
            }
            const Real rank = Real(less) + (Real(equal) + Real(1)) / Real(2);
            y = (rank - Real(1)) / Real(valid - 1);
          }
        }
        out(i, r, s, b) = y;
      }
      return;
    }
    Real sum = 0;
    int count = 0;
    for (int s = 0; s < n_sym; ++s) {
      const Real v = value(i, ins.a, s, t, b);
      if (math::isnan(v)) continue;
      sum = count == 0 ? v : sum + v;
      ++count;
    }
    const Real mean = count == 0 ? nan : sum / Real(count);
    if (ins.op == OpCode::cs_demean) {
      for (int s = 0; s < n_sym; ++s) {
        const Real v = value(i, ins.a, s, t, b);
        out(i, r, s, b) = math::isnan(v) ? nan : v - mean;
      }
      return;
    }
    // cs_zscore
    Real sd = nan;
    if (count >= 2) {
      Real ss = 0;
      bool first_valid = true;
      for (int s = 0; s < n_sym; ++s) {
        const Real v = value(i, ins.a, s, t, b);
        if (math::isnan(v)) continue;
        const Real d = v - mean;
        ss = first_valid ? d * d : ss + d * d;
        first_valid = false;
      }
      sd = math::sqrt(ss / Real(count - 1));
    }
    for (int s = 0; s < n_sym; ++s) {
      const Real v = value(i, ins.a, s, t, b);
      out(i, r, s, b) = (count < 2 || math::isnan(v)) ? nan : ops::div<Real>(v - mean, sd);
    }
  }

  // ---- scans (reference run_scan / run_tape) ---------------------------------

  KOKKOS_INLINE_FUNCTION void run_tape(int i, int begin, int end, int in_base, int st_base) const {
    for (int k = begin; k < end; ++k) {
      const Instr ins = scan_tape(k);
      Real v;
      switch (ins.op) {
        case OpCode::constant: v = Real(ins.constant); break;
        case OpCode::param: v = params(first + i, ins.aux); break;
        case OpCode::scan_input: v = state(i, in_base + ins.aux); break;
        case OpCode::scan_state: v = state(i, st_base + ins.aux); break;
        default:
          v = ops::apply_pointwise<Real>(ins.op, ins.a < 0 ? Real(0) : slots(i, ins.a),
                                         ins.b < 0 ? Real(0) : slots(i, ins.b),
                                         ins.c < 0 ? Real(0) : slots(i, ins.c));
      }
      slots(i, k - begin) = v;
    }
  }

  // One step of a scan at bar t, then every output register of the scan takes
  // its value for this bar (the scan's other output registers come later in
  // the block and must not see a later step's outputs).
  KOKKOS_INLINE_FUNCTION void scan_step(int i, int scan, int t, int b) const {
    const ScanProgram sp = scans(scan);
    const int per_sym = 1 + sp.n_states + sp.n_outputs + sp.n_inputs;
    for (int s = 0; s < n_sym; ++s) {
      const int seeded = scan_state_offset(scan) + s * per_sym;
      const int st = seeded + 1, outs = st + sp.n_states, in = outs + sp.n_outputs;
      bool valid = true;
      for (int k = 0; k < sp.n_inputs; ++k) {
        const Real v = value(i, scan_refs(sp.inputs + k), s, t, b);
        state(i, in + k) = v;
        valid = valid && !math::isnan(v);
      }
      if (!valid) {
        for (int k = 0; k < sp.n_outputs; ++k) state(i, outs + k) = ops::nan<Real>();
      } else {
        if (state(i, seeded) == Real(0)) {
          run_tape(i, sp.init_begin, sp.init_end, in, st);
          for (int j = 0; j < sp.n_states; ++j) state(i, st + j) = slots(i, scan_refs(sp.init_state + j));
          state(i, seeded) = Real(1);
        }
        run_tape(i, sp.update_begin, sp.update_end, in, st);
        for (int k = 0; k < sp.n_outputs; ++k) state(i, outs + k) = slots(i, scan_refs(sp.outputs + k));
        for (int j = 0; j < sp.n_states; ++j) state(i, st + j) = slots(i, scan_refs(sp.update_state + j));
      }
      for (int k = scan_out_begin(scan); k < scan_out_begin(scan + 1); ++k) {
        const int ro = scan_out_regs(k);
        out(i, ro, s, b) = state(i, outs + code(ro).aux2);
      }
    }
  }

  // ---- bars [t0, t0 + nb) of every streamed register ---------------------------

  KOKKOS_INLINE_FUNCTION void evaluate_block(int i, int t0, int nb) const {
    for (int k = 0; k < n_streamed; ++k) {
      const int r = streamed(k);
      const Instr ins = code(r);
      switch (ins.op) {
        case OpCode::cs_rank: case OpCode::cs_zscore: case OpCode::cs_demean:
          for (int b = 0; b < nb; ++b) cross_sectional(i, r, ins, t0 + b, b);
          break;
        case OpCode::htf:
          // The last completed higher-timeframe bar (reference: Evaluator htf).
          for (int b = 0; b < nb; ++b) {
            const int j = frame_visible(ins.aux, t0 + b);
            for (int s = 0; s < n_sym; ++s) out(i, r, s, b) = j >= 0 ? value(i, ins.a, s, j, b) : ops::nan<Real>();
          }
          break;
        case OpCode::symbol_read:
          for (int s = 0; s < n_sym; ++s)
            for (int b = 0; b < nb; ++b) out(i, r, s, b) = value(i, ins.a, ins.aux, t0 + b, b);
          break;
        case OpCode::scan_output:
          // The scan's trigger register steps it and writes all its outputs.
          if (scan_trigger(ins.aux) == r)
            for (int b = 0; b < nb; ++b) scan_step(i, ins.aux, t0 + b, b);
          break;
        case OpCode::lag: case OpCode::roc: case OpCode::rolling_sum: case OpCode::rolling_mean:
        case OpCode::rolling_std: case OpCode::zscore: case OpCode::rolling_min: case OpCode::rolling_max:
        case OpCode::ema: case OpCode::rsi:
          for (int s = 0; s < n_sym; ++s)
            for (int b = 0; b < nb; ++b) out(i, r, s, b) = windowed(i, r, ins, s, t0 + b, b);
          break;
        default:
          for (int s = 0; s < n_sym; ++s) pointwise_block(i, r, ins, s, t0, nb);
      }
    }
  }

  // ---- the signals the portfolio reads -------------------------------------------
  // A register's values over the current block for every symbol: element
  // (s, b) is p[s * sym_step + b * bar_step]. Resolved once per block, so that
  // the per-bar portfolio step reads a signal with one load instead of
  // dispatching on the register's home (value()).
  struct SeriesRun {
    const Real* p;
    long sym_step, bar_step;
    KOKKOS_FORCEINLINE_FUNCTION Real operator()(int s, int b) const { return p[s * sym_step + b * bar_step]; }
  };
  struct Signals {
    SeriesRun position, long_entry, long_exit, short_entry, short_exit;
  };

  // Same element as value(i, r, s, t0 + b, b).
  KOKKOS_INLINE_FUNCTION SeriesRun series_of(int i, int r, int t0) const {
    if (r < 0) return SeriesRun{nullptr, 0, 0};
    switch (home(r)) {
      case int(RegisterHome::scalar): return SeriesRun{&cur(i, cur_index(r, 0, 0)), 0, 0};
      case int(RegisterHome::materialized): {
        const long step = long(materialized.stride(1));
        return SeriesRun{&materialized(home_index(r), t0), long(stride(r)) * step, step};
      }
      case int(RegisterHome::hoisted): {
        const long step = long(hoisted.stride(1));
        return SeriesRun{&hoisted(hoist_row(first + i, home_index(r)), t0), long(stride(r)) * step, step};
      }
      default: {
        const long step = long(cur.stride(1));
        return SeriesRun{&cur(i, cur_index(r, 0, 0)), long(block) * step, step};
      }
    }
  }

  KOKKOS_INLINE_FUNCTION Signals signals_of(int i, int t0) const {
    return Signals{series_of(i, position, t0), series_of(i, long_entry, t0), series_of(i, long_exit, t0),
                   series_of(i, short_entry, t0), series_of(i, short_exit, t0)};
  }

  // ---- the portfolio (reference ReferenceSimulator, docs/semantics.md) --------
  // `st` points at the combo's n_sym symbol states; NSym > 0 fixes their number
  // at compile time (the single-symbol case lives in registers), 0 = n_sym.

  struct Account {
    Real cash;
    BasicMetricsAccumulator<Real> acc;
  };

  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION int symbols() const { return NSym > 0 ? NSym : n_sym; }

  KOKKOS_FORCEINLINE_FUNCTION Real at(const V1<Real>& column, int s, int t) const { return column(s * n_bars + t); }
  KOKKOS_FORCEINLINE_FUNCTION bool bar_valid(int s, int t) const { return !math::isnan(at(close, s, t)); }
  KOKKOS_FORCEINLINE_FUNCTION static int sign_of(Real x) { return x > Real(0) ? 1 : (x < Real(0) ? -1 : 0); }

  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION Real marked_equity(const SweepSymbolState<Real>* st, const Account& a) const {
    Real equity = a.cash;
    for (int s = 0; s < symbols<NSym>(); ++s)
      if (st[s].units != Real(0)) equity += st[s].units * st[s].mark;
    return equity;
  }

  KOKKOS_FORCEINLINE_FUNCTION static void carry_target(const Signals& sig, SweepSymbolState<Real>& st, int s, int b) {
    const Real v = sig.position(s, b);
    if (!math::isnan(v)) st.carried_target = v;
  }

  KOKKOS_FORCEINLINE_FUNCTION static bool fires(int reg, const SeriesRun& run, int s, int b) {
    if (reg < 0) return false;
    const Real v = run(s, b);
    return !math::isnan(v) && v != Real(0);
  }

  KOKKOS_FORCEINLINE_FUNCTION Real desired_side(const Signals& sig, const SweepSymbolState<Real>& st, int s, int t,
                                                int b) const {
    const int actual = sign_of(st.held_target);
    if (!bar_valid(s, t) || st.stop_bar == t) return Real(actual);
    const bool le = fires(long_entry, sig.long_entry, s, b), lx = fires(long_exit, sig.long_exit, s, b);
    const bool se = fires(short_entry, sig.short_entry, s, b), sx = fires(short_exit, sig.short_exit, s, b);
    if (actual > 0) return (lx || se) ? (se ? Real(-1) : Real(0)) : Real(1);
    if (actual < 0) return (sx || le) ? (le ? Real(1) : Real(0)) : Real(-1);
    if (le && !se) return Real(1);
    if (se && !le) return Real(-1);
    return Real(0);
  }

  KOKKOS_FORCEINLINE_FUNCTION Real execute(int s, Account& a, SweepSymbolState<Real>& st, Real delta, Real price) const {
    const Real exec = delta > Real(0) ? price * (Real(1) + sim.slippage) : price * (Real(1) - sim.slippage);
    const Real notional = math::fabs(delta) * exec;
    const Real fee = notional * fee_rate(s);
    a.cash -= delta * exec;
    a.cash -= fee;
    st.cash_flow -= delta * exec;
    st.cash_flow -= fee;
    a.acc.add_fill(notional, fee);
    return exec;
  }

  KOKKOS_FORCEINLINE_FUNCTION void close_trade(Account& a, SweepSymbolState<Real>& st, int t) const {
    const Real notional = math::fabs(st.open_units) * st.entry_price;
    const Real ret = st.cash_flow / notional;
    a.acc.add_trade(ret, Real(t - st.entry_bar));
    st.cash_flow = Real(0);
  }

  KOKKOS_FORCEINLINE_FUNCTION void fill(SweepSymbolState<Real>& st, int s, int t, Account& a, Real target, Real equity,
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

  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION void fill_pending_orders(SweepSymbolState<Real>* st, int t, Account& a) const {
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

  KOKKOS_INLINE_FUNCTION void check_stops(SweepSymbolState<Real>& st, int s, int t, Account& a) const {
    if (st.units == Real(0)) return;
    const Real o = at(open, s, t), h = at(high, s, t), l = at(low, s, t);
    if (math::isnan(o) || math::isnan(h) || math::isnan(l) || !bar_valid(s, t)) return;
    const bool is_long = st.side > 0;
    const bool has_stop = sim.has_stop_loss || sim.has_trailing_stop;
    Real stop_level = 0;
    if (sim.has_stop_loss)
      stop_level = is_long ? st.entry_price * (Real(1) - sim.stop_loss) : st.entry_price * (Real(1) + sim.stop_loss);
    if (sim.has_trailing_stop) {
      const Real trail = is_long ? st.best_price * (Real(1) - sim.trailing_stop)
                                 : st.best_price * (Real(1) + sim.trailing_stop);
      const bool tighter = !sim.has_stop_loss || (is_long ? trail > stop_level : trail < stop_level);
      if (tighter) stop_level = trail;
    }
    Real target_level = 0;
    if (sim.has_take_profit)
      target_level = is_long ? st.entry_price * (Real(1) + sim.take_profit)
                             : st.entry_price * (Real(1) - sim.take_profit);
    bool exit = false;
    Real price = 0;
    if (has_stop && (is_long ? o <= stop_level : o >= stop_level)) {
      exit = true, price = o;
    } else if (sim.has_take_profit && (is_long ? o >= target_level : o <= target_level)) {
      exit = true, price = o;
    } else {
      const bool stop_hit = has_stop && (is_long ? l <= stop_level : h >= stop_level);
      const bool target_hit = sim.has_take_profit && (is_long ? h >= target_level : l <= target_level);
      if (stop_hit && (!target_hit || sim.stop_first)) {
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

  KOKKOS_FORCEINLINE_FUNCTION void charge_carry(SweepSymbolState<Real>& st, int s, int t, Account& a) const {
    if (st.units == Real(0) || !bar_valid(s, t)) return;
    const Real c = at(close, s, t);
    if (st.units < Real(0) && sim.borrow_per_bar != Real(0)) {
      const Real cost = math::fabs(st.units) * c * sim.borrow_per_bar;
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

  // Returns the equity marked after the bar's fills (the same bits as
  // marked_equity(); computed again only when a fill happened).
  template <int NSym, int Step>
  KOKKOS_FORCEINLINE_FUNCTION Real decide(const Signals& sig, SweepSymbolState<Real>* st, int t, int b, Account& a) const {
    Real gross = 0;
    for (int s = 0; s < symbols<NSym>(); ++s) {
      Real raw;
      if (position_form) {
        // Only a stop locks a symbol.
        if (Step == step_general && st[s].locked && st[s].carried_target != st[s].lock_target) st[s].locked = 0;
        raw = st[s].carried_target;
      } else {
        raw = desired_side(sig, st[s], s, t, b);
      }
      st[s].effective = sim.weighting_equal ? raw / Real(n_sym) : raw;
      gross += math::fabs(st[s].effective);
    }
    if (gross > sim.max_gross_leverage) {
      const Real scale = sim.max_gross_leverage / gross;
      for (int s = 0; s < symbols<NSym>(); ++s) st[s].effective = st[s].effective * scale;
    }
    const Real equity = marked_equity<NSym>(st, a);
    bool filled = false;
    for (int s = 0; s < symbols<NSym>(); ++s) {
      Real target = st[s].effective;
      if (Step == step_general && position_form && st[s].locked) target = Real(0);
      if (!(equity > Real(0))) target = Real(0);
      if (target == st[s].held_target) continue;
      if (Step != step_general || !sim.fill_next_open) {
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

  // Equity and exposure of window bars whose add_bar is deferred (paired combos).
  static constexpr int deferred_bars = 64;
  struct DeferredBars {
    Real equity[deferred_bars];
    int exposed[deferred_bars];
    int count;
  };

  // One bar of the portfolio. With `deferred`, the bar's equity is recorded
  // instead of fed to add_bar: the bar fields of the accumulator are disjoint
  // from the fill, trade and funding fields, so feeding them later, in bar
  // order, gives the same bits.
  template <int NSym, int Step>
  KOKKOS_FORCEINLINE_FUNCTION void step(const Signals& sig, SweepSymbolState<Real>* st, int t, int b, bool last_bar,
                                        Account& a, DeferredBars* deferred) const {
    if (Step == step_general && sim.fill_next_open) fill_pending_orders<NSym>(st, t, a);
    bool exposed = false;
    for (int s = 0; s < symbols<NSym>(); ++s) exposed = exposed || st[s].units != Real(0);
    if (Step == step_general && (sim.has_stop_loss || sim.has_take_profit || sim.has_trailing_stop))
      for (int s = 0; s < symbols<NSym>(); ++s) check_stops(st[s], s, t, a);
    if (Step != step_close_fills)
      for (int s = 0; s < symbols<NSym>(); ++s) charge_carry(st[s], s, t, a);
    for (int s = 0; s < symbols<NSym>(); ++s)
      if (bar_valid(s, t)) st[s].mark = at(close, s, t);
    if (position_form)
      for (int s = 0; s < symbols<NSym>(); ++s) carry_target(sig, st[s], s, b);
    const Real equity = last_bar ? marked_equity<NSym>(st, a) : decide<NSym, Step>(sig, st, t, b, a);
    if (deferred) {
      deferred->equity[deferred->count] = equity;
      deferred->exposed[deferred->count] = exposed ? 1 : 0;
      deferred->count += 1;
    } else {
      a.acc.add_bar(equity, exposed);
    }
    if (last_bar)
      for (int s = 0; s < symbols<NSym>(); ++s) {
        if (st[s].units != Real(0)) {
          st[s].cash_flow += st[s].units * st[s].mark;
          close_trade(a, st[s], t);
        }
      }
  }

  // ---- one combo, or two in step ------------------------------------------------

  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION static void reset(SweepSymbolState<Real>* st, int n) {
    for (int s = 0; s < (NSym > 0 ? NSym : n); ++s) {
      SweepSymbolState<Real> zero{};
      zero.stop_bar = -1;
      st[s] = zero;
    }
  }

  // Bars [t0 + b0, t0 + b1) of the current block (already evaluated).
  template <int NSym, int Step>
  KOKKOS_FORCEINLINE_FUNCTION void advance(int i, SweepSymbolState<Real>* st, Account& a, int t0, int b0, int b1,
                                           DeferredBars* deferred) const {
    const Signals sig = signals_of(i, t0);
    // Bars before the scoring window only carry the target.
    const int warm_end = sim.window_begin - t0 < b0 ? b0 : (sim.window_begin - t0 < b1 ? sim.window_begin - t0 : b1);
    if (position_form)
      for (int b = b0; b < warm_end; ++b)
        for (int s = 0; s < symbols<NSym>(); ++s) carry_target(sig, st[s], s, b);
    for (int b = warm_end; b < b1; ++b) {
      const int t = t0 + b;
      step<NSym, Step>(sig, st, t, b, t + 1 == sim.window_end, a, deferred);
    }
  }

  KOKKOS_FORCEINLINE_FUNCTION void write_metrics(int i, const Account& a) const {
    Real result[n_metrics];
    a.acc.finish(result);
    for (int m = 0; m < int(n_metrics); ++m) metrics(first + i, m) = double(result[m]);
  }

  template <int NSym, int Step>
  KOKKOS_FORCEINLINE_FUNCTION void simulate(int i, SweepSymbolState<Real>* st) const {
    reset<NSym>(st, n_sym);
    Account a{sim.initial_capital, BasicMetricsAccumulator<Real>(sim.initial_capital, sim.periods_per_year)};
    for (int t0 = 0; t0 < sim.window_end; t0 += block) {
      const int nb = sim.window_end - t0 < block ? sim.window_end - t0 : block;
      evaluate_block(i, t0, nb);
      advance<NSym, Step>(i, st, a, t0, 0, nb, nullptr);
    }
    write_metrics(i, a);
  }

  // Two combos on one thread (host spaces): each block is evaluated and
  // simulated for one combo, then the other, and the bar metrics of both are
  // accumulated in one loop, so that the two chains of divisions of the
  // metrics (docs/metrics.md) overlap instead of following each other.
  template <int NSym, int Step>
  KOKKOS_FORCEINLINE_FUNCTION void simulate_pair(int i0, SweepSymbolState<Real>* st0, int i1,
                                                 SweepSymbolState<Real>* st1) const {
    reset<NSym>(st0, n_sym);
    reset<NSym>(st1, n_sym);
    Account a0{sim.initial_capital, BasicMetricsAccumulator<Real>(sim.initial_capital, sim.periods_per_year)};
    Account a1{sim.initial_capital, BasicMetricsAccumulator<Real>(sim.initial_capital, sim.periods_per_year)};
    DeferredBars d0, d1;
    for (int t0 = 0; t0 < sim.window_end; t0 += block) {
      const int nb = sim.window_end - t0 < block ? sim.window_end - t0 : block;
      evaluate_block(i0, t0, nb);
      evaluate_block(i1, t0, nb);
      for (int b0 = 0; b0 < nb; b0 += deferred_bars) {
        const int b1 = nb - b0 < deferred_bars ? nb : b0 + deferred_bars;
        d0.count = 0;
        d1.count = 0;
        advance<NSym, Step>(i0, st0, a0, t0, b0, b1, &d0);
        advance<NSym, Step>(i1, st1, a1, t0, b0, b1, &d1);
        for (int k = 0; k < d0.count; ++k) {  // same window: d1.count == d0.count
          a0.acc.add_bar(d0.equity[k], d0.exposed[k] != 0);
          a1.acc.add_bar(d1.equity[k], d1.exposed[k] != 0);
        }
      }
    }
    write_metrics(i0, a0);
    write_metrics(i1, a1);
  }

  KOKKOS_FORCEINLINE_FUNCTION void prepare(int i) const {
    for (int k = 0; k < int(state.extent(1)); ++k) state(i, k) = Real(0);
    evaluate_scalars(i);
  }

  // Thread `i` runs combo i, or with `pair_combos` combos 2i and 2i + 1 (the
  // last thread of an odd chunk runs one). Only host spaces compile the paired
  // path: on a GPU its buffers would cost registers and stack in every thread.
  static constexpr bool can_pair = Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;
  int pair_combos = 0;
  int chunk_count = 0;  // combos in this chunk

  KOKKOS_INLINE_FUNCTION void operator()(const int thread) const {
    if (emit_register >= 0) {
      const int i = thread;
      prepare(i);
      for (int t0 = 0; t0 < n_bars; t0 += block) {
        const int nb = n_bars - t0 < block ? n_bars - t0 : block;
        evaluate_block(i, t0, nb);
        for (int b = 0; b < nb; ++b)
          for (int s = 0; s < n_sym; ++s) emitted(s, t0 + b) = value(i, emit_register, s, t0 + b, b);
      }
      return;
    }
    if constexpr (can_pair) {
      if (pair_combos) {
        const int i0 = 2 * thread;
        prepare(i0);
        if (i0 + 1 < chunk_count) {
          prepare(i0 + 1);
          if (n_sym == 1) {
            SweepSymbolState<Real> one[1], two[1];
            simulate_pair_with_step<1>(i0, one, i0 + 1, two);
          } else {
            simulate_pair_with_step<0>(i0, &sym(i0, 0), i0 + 1, &sym(i0 + 1, 0));
          }
        } else {
          simulate_one(i0);
        }
        return;
      }
    }
    prepare(thread);
    simulate_one(thread);
  }

  KOKKOS_FORCEINLINE_FUNCTION void simulate_one(int i) const {
    if (n_sym == 1) {
      SweepSymbolState<Real> one[1];
      simulate_with_step<1>(i, one);
    } else {
      simulate_with_step<0>(i, &sym(i, 0));
    }
  }

  // The run's step (sim.portfolio_step) as a compile-time one.
  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION void simulate_with_step(int i, SweepSymbolState<Real>* st) const {
    switch (sim.portfolio_step) {
      case step_close_fills: simulate<NSym, step_close_fills>(i, st); break;
      case step_close_fills_with_carry: simulate<NSym, step_close_fills_with_carry>(i, st); break;
      default: simulate<NSym, step_general>(i, st);
    }
  }
  template <int NSym>
  KOKKOS_FORCEINLINE_FUNCTION void simulate_pair_with_step(int i0, SweepSymbolState<Real>* st0, int i1,
                                                           SweepSymbolState<Real>* st1) const {
    switch (sim.portfolio_step) {
      case step_close_fills: simulate_pair<NSym, step_close_fills>(i0, st0, i1, st1); break;
      case step_close_fills_with_carry: simulate_pair<NSym, step_close_fills_with_carry>(i0, st0, i1, st1); break;
      default: simulate_pair<NSym, step_general>(i0, st0, i1, st1);
    }
  }

  // Threads to launch for `count` combos.
  int threads_for(int count) const { return can_pair && pair_combos ? (count + 1) / 2 : count; }

  // Bytes of every View the functor holds (the run profile's kernel memory).
  std::size_t bytes() const {
    std::size_t total = 0;
    auto add = [&total](const auto& v) { total += v.span() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
    add(code), add(home), add(home_index), add(ring_offset), add(ring_capacity), add(state_offset), add(streamed);
    add(cur_slot), add(stride), add(frame_visible), add(scans), add(scan_tape), add(scan_refs), add(scan_trigger);
    add(scan_state_offset), add(scan_out_begin), add(scan_out_regs), add(open), add(high), add(low), add(close);
    add(funding), add(materialized), add(hoisted), add(hoist_row), add(params), add(fee_rate), add(cur), add(ring);
    add(state), add(slots), add(sym), add(metrics), add(emitted);
    return total;
  }
};

}  // namespace kbt
