// User functions (`strategy.functions`, docs/language.md "User functions"):
// `name(a, b): body` is expanded at each call — the body is lowered with each
// formal standing for the argument written at the call, lowered where it was
// written (the caller's scope, file and line). Identical calls (the same
// function, timeframe and arguments) are expanded once (call_memo_), and
// hash-consing shares what different calls compute alike; there is nothing of
// a function in the Program.

#include "lang/compiler_internal.hpp"

#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/parser.hpp>

#include <string>

namespace kbt::detail {

void Compiler::declare_functions(const StrategySpec& spec) {
  functions_.reserve(spec.functions.size());  // pointers to its elements stay valid
  for (const FunctionSpec& f : spec.functions) {
    if (find_function(f.name))
      throw Error(ErrorCategory::language, f.header.where() + ": function '" + f.name +
                                               "' has the name of a built-in function; rename it");
    if (function_index_.count(f.name))
      throw Error(ErrorCategory::language, f.header.where() + ": function '" + f.name + "' is defined twice");
    function_index_[f.name] = static_cast<int>(functions_.size());
    functions_.push_back({&f, parse_expression(f.body)});  // syntax errors now, used or not
  }
}

const Compiler::UserFunction* Compiler::user_function(const std::string& name) const {
  const auto it = function_index_.find(name);
  return it == function_index_.end() ? nullptr : &functions_[static_cast<std::size_t>(it->second)];
}

const Compiler::Binding* Compiler::formal_of(const AstNode& node) const {
  if (!scope_ || node.kind != AstNode::Kind::name) return nullptr;
  const auto it = scope_->formals.find(node.text);
  return it == scope_->formals.end() ? nullptr : &it->second;
}

Value Compiler::lower_formal(const Binding& b, const AstNode& node, const SourceText& src, int frame) {
  if (!node.field.empty() || !node.symbol.empty())
    fail(src, node, "'" + node.text + "' is a parameter of the function; '" + (node.field.empty() ? "@" : ".") +
                        "' applies to names of the data, signals and scans (pass e.g. close@BBB as the argument)");
  const AtTheCall at_the_call(*this, b);
  return lower(*b.arg, *b.src, frame);
}

std::pair<const AstNode*, std::uint64_t> Compiler::argument_identity(const AstNode* arg, const Scope* scope) const {
  // A formal passed on as an argument stands for what it is bound to.
  while (scope && arg->kind == AstNode::Kind::name && arg->field.empty() && arg->symbol.empty()) {
    const auto it = scope->formals.find(arg->text);
    if (it == scope->formals.end()) break;
    arg = it->second.arg;
    scope = it->second.scope;
  }
  return {arg, scope ? scope->serial : 0};
}

void Compiler::count_expanded_node(const SourceText& src, const AstNode& node) {
  if (++expanded_nodes_ <= max_expanded_nodes) return;
  fail_at(src, node.offset,
          "function '" + expansion_root_ + "' expands to more than " + std::to_string(max_expanded_nodes) +
              " expression nodes; a function whose body calls another function more than once with different "
              "arguments grows exponentially with the depth of such calls; compute the repeated part once as a "
              "signal",
          ErrorCategory::limit);
}

Value Compiler::lower_user_call(const UserFunction& f, const AstNode& node, const SourceText& src, int frame) {
  CallKey key{static_cast<int>(&f - functions_.data()), frame, {}};
  for (const AstNode& arg : node.args) std::get<2>(key).push_back(argument_identity(&arg, scope_));
  if (const auto memo = call_memo_.find(key); memo != call_memo_.end()) return memo->second;
  const bool outermost = scope_ == nullptr;
  if (outermost) expansion_root_ = f.spec->name;
  const Value v = expand_user_call(f, node, src, frame);
  call_memo_.emplace(std::move(key), v);
  return v;
}

Value Compiler::expand_user_call(const UserFunction& f, const AstNode& node, const SourceText& src, int frame) {
  const FunctionSpec& spec = *f.spec;
  if (node.args.size() != spec.params.size()) {
    std::string formals;
    for (const auto& p : spec.params) formals += (formals.empty() ? "" : ", ") + p;
    fail(src, node, spec.name + "() takes " + std::to_string(spec.params.size()) + " argument" +
                        (spec.params.size() == 1 ? "" : "s") + " (" + formals + "), defined at " +
                        spec.header.where() + "; got " + std::to_string(node.args.size()));
  }
  const std::string what = "function '" + spec.name + "'";
  const std::size_t depth = active_.size();
  enter(what, src, node);  // a function whose body calls itself is a cycle
  Scope scope;
  scope.serial = next_scope_serial_++;
  for (std::size_t i = 0; i < spec.params.size(); ++i)
    scope.formals[spec.params[i]] = Binding{&node.args[i], &src, scope_, depth};
  const Scope* saved = scope_;
  scope_ = &scope;
  const Value v = lower(f.ast, spec.body, frame);
  scope_ = saved;
  active_.pop_back();
  return v;
}

}  // namespace kbt::detail
