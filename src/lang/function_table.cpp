// The language's functions: name, signature for messages, arity, how each is
// lowered (FnKind) and its opcode. Opcode properties live in op_table.cpp.

#include "lang/compiler_internal.hpp"

#include <string>
#include <vector>

namespace kbt::detail {

namespace {

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

}  // namespace

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

}  // namespace kbt::detail
