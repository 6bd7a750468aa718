#include <kbt/sweep/strategy_warnings.hpp>

#include <kbt/data/time_format.hpp>
#include <kbt/lang/op_table.hpp>
#include <kbt/reference/evaluator.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kbt {
namespace {

const char* infix(OpCode op) {
  switch (op) {
    case OpCode::add: return "+";
    case OpCode::sub: return "-";
    case OpCode::mul: return "*";
    case OpCode::div: return "/";
    case OpCode::lt: return "<";
    case OpCode::le: return "<=";
    case OpCode::gt: return ">";
    case OpCode::ge: return ">=";
    case OpCode::eq: return "==";
    case OpCode::ne: return "!=";
    case OpCode::logical_and: return "and";
    case OpCode::logical_or: return "or";
    default: return nullptr;
  }
}

std::string number_text(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}


// Bars of a series in timeframe `frame`: the base bars, or the higher-timeframe
// bars the data's time span holds.
std::int64_t bars_in_frame(const Program& p, int frame, const BarData& bars) {
  if (frame <= 0 || bars.n_bars() == 0) return static_cast<std::int64_t>(bars.n_bars());
  const std::int64_t span = bars.timestamps.back() - bars.timestamps.front();
  return span / p.frame_ns.at(static_cast<std::size_t>(frame)) + 1;
}

bool all_nan(OpCode op, std::int64_t w, std::int64_t n) {
  if (op_info(op).warm_up == WarmUp::trailing) return w >= n;
  return warm_up_bars(op, w) >= n;
}

std::string window_text(const Program& p, const Instr& i) {
  if (i.window_kind == WindowKind::param) return p.param_names.at(static_cast<std::size_t>(i.window));
  if (i.window_kind == WindowKind::scalar) return register_text(p, i.window);
  return std::to_string(i.window);
}

}  // namespace

std::string register_text(const Program& p, std::int32_t reg, int depth) {
  if (reg < 0 || static_cast<std::size_t>(reg) >= p.code.size()) return "?";
  if (depth <= 0) return "...";
  const Instr& i = p.code[static_cast<std::size_t>(reg)];
  const auto sub = [&](std::int32_t r) { return register_text(p, r, depth - 1); };
  const std::size_t aux = static_cast<std::size_t>(i.aux);
  switch (i.op) {
    case OpCode::constant: return number_text(i.constant);
    case OpCode::param: return p.param_names.at(aux);
    case OpCode::column: return p.column_names.at(aux);
    case OpCode::exo: return p.exo_names.at(aux);
    case OpCode::neg: return "-" + sub(i.a);
    case OpCode::logical_not: return "not " + sub(i.a);
    case OpCode::atr: return "atr(" + window_text(p, i) + ")";
    case OpCode::symbol_read: return sub(i.a) + "[" + p.symbol_names.at(aux) + "]";
    case OpCode::symbol_is: return "symbol == \"" + p.symbol_names.at(aux) + "\"";
    case OpCode::scan_output:
      return p.scan_names.at(aux) + "." + p.scan_output_names.at(aux).at(static_cast<std::size_t>(i.aux2));
    case OpCode::htf:
      return "htf(" + sub(i.a) + ", \"" + format_duration(p.frame_ns.at(aux)) + "\")";
    default: break;
  }
  if (const char* op = infix(i.op)) return "(" + sub(i.a) + " " + op + " " + sub(i.b) + ")";
  const OpInfo& info = op_info(i.op);
  std::string text = std::string(info.name) + "(";
  const std::int32_t operands[3] = {i.a, i.b, i.c};
  for (int k = 0; k < info.operands; ++k) text += (k ? ", " : "") + sub(operands[k]);
  if (info.family == OpFamily::windowed) text += ", " + window_text(p, i);
  return text + ")";
}

std::vector<std::string> strategy_warnings(const Program& p, const BarData& bars) {
  std::vector<std::string> out;
  for (std::size_t r = 0; r < p.code.size(); ++r) {
    const Instr& i = p.code[r];
    if (is_windowed(i.op) && i.window_kind != WindowKind::none) {
      const std::int64_t n = bars_in_frame(p, i.frame, bars);
      const auto values = window_values(p, i.window_kind, i.window);
      const auto nan_at = std::count_if(values.begin(), values.end(), [&](std::int64_t w) { return all_nan(i.op, w, n); });
      if (nan_at == 0) continue;
      const std::string what = "`" + register_text(p, static_cast<std::int32_t>(r)) + "`";
      const std::string data = "the data (" + std::to_string(n) + (i.frame > 0 ? " bars of its timeframe)" : " bars)");
      if (i.window_kind == WindowKind::constant)
        out.push_back(what + " is NaN on every bar: its window " + std::to_string(i.window) + " is longer than " + data);
      else
        out.push_back(what + " is NaN on every bar for " +
                      (static_cast<std::size_t>(nan_at) == values.size() ? std::string("every")
                                                                          : std::to_string(nan_at) + " of the " +
                                                                                std::to_string(values.size())) +
                      " values of " + window_text(p, i) + ": the window is longer than " + data);
    } else if (i.op == OpCode::htf && bars_in_frame(p, static_cast<int>(i.aux), bars) <= 1) {
      out.push_back("`" + register_text(p, static_cast<std::int32_t>(r)) + "`: its timeframe " +
                    format_duration(p.frame_ns.at(static_cast<std::size_t>(i.aux))) +
                    " is longer than the data's time span: no bar of it completes");
    }
  }
  // Outputs that are one NaN for every bar (a scalar whatever the params, or at the first combo's).
  std::vector<double> first(p.n_params());
  for (std::size_t k = 0; k < first.size(); ++k)
    if (!p.param_axes.at(k).empty()) first[k] = p.param_axes[k].front();
  const std::vector<double> scalars = scalar_registers_reference(p, first.data());
  const std::pair<const char*, std::int32_t> outputs[] = {{"position", p.position},     {"long_entry", p.long_entry},
                                                          {"long_exit", p.long_exit},   {"short_entry", p.short_entry},
                                                          {"short_exit", p.short_exit}};
  for (const auto& [name, reg] : outputs) {
    if (reg < 0 || p.code.at(static_cast<std::size_t>(reg)).is_series) continue;
    if (std::isnan(scalars.at(static_cast<std::size_t>(reg))))
      out.push_back(std::string(name) + " `" + register_text(p, reg) + "` is NaN on every bar" +
                    (p.code[static_cast<std::size_t>(reg)].depends_on_params ? " at the first combo" : "") +
                    ": no trades");
  }
  return out;
}

}  // namespace kbt
