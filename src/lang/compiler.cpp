// Strategy compiler: AST -> hash-consed SSA Program (see docs/language.md).
//
// Everything declared is compiled (so that every error is reported), but only
// what the outputs and constraints use stays in the program. The Compiler class
// is declared in compiler_internal.hpp; its parts are in the files named there.

#include <kbt/lang/compiler.hpp>

#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/parser.hpp>

#include "core/large_stack.hpp"
#include "lang/compiler_internal.hpp"

#include <string>
#include <utility>
#include <vector>

namespace kbt {

DataSchema schema_of(const BarData& data) {
  DataSchema s;
  s.symbols = data.symbols;
  for (const auto& kv : data.columns) s.columns.push_back(kv.first);
  for (const auto& kv : data.exo) s.exo.push_back(kv.first);
  return s;
}

namespace {

using detail::Compiler;
using detail::Value;

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

Program compile_strategy_expression_here(const StrategySpec& spec, const SourceText& expression,
                                         const DataSchema& schema, const CompileOptions& options) {
  Compiler c(schema, spec.params, options);
  c.declare_signals_and_scans(spec);
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

Program compile_strategy_expression(const StrategySpec& spec, const SourceText& expression,
                                    const DataSchema& schema, const CompileOptions& options) {
  Program p;
  detail::call_with_large_stack([&] { p = compile_strategy_expression_here(spec, expression, schema, options); });
  return p;
}

Program compile_expression(const SourceText& expression, const DataSchema& schema,
                           const std::vector<ParamSpec>& params, const CompileOptions& options) {
  Program p;
  detail::call_with_large_stack([&] { p = compile_expression_here(expression, schema, params, options); });
  return p;
}

}  // namespace kbt