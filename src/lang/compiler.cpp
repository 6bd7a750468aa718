// Strategy compiler: AST -> hash-consed SSA Program (see docs/language.md).
//
// Name resolution: signals and scans may refer to each other in any order; they are
// compiled on first use and a reference back to one being compiled is reported as a
// cycle. Everything declared is compiled (so that every error is reported), but only
// what the outputs and constraints use stays in the program.

#include <kbt/lang/compiler.hpp>

#include <kbt/data/time_format.hpp>
#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/op_table.hpp>
#include <kbt/lang/parser.hpp>

#include "core/large_stack.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <map>
#include <set>

namespace kbt {

DataSchema schema_of(const BarData& data) {
  DataSchema s;
  s.symbols = data.symbols;
  for (const auto& kv : data.columns) s.columns.push_back(kv.first);
  for (const auto& kv : data.exo) s.exo.push_back(kv.first);
  return s;
}

namespace {

struct Value {
  std::int32_t reg = -1;
  bool series = false;
  bool boolean = false;
};

using Key = std::array<std::int64_t, 10>;

Key key_of(const Instr& i) {
  std::int64_t bits = 0;
  std::memcpy(&bits, &i.constant, sizeof bits);
  return {static_cast<std::int64_t>(i.op), i.a, i.b, i.c,
          static_cast<std::int64_t>(i.window_kind), i.window, i.aux, i.aux2, i.frame, bits};
}

enum class FnKind { pointwise, boolean_test, where, window, atr, cross, cross_sectional, htf };

struct Function {
  const char* name;
  const char* signature;
  int arity;
  FnKind kind;
  OpCode op;
};

const std::vector<Function>& functions() {
  static const std::vector<Function> fns{
      {"abs", "abs(x)", 1, FnKind::pointwise, OpCode::abs},
      {"sqrt", "sqrt(x)", 1, FnKind::pointwise, OpCode::sqrt},
      {"log", "log(x)", 1, FnKind::pointwise, OpCode::log},
      {"exp", "exp(x)", 1, FnKind::pointwise, OpCode::exp},
      {"sign", "sign(x)", 1, FnKind::pointwise, OpCode::sign},
      {"min", "min(a, b)", 2, FnKind::pointwise, OpCode::min},
      {"max", "max(a, b)", 2, FnKind::pointwise, OpCode::max},
      {"clip", "clip(x, lo, hi)", 3, FnKind::pointwise, OpCode::clip},
      {"fillna", "fillna(x, value)", 2, FnKind::pointwise, OpCode::fillna},
      {"isnan", "isnan(x)", 1, FnKind::boolean_test, OpCode::isnan},
      {"where", "where(condition, then, else)", 3, FnKind::where, OpCode::where},
      {"lag", "lag(x, k)", 2, FnKind::window, OpCode::lag},
      {"lead", "lead(x, k)", 2, FnKind::window, OpCode::lead},
      {"sma", "sma(x, window)", 2, FnKind::window, OpCode::rolling_mean},
      {"rolling_mean", "rolling_mean(x, window)", 2, FnKind::window, OpCode::rolling_mean},
      {"rolling_sum", "rolling_sum(x, window)", 2, FnKind::window, OpCode::rolling_sum},
      {"rolling_std", "rolling_std(x, window)", 2, FnKind::window, OpCode::rolling_std},
      {"rolling_min", "rolling_min(x, window)", 2, FnKind::window, OpCode::rolling_min},
      {"rolling_max", "rolling_max(x, window)", 2, FnKind::window, OpCode::rolling_max},
      {"zscore", "zscore(x, window)", 2, FnKind::window, OpCode::zscore},
      {"ema", "ema(x, span)", 2, FnKind::window, OpCode::ema},
      {"rsi", "rsi(x, window)", 2, FnKind::window, OpCode::rsi},
      {"roc", "roc(x, window)", 2, FnKind::window, OpCode::roc},
      {"atr", "atr(window)", 1, FnKind::atr, OpCode::atr},
      {"cross_above", "cross_above(a, b)", 2, FnKind::cross, OpCode::gt},
      {"cross_below", "cross_below(a, b)", 2, FnKind::cross, OpCode::lt},
      {"cs_rank", "cs_rank(x)", 1, FnKind::cross_sectional, OpCode::cs_rank},
      {"cs_zscore", "cs_zscore(x)", 1, FnKind::cross_sectional, OpCode::cs_zscore},
      {"cs_demean", "cs_demean(x)", 1, FnKind::cross_sectional, OpCode::cs_demean},
      {"htf", "htf(x, \"4h\")", 2, FnKind::htf, OpCode::htf},
  };
  return fns;
}

const Function* find_function(const std::string& name) {
  for (const auto& f : functions())
    if (name == f.name) return &f;
  return nullptr;
}

std::vector<std::string> function_names() {
  std::vector<std::string> names;
  for (const auto& f : functions()) names.emplace_back(f.name);
  return names;
}

constexpr std::int64_t ns_per_second = 1000000000LL;

// An htf timeframe in nanoseconds: a duration (parse_duration_ns, the one
// parser of durations) of whole seconds; 0 when malformed.
std::int64_t parse_timeframe(const std::string& tf) {
  const auto ns = parse_duration_ns(tf);
  return ns && *ns % ns_per_second == 0 ? *ns : 0;
}

class Compiler {
 public:
  Compiler(const DataSchema& schema, const std::vector<ParamSpec>& params,
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

  Program prog;

  void declare_signals_and_scans(const StrategySpec& spec) {
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

  // Lowers a top-level expression in the base timeframe.
  Value lower_top(const SourceText& src) {
    AstNode ast = parse_expression(src);
    return lower(ast, src, 0);
  }

  Value lower_top(const SourceText& src, const AstNode& ast) { return lower(ast, src, 0); }

  void compile_all_declared() {
    for (std::size_t i = 0; i < signals_.size(); ++i) lower_signal(static_cast<int>(i), 0, nullptr, 0);
    for (std::size_t i = 0; i < scans_.size(); ++i) compile_scan(static_cast<int>(i), nullptr, 0);
  }

  std::size_t scans_compiled() const { return prog.scans.size(); }

  [[noreturn]] void fail(const SourceText& src, const AstNode& node, const std::string& msg) {
    fail_at(src, node.offset, msg);
  }

 private:
  struct Signal {
    std::string name;
    const SourceText* src;
    AstNode ast;
    bool parsed;
  };
  struct Scan {
    const ScanSpec* spec;
    int compiled;  // index in prog.scans, -1 until compiled
  };

  const DataSchema& schema_;
  const std::vector<ParamSpec>& params_;
  CompileOptions options_;
  std::map<std::string, int> param_index_, column_index_, exo_index_, symbol_index_;
  std::vector<Signal> signals_;
  std::map<std::string, int> signal_index_;
  std::vector<Scan> scans_;
  std::map<std::string, int> scan_index_;
  std::map<std::pair<int, int>, Value> signal_memo_;
  std::vector<std::string> active_;  // "signal 'a'", "scan 'kf'" being compiled
  std::map<Key, std::int32_t> cse_;

  // ---------------------------------------------------------------- emission
  void check_size() {
    if (prog.code.size() + prog.scan_tape.size() >= max_program_instructions)
      throw Error(ErrorCategory::limit, "the strategy compiles to more than " +
                                            std::to_string(max_program_instructions) +
                                            " instructions; simplify it");
  }

  Value emit(Instr ins, bool boolean) {
    // Derive shape, timeframe and param dependency from the operands.
    bool series = ins.is_series != 0;
    bool dep = ins.op == OpCode::param || ins.window_kind == WindowKind::param ||
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

  Value constant(double v) {
    Instr i;
    i.op = OpCode::constant;
    i.constant = v;
    return emit(i, false);
  }

  Value leaf_series(OpCode op, int aux, int frame) {
    Instr i;
    i.op = op;
    i.aux = aux;
    i.frame = frame;
    i.is_series = 1;
    return emit(i, false);
  }

  Value op1(OpCode op, Value a, bool boolean) {
    Instr i;
    i.op = op;
    i.a = a.reg;
    return emit(i, boolean);
  }
  Value op2(OpCode op, Value a, Value b, bool boolean) {
    Instr i;
    i.op = op;
    i.a = a.reg;
    i.b = b.reg;
    return emit(i, boolean);
  }
  Value op3(OpCode op, Value a, Value b, Value c, bool boolean) {
    Instr i;
    i.op = op;
    i.a = a.reg;
    i.b = b.reg;
    i.c = c.reg;
    return emit(i, boolean);
  }
  Value windowed(OpCode op, Value a, WindowKind wk, int w, bool boolean) {
    Instr i;
    i.op = op;
    i.a = a.reg;
    i.window_kind = wk;
    i.window = w;
    return emit(i, boolean);
  }

  // ---------------------------------------------------------------- names
  std::vector<std::string> visible_names() const {
    std::vector<std::string> names;
    for (const auto& kv : signal_index_) names.push_back(kv.first);
    for (const auto& kv : param_index_) names.push_back(kv.first);
    for (const auto& kv : column_index_) names.push_back(kv.first);
    for (const auto& kv : exo_index_) names.push_back(kv.first);
    for (const auto& kv : scan_index_) names.push_back(kv.first);
    return names;
  }

  void enter(const std::string& what, const SourceText& src, const AstNode& node) {
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

  int symbol_of(const SourceText& src, const AstNode& node) {
    auto it = symbol_index_.find(node.symbol);
    if (it == symbol_index_.end())
      fail_at(src, node.symbol_offset,
              "unknown symbol '" + node.symbol + "'" + did_you_mean(node.symbol, schema_.symbols));
    return it->second;
  }

  Value at_symbol(Value v, const SourceText& src, const AstNode& node, const std::string& what) {
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

  Value lower_signal(int idx, int frame, const SourceText* use_src, const AstNode* use_node) {
    auto memo = signal_memo_.find({idx, frame});
    if (memo != signal_memo_.end()) return memo->second;
    Signal& s = signals_[static_cast<std::size_t>(idx)];
    const std::string what = "signal '" + s.name + "'";
    if (use_src) enter(what, *use_src, *use_node);
    else active_.push_back(what);
    if (!s.parsed) {
      s.ast = parse_expression(*s.src);
      s.parsed = true;
    }
    const Value v = lower(s.ast, *s.src, frame);
    active_.pop_back();
    signal_memo_[{idx, frame}] = v;
    return v;
  }

  Value lower_name(const AstNode& node, const SourceText& src, int frame) {
    const std::string& name = node.text;
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
    std::string hint = did_you_mean(name, visible_names());
    if (hint.empty() && (name == "funding_rate" || name == "open" || name == "high" || name == "low" ||
                         name == "close" || name == "volume"))
      hint = "; the data has no column '" + name + "'";
    fail(src, node, "unknown name '" + name + "'" + hint);
  }

  Value lower_scan_output(const AstNode& node, const SourceText& src, int frame) {
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

  // ---------------------------------------------------------------- type checks
  void need_boolean(const Value& v, const SourceText& src, const AstNode& node, const std::string& who) {
    if (!v.boolean)
      fail(src, node, who + " needs a boolean; expected a comparison, and/or/not, isnan(), "
                            "cross_above() or cross_below()");
  }

  void need_series(const Value& v, const SourceText& src, const AstNode& node, const std::string& fn) {
    if (!v.series)
      fail(src, node, fn + "() needs a series as its first argument; this argument is one value per "
                           "combo (a constant or param)");
  }

  std::pair<WindowKind, int> window_of(const AstNode& node, const SourceText& src, const Function& fn) {
    const std::string fname = fn.name;
    const std::string expect = "the window of " + fname + "() must be an integer constant or an "
                               "integer-valued param, e.g. " + fname + "(close, 20) or " + fname +
                               "(close, fast)";
    const int min_w = min_window(fn.op);  // the op table
    if (node.kind == AstNode::Kind::number) {
      const double w = node.number;
      if (w != std::floor(w)) fail(src, node, "window " + node.text + " is not an integer; " + expect);
      if (w < min_w)
        fail(src, node, "the window of " + fname + "() must be >= " + std::to_string(min_w) +
                            "; got " + node.text);
      if (w > 1e9) fail(src, node, "window " + node.text + " is too large");
      return {WindowKind::constant, static_cast<int>(w)};
    }
    if (node.kind == AstNode::Kind::name && node.field.empty() && node.symbol.empty()) {
      auto it = param_index_.find(node.text);
      if (it != param_index_.end()) {
        const ParamSpec& p = params_[static_cast<std::size_t>(it->second)];
        for (double v : p.values) {
          if (!p.is_integer || v != std::floor(v))
            fail(src, node, "param '" + p.name + "' is not integer-valued (it has the value " +
                                format_number(v) + "); " + expect);
          if (v < min_w)
            fail(src, node, "param '" + p.name + "' has the value " + format_number(v) +
                                " on its axis; the window of " + fname + "() must be >= " +
                                std::to_string(min_w));
          if (v > 1e9) fail(src, node, "param '" + p.name + "' has a window value too large");
        }
        if (!p.is_integer)
          fail(src, node, "param '" + p.name + "' is not integer-valued; " + expect);
        return {WindowKind::param, it->second};
      }
      if (!signal_index_.count(node.text) && !column_index_.count(node.text) &&
          !exo_index_.count(node.text) && !scan_index_.count(node.text)) {
        std::vector<std::string> names;
        for (const auto& kv : param_index_) names.push_back(kv.first);
        fail(src, node, "unknown name '" + node.text + "'" + did_you_mean(node.text, names) +
                            " (the window of " + fname + "() must be an integer param or constant)");
      }
    }
    fail(src, node, expect);
  }

  static std::string format_number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
  }

  // ---------------------------------------------------------------- main lowering
  // The parser bounds the depth of one expression; through signal references the
  // depths add up (2000 signals x 256 levels would overflow the stack), so the
  // recursion of lower() is bounded as a whole.
  static constexpr int max_lowering_depth = 2048;
  int lowering_depth_ = 0;

  Value lower(const AstNode& node, const SourceText& src, int frame) {
    if (lowering_depth_ >= max_lowering_depth)
      fail_at(src, node.offset,
              "expressions nested through signals more than " + std::to_string(max_lowering_depth) +
                  " levels deep; expected a flatter chain of signals",
              ErrorCategory::limit);
    ++lowering_depth_;
    struct Leave {
      int& depth;
      ~Leave() { --depth; }
    } leave{lowering_depth_};
    return lower_node(node, src, frame);
  }

  Value lower_node(const AstNode& node, const SourceText& src, int frame) {
    switch (node.kind) {
      case AstNode::Kind::number: return constant(node.number);
      case AstNode::Kind::string:
        fail(src, node, "a string is only allowed as the timeframe of htf(); expected an expression "
                        "(e.g. htf(close, \"4h\"))");
      case AstNode::Kind::name: return lower_name(node, src, frame);
      case AstNode::Kind::unary: {
        const AstNode& x = node.args[0];
        if (node.text == "-") {
          if (x.kind == AstNode::Kind::number) return constant(-x.number);
          return op1(OpCode::neg, lower(x, src, frame), false);
        }
        const Value v = lower(x, src, frame);
        need_boolean(v, src, x, "'not'");
        return op1(OpCode::logical_not, v, true);
      }
      case AstNode::Kind::binary: {
        const Value a = lower(node.args[0], src, frame);
        const Value b = lower(node.args[1], src, frame);
        const std::string& o = node.text;
        if (o == "and" || o == "or") {
          need_boolean(a, src, node.args[0], "'" + o + "'");
          need_boolean(b, src, node.args[1], "'" + o + "'");
          return op2(o == "and" ? OpCode::logical_and : OpCode::logical_or, a, b, true);
        }
        static const std::map<std::string, OpCode> arith{
            {"+", OpCode::add}, {"-", OpCode::sub}, {"*", OpCode::mul}, {"/", OpCode::div}};
        static const std::map<std::string, OpCode> cmp{{"<", OpCode::lt},  {"<=", OpCode::le},
                                                       {">", OpCode::gt},  {">=", OpCode::ge},
                                                       {"==", OpCode::eq}, {"!=", OpCode::ne}};
        if (auto it = arith.find(o); it != arith.end()) return op2(it->second, a, b, false);
        return op2(cmp.at(o), a, b, true);
      }
      case AstNode::Kind::call: return lower_call(node, src, frame);
    }
    throw Error(ErrorCategory::internal, "unknown syntax node");
  }

  const Function& resolve_function(const AstNode& node, const SourceText& src) {
    const std::string& name = node.text;
    if (name == "lead" && !options_.allow_lead)
      fail(src, node, "lead() looks ahead and is only allowed in labelling jobs");
    const Function* fn = find_function(name);
    if (!fn) {
      if (signal_index_.count(name) || param_index_.count(name) || column_index_.count(name) ||
          exo_index_.count(name) || scan_index_.count(name))
        fail(src, node, "'" + name + "' is not a function; expected a name without '(' or a function call");
      fail(src, node, "unknown function '" + name + "'" + did_you_mean(name, function_names()));
    }
    if (static_cast<int>(node.args.size()) != fn->arity)
      fail(src, node, std::string(fn->name) + "() takes " + std::to_string(fn->arity) + " argument" +
                          (fn->arity == 1 ? "" : "s") + " (" + fn->signature + "); got " +
                          std::to_string(node.args.size()));
    return *fn;
  }

  Value lower_call(const AstNode& node, const SourceText& src, int frame) {
    const Function& fn = resolve_function(node, src);
    const auto& args = node.args;
    switch (fn.kind) {
      case FnKind::pointwise: {
        std::vector<Value> v;
        for (const auto& a : args) v.push_back(lower(a, src, frame));
        if (v.size() == 1) return op1(fn.op, v[0], false);
        if (v.size() == 2) return op2(fn.op, v[0], v[1], false);
        return op3(fn.op, v[0], v[1], v[2], false);
      }
      case FnKind::boolean_test: return op1(fn.op, lower(args[0], src, frame), true);
      case FnKind::where: {
        const Value c = lower(args[0], src, frame);
        need_boolean(c, src, args[0], "the condition of where()");
        const Value a = lower(args[1], src, frame);
        const Value b = lower(args[2], src, frame);
        return op3(OpCode::where, c, a, b, a.boolean && b.boolean);
      }
      case FnKind::window: {
        const Value x = lower(args[0], src, frame);
        need_series(x, src, args[0], fn.name);
        const auto [wk, w] = window_of(args[1], src, fn);
        const bool keeps_boolean = fn.op == OpCode::lag || fn.op == OpCode::lead;
        return windowed(fn.op, x, wk, w, keeps_boolean && x.boolean);
      }
      case FnKind::atr: {
        for (const char* c : {"high", "low", "close"})
          if (!column_index_.count(c))
            fail(src, node, std::string("atr() needs the columns high, low and close; the data has no '") +
                                c + "'");
        const auto [wk, w] = window_of(args[0], src, fn);
        Instr i;
        i.op = OpCode::atr;
        i.a = leaf_series(OpCode::column, column_index_["high"], frame).reg;
        i.b = leaf_series(OpCode::column, column_index_["low"], frame).reg;
        i.c = leaf_series(OpCode::column, column_index_["close"], frame).reg;
        i.window_kind = wk;
        i.window = w;
        return emit(i, false);
      }
      case FnKind::cross: {
        // cross_above(a, b) := (a > b) and (lag(a, 1) <= lag(b, 1)); cross_below mirrors it.
        const Value a = lower(args[0], src, frame);
        const Value b = lower(args[1], src, frame);
        if (!a.series && !b.series)
          fail(src, node, std::string(fn.name) + "() needs at least one series argument; both are one "
                                                 "value per combo");
        auto lag1 = [&](Value v) { return v.series ? windowed(OpCode::lag, v, WindowKind::constant, 1, v.boolean) : v; };
        const bool above = fn.op == OpCode::gt;
        const Value now = op2(above ? OpCode::gt : OpCode::lt, a, b, true);
        const Value before = op2(above ? OpCode::le : OpCode::ge, lag1(a), lag1(b), true);
        return op2(OpCode::logical_and, now, before, true);
      }
      case FnKind::cross_sectional: {
        const Value x = lower(args[0], src, frame);
        need_series(x, src, args[0], fn.name);
        return op1(fn.op, x, false);
      }
      case FnKind::htf: {
        if (frame != 0) fail(src, node, "htf() cannot be nested inside htf()");
        const AstNode& tf = args[1];
        if (tf.kind != AstNode::Kind::string)
          fail(src, tf, "the timeframe of htf() must be a string; expected e.g. htf(close, \"4h\")");
        const std::int64_t ns = parse_timeframe(tf.text);
        if (ns == 0)
          fail(src, tf, "invalid timeframe \"" + tf.text + "\"; expected a positive whole number and a "
                                                          "unit s, m, h, d or w (e.g. \"4h\")");
        int f = -1;
        for (std::size_t k = 1; k < prog.frame_ns.size(); ++k)
          if (prog.frame_ns[k] == ns) f = static_cast<int>(k);
        if (f < 0) {
          f = static_cast<int>(prog.frame_ns.size());
          prog.frame_ns.push_back(ns);
        }
        const Value x = lower(args[0], src, f);
        if (!x.series) return x;  // a per-combo value is the same on every timeframe
        Instr i;
        i.op = OpCode::htf;
        i.a = x.reg;
        i.aux = f;
        i.is_series = 1;
        return emit(i, x.boolean);
      }
    }
    throw Error(ErrorCategory::internal, "unknown function kind");
  }

  // ---------------------------------------------------------------- scans
  struct TapeValue {
    std::int32_t slot;
    bool boolean;
  };

  struct Tape {
    std::vector<Instr> code;
    std::map<Key, std::int32_t> cse;
    std::map<std::string, std::int32_t> scope;   // name -> slot (assigned so far)
    std::map<std::string, int> inputs;           // input name -> index
    std::map<std::string, int> states;           // state name -> index (update tape only)
    std::set<std::string> later;                 // names assigned later in this block
    std::string scan;
    std::string block;                           // "init" / "update" / "outputs"
  };

  TapeValue tape_emit(Tape& t, Instr ins, bool boolean) {
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

  TapeValue tape_lower(Tape& t, const AstNode& node, const SourceText& src) {
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

  TapeValue tape_name(Tape& t, const AstNode& node, const SourceText& src) {
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

  static void check_assign_name(const std::string& name, const SourceText& src, const std::string& scan) {
    if (!is_identifier(name))
      throw Error(ErrorCategory::language, src.where() + ": '" + name + "' in scan '" + scan +
                                               "' is not a valid name; expected an identifier");
  }

  int compile_scan(int idx, const SourceText* use_src, const AstNode* use_node) {
    Scan& sc = scans_[static_cast<std::size_t>(idx)];
    if (sc.compiled >= 0) return sc.compiled;
    const ScanSpec& spec = *sc.spec;
    const std::string what = "scan '" + spec.name + "'";
    if (use_src) enter(what, *use_src, *use_node);
    else active_.push_back(what);

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

 public:
  // Keeps only what was compiled before the marks (everything the outputs use).
  void truncate(std::size_t code, std::size_t scans, std::size_t tape, std::size_t refs, std::size_t frames) {
    prog.code.resize(code);
    prog.frame_ns.resize(frames);
    prog.scans.resize(scans);
    prog.scan_names.resize(scans);
    prog.scan_output_names.resize(scans);
    prog.scan_state_names.resize(scans);
    prog.scan_tape.resize(tape);
    prog.scan_refs.resize(refs);
  }

  void build_hoisting_list() {
    prog.hoisted.clear();
    for (std::size_t r = 0; r < prog.code.size(); ++r) {
      const Instr& i = prog.code[r];
      if (!is_windowed(i.op)) continue;
      bool input_dep = false;
      for (std::int32_t x : {i.a, i.b, i.c})
        if (x >= 0 && prog.code[static_cast<std::size_t>(x)].depends_on_params) input_dep = true;
      if (input_dep) continue;
      HoistedSeries h;
      h.reg = static_cast<std::int32_t>(r);
      h.op = i.op;
      h.a = i.a;
      h.b = i.b;
      h.c = i.c;
      h.window_kind = i.window_kind;
      h.window = i.window;
      h.frame = i.frame;
      prog.hoisted.push_back(h);
    }
  }
};

void check_output_form(const StrategySpec& spec) {
  const bool any_entry = spec.long_entry || spec.long_exit || spec.short_entry || spec.short_exit;
  if (spec.position && any_entry)
    throw Error(ErrorCategory::language,
                spec.position->where() + ": the strategy has both `position` and entry/exit "
                                         "expressions; expected exactly one form");
  if (!spec.position && !any_entry)
    throw Error(ErrorCategory::language,
                "the strategy has neither `position` nor long_entry/short_entry; expected "
                "`position: EXPR` or entry/exit expressions");
  if (any_entry && !spec.long_entry && !spec.short_entry) {
    const SourceText& s = spec.long_exit ? *spec.long_exit : *spec.short_exit;
    throw Error(ErrorCategory::language,
                s.where() + ": the strategy has exits but no long_entry or short_entry; expected at "
                            "least one entry");
  }
}

}  // namespace

namespace {

Program compile_strategy_here(const StrategySpec& spec, const DataSchema& schema, const CompileOptions& options) {
  check_output_form(spec);
  Compiler c(schema, spec.params, options);
  c.declare_signals_and_scans(spec);
  Program& p = c.prog;

  if (spec.position) {
    p.form = StrategyOutputs::Form::position;
    p.position = c.lower_top(*spec.position).reg;
  } else {
    p.form = StrategyOutputs::Form::entries_exits;
    auto boolean_output = [&](const std::optional<SourceText>& text, const char* name) -> std::int32_t {
      if (!text) return -1;
      const AstNode ast = parse_expression(*text);
      const Value v = c.lower_top(*text, ast);
      if (!v.boolean)
        fail_at(*text, 0, std::string(name) + " must be a boolean expression; expected a comparison, "
                                               "and/or/not, cross_above() or cross_below()");
      return v.reg;
    };
    p.long_entry = boolean_output(spec.long_entry, "long_entry");
    p.long_exit = boolean_output(spec.long_exit, "long_exit");
    p.short_entry = boolean_output(spec.short_entry, "short_entry");
    p.short_exit = boolean_output(spec.short_exit, "short_exit");
  }
  for (const auto& text : spec.constraints) {
    const AstNode ast = parse_expression(text);
    const Value v = c.lower_top(text, ast);
    if (v.series)
      fail_at(text, 0, "a constraint must depend on params only; expected e.g. \"fast < slow\"");
    if (!v.boolean)
      fail_at(text, 0, "a constraint must be a boolean expression; expected a comparison such as "
                        "\"fast < slow\"");
    p.constraints.push_back(v.reg);
    p.constraint_texts.push_back(text.text);
  }

  // Compile every declared signal and scan so that all errors surface, then drop
  // what the outputs do not use (it was appended after the marks).
  const std::size_t code = p.code.size(), scans = c.scans_compiled(), tape = p.scan_tape.size(),
                    refs = p.scan_refs.size(), frames = p.frame_ns.size();
  c.compile_all_declared();
  c.truncate(code, scans, tape, refs, frames);
  c.build_hoisting_list();
  return std::move(c.prog);
}

Program compile_expression_here(const SourceText& expression, const DataSchema& schema,
                                const std::vector<ParamSpec>& params, const CompileOptions& options) {
  Compiler c(schema, params, options);
  c.prog.expression = c.lower_top(expression).reg;
  c.build_hoisting_list();
  return std::move(c.prog);
}

}  // namespace

// Lowering recurses through signal references (up to max_lowering_depth levels
// of expression); it runs on a stack of a known size rather than the caller's.
Program compile_strategy(const StrategySpec& spec, const DataSchema& schema, const CompileOptions& options) {
  Program p;
  detail::call_with_large_stack([&] { p = compile_strategy_here(spec, schema, options); });
  return p;
}

Program compile_expression(const SourceText& expression, const DataSchema& schema,
                           const std::vector<ParamSpec>& params, const CompileOptions& options) {
  Program p;
  detail::call_with_large_stack([&] { p = compile_expression_here(expression, schema, params, options); });
  return p;
}

}  // namespace kbt
