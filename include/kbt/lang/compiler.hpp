#pragma once
// Compiles strategy expressions (docs/language.md) to a Program: name resolution, type
// checking, hash-consed SSA lowering, scan tapes, dead-code removal and the list
// of hoistable series. All errors are kbt::Error(ErrorCategory::language) naming
// file:line:col, except size limits (ErrorCategory::limit).

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/core/source_text.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace kbt {

// What the compiler needs to know about the data: names only.
struct DataSchema {
  std::vector<std::string> symbols;  // symbol names, in data order
  std::vector<std::string> columns;  // per-symbol bar columns (open high low close volume ...)
  std::vector<std::string> exo;      // exogenous series names
};

DataSchema schema_of(const BarData& data);

struct CompileOptions {
  // lead(x, k) reads the future; only labelling jobs may allow it.
  bool allow_lead = false;
};

// Largest number of instructions (main program plus scan tapes) a program may have.
inline constexpr std::size_t max_program_instructions = 1u << 20;
// Largest number of expression nodes lowered inside user-function bodies in one
// compile. Identical calls are expanded once, so only a definition that builds
// distinct expressions exponentially reaches it (well under a second of work).
inline constexpr std::size_t max_expanded_nodes = 1u << 20;

Program compile_strategy(const StrategySpec& spec, const DataSchema& schema,
                         const CompileOptions& options = {});

// One expression (e.g. `kbt eval --expr`): signals and scans are absent; names
// resolve to columns, exo series and `params`. The result is Program::expression.
Program compile_expression(const SourceText& expression, const DataSchema& schema,
                           const std::vector<ParamSpec>& params,
                           const CompileOptions& options = {});

// One expression in the context of a strategy (`kbt eval CONFIG --signal f`):
// names resolve to the strategy's signals and scan outputs as well as to
// columns, exo series and its params. Only what the expression uses is
// compiled. The result is Program::expression.
Program compile_strategy_expression(const StrategySpec& spec, const SourceText& expression,
                                    const DataSchema& schema, const CompileOptions& options = {});

}  // namespace kbt
