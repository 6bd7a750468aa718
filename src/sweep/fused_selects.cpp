#include <kbt/sweep/fused_selects.hpp>

#include <cstddef>

namespace kbt {
namespace {

// `ne` is left out: GCC 12.2 stops with an internal compiler error
// (gimple_expand_vec_cond_expr) when it vectorises the fused loop of `ne`.
bool is_fused_comparison(OpCode op) {
  return op == OpCode::lt || op == OpCode::le || op == OpCode::gt || op == OpCode::ge || op == OpCode::eq;
}

}  // namespace

std::vector<bool> fusable_compares(const Program& p, const SweepPlan& plan) {
  const std::size_t n = p.code.size();
  // Every read of a register: operands, window registers, scan inputs and the
  // program's outputs (an output is read by the portfolio or the caller).
  std::vector<int> reads(n, 0);
  const auto read = [&](std::int32_t r) {
    if (r >= 0 && static_cast<std::size_t>(r) < n) reads[static_cast<std::size_t>(r)] += 1;
  };
  for (const Instr& i : p.code) {
    read(i.a), read(i.b), read(i.c);
    if (i.window_kind == WindowKind::scalar) read(i.window);
  }
  for (const ScanProgram& sp : p.scans)
    for (std::int32_t k = 0; k < sp.n_inputs; ++k) read(p.scan_refs[static_cast<std::size_t>(sp.inputs + k)]);
  for (std::int32_t r : {p.position, p.long_entry, p.long_exit, p.short_entry, p.short_exit, p.expression}) read(r);
  for (std::int32_t r : p.constraints) read(r);

  std::vector<bool> fused(n, false);
  for (std::size_t w = 0; w < n; ++w) {
    const Instr& sel = p.code[w];
    if (sel.op != OpCode::where || plan.home[w] != RegisterHome::streamed || sel.a < 0) continue;
    const auto r = static_cast<std::size_t>(sel.a);
    if (plan.home[r] == RegisterHome::streamed && is_fused_comparison(p.code[r].op) && reads[r] == 1) fused[r] = true;
  }
  return fused;
}

}  // namespace kbt
