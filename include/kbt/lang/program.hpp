#pragma once
// A compiled strategy: plain data that a Kokkos kernel can copy to a device.
//
// The program is a flat array of instructions in SSA form: instruction i writes
// register i and reads only registers < i. A register is either a scalar (one
// value per combo: constants, params, expressions of them) or a series
// (n_symbols x n_bars of its timeframe, symbol-major). Identical instructions are
// merged when compiling (hash-consing), so a common subexpression is one register.
// Scans (user recurrences) are compiled to separate scalar tapes.
// docs/language.md describes the representation and the exact semantics of every op.

#include <kbt/lang/strategy_outputs.hpp>

#include <cstdint>
#include <string>
#include <type_traits>
#include <vector>

namespace kbt {

enum class OpCode : std::int32_t {
  // Leaves.
  constant,     // Instr::constant
  param,        // aux = param index
  column,       // aux = column index in Program::column_names (per-symbol series)
  exo,          // aux = exo index in Program::exo_names (same series for every symbol)
  scan_input,   // scan tapes only: aux = input index
  scan_state,   // scan tapes only: aux = state index (value before this bar's update)
  // Pointwise (scalar ops; also the scan tape's opcodes). Operands a, b, c.
  neg, add, sub, mul, div,
  lt, le, gt, ge, eq, ne,
  logical_and, logical_or, logical_not,
  abs, sqrt, log, exp, sign,
  min, max, clip,  // clip(a, lo=b, hi=c)
  where,           // where(cond=a, then=b, else=c)
  isnan, fillna,   // fillna(a, value=b)
  // Series ops over bars (operand a; window from window_kind/window).
  lag, lead,
  rolling_mean, rolling_sum, rolling_std, rolling_min, rolling_max,
  zscore, ema, rsi, roc,
  atr,  // a = high, b = low, c = close registers (same timeframe)
  // Cross-sectional, per bar across symbols (operand a).
  cs_rank, cs_zscore, cs_demean,
  // Structure.
  symbol_read,  // a's series of symbol aux, broadcast to every symbol
  scan_output,  // output aux2 of scan aux (base timeframe)
  htf,          // a (a series in timeframe aux) exposed on the base grid
  // Leaf: `symbol == "AAA"`, 1 in the rows of symbol aux and 0 in the others
  // (a boolean series of the instruction's timeframe).
  symbol_is
};

// Stable lower-case name of an opcode (the op table, kbt/lang/op_table.hpp).
const char* to_string(OpCode op) noexcept;

enum class WindowKind : std::int32_t {
  none,      // the op has no window
  constant,  // Instr::window is the window
  param,     // Instr::window is a param index; the window is that param's value
  scalar     // Instr::window is a scalar register of params and constants (a
             // window expression such as 2*n); the window is its value
};

// Whether the window changes with the combo.
inline bool window_varies(WindowKind kind) { return kind == WindowKind::param || kind == WindowKind::scalar; }

struct Instr {
  OpCode op = OpCode::constant;
  std::int32_t a = -1, b = -1, c = -1;  // operand registers (or tape slots), -1 = none
  WindowKind window_kind = WindowKind::none;
  std::int32_t window = 0;
  std::int32_t aux = 0, aux2 = 0;  // see OpCode
  // Timeframe of a series register: 0 = base bars, k > 0 = Program::frame_ns[k];
  // -1 for scalars.
  std::int32_t frame = -1;
  std::uint8_t is_series = 0;         // 0: one value per combo
  std::uint8_t is_boolean = 0;        // value is 1.0 / 0.0 / NaN (three-valued)
  std::uint8_t depends_on_params = 0; // value changes with the combo
  std::uint8_t pad_ = 0;
  double constant = 0.0;
};

// Instructions, scan headers and hoisting entries are copied to devices as bytes.
static_assert(std::is_trivially_copyable<Instr>::value, "Instr must stay plain data");

// One scan: its tapes live in Program::scan_tape, its index lists in
// Program::scan_refs. Slots are local to a tape: slot i of the init tape is
// scan_tape[init_begin + i].
struct ScanProgram {
  std::int32_t n_inputs = 0, n_states = 0, n_outputs = 0;
  std::int32_t inputs = 0;        // scan_refs[inputs + i]: main-program register of input i
  std::int32_t init_begin = 0, init_end = 0;
  std::int32_t init_state = 0;    // scan_refs[init_state + j]: init-tape slot of state j
  std::int32_t update_begin = 0, update_end = 0;
  std::int32_t update_state = 0;  // scan_refs[update_state + j]: update-tape slot of new state j
  std::int32_t outputs = 0;       // scan_refs[outputs + k]: update-tape slot of output k
  std::uint8_t depends_on_params = 0;
};

// A windowed series op whose input does not depend on any param: computed once
// per distinct window value and shared by every combo (docs/sweep.md hoisting).
struct HoistedSeries {
  std::int32_t reg = -1;  // the register it fills
  OpCode op = OpCode::rolling_mean;
  std::int32_t a = -1, b = -1, c = -1;  // param-free input registers
  WindowKind window_kind = WindowKind::constant;
  std::int32_t window = 0;  // constant, or param index
  std::int32_t frame = 0;
};

static_assert(std::is_trivially_copyable<ScanProgram>::value, "ScanProgram must stay plain data");
static_assert(std::is_trivially_copyable<HoistedSeries>::value, "HoistedSeries must stay plain data");

struct Program {
  std::vector<Instr> code;             // register i = code[i]
  std::vector<ScanProgram> scans;
  std::vector<Instr> scan_tape;        // all scans' init and update tapes
  std::vector<std::int32_t> scan_refs; // index lists of the scans
  std::vector<std::int64_t> frame_ns;  // [n_frames]; frame_ns[0] = 0 (base bars)
  std::vector<HoistedSeries> hoisted;  // in register order

  // Outputs (register indices, -1 when absent).
  StrategyOutputs::Form form = StrategyOutputs::Form::position;
  std::int32_t position = -1;
  std::int32_t long_entry = -1, long_exit = -1, short_entry = -1, short_exit = -1;
  std::int32_t expression = -1;           // compile_expression's result
  std::vector<std::int32_t> constraints;  // scalar boolean registers over params

  // Host-side metadata (names for messages, disassembly and binding to data).
  std::vector<std::string> param_names;
  std::vector<std::vector<double>> param_axes;  // each param's values
  std::vector<std::string> symbol_names;
  std::vector<std::string> column_names;
  std::vector<std::string> exo_names;
  std::vector<std::string> scan_names;
  std::vector<std::vector<std::string>> scan_output_names;
  std::vector<std::vector<std::string>> scan_state_names;
  std::vector<std::string> constraint_texts;

  std::size_t n_params() const { return param_names.size(); }
};

// The distinct values a window takes over the param grid (every point of the
// axes it reads, constraints not applied), ascending; empty for
// WindowKind::none.
std::vector<std::int64_t> window_values(const Program& program, WindowKind kind, std::int32_t window);

// The value of scalar register `reg` — constants, params and the pointwise ops
// over them — for the combo whose param values are `params`, by the shared
// pointwise semantics (kbt/lang/scalar_ops.hpp), as every engine computes it.
double evaluate_scalar_register(const Program& program, std::int32_t reg, const double* params);
double evaluate_scalar_register(const std::vector<Instr>& code, std::int32_t reg, const double* params);

// The distinct values of scalar register `reg` over every point of the axes
// it reads, ascending, then one NaN if any point gives NaN (the compiler
// checks a window expression with them).
// kbt::Error(limit) beyond 10^7 points.
std::vector<double> scalar_register_values(const Program& program, std::int32_t reg);

// The param indices a scalar register reads, ascending.
std::vector<std::int32_t> params_read(const Program& program, std::int32_t reg);
std::vector<std::int32_t> params_read(const std::vector<Instr>& code, std::int32_t reg);

// The distinct window values a hoisted series takes over the param grid, ascending.
inline std::vector<std::int64_t> hoisted_window_values(const Program& program, const HoistedSeries& h) {
  return window_values(program, h.window_kind, h.window);
}

// Human-readable listing of the program (one instruction per line), for
// `kbt eval --dump` and tests.
std::string disassemble(const Program& program);

}  // namespace kbt
