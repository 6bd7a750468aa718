// Lowering of expressions into the main program: operators, calls of the language's
// functions (windows, atr, crosses, cross-sectional ops, htf) and their type checks.

#include "lang/compiler_internal.hpp"

#include <kbt/data/time_format.hpp>
#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/op_table.hpp>
#include <kbt/lang/parser.hpp>

#include <cmath>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace kbt::detail {

namespace {

constexpr std::int64_t ns_per_second = 1000000000LL;

// An htf timeframe in nanoseconds: a duration (parse_duration_ns, the one
// parser of durations) of whole seconds; 0 when malformed.
std::int64_t parse_timeframe(const std::string& tf) {
  const auto ns = parse_duration_ns(tf);
  return ns && *ns % ns_per_second == 0 ? *ns : 0;
}

}  // namespace

Value Compiler::lower_top(const SourceText& src) {
  AstNode ast = parse_expression(src);
  return lower_top(src, ast);
}

Value Compiler::lower_top(const SourceText& src, const AstNode& ast) {
  const ForgetCalls forget(*this);  // the caller's AST dies after this
  return lower(ast, src, 0);
}

void Compiler::need_boolean(const Value& v, const SourceText& src, const AstNode& node, const std::string& who) {
  if (!v.boolean)
    fail(src, node, who + " needs a boolean; expected a comparison, and/or/not, isnan(), "
                          "cross_above() or cross_below()");
}

void Compiler::need_series(const Value& v, const SourceText& src, const AstNode& node, const std::string& fn) {
  if (!v.series)
    fail(src, node, fn + "() needs a series as its first argument; this argument is one value per "
                         "combo (a constant or param)");
}

std::pair<WindowKind, int> Compiler::window_of(const AstNode& node, const SourceText& src, const Function& fn) {
  const std::string fname = fn.name;
  const std::string expect = "the window of " + fname + "() must be an integer constant, an "
                             "integer-valued param or an expression of them, e.g. " + fname + "(close, 20), " + fname +
                             "(close, fast) or " + fname + "(close, 2 * fast)";
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
  if (const Binding* b = formal_of(node)) {  // the argument written at the call
    if (!node.field.empty() || !node.symbol.empty()) fail(src, node, expect);
    const AtTheCall at_the_call(*this, *b);
    return window_of(*b->arg, *b->src, fn);
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
  return window_expression(node, src, fn);  // also a signal that is an expression of params
}

// A window written as an expression of params and numbers (`2 * n`, `n + 5`,
// `max(n / 2, 2)`): a scalar register, evaluated per combo; every value it
// takes over the grid is checked here (docs/language.md §5 "Windows").
std::pair<WindowKind, int> Compiler::window_expression(const AstNode& node, const SourceText& src, const Function& fn) {
  const std::string fname = fn.name;
  const std::string allowed = "a window expression may use numbers, params, + - * / and min, max, abs";
  const Value v = lower(node, src, 0);
  if (v.series) fail(src, node, "the window of " + fname + "() must be the same on every bar; " + allowed);
  if (v.boolean) fail(src, node, "the window of " + fname + "() is a boolean; " + allowed);
  std::vector<std::int32_t> todo{v.reg};
  while (!todo.empty()) {
    const Instr& i = prog.code[static_cast<std::size_t>(todo.back())];
    todo.pop_back();
    switch (i.op) {
      case OpCode::constant: case OpCode::param: case OpCode::neg: case OpCode::add: case OpCode::sub:
      case OpCode::mul: case OpCode::div: case OpCode::min: case OpCode::max: case OpCode::abs: break;
      default: fail(src, node, std::string("the window of ") + fname + "() uses " + to_string(i.op) + "; " + allowed);
    }
    for (std::int32_t x : {i.a, i.b, i.c})
      if (x >= 0) todo.push_back(x);
  }
  const int min_w = min_window(fn.op);
  for (double w : scalar_register_values(prog, v.reg)) {
    if (!(w == std::floor(w)))
      fail(src, node, "the window of " + fname + "() takes the value " + format_number(w) +
                          " over the param grid; a window must be an integer on every combo");
    if (w < min_w)
      fail(src, node, "the window of " + fname + "() takes the value " + format_number(w) +
                          " over the param grid; it must be >= " + std::to_string(min_w));
    if (w > 1e9) fail(src, node, "the window of " + fname + "() takes the value " + format_number(w) + ", too large");
  }
  return {WindowKind::scalar, v.reg};
}

std::string Compiler::format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

Value Compiler::lower(const AstNode& node, const SourceText& src, int frame) {
  if (lowering_depth_ >= max_lowering_depth)
    fail_at(src, node.offset,
            "expressions nested through signals more than " + std::to_string(max_lowering_depth) +
                " levels deep; expected a flatter chain of signals",
            ErrorCategory::limit);
  if (scope_) count_expanded_node(src, node);
  ++lowering_depth_;
  struct Leave {
    int& depth;
    ~Leave() { --depth; }
  } leave{lowering_depth_};
  return lower_node(node, src, frame);
}

Value Compiler::lower_node(const AstNode& node, const SourceText& src, int frame) {
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
      if (const auto test = symbol_test(node, src, frame)) return *test;
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

// `symbol == "AAA"` (or !=): which symbol a row is, for strategies whose legs
// differ by symbol (pairs). `symbol` is this word only where no param, signal,
// column or function parameter has that name.
std::optional<Value> Compiler::symbol_test(const AstNode& node, const SourceText& src, int frame) {
  if (node.text != "==" && node.text != "!=") return std::nullopt;
  const AstNode *word = &node.args[0], *text = &node.args[1];
  if (text->kind == AstNode::Kind::name) std::swap(word, text);
  if (!is_symbol_word(*word)) return std::nullopt;
  if (text->kind != AstNode::Kind::string)
    fail(src, *text, "symbol is compared with a symbol name in quotes, e.g. " + symbol_test_example());
  const auto it = symbol_index_.find(text->text);
  if (it == symbol_index_.end())
    fail(src, *text, "unknown symbol '" + text->text + "'" + did_you_mean(text->text, schema_.symbols));
  Instr i;
  i.op = OpCode::symbol_is;
  i.aux = it->second;
  i.is_series = 1;
  i.frame = frame;
  const Value is = emit(i, true);
  return node.text == "==" ? is : op1(OpCode::logical_not, is, true);
}

std::string Compiler::symbol_test_example() const {
  return "symbol == \"" + (schema_.symbols.empty() ? std::string("AAA") : schema_.symbols.front()) + "\"";
}

bool Compiler::is_symbol_word(const AstNode& node) const {
  return node.kind == AstNode::Kind::name && node.text == "symbol" && node.field.empty() && node.symbol.empty() &&
         !formal_of(node) && !param_index_.count("symbol") && !signal_index_.count("symbol") &&
         !column_index_.count("symbol") && !exo_index_.count("symbol");
}

const Function& Compiler::resolve_function(const AstNode& node, const SourceText& src) {
  const std::string& name = node.text;
  if (name == "lead" && !options_.allow_lead)
    fail(src, node, "lead() looks ahead and is only allowed in labelling jobs");
  const Function* fn = find_function(name);
  if (!fn) {
    if (signal_index_.count(name) || param_index_.count(name) || column_index_.count(name) ||
        exo_index_.count(name) || scan_index_.count(name))
      fail(src, node, "'" + name + "' is not a function; expected a name without '(' or a function call");
    std::vector<std::string> names = function_names();
    for (const auto& kv : function_index_) names.push_back(kv.first);
    fail(src, node, "unknown function '" + name + "'" + did_you_mean(name, names));
  }
  if (static_cast<int>(node.args.size()) != fn->arity)
    fail(src, node, std::string(fn->name) + "() takes " + std::to_string(fn->arity) + " argument" +
                        (fn->arity == 1 ? "" : "s") + " (" + fn->signature + "); got " +
                        std::to_string(node.args.size()));
  return *fn;
}

Value Compiler::lower_call(const AstNode& node, const SourceText& src, int frame) {
  if (const UserFunction* f = user_function(node.text)) return lower_user_call(*f, node, src, frame);
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

}  // namespace kbt::detail
