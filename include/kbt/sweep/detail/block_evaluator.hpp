#pragma once
// The sweep kernel's program evaluator: one combo's compiled program, a block
// of bars at a time, in per-thread scratch. Each streamed instruction is
// decoded once per block and applied to `block` consecutive bars (a loop the
// compiler can vectorise). Every series value is a function of earlier bars
// only and the portfolio never feeds back into the program, so evaluating a
// block ahead of the portfolio changes no bit.
//
// Every op mirrors the reference evaluator (src/reference/evaluator*.cpp,
// docs/language.md) operation for operation, so that fp64 series are
// bit-identical; the parity tests compare the bits. Written once, templated on
// the execution space and the real type.

#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/kernels/detail/cross_section_ops.hpp>
#include <kbt/kernels/detail/recursive_ops.hpp>
#include <kbt/kernels/detail/window_ops.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/lang/scalar_ops.hpp>
#include <kbt/simulation/portfolio_step.hpp>
#include <kbt/sweep/detail/compared_select.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <cstddef>
#include <type_traits>

namespace kbt {

template <class ExecSpace, class Real>
struct BlockEvaluator {
  using memory_space = typename ExecSpace::memory_space;
  template <class T>
  using V1 = Kokkos::View<T*, memory_space>;
  template <class T>
  using V2 = Kokkos::View<T**, memory_space>;

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
  int block = 1;           // bars per evaluation block (the `cur` row holds block values per slot and symbol)
  int rank_keys = -1;      // where cs_rank sorts a cross-section in a combo's `cur` row (2 * n_sym values), -1: no cs_rank

  // The precomputed series and the combos.
  V2<Real> materialized, hoisted;
  V2<int> hoist_row;  // [combo][hoisted register] -> row of `hoisted`
  V2<Real> params;    // [combo][param]
  long first = 0;     // first combo of the current chunk: combo `first + i` runs in scratch row i

  // Per-thread scratch, indexed by the combo's index within the chunk.
  V2<Real> cur, ring, state, slots;

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
  // A window expression reads its scalar register, evaluated before any
  // series (evaluate_scalars), as the reference evaluator does.
  KOKKOS_INLINE_FUNCTION int window_of(int i, const Instr& ins) const {
    if (ins.window_kind == WindowKind::constant) return ins.window;
    if (ins.window_kind == WindowKind::param) return int(params(first + i, ins.window));
    return int(value(i, ins.window, 0, 0, 0));
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

  // Host spaces only: on a GPU the fused loop's four operand runs, live while
  // the portfolio's state is, cost every sweep kernel 10-16 registers and the
  // bounded fp32 ones their spill-free fit (scripts/cuda-registers.sh,
  // docs/kernels.md "Fused compare-selects"). make_sweep_functor fuses nothing there.
  static constexpr bool fuses_compare_selects =
      Kokkos::SpaceAccessibility<Kokkos::HostSpace, memory_space>::accessible;

  // where(x CMP z, b, c) over a block with the comparison never stored
  // (sweep/fused_selects.hpp): each element is the composition of the two
  // ops' own definitions, so its bits are those of the two loops it replaces.
  template <int Cmp>
  KOKKOS_FORCEINLINE_FUNCTION static Real where_of_compare(Real x, Real z, Real b, Real c) {
    return ops::apply_pointwise<Real>(OpCode::where, ops::apply_pointwise<Real>(OpCode(Cmp), x, z, x), b, c);
  }
  template <int Cmp>
  KOKKOS_INLINE_FUNCTION static void where_of_compare_loop(Real* KOKKOS_RESTRICT y, const Real* KOKKOS_RESTRICT x,
                                                           const Real* KOKKOS_RESTRICT z,
                                                           const Real* KOKKOS_RESTRICT b,
                                                           const Real* KOKKOS_RESTRICT c, int nb) {
    for (int k = 0; k < nb; ++k) y[k] = where_of_compare<Cmp>(x[k], z[k], b[k], c[k]);
  }
  template <int Cmp>
  KOKKOS_INLINE_FUNCTION static void where_of_compare_loop(Real* y, long ys, Run x, Run z, Run b, Run c, int nb) {
    if (ys == 1 && x.step == 1 && z.step == 1 && b.step == 1 && c.step == 1)
      return where_of_compare_loop<Cmp>(y, x.p, z.p, b.p, c.p, nb);
    for (int k = 0; k < nb; ++k) y[k * ys] = where_of_compare<Cmp>(x[k], z[k], b[k], c[k]);
  }

  // A `where` whose condition is a fused comparison (home `fused`), over `nb`
  // bars of symbol s.
  KOKKOS_INLINE_FUNCTION void where_of_compare_block(int i, int r, const Instr& ins, int s, int t0, int nb) const {
    const Instr cmp = code(ins.a);
    const Run x = run_of(i, cmp.a, s, t0), z = run_of(i, cmp.b, s, t0);
    const Run b = run_of(i, ins.b, s, t0), c = run_of(i, ins.c, s, t0);
    Real* y = &cur(i, cur_index(r, s, 0));
    const long ys = long(cur.stride(1));
    switch (cmp.op) {
#define KBT_COMPARE_CASE(name) \
  case OpCode::name: where_of_compare_loop<int(OpCode::name)>(y, ys, x, z, b, c, nb); break;
      KBT_COMPARE_CASE(lt) KBT_COMPARE_CASE(le) KBT_COMPARE_CASE(gt) KBT_COMPARE_CASE(ge) KBT_COMPARE_CASE(eq)
#undef KBT_COMPARE_CASE
      default:  // only these comparisons are fused (fusable_compares); any op composes the same way
        for (int k = 0; k < nb; ++k)
          y[k * ys] = ops::apply_pointwise<Real>(OpCode::where, ops::apply_pointwise<Real>(cmp.op, x[k], z[k], x[k]),
                                                 b[k], c[k]);
    }
  }

  // One pointwise instruction over `nb` bars of symbol s. The switch picks a
  // loop whose opcode is a constant, so the loop body has no dispatch. An
  // absent operand reads the first one's values (the opcode ignores it).
  KOKKOS_INLINE_FUNCTION void pointwise_block(int i, int r, const Instr& ins, int s, int t0, int nb) const {
    if constexpr (fuses_compare_selects)
      if (ins.op == OpCode::where && home(ins.a) == int(RegisterHome::fused))
        return where_of_compare_block(i, r, ins, s, t0, nb);
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
  // The last `cap` values of an input, bar t at slot t % cap; read through the
  // same op definitions as the fold kernels (kernels/detail/window_ops.hpp,
  // recursive_ops.hpp), so that a streamed op and a hoisted one give the same
  // bits.
  struct RingRow {
    Real* p;
    long step;
    int cap;
    KOKKOS_FORCEINLINE_FUNCTION Real& operator[](int t) const { return p[(t % cap) * step]; }
  };

  KOKKOS_INLINE_FUNCTION Real windowed(int i, int r, const Instr& ins, int s, int t, int b) const {
    const int w = window_of(i, ins);
    const Real x = value(i, ins.a, s, t, b);
    if (ins.op == OpCode::ema) return ema_step(i, r, x, w, s);
    if (ins.op == OpCode::rsi) return rsi_step(i, r, x, w, s, t);
    const int cap = ring_capacity(r);
    const RingRow row{&ring(i, ring_offset(r) + s * cap), long(ring.stride(1)), cap};
    row[t] = x;
    switch (ins.op) {
      case OpCode::lag: return kernels::lag_at(row, t, w);
      case OpCode::roc: return kernels::roc_at(row, t, w);
      case OpCode::rolling_sum: return kernels::rolling_sum_at(row, t, w);
      case OpCode::rolling_mean: return kernels::rolling_mean_at(row, t, w);
      case OpCode::rolling_std: return kernels::rolling_std_at(row, t, w);
      case OpCode::zscore: return kernels::zscore_at(row, t, w);
      case OpCode::rolling_min: return kernels::rolling_min_at(row, t, w);
      case OpCode::rolling_max: return kernels::rolling_max_at(row, t, w);
      default: return ops::nan<Real>();
    }
  }

  // ema: per symbol the state row holds {seeded, e} (kernels::EmaState).
  KOKKOS_INLINE_FUNCTION Real ema_step(int i, int r, Real x, int w, int s) const {
    const int st = state_offset(r) + 2 * s;
    kernels::EmaState<Real> e;
    e.seeded = state(i, st) != Real(0);
    e.e = state(i, st + 1);
    const Real y = e.step(x, kernels::EmaState<Real>::alpha(w));
    state(i, st) = e.seeded ? Real(1) : Real(0);
    state(i, st + 1) = e.e;
    return y;
  }

  // Wilder RSI (kernels::RsiState): per symbol the state row holds {x[t-1],
  // run, seeded, gain sum, gain average, loss sum, loss average}; the two
  // averages share their run and seed.
  KOKKOS_INLINE_FUNCTION Real rsi_step(int i, int r, Real x, int w, int s, int t) const {
    const int st = state_offset(r) + 7 * s;
    kernels::RsiState<Real> q(w);
    q.gains.run = q.losses.run = int(state(i, st + 1));
    q.gains.seeded = q.losses.seeded = state(i, st + 2) != Real(0);
    q.gains.sum = state(i, st + 3);
    q.gains.avg = state(i, st + 4);
    q.losses.sum = state(i, st + 5);
    q.losses.avg = state(i, st + 6);
    const Real y = q.step(t == 0 ? ops::nan<Real>() : x - state(i, st));
    state(i, st) = x;
    state(i, st + 1) = Real(q.gains.run);
    state(i, st + 2) = q.gains.seeded ? Real(1) : Real(0);
    state(i, st + 3) = q.gains.sum;
    state(i, st + 4) = q.gains.avg;
    state(i, st + 5) = q.losses.sum;
    state(i, st + 6) = q.losses.avg;
    return y;
  }

  // ---- cross-sectional ops (reference::cs_*) --------------------------------

  // The values cs_rank sorts and their symbols: 2 * n_sym Reals in combo i's
  // `cur` row after its registers (a symbol index is exact in any Real).
  struct RankKeys {
    V2<Real> cur;
    int i, offset, n_sym;
    KOKKOS_FORCEINLINE_FUNCTION Real& value(int k) const { return cur(i, offset + k); }
    KOKKOS_FORCEINLINE_FUNCTION Real& symbol(int k) const { return cur(i, offset + n_sym + k); }
  };

  // One bar of a cross-sectional op over streamed input (kernels/detail/cross_section_ops.hpp).
  KOKKOS_INLINE_FUNCTION void cross_sectional(int i, int r, const Instr& ins, int t, int b) const {
    const auto get = [&](int s) { return value(i, ins.a, s, t, b); };
    const auto put = [&](int s, Real y) { out(i, r, s, b) = y; };
    kernels::detail::cross_section_op<Real>(ins.op, n_sym, get, put, RankKeys{cur, i, rank_keys, n_sym});
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
  // A register's values over the current block for every symbol, resolved
  // once per block, so that the per-bar portfolio step reads a signal with one
  // load instead of dispatching on the register's home (value()).

  // Same element as value(i, r, s, t0 + b, b); a null run for an absent output.
  KOKKOS_INLINE_FUNCTION SeriesRun<Real> series_of(int i, int r, int t0) const {
    if (r < 0) return SeriesRun<Real>{nullptr, 0, 0};
    switch (home(r)) {
      case int(RegisterHome::scalar): return SeriesRun<Real>{&cur(i, cur_index(r, 0, 0)), 0, 0};
      case int(RegisterHome::materialized): {
        const long step = long(materialized.stride(1));
        return SeriesRun<Real>{&materialized(home_index(r), t0), long(stride(r)) * step, step};
      }
      case int(RegisterHome::hoisted): {
        const long step = long(hoisted.stride(1));
        return SeriesRun<Real>{&hoisted(hoist_row(first + i, home_index(r)), t0), long(stride(r)) * step, step};
      }
      default: {
        const long step = long(cur.stride(1));
        return SeriesRun<Real>{&cur(i, cur_index(r, 0, 0)), long(block) * step, step};
      }
    }
  }

  KOKKOS_INLINE_FUNCTION PortfolioSignals<Real> signals_of(int i, int t0) const {
    return PortfolioSignals<Real>{series_of(i, position, t0), series_of(i, long_entry, t0),
                                  series_of(i, long_exit, t0), series_of(i, short_entry, t0),
                                  series_of(i, short_exit, t0)};
  }

  // The position as a select computed per bar, for a run whose position
  // register is one (position_is_compared_select); nothing is evaluated.
  KOKKOS_INLINE_FUNCTION PortfolioSignals<Real, ComparedSelect<Real>> compared_signals_of(int i, int t0) const {
    const Instr select = code(position), cmp = code(select.a);
    const bool swap = cmp.op == OpCode::gt || cmp.op == OpCode::ge;
    const ComparedSelect<Real> p{series_of(i, swap ? cmp.b : cmp.a, t0), series_of(i, swap ? cmp.a : cmp.b, t0),
                                 series_of(i, select.b, t0), series_of(i, select.c, t0),
                                 cmp.op == OpCode::le || cmp.op == OpCode::ge};
    const SeriesRun<Real> none{nullptr, 0, 0};
    return PortfolioSignals<Real, ComparedSelect<Real>>{p, none, none, none, none};
  }

  // A combo's scratch before its first block: states zeroed, scalars evaluated.
  KOKKOS_FORCEINLINE_FUNCTION void prepare(int i) const {
    for (int k = 0; k < int(state.extent(1)); ++k) state(i, k) = Real(0);
    evaluate_scalars(i);
  }

  // Bytes of every View (the run profile's kernel memory).
  std::size_t bytes() const {
    std::size_t total = 0;
    auto add = [&total](const auto& v) { total += v.span() * sizeof(typename std::decay_t<decltype(v)>::value_type); };
    add(code), add(home), add(home_index), add(ring_offset), add(ring_capacity), add(state_offset), add(streamed);
    add(cur_slot), add(stride), add(frame_visible), add(scans), add(scan_tape), add(scan_refs), add(scan_trigger);
    add(scan_state_offset), add(scan_out_begin), add(scan_out_regs), add(materialized), add(hoisted);
    add(hoist_row), add(params), add(cur), add(ring), add(state), add(slots);
    return total;
  }
};

}  // namespace kbt
