// Name resolution: signals and scans may refer to each other in any order; they are
// compiled on first use and a reference back to one being compiled is reported as a
// cycle. Declared names must be identifiers and must not clash.

#include "lang/compiler_internal.hpp"

#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/parser.hpp>

#include <string>
#include <vector>

namespace kbt::detail {

Compiler::Compiler(const DataSchema& schema, const std::vector<ParamSpec>& params,
                   const CompileOptions& options)
    : schema_(schema), params_(params), options_(options) {
  prog.frame_ns.push_back(0);
  prog.symbol_names = schema.symbols;
  prog.column_names = schema.columns;
  prog.exo_names = schema.exo;
  for (std::size_t i = 0; i < params.size(); ++i) {
    const auto& p = params[i];
    if (!is_identifier(p.name))
      throw Error(ErrorCategory::language,
                  p.origin.where() + ": '" + p.name + "' is not a valid param name; expected an identifier");
    if (param_index_.count(p.name))
      throw Error(ErrorCategory::language, p.origin.where() + ": param '" + p.name + "' is declared twice");
    for (const auto& c : schema.columns)
      if (c == p.name)
        throw Error(ErrorCategory::language,
                    p.origin.where() + ": param '" + p.name + "' has the name of a data column; rename it");
    for (const auto& e : schema.exo)
      if (e == p.name)
        throw Error(ErrorCategory::language,
                    p.origin.where() + ": param '" + p.name + "' has the name of an exo series; rename it");
    param_index_[p.name] = static_cast<int>(i);
    prog.param_names.push_back(p.name);
    prog.param_axes.push_back(p.values);
  }
  for (std::size_t i = 0; i < schema.columns.size(); ++i) column_index_[schema.columns[i]] = static_cast<int>(i);
  for (std::size_t i = 0; i < schema.exo.size(); ++i) exo_index_.emplace(schema.exo[i], static_cast<int>(i));
  for (std::size_t i = 0; i < schema.symbols.size(); ++i) symbol_index_[schema.symbols[i]] = static_cast<int>(i);
}

void Compiler::declare_signals_and_scans(const StrategySpec& spec) {
  declare_functions(spec);
  auto taken = [&](const std::string& name) -> std::string {
    if (param_index_.count(name)) return "a param";
    if (column_index_.count(name)) return "a data column";
    if (exo_index_.count(name)) return "an exo series";
    if (signal_index_.count(name)) return "another signal";
    if (scan_index_.count(name)) return "a scan";
    return "";
  };
  for (const auto& sc : spec.scans) {
    if (!is_identifier(sc.name))
      throw Error(ErrorCategory::language, sc.origin.where() + ": '" + sc.name +
                                               "' is not a valid scan name; expected an identifier");
    const std::string t = taken(sc.name);
    if (!t.empty())
      throw Error(ErrorCategory::language,
                  sc.origin.where() + ": scan '" + sc.name + "' has the name of " + t + "; rename it");
    scan_index_[sc.name] = static_cast<int>(scans_.size());
    scans_.push_back({&sc, -1});
  }
  for (const auto& [name, text] : spec.signals) {
    if (!is_identifier(name))
      throw Error(ErrorCategory::language,
                  text.where() + ": '" + name + "' is not a valid signal name; expected an identifier");
    const std::string t = taken(name);
    if (!t.empty())
      throw Error(ErrorCategory::language,
                  text.where() + ": signal '" + name + "' has the name of " + t + "; rename it");
    signal_index_[name] = static_cast<int>(signals_.size());
    signals_.push_back({name, &text, {}, false});
  }
}

void Compiler::compile_all_declared() {
  for (std::size_t i = 0; i < signals_.size(); ++i) lower_signal(static_cast<int>(i), 0, nullptr, 0);
  for (std::size_t i = 0; i < scans_.size(); ++i) compile_scan(static_cast<int>(i), nullptr, 0);
}

std::vector<std::string> Compiler::visible_names() const {
  std::vector<std::string> names;
  for (const auto& kv : signal_index_) names.push_back(kv.first);
  for (const auto& kv : param_index_) names.push_back(kv.first);
  for (const auto& kv : column_index_) names.push_back(kv.first);
  for (const auto& kv : exo_index_) names.push_back(kv.first);
  for (const auto& kv : scan_index_) names.push_back(kv.first);
  return names;
}

void Compiler::enter(const std::string& what, const SourceText& src, const AstNode& node) {
  for (std::size_t i = 0; i < active_.size(); ++i) {
    if (active_[i] == what) {
      std::string chain;
      for (std::size_t j = i; j < active_.size(); ++j) chain += active_[j] + " -> ";
      chain += what;
      fail(src, node, what + " depends on itself: " + chain);
    }
  }
  if (active_.size() > 2000)
    throw Error(ErrorCategory::limit, "signals and scans are nested more than 2000 deep");
  active_.push_back(what);
}

int Compiler::symbol_of(const SourceText& src, const AstNode& node) {
  auto it = symbol_index_.find(node.symbol);
  if (it == symbol_index_.end())
    fail_at(src, node.symbol_offset,
            "unknown symbol '" + node.symbol + "'" + did_you_mean(node.symbol, schema_.symbols));
  return it->second;
}

Value Compiler::at_symbol(Value v, const SourceText& src, const AstNode& node, const std::string& what) {
  if (node.symbol.empty()) return v;
  const int sym = symbol_of(src, node);
  if (!v.series)
    fail_at(src, node.symbol_offset - 1,
            what + " is one value per combo, not a per-symbol series; '@" + node.symbol +
                "' expected a column, signal or scan output");
  Instr i;
  i.op = OpCode::symbol_read;
  i.a = v.reg;
  i.aux = sym;
  return emit(i, v.boolean);
}

Value Compiler::lower_signal(int idx, int frame, const SourceText* use_src, const AstNode* use_node) {
  auto memo = signal_memo_.find({idx, frame});
  if (memo != signal_memo_.end()) return memo->second;
  Signal& s = signals_[static_cast<std::size_t>(idx)];
  const std::string what = "signal '" + s.name + "'";
  if (use_src) enter(what, *use_src, *use_node);
  else active_.push_back(what);
  const OutsideFunctions outside(*this);
  if (!s.parsed) {
    s.ast = parse_expression(*s.src);
    s.parsed = true;
  }
  const Value v = lower(s.ast, *s.src, frame);
  active_.pop_back();
  signal_memo_[{idx, frame}] = v;
  return v;
}

Value Compiler::lower_name(const AstNode& node, const SourceText& src, int frame) {
  const std::string& name = node.text;
  if (const Binding* b = formal_of(node)) return lower_formal(*b, node, src, frame);
  if (!node.field.empty()) return lower_scan_output(node, src, frame);
  if (auto it = signal_index_.find(name); it != signal_index_.end())
    return at_symbol(lower_signal(it->second, frame, &src, &node), src, node, "signal '" + name + "'");
  if (auto it = param_index_.find(name); it != param_index_.end()) {
    Instr i;
    i.op = OpCode::param;
    i.aux = it->second;
    return at_symbol(emit(i, false), src, node, "param '" + name + "'");
  }
  if (auto it = column_index_.find(name); it != column_index_.end())
    return at_symbol(leaf_series(OpCode::column, it->second, frame), src, node, name);
  if (auto it = exo_index_.find(name); it != exo_index_.end()) {
    if (!node.symbol.empty()) symbol_of(src, node);  // validate; exo is shared by all symbols
    return leaf_series(OpCode::exo, it->second, frame);
  }
  if (scan_index_.count(name)) {
    const auto& outs = scans_[static_cast<std::size_t>(scan_index_[name])].spec->outputs;
    const std::string example = outs.empty() ? "out" : outs.front().first;
    fail(src, node, "'" + name + "' is a scan; expected one of its outputs, e.g. " + name + "." + example);
  }
  if (find_function(name))
    fail(src, node, "'" + name + "' is a function; expected a call such as " +
                        find_function(name)->signature);
  if (user_function(name)) fail(src, node, "'" + name + "' is a function of strategy.functions; expected a call");
  if (is_symbol_word(node))
    fail(src, node, "symbol is only compared with a symbol name, e.g. where(" + symbol_test_example() + ", 1, -1)");
  std::string hint = did_you_mean(name, visible_names());
  if (hint.empty() && (name == "funding_rate" || name == "open" || name == "high" || name == "low" ||
                       name == "close" || name == "volume"))
    hint = "; the data has no column '" + name + "'";
  fail(src, node, "unknown name '" + name + "'" + hint);
}

Value Compiler::lower_scan_output(const AstNode& node, const SourceText& src, int frame) {
  auto it = scan_index_.find(node.text);
  if (it == scan_index_.end()) {
    if (signal_index_.count(node.text) || param_index_.count(node.text) ||
        column_index_.count(node.text) || exo_index_.count(node.text))
      fail(src, node, "'" + node.text + "' is not a scan; only scan outputs are written name.output");
    std::vector<std::string> names;
    for (const auto& kv : scan_index_) names.push_back(kv.first);
    fail(src, node, "unknown scan '" + node.text + "'" + did_you_mean(node.text, names));
  }
  const ScanSpec& spec = *scans_[static_cast<std::size_t>(it->second)].spec;
  int out = -1;
  std::vector<std::string> outs;
  for (std::size_t k = 0; k < spec.outputs.size(); ++k) {
    outs.push_back(spec.outputs[k].first);
    if (spec.outputs[k].first == node.field) out = static_cast<int>(k);
  }
  if (out < 0) {
    std::string list;
    for (const auto& o : outs) list += (list.empty() ? "" : ", ") + o;
    fail_at(src, node.field_offset,
            "scan '" + node.text + "' has no output '" + node.field + "'" +
                did_you_mean(node.field, outs) + " (outputs: " + list + ")");
  }
  if (frame != 0)
    fail(src, node, "scan outputs cannot be used inside htf(); expected a base-timeframe expression");
  const int scan = compile_scan(it->second, &src, &node);
  Instr i;
  i.op = OpCode::scan_output;
  i.aux = scan;
  i.aux2 = out;
  i.frame = 0;
  i.is_series = 1;
  i.depends_on_params = prog.scans[static_cast<std::size_t>(scan)].depends_on_params;
  const Value v = emit(i, false);
  return at_symbol(v, src, node, node.text + "." + node.field);
}

}  // namespace kbt::detail
