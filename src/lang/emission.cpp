// Emission into the main program: each instruction's shape, timeframe and param
// dependency derived from its operands, and identical instructions hash-consed (CSE).

#include "lang/compiler_internal.hpp"

#include <kbt/core/error.hpp>

#include <string>

namespace kbt::detail {

void Compiler::check_size() {
  if (prog.code.size() + prog.scan_tape.size() >= max_program_instructions)
    throw Error(ErrorCategory::limit, "the strategy compiles to more than " +
                                          std::to_string(max_program_instructions) +
                                          " instructions; simplify it");
}

Value Compiler::emit(Instr ins, bool boolean) {
  // Derive shape, timeframe and param dependency from the operands.
  bool series = ins.is_series != 0;
  bool dep = ins.op == OpCode::param || window_varies(ins.window_kind) ||
             ins.depends_on_params != 0;
  for (std::int32_t r : {ins.a, ins.b, ins.c}) {
    if (r < 0) continue;
    const Instr& o = prog.code[static_cast<std::size_t>(r)];
    if (o.is_series) {
      if (series && ins.frame != o.frame && ins.op != OpCode::htf)
        throw Error(ErrorCategory::internal, "operands of different timeframes");
      if (!series) ins.frame = o.frame;
      series = true;
    }
    dep = dep || o.depends_on_params;
  }
  if (ins.op == OpCode::htf) ins.frame = 0;
  if (!series) ins.frame = -1;
  ins.is_series = series ? 1 : 0;
  ins.is_boolean = boolean ? 1 : 0;
  ins.depends_on_params = dep ? 1 : 0;
  const Key key = key_of(ins);
  auto it = cse_.find(key);
  if (it != cse_.end()) return {it->second, series, boolean};
  check_size();
  const auto reg = static_cast<std::int32_t>(prog.code.size());
  prog.code.push_back(ins);
  cse_.emplace(key, reg);
  return {reg, series, boolean};
}

Value Compiler::constant(double v) {
  Instr i;
  i.op = OpCode::constant;
  i.constant = v;
  return emit(i, false);
}

Value Compiler::leaf_series(OpCode op, int aux, int frame) {
  Instr i;
  i.op = op;
  i.aux = aux;
  i.frame = frame;
  i.is_series = 1;
  return emit(i, false);
}

Value Compiler::op1(OpCode op, Value a, bool boolean) {
  Instr i;
  i.op = op;
  i.a = a.reg;
  return emit(i, boolean);
}
Value Compiler::op2(OpCode op, Value a, Value b, bool boolean) {
  Instr i;
  i.op = op;
  i.a = a.reg;
  i.b = b.reg;
  return emit(i, boolean);
}
Value Compiler::op3(OpCode op, Value a, Value b, Value c, bool boolean) {
  Instr i;
  i.op = op;
  i.a = a.reg;
  i.b = b.reg;
  i.c = c.reg;
  return emit(i, boolean);
}
Value Compiler::windowed(OpCode op, Value a, WindowKind wk, int w, bool boolean) {
  Instr i;
  i.op = op;
  i.a = a.reg;
  i.window_kind = wk;
  i.window = w;
  return emit(i, boolean);
}

}  // namespace kbt::detail
