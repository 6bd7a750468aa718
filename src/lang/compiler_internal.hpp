#pragma once
// The strategy compiler's shared declarations: the Compiler class (its parts are
// defined in name_resolution, emission, lowering, scan_compiler and compiler_passes
// .cpp), the value of a lowered expression, and the language's function table.

#include <kbt/core/error.hpp>
#include <kbt/core/source_text.hpp>
#include <kbt/lang/ast.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/lang/diagnostics.hpp>
#include <kbt/lang/program.hpp>

#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace kbt::detail {

struct Value {
  std::int32_t reg = -1;
  bool series = false;
  bool boolean = false;
};

using Key = std::array<std::int64_t, 10>;

inline Key key_of(const Instr& i) {
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

// The language's functions (function_table.cpp): by name, or nullptr.
const Function* find_function(const std::string& name);
std::vector<std::string> function_names();

class Compiler {
 public:
  Compiler(const DataSchema& schema, const std::vector<ParamSpec>& params,
           const CompileOptions& options);

  Program prog;

  void declare_signals_and_scans(const StrategySpec& spec);

  // Lowers a top-level expression in the base timeframe.
  Value lower_top(const SourceText& src);

  Value lower_top(const SourceText& src, const AstNode& ast);

  void compile_all_declared();

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
  struct UserFunction {
    const FunctionSpec* spec;
    AstNode ast;  // the body, parsed when declared
  };
  // The formals of the user function being expanded: each bound to the
  // argument written at the call, lowered in the caller's scope.
  struct Scope;
  struct Binding {
    const AstNode* arg;
    const SourceText* src;
    const Scope* scope;
    std::size_t active_depth;  // active_.size() at the call: the caller's chain
  };
  struct Scope {
    std::map<std::string, Binding> formals;
    std::uint64_t serial = 0;  // unique per expansion (a Scope's address is reused)
  };
  // A call's identity for the expansion memo: the function, the timeframe and,
  // per argument, the node that finally stands for it (a formal passed on is
  // followed to the argument it is bound to) in its scope's serial. Equal keys
  // lower to equal values, so f(x) + f(x) expands f once and nested calls stay
  // linear (docs/language.md "User functions").
  using CallKey = std::tuple<int, int, std::vector<std::pair<const AstNode*, std::uint64_t>>>;

  const DataSchema& schema_;
  const std::vector<ParamSpec>& params_;
  CompileOptions options_;
  std::map<std::string, int> param_index_, column_index_, exo_index_, symbol_index_;
  std::vector<Signal> signals_;
  std::map<std::string, int> signal_index_;
  std::vector<Scan> scans_;
  std::map<std::string, int> scan_index_;
  std::map<std::pair<int, int>, Value> signal_memo_;
  std::vector<UserFunction> functions_;
  std::map<std::string, int> function_index_;
  const Scope* scope_ = nullptr;  // nullptr outside user functions
  std::uint64_t next_scope_serial_ = 1;
  std::map<CallKey, Value> call_memo_;  // forgotten when a temporary AST dies (ForgetCalls)
  // Nodes lowered inside function bodies: a backstop against expansions the
  // memo does not share (max_expanded_nodes, an ErrorCategory::limit error).
  std::size_t expanded_nodes_ = 0;
  std::string expansion_root_;  // the outermost function being expanded, for that error
  std::vector<std::string> active_;  // "signal 'a'", "scan 'kf'" being compiled
  std::map<Key, std::int32_t> cse_;

  // ---------------------------------------------------------------- emission (emission.cpp)
  void check_size();
  Value emit(Instr ins, bool boolean);
  Value constant(double v);
  Value leaf_series(OpCode op, int aux, int frame);
  Value op1(OpCode op, Value a, bool boolean);
  Value op2(OpCode op, Value a, Value b, bool boolean);
  Value op3(OpCode op, Value a, Value b, Value c, bool boolean);
  Value windowed(OpCode op, Value a, WindowKind wk, int w, bool boolean);

  // ---------------------------------------------------------------- names (name_resolution.cpp)
  std::vector<std::string> visible_names() const;
  void enter(const std::string& what, const SourceText& src, const AstNode& node);
  int symbol_of(const SourceText& src, const AstNode& node);
  Value at_symbol(Value v, const SourceText& src, const AstNode& node, const std::string& what);
  Value lower_signal(int idx, int frame, const SourceText* use_src, const AstNode* use_node);
  Value lower_name(const AstNode& node, const SourceText& src, int frame);
  Value lower_scan_output(const AstNode& node, const SourceText& src, int frame);

  // ---------------------------------------------------------------- user functions (user_functions.cpp)
  void declare_functions(const StrategySpec& spec);
  // The binding of a name node that is a formal of the function being
  // expanded, or nullptr.
  const Binding* formal_of(const AstNode& node) const;
  Value lower_formal(const Binding& b, const AstNode& node, const SourceText& src, int frame);
  const UserFunction* user_function(const std::string& name) const;
  Value lower_user_call(const UserFunction& f, const AstNode& node, const SourceText& src, int frame);
  Value expand_user_call(const UserFunction& f, const AstNode& node, const SourceText& src, int frame);
  std::pair<const AstNode*, std::uint64_t> argument_identity(const AstNode* arg, const Scope* scope) const;
  void count_expanded_node(const SourceText& src, const AstNode& node);
  // While an argument is lowered: the caller's scope, and the caller's chain of
  // what is being compiled (the called function is not part of it, so an
  // argument that uses a signal calling the same function is no cycle).
  struct AtTheCall {
    Compiler& c;
    const Scope* saved_scope;
    std::vector<std::string> above;
    AtTheCall(Compiler& compiler, const Binding& b) : c(compiler), saved_scope(compiler.scope_) {
      c.scope_ = b.scope;
      above.assign(c.active_.begin() + static_cast<long>(b.active_depth), c.active_.end());
      c.active_.resize(b.active_depth);
    }
    ~AtTheCall() {
      c.scope_ = saved_scope;
      c.active_.insert(c.active_.end(), above.begin(), above.end());
    }
    AtTheCall(const AtTheCall&) = delete;
    AtTheCall& operator=(const AtTheCall&) = delete;
  };
  // Around the lowering of an AST that dies afterwards (a top-level expression,
  // a scan's input): the memo's keys point into it, and its addresses are reused.
  struct ForgetCalls {
    Compiler& c;
    explicit ForgetCalls(Compiler& compiler) : c(compiler) {}
    ~ForgetCalls() { c.call_memo_.clear(); }
    ForgetCalls(const ForgetCalls&) = delete;
    ForgetCalls& operator=(const ForgetCalls&) = delete;
  };
  // Signals and scans are lowered outside any function's scope.
  struct OutsideFunctions {
    Compiler& c;
    const Scope* saved;
    explicit OutsideFunctions(Compiler& compiler) : c(compiler), saved(compiler.scope_) { c.scope_ = nullptr; }
    ~OutsideFunctions() { c.scope_ = saved; }
    OutsideFunctions(const OutsideFunctions&) = delete;
    OutsideFunctions& operator=(const OutsideFunctions&) = delete;
  };

  // ---------------------------------------------------------------- type checks (lowering.cpp)
  void need_boolean(const Value& v, const SourceText& src, const AstNode& node, const std::string& who);
  void need_series(const Value& v, const SourceText& src, const AstNode& node, const std::string& fn);
  std::pair<WindowKind, int> window_of(const AstNode& node, const SourceText& src, const Function& fn);
  std::pair<WindowKind, int> window_expression(const AstNode& node, const SourceText& src, const Function& fn);
  static std::string format_number(double v);

  // ---------------------------------------------------------------- main lowering (lowering.cpp)
  // The parser bounds the depth of one expression; through signal references the
  // depths add up (2000 signals x 256 levels would overflow the stack), so the
  // recursion of lower() is bounded as a whole.
  static constexpr int max_lowering_depth = 2048;
  int lowering_depth_ = 0;

  Value lower(const AstNode& node, const SourceText& src, int frame);
  Value lower_node(const AstNode& node, const SourceText& src, int frame);
  const Function& resolve_function(const AstNode& node, const SourceText& src);
  Value lower_call(const AstNode& node, const SourceText& src, int frame);
  std::optional<Value> symbol_test(const AstNode& node, const SourceText& src, int frame);
  bool is_symbol_word(const AstNode& node) const;
  // `symbol == "AAA"` with the data's first symbol, for messages.
  std::string symbol_test_example() const;

  // ---------------------------------------------------------------- scans (scan_compiler.cpp)
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

  TapeValue tape_emit(Tape& t, Instr ins, bool boolean);
  TapeValue tape_lower(Tape& t, const AstNode& node, const SourceText& src);
  TapeValue tape_name(Tape& t, const AstNode& node, const SourceText& src);
  static void check_assign_name(const std::string& name, const SourceText& src, const std::string& scan);
  int compile_scan(int idx, const SourceText* use_src, const AstNode* use_node);

 public:
  // ---------------------------------------------------------------- passes (compiler_passes.cpp)
  // Keeps only what was compiled before the marks (everything the outputs use).
  void truncate(std::size_t code, std::size_t scans, std::size_t tape, std::size_t refs, std::size_t frames);

  void build_hoisting_list();
};

}  // namespace kbt::detail
