#pragma once
// The facts of every opcode, in one table (src/lang/op_table.cpp): its name,
// its operands, its family, the smallest window it accepts and how many bars
// it leaves NaN at the start. The compiler, the reference evaluator, the sweep
// plan and the fold kernels' requests read them here; the exact definition of
// every op is docs/language.md.

#include <kbt/lang/program.hpp>

#include <cstdint>
#include <vector>

namespace kbt {

enum class OpFamily : std::int32_t {
  leaf,             // constant, param, column, exo
  scan_tape,        // scan_input, scan_state: only inside scan tapes
  pointwise,        // one value from the operands' values at the same bar
  windowed,         // a series op over the bars of its operand(s), with a window
  cross_sectional,  // per bar, across symbols
  structure         // symbol_read, scan_output, htf
};

// Leading bars a windowed op leaves NaN on a series without gaps, for window w.
enum class WarmUp : std::int32_t {
  none,              // the first bar already has a value (ema: seeded by its first value)
  window_minus_one,  // w - 1 bars: the first full window ends at bar w - 1
  window,            // w bars: it needs the value w bars back (lag, roc) or w deltas (rsi, atr)
  trailing           // none at the start, w at the end: it looks ahead (lead)
};

struct OpInfo {
  OpCode op;
  const char* name;      // stable lower-case name (to_string(OpCode))
  int operands;          // registers read: a, b, c
  OpFamily family;
  int min_window;        // windowed ops: smallest window; -1 for the others
  WarmUp warm_up;
  // The sweep kernel can evaluate it per combo, bar by bar, with a ring buffer
  // or a recurrence state in per-thread memory. The others (lead looks ahead,
  // atr reads three columns) must be hoisted or computed once per run.
  bool streams_in_thread;
};

// The facts of `op`.
const OpInfo& op_info(OpCode op) noexcept;

inline bool is_windowed(OpCode op) noexcept { return op_info(op).family == OpFamily::windowed; }
inline int min_window(OpCode op) noexcept { return op_info(op).min_window; }

// Leading NaN bars of `op` with window w on a series without gaps (0 for
// non-windowed ops).
std::int64_t warm_up_bars(OpCode op, std::int64_t w) noexcept;

// Every windowed opcode, in opcode order.
const std::vector<OpCode>& windowed_ops();

}  // namespace kbt
