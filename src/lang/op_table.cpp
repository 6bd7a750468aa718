// The opcode table (kbt/lang/op_table.hpp). One row per OpCode, in opcode
// order; a static check below keeps the two in step.

#include <kbt/lang/op_table.hpp>

#include <array>

namespace kbt {
namespace {

using F = OpFamily;
using W = WarmUp;

constexpr int n_opcodes = static_cast<int>(OpCode::symbol_is) + 1;

constexpr std::array<OpInfo, n_opcodes> table{{
    {OpCode::constant, "constant", 0, F::leaf, -1, W::none, false},
    {OpCode::param, "param", 0, F::leaf, -1, W::none, false},
    {OpCode::column, "column", 0, F::leaf, -1, W::none, false},
    {OpCode::exo, "exo", 0, F::leaf, -1, W::none, false},
    {OpCode::scan_input, "scan_input", 0, F::scan_tape, -1, W::none, false},
    {OpCode::scan_state, "scan_state", 0, F::scan_tape, -1, W::none, false},
    {OpCode::neg, "neg", 1, F::pointwise, -1, W::none, false},
    {OpCode::add, "add", 2, F::pointwise, -1, W::none, false},
    {OpCode::sub, "sub", 2, F::pointwise, -1, W::none, false},
    {OpCode::mul, "mul", 2, F::pointwise, -1, W::none, false},
    {OpCode::div, "div", 2, F::pointwise, -1, W::none, false},
    {OpCode::lt, "lt", 2, F::pointwise, -1, W::none, false},
    {OpCode::le, "le", 2, F::pointwise, -1, W::none, false},
    {OpCode::gt, "gt", 2, F::pointwise, -1, W::none, false},
    {OpCode::ge, "ge", 2, F::pointwise, -1, W::none, false},
    {OpCode::eq, "eq", 2, F::pointwise, -1, W::none, false},
    {OpCode::ne, "ne", 2, F::pointwise, -1, W::none, false},
    {OpCode::logical_and, "and", 2, F::pointwise, -1, W::none, false},
    {OpCode::logical_or, "or", 2, F::pointwise, -1, W::none, false},
    {OpCode::logical_not, "not", 1, F::pointwise, -1, W::none, false},
    {OpCode::abs, "abs", 1, F::pointwise, -1, W::none, false},
    {OpCode::sqrt, "sqrt", 1, F::pointwise, -1, W::none, false},
    {OpCode::log, "log", 1, F::pointwise, -1, W::none, false},
    {OpCode::exp, "exp", 1, F::pointwise, -1, W::none, false},
    {OpCode::sign, "sign", 1, F::pointwise, -1, W::none, false},
    {OpCode::min, "min", 2, F::pointwise, -1, W::none, false},
    {OpCode::max, "max", 2, F::pointwise, -1, W::none, false},
    {OpCode::clip, "clip", 3, F::pointwise, -1, W::none, false},
    {OpCode::where, "where", 3, F::pointwise, -1, W::none, false},
    {OpCode::isnan, "isnan", 1, F::pointwise, -1, W::none, false},
    {OpCode::fillna, "fillna", 2, F::pointwise, -1, W::none, false},
    {OpCode::lag, "lag", 1, F::windowed, 0, W::window, true},
    {OpCode::lead, "lead", 1, F::windowed, 0, W::trailing, false},
    {OpCode::rolling_mean, "rolling_mean", 1, F::windowed, 1, W::window_minus_one, true},
    {OpCode::rolling_sum, "rolling_sum", 1, F::windowed, 1, W::window_minus_one, true},
    {OpCode::rolling_std, "rolling_std", 1, F::windowed, 2, W::window_minus_one, true},
    {OpCode::rolling_min, "rolling_min", 1, F::windowed, 1, W::window_minus_one, true},
    {OpCode::rolling_max, "rolling_max", 1, F::windowed, 1, W::window_minus_one, true},
    {OpCode::zscore, "zscore", 1, F::windowed, 2, W::window_minus_one, true},
    {OpCode::ema, "ema", 1, F::windowed, 1, W::none, true},
    {OpCode::rsi, "rsi", 1, F::windowed, 1, W::window, true},
    {OpCode::roc, "roc", 1, F::windowed, 1, W::window, true},
    {OpCode::atr, "atr", 3, F::windowed, 1, W::window, false},
    {OpCode::cs_rank, "cs_rank", 1, F::cross_sectional, -1, W::none, false},
    {OpCode::cs_zscore, "cs_zscore", 1, F::cross_sectional, -1, W::none, false},
    {OpCode::cs_demean, "cs_demean", 1, F::cross_sectional, -1, W::none, false},
    {OpCode::symbol_read, "symbol_read", 1, F::structure, -1, W::none, false},
    {OpCode::scan_output, "scan_output", 0, F::structure, -1, W::none, false},
    {OpCode::htf, "htf", 1, F::structure, -1, W::none, false},
    {OpCode::symbol_is, "symbol_is", 0, F::leaf, -1, W::none, false},
}};

constexpr bool rows_in_opcode_order() {
  for (int i = 0; i < n_opcodes; ++i)
    if (static_cast<int>(table[static_cast<std::size_t>(i)].op) != i) return false;
  return true;
}
static_assert(rows_in_opcode_order(), "op_table: one row per OpCode, in opcode order");

}  // namespace

const OpInfo& op_info(OpCode op) noexcept {
  const auto i = static_cast<std::size_t>(op);
  return i < table.size() ? table[i] : table[0];
}

const char* to_string(OpCode op) noexcept {
  const auto i = static_cast<std::size_t>(op);
  return i < table.size() ? table[i].name : "?";
}

std::int64_t warm_up_bars(OpCode op, std::int64_t w) noexcept {
  switch (op_info(op).warm_up) {
    case WarmUp::window_minus_one: return w - 1;
    case WarmUp::window: return w;
    case WarmUp::none:
    case WarmUp::trailing: return 0;
  }
  return 0;
}

const std::vector<OpCode>& windowed_ops() {
  static const std::vector<OpCode> ops = [] {
    std::vector<OpCode> v;
    for (const OpInfo& row : table)
      if (row.family == OpFamily::windowed) v.push_back(row.op);
    return v;
  }();
  return ops;
}

}  // namespace kbt
