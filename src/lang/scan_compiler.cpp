// The scan compiler: a scan's inputs are lowered into the main program, its init,
// update and outputs into scalar tapes of its own (prog.scan_tape, prog.scan_refs).

#include "lang/compiler_internal.hpp"

#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/parser.hpp>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

namespace kbt::detail {

Compiler::TapeValue Compiler::tape_emit(Tape& t, Instr ins, bool boolean) {
  ins.is_boolean = boolean ? 1 : 0;
  ins.frame = -1;
  if (ins.op == OpCode::param) ins.depends_on_params = 1;
  for (std::int32_t r : {ins.a, ins.b, ins.c})
    if (r >= 0 && t.code[static_cast<std::size_t>(r)].depends_on_params) ins.depends_on_params = 1;
  const Key key = key_of(ins);
  auto it = t.cse.find(key);
  if (it != t.cse.end()) return {it->second, boolean};
  check_size();
  const auto slot = static_cast<std::int32_t>(t.code.size());
  t.code.push_back(ins);
  t.cse.emplace(key, slot);
  return {slot, boolean};
}

Compiler::TapeValue Compiler::tape_lower(Tape& t, const AstNode& node, const SourceText& src) {
  switch (node.kind) {
    case AstNode::Kind::number: {
      Instr i;
      i.op = OpCode::constant;
      i.constant = node.number;
      return tape_emit(t, i, false);
    }
    case AstNode::Kind::string:
      fail(src, node, "a string is not allowed inside a scan; expected a number or an expression");
    case AstNode::Kind::name: return tape_name(t, node, src);
    case AstNode::Kind::unary: {
      const AstNode& x = node.args[0];
      Instr i;
      if (node.text == "-") {
        if (x.kind == AstNode::Kind::number) {
          i.op = OpCode::constant;
          i.constant = -x.number;
          return tape_emit(t, i, false);
        }
        i.op = OpCode::neg;
        i.a = tape_lower(t, x, src).slot;
        return tape_emit(t, i, false);
      }
      const TapeValue v = tape_lower(t, x, src);
      if (!v.boolean) need_boolean(Value{}, src, x, "'not'");
      i.op = OpCode::logical_not;
      i.a = v.slot;
      return tape_emit(t, i, true);
    }
    case AstNode::Kind::binary: {
      const TapeValue a = tape_lower(t, node.args[0], src);
      const TapeValue b = tape_lower(t, node.args[1], src);
      const std::string& o = node.text;
      Instr i;
      i.a = a.slot;
      i.b = b.slot;
      bool boolean = true;
      if (o == "and" || o == "or") {
        if (!a.boolean) need_boolean(Value{}, src, node.args[0], "'" + o + "'");
        if (!b.boolean) need_boolean(Value{}, src, node.args[1], "'" + o + "'");
        i.op = o == "and" ? OpCode::logical_and : OpCode::logical_or;
      } else if (o == "+") { i.op = OpCode::add; boolean = false; }
      else if (o == "-") { i.op = OpCode::sub; boolean = false; }
      else if (o == "*") { i.op = OpCode::mul; boolean = false; }
      else if (o == "/") { i.op = OpCode::div; boolean = false; }
      else if (o == "<") i.op = OpCode::lt;
      else if (o == "<=") i.op = OpCode::le;
      else if (o == ">") i.op = OpCode::gt;
      else if (o == ">=") i.op = OpCode::ge;
      else if (o == "==") i.op = OpCode::eq;
      else i.op = OpCode::ne;
      return tape_emit(t, i, boolean);
    }
    case AstNode::Kind::call: {
      if (user_function(node.text))
        fail(src, node, node.text + "() is a function of strategy.functions and is not allowed inside scan '" + t.scan +
                            "'; call it in the scan's inputs");
      const Function& fn = resolve_function(node, src);
      if (fn.kind != FnKind::pointwise && fn.kind != FnKind::boolean_test && fn.kind != FnKind::where)
        fail(src, node, std::string(fn.name) + "() is a series op and is not allowed inside scan '" +
                            t.scan + "'; expected a scalar expression (compute " + fn.name +
                            "() in the scan's inputs)");
      std::vector<TapeValue> v;
      for (const auto& a : node.args) v.push_back(tape_lower(t, a, src));
      if (fn.kind == FnKind::where && !v[0].boolean)
        need_boolean(Value{}, src, node.args[0], "the condition of where()");
      Instr i;
      i.op = fn.op;
      i.a = v[0].slot;
      if (v.size() > 1) i.b = v[1].slot;
      if (v.size() > 2) i.c = v[2].slot;
      const bool boolean = fn.kind == FnKind::boolean_test ||
                           (fn.kind == FnKind::where && v[1].boolean && v[2].boolean);
      return tape_emit(t, i, boolean);
    }
  }
  throw Error(ErrorCategory::internal, "unknown syntax node");
}

Compiler::TapeValue Compiler::tape_name(Tape& t, const AstNode& node, const SourceText& src) {
  const std::string& name = node.text;
  if (!node.field.empty() || !node.symbol.empty())
    fail(src, node, "'.' and '@' are not allowed inside scan '" + t.scan + "' expressions; expected "
                    "an input, a state variable or a param (put e.g. close@BBB in the scan's inputs)");
  if (auto it = t.scope.find(name); it != t.scope.end())
    return {it->second, t.code[static_cast<std::size_t>(it->second)].is_boolean != 0};
  if (auto it = t.states.find(name); it != t.states.end()) {
    Instr i;
    i.op = OpCode::scan_state;
    i.aux = it->second;
    return tape_emit(t, i, false);
  }
  if (auto it = t.inputs.find(name); it != t.inputs.end()) {
    Instr i;
    i.op = OpCode::scan_input;
    i.aux = it->second;
    return tape_emit(t, i, false);
  }
  if (auto it = param_index_.find(name); it != param_index_.end()) {
    Instr i;
    i.op = OpCode::param;
    i.aux = it->second;
    return tape_emit(t, i, false);
  }
  if (t.later.count(name))
    fail(src, node, "'" + name + "' is used before it is assigned in the " + t.block + " of scan '" +
                        t.scan + "'; expected an earlier assignment");
  if (signal_index_.count(name) || column_index_.count(name) || exo_index_.count(name) ||
      scan_index_.count(name))
    fail(src, node, "'" + name + "' is not visible inside scan '" + t.scan +
                        "'; expected an input, a state variable or a param (add it to the scan's "
                        "inputs, e.g. inputs: {" + name + ": " + name + "})");
  std::vector<std::string> names;
  for (const auto& kv : t.scope) names.push_back(kv.first);
  for (const auto& kv : t.states) names.push_back(kv.first);
  for (const auto& kv : t.inputs) names.push_back(kv.first);
  for (const auto& kv : param_index_) names.push_back(kv.first);
  fail(src, node, "unknown name '" + name + "' in scan '" + t.scan + "'" + did_you_mean(name, names));
}

void Compiler::check_assign_name(const std::string& name, const SourceText& src, const std::string& scan) {
  if (!is_identifier(name))
    throw Error(ErrorCategory::language, src.where() + ": '" + name + "' in scan '" + scan +
                                             "' is not a valid name; expected an identifier");
}

int Compiler::compile_scan(int idx, const SourceText* use_src, const AstNode* use_node) {
  Scan& sc = scans_[static_cast<std::size_t>(idx)];
  if (sc.compiled >= 0) return sc.compiled;
  const ScanSpec& spec = *sc.spec;
  const std::string what = "scan '" + spec.name + "'";
  if (use_src) enter(what, *use_src, *use_node);
  else active_.push_back(what);
  const OutsideFunctions outside(*this);

  auto fail_spec = [&](const std::string& msg) {
    throw Error(ErrorCategory::language, spec.origin.where() + ": scan '" + spec.name + "': " + msg);
  };
  if (spec.init.empty()) fail_spec("has no init; expected at least one state variable, e.g. init: {x: z}");
  if (spec.outputs.empty()) fail_spec("has no outputs; expected e.g. outputs: {level: x}");

  // Inputs: series of the main program.
  std::map<std::string, int> inputs;
  std::vector<std::int32_t> input_regs;
  bool dep = false;
  for (const auto& [name, text] : spec.inputs) {
    check_assign_name(name, text, spec.name);
    if (inputs.count(name)) fail_spec("input '" + name + "' is declared twice");
    AstNode ast = parse_expression(text);
    const ForgetCalls forget(*this);  // `ast` dies at the end of this iteration
    const Value v = lower(ast, text, 0);
    inputs[name] = static_cast<int>(input_regs.size());
    input_regs.push_back(v.reg);
    dep = dep || prog.code[static_cast<std::size_t>(v.reg)].depends_on_params;
  }

  // Init tape.
  Tape init;
  init.scan = spec.name;
  init.block = "init";
  init.inputs = inputs;
  for (const auto& kv : spec.init) init.later.insert(kv.first);
  std::vector<std::string> state_names;
  std::map<std::string, int> states;
  std::vector<std::int32_t> init_slots;
  for (const auto& [name, text] : spec.init) {
    check_assign_name(name, text, spec.name);
    if (states.count(name)) fail_spec("state '" + name + "' is initialised twice");
    if (inputs.count(name)) fail_spec("'" + name + "' is an input and cannot be a state variable");
    AstNode ast = parse_expression(text);
    const TapeValue v = tape_lower(init, ast, text);
    init.scope[name] = v.slot;
    states[name] = static_cast<int>(state_names.size());
    state_names.push_back(name);
    init_slots.push_back(v.slot);
  }

  // Update tape: state names read the previous bar's value until reassigned.
  Tape upd;
  upd.scan = spec.name;
  upd.block = "update";
  upd.inputs = inputs;
  upd.states = states;
  for (const auto& kv : spec.update) upd.later.insert(kv.first);
  std::vector<std::int32_t> final_slots(state_names.size(), -1);
  for (const auto& [name, text] : spec.update) {
    check_assign_name(name, text, spec.name);
    if (inputs.count(name)) fail_spec("'" + name + "' is an input and cannot be assigned in update");
    AstNode ast = parse_expression(text);
    const TapeValue v = tape_lower(upd, ast, text);
    upd.scope[name] = v.slot;
    if (auto it = states.find(name); it != states.end()) final_slots[static_cast<std::size_t>(it->second)] = v.slot;
  }
  for (std::size_t j = 0; j < state_names.size(); ++j) {
    if (final_slots[j] >= 0) continue;
    Instr i;
    i.op = OpCode::scan_state;
    i.aux = static_cast<std::int32_t>(j);
    final_slots[j] = tape_emit(upd, i, false).slot;
  }
  // Outputs see the values at the end of the update.
  upd.block = "outputs";
  upd.later.clear();
  std::vector<std::int32_t> out_slots;
  std::vector<std::string> out_names;
  for (const auto& [name, text] : spec.outputs) {
    check_assign_name(name, text, spec.name);
    if (std::find(out_names.begin(), out_names.end(), name) != out_names.end())
      fail_spec("output '" + name + "' is declared twice");
    AstNode ast = parse_expression(text);
    // A name assigned in update is visible with its final value.
    for (std::size_t j = 0; j < state_names.size(); ++j) upd.scope[state_names[j]] = final_slots[j];
    const TapeValue v = tape_lower(upd, ast, text);
    out_slots.push_back(v.slot);
    out_names.push_back(name);
  }

  for (const auto& i : init.code) dep = dep || i.depends_on_params;
  for (const auto& i : upd.code) dep = dep || i.depends_on_params;

  ScanProgram sp;
  sp.n_inputs = static_cast<std::int32_t>(input_regs.size());
  sp.n_states = static_cast<std::int32_t>(state_names.size());
  sp.n_outputs = static_cast<std::int32_t>(out_slots.size());
  auto append_refs = [&](const std::vector<std::int32_t>& v) {
    const auto at = static_cast<std::int32_t>(prog.scan_refs.size());
    prog.scan_refs.insert(prog.scan_refs.end(), v.begin(), v.end());
    return at;
  };
  sp.inputs = append_refs(input_regs);
  sp.init_begin = static_cast<std::int32_t>(prog.scan_tape.size());
  prog.scan_tape.insert(prog.scan_tape.end(), init.code.begin(), init.code.end());
  sp.init_end = static_cast<std::int32_t>(prog.scan_tape.size());
  sp.init_state = append_refs(init_slots);
  sp.update_begin = sp.init_end;
  prog.scan_tape.insert(prog.scan_tape.end(), upd.code.begin(), upd.code.end());
  sp.update_end = static_cast<std::int32_t>(prog.scan_tape.size());
  sp.update_state = append_refs(final_slots);
  sp.outputs = append_refs(out_slots);
  sp.depends_on_params = dep ? 1 : 0;

  sc.compiled = static_cast<int>(prog.scans.size());
  prog.scans.push_back(sp);
  prog.scan_names.push_back(spec.name);
  prog.scan_output_names.push_back(out_names);
  prog.scan_state_names.push_back(state_names);
  active_.pop_back();
  return sc.compiled;
}

}  // namespace kbt::detail
