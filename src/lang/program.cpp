#include <kbt/core/error.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/lang/scalar_ops.hpp>

#include <algorithm>
#include <cstdio>
#include <set>

namespace kbt {

double evaluate_scalar_register(const std::vector<Instr>& code, std::int32_t reg, const double* params) {
  const Instr& i = code.at(static_cast<std::size_t>(reg));
  if (i.is_series) throw Error(ErrorCategory::internal, "register " + std::to_string(reg) + " is a series, not a scalar");
  if (i.op == OpCode::constant) return i.constant;
  if (i.op == OpCode::param) return params[i.aux];
  auto operand = [&](std::int32_t r) { return r < 0 ? 0.0 : evaluate_scalar_register(code, r, params); };
  return ops::apply_pointwise<double>(i.op, operand(i.a), operand(i.b), operand(i.c));
}

double evaluate_scalar_register(const Program& program, std::int32_t reg, const double* params) {
  return evaluate_scalar_register(program.code, reg, params);
}

std::vector<std::int32_t> params_read(const Program& program, std::int32_t reg) { return params_read(program.code, reg); }

std::vector<std::int32_t> params_read(const std::vector<Instr>& code, std::int32_t reg) {
  std::set<std::int32_t> found;
  std::vector<std::int32_t> todo{reg};
  while (!todo.empty()) {
    const Instr& i = code.at(static_cast<std::size_t>(todo.back()));
    todo.pop_back();
    if (i.op == OpCode::param) found.insert(i.aux);
    for (std::int32_t x : {i.a, i.b, i.c})
      if (x >= 0) todo.push_back(x);
  }
  return {found.begin(), found.end()};
}

std::vector<double> scalar_register_values(const Program& program, std::int32_t reg) {
  // Every point of the axes the register reads (the others at their first value).
  const std::vector<std::int32_t> read = params_read(program, reg);
  double points = 1;
  for (std::int32_t k : read) points *= static_cast<double>(program.param_axes[static_cast<std::size_t>(k)].size());
  if (points > 1e7)
    throw Error(ErrorCategory::limit, "a window expression reads params whose axes have " +
                                          std::to_string(static_cast<long long>(points)) +
                                          " points together; at most 10,000,000");
  std::vector<double> combo(program.n_params());
  for (std::size_t k = 0; k < combo.size(); ++k) combo[k] = program.param_axes[k].front();
  std::set<double> values;
  bool any_nan = false;  // (a NaN in a std::set breaks its order)
  std::vector<std::size_t> at(read.size(), 0);
  for (;;) {
    for (std::size_t j = 0; j < read.size(); ++j)
      combo[static_cast<std::size_t>(read[j])] = program.param_axes[static_cast<std::size_t>(read[j])][at[j]];
    const double v = evaluate_scalar_register(program, reg, combo.data());
    if (v != v) any_nan = true;
    else values.insert(v);
    std::size_t j = 0;
    for (; j < read.size(); ++j) {
      if (++at[j] < program.param_axes[static_cast<std::size_t>(read[j])].size()) break;
      at[j] = 0;
    }
    if (j == read.size()) break;
  }
  std::vector<double> out(values.begin(), values.end());
  if (any_nan) out.push_back(ops::nan<double>());
  return out;
}

std::vector<std::int64_t> window_values(const Program& program, WindowKind kind, std::int32_t window) {
  std::set<std::int64_t> values;
  if (kind == WindowKind::constant) {
    values.insert(window);
  } else if (kind == WindowKind::param) {
    for (double v : program.param_axes.at(static_cast<std::size_t>(window)))
      values.insert(static_cast<std::int64_t>(v));
  } else if (kind == WindowKind::scalar) {
    for (double v : scalar_register_values(program, window)) values.insert(static_cast<std::int64_t>(v));
  }
  return {values.begin(), values.end()};
}

namespace {

std::string instr_text(const Program& p, const Instr& i, const char* reg_prefix) {
  char buf[160];
  std::string s = to_string(i.op);
  auto reg = [&](std::int32_t r) { return std::string(reg_prefix) + std::to_string(r); };
  switch (i.op) {
    case OpCode::constant:
      std::snprintf(buf, sizeof buf, " %.17g", i.constant);
      s += buf;
      break;
    case OpCode::param: s += " " + p.param_names.at(static_cast<std::size_t>(i.aux)); break;
    case OpCode::column: s += " " + p.column_names.at(static_cast<std::size_t>(i.aux)); break;
    case OpCode::exo: s += " " + p.exo_names.at(static_cast<std::size_t>(i.aux)); break;
    case OpCode::scan_input:
    case OpCode::scan_state: s += " #" + std::to_string(i.aux); break;
    case OpCode::symbol_read:
      s += " " + reg(i.a) + " @" + p.symbol_names.at(static_cast<std::size_t>(i.aux));
      break;
    case OpCode::scan_output:
      s += " " + p.scan_names.at(static_cast<std::size_t>(i.aux)) + "." +
           p.scan_output_names.at(static_cast<std::size_t>(i.aux)).at(static_cast<std::size_t>(i.aux2));
      break;
    case OpCode::htf:
      s += " " + reg(i.a) + " frame " + std::to_string(i.aux);
      break;
    case OpCode::symbol_is: s += " @" + p.symbol_names.at(static_cast<std::size_t>(i.aux)); break;
    default:
      for (std::int32_t r : {i.a, i.b, i.c})
        if (r >= 0) s += " " + reg(r);
      break;
  }
  if (i.window_kind == WindowKind::constant) s += " window=" + std::to_string(i.window);
  if (i.window_kind == WindowKind::param)
    s += " window=" + p.param_names.at(static_cast<std::size_t>(i.window));
  if (i.window_kind == WindowKind::scalar) s += " window=" + std::string(reg_prefix) + std::to_string(i.window);
  s += i.is_series ? "  [series f" + std::to_string(i.frame) : "  [scalar";
  if (i.is_boolean) s += " bool";
  if (i.depends_on_params) s += " param";
  s += "]";
  return s;
}

}  // namespace

std::string disassemble(const Program& p) {
  std::string out;
  for (std::size_t k = 1; k < p.frame_ns.size(); ++k)
    out += "frame " + std::to_string(k) + ": " + std::to_string(p.frame_ns[k] / 1000000000LL) + "s\n";
  for (std::size_t r = 0; r < p.code.size(); ++r)
    out += "r" + std::to_string(r) + " = " + instr_text(p, p.code[r], "r") + "\n";
  for (std::size_t s = 0; s < p.scans.size(); ++s) {
    const ScanProgram& sp = p.scans[s];
    out += "scan " + p.scan_names[s] + ":\n  inputs:";
    for (int i = 0; i < sp.n_inputs; ++i) out += " r" + std::to_string(p.scan_refs[static_cast<std::size_t>(sp.inputs + i)]);
    out += "\n  init:\n";
    for (int k = sp.init_begin; k < sp.init_end; ++k)
      out += "    t" + std::to_string(k - sp.init_begin) + " = " +
             instr_text(p, p.scan_tape[static_cast<std::size_t>(k)], "t") + "\n";
    out += "  update:\n";
    for (int k = sp.update_begin; k < sp.update_end; ++k)
      out += "    t" + std::to_string(k - sp.update_begin) + " = " +
             instr_text(p, p.scan_tape[static_cast<std::size_t>(k)], "t") + "\n";
    for (int j = 0; j < sp.n_states; ++j)
      out += "  state " + p.scan_state_names[s][static_cast<std::size_t>(j)] + ": init t" +
             std::to_string(p.scan_refs[static_cast<std::size_t>(sp.init_state + j)]) + ", update t" +
             std::to_string(p.scan_refs[static_cast<std::size_t>(sp.update_state + j)]) + "\n";
    for (int k = 0; k < sp.n_outputs; ++k)
      out += "  output " + p.scan_output_names[s][static_cast<std::size_t>(k)] + ": t" +
             std::to_string(p.scan_refs[static_cast<std::size_t>(sp.outputs + k)]) + "\n";
  }
  auto named = [&](const char* name, std::int32_t r) {
    if (r >= 0) out += std::string(name) + ": r" + std::to_string(r) + "\n";
  };
  named("position", p.position);
  named("long_entry", p.long_entry);
  named("long_exit", p.long_exit);
  named("short_entry", p.short_entry);
  named("short_exit", p.short_exit);
  named("expression", p.expression);
  for (std::size_t k = 0; k < p.constraints.size(); ++k) named("constraint", p.constraints[k]);
  for (const auto& h : p.hoisted)
    out += "hoisted: r" + std::to_string(h.reg) + " " + to_string(h.op) + "\n";
  return out;
}

}  // namespace kbt
