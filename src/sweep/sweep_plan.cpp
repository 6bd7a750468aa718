#include <kbt/core/error.hpp>
#include <kbt/kernels/hoisting_plan.hpp>
#include <kbt/lang/op_table.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <algorithm>
#include <cmath>

namespace kbt {
namespace {

std::int64_t max_window(const Program& p, const Instr& i) {
  const auto values = window_values(p, i.window_kind, i.window);
  return values.empty() ? 0 : values.back();
}

}  // namespace

std::optional<std::string> sweep_kernel_unsupported(const Program& p) {
  // An init tape that reads a state would see another symbol's state in the
  // reference evaluator; the kernel keeps states per symbol.
  for (const ScanProgram& sp : p.scans)
    for (std::int32_t k = sp.init_begin; k < sp.init_end; ++k)
      if (p.scan_tape[static_cast<std::size_t>(k)].op == OpCode::scan_state)
        return std::string("unsupported:scan_init_reads_state");
  const std::vector<kernels::HoistedRegister> hoisted = kernels::hoisted_registers(p);
  for (std::size_t r = 0; r < p.code.size(); ++r) {
    const Instr& i = p.code[r];
    if (!i.is_series || !i.depends_on_params || hoisted[r].fold >= 0) continue;
    // In-thread evaluation runs on the base bars only; a higher-timeframe series
    // that depends on params must be a hoisted windowed op of param-free input.
    if (i.frame > 0) return std::string("unsupported:param_dependent_expression_in_higher_timeframe");
    // Windowed ops the kernel cannot stream per thread (lead looks ahead).
    if (is_windowed(i.op) && !op_info(i.op).streams_in_thread) return std::string("unsupported:") + to_string(i.op);
  }
  return std::nullopt;
}

SweepPlan make_sweep_plan(const Program& p, const BarData& bars) {
  if (auto reason = sweep_kernel_unsupported(p)) throw Error(ErrorCategory::unsupported, *reason);
  SweepPlan plan;
  plan.n_symbols = bars.n_symbols();
  plan.n_bars = bars.n_bars();
  plan.n_registers = p.code.size();
  plan.n_params = p.n_params();
  const std::size_t n_regs = p.code.size();
  plan.home.assign(n_regs, RegisterHome::scalar);
  plan.home_index.assign(n_regs, -1);
  plan.ring_offset.assign(n_regs, -1);
  plan.ring_capacity.assign(n_regs, 0);
  plan.state_offset.assign(n_regs, -1);

  const std::vector<kernels::HoistedRegister> hoisted = kernels::hoisted_registers(p);

  for (std::size_t r = 0; r < n_regs; ++r) {
    const Instr& i = p.code[r];
    if (!i.is_series) plan.home[r] = RegisterHome::scalar;
    else if (hoisted[r].fold >= 0) plan.home[r] = RegisterHome::hoisted;
    else if (!i.depends_on_params) plan.home[r] = RegisterHome::materialized;
    else plan.home[r] = RegisterHome::streamed;
  }

  // Which param-free series the kernel reads: operands of streamed registers,
  // inputs of in-thread scans, and the strategy outputs.
  std::vector<bool> needed(n_regs, false);
  auto need = [&](std::int32_t r) {
    if (r >= 0) needed[static_cast<std::size_t>(r)] = true;
  };
  for (std::size_t r = 0; r < n_regs; ++r) {
    if (plan.home[r] != RegisterHome::streamed) continue;
    const Instr& i = p.code[r];
    need(i.a), need(i.b), need(i.c);
    if (i.op == OpCode::scan_output) {
      const ScanProgram& sp = p.scans[static_cast<std::size_t>(i.aux)];
      for (std::int32_t k = 0; k < sp.n_inputs; ++k) need(p.scan_refs[static_cast<std::size_t>(sp.inputs + k)]);
    }
  }
  for (std::int32_t r : {p.position, p.long_entry, p.long_exit, p.short_entry, p.short_exit, p.expression}) need(r);

  // One reference evaluation gives every param-free register (any combo will do):
  // the materialized series, and the inputs of the hoisted folds.
  std::vector<double> first_combo(p.n_params());
  for (std::size_t k = 0; k < p.n_params(); ++k) first_combo[k] = p.param_axes[k].front();
  bool any_hoisted = false;
  for (const kernels::HoistedRegister& h : hoisted) any_hoisted = any_hoisted || h.fold >= 0;
  bool any_materialized = false;
  for (std::size_t r = 0; r < n_regs; ++r)
    any_materialized = any_materialized || (needed[r] && plan.home[r] == RegisterHome::materialized);
  std::vector<std::vector<double>> regs;
  if (any_hoisted || any_materialized) regs = evaluate_param_free_registers_reference(p, bars, first_combo.data());
  for (std::size_t r = 0; r < n_regs; ++r) {
    if (!(needed[r] && plan.home[r] == RegisterHome::materialized)) continue;
    plan.home_index[r] = static_cast<std::int32_t>(plan.materialized.size());
    plan.materialized.push_back(regs[r]);
  }

  // Hoisted series: one per distinct window value of the hoisted registers the
  // kernel reads (a fold only a hoisted cross-section reads is computed inside
  // that cross-section's request). Here only their fold requests and the
  // stages' inputs; the fold kernels (include/kbt/kernels/, bit-identical to
  // the reference evaluator) compute them on the sweep's own space, a tile of
  // windows at a time (sweep/detail/hoisted_rows.hpp).
  for (std::size_t frame = 0; frame < std::max<std::size_t>(p.frame_ns.size(), 1); ++frame) {
    for (const kernels::HoistingStage& stage : kernels::make_hoisting_plan(p, static_cast<std::int32_t>(frame))) {
      // Per entry, the needed registers computed from its fold.
      std::vector<std::vector<std::int32_t>> reads(stage.entries.size());
      bool wanted = false;
      for (std::size_t k = 0; k < stage.entries.size(); ++k)
        for (std::size_t r = 0; r < n_regs; ++r)
          if (needed[r] && hoisted[r].fold == stage.entries[k].reg) {
            reads[k].push_back(static_cast<std::int32_t>(r));
            wanted = true;
          }
      if (!wanted) continue;
      const std::size_t nb = frame == 0 ? bars.n_bars() : timeframe_grid(bars.timestamps, p.frame_ns[frame]).begin.size();
      SweepPlan::FoldStage fs;
      fs.frame = static_cast<std::int32_t>(frame);
      fs.n_bars = nb;
      for (const std::int32_t reg : stage.input_registers) {
        const auto& v = regs[static_cast<std::size_t>(reg)];
        std::vector<double> row(bars.n_symbols() * nb);
        for (std::size_t k = 0; k < row.size(); ++k) row[k] = v.size() == 1 ? v[0] : v[k];
        fs.inputs.push_back(std::move(row));
      }
      const auto stage_index = static_cast<std::int32_t>(plan.fold_stages.size());
      plan.fold_stages.push_back(std::move(fs));
      for (std::size_t k = 0; k < stage.entries.size(); ++k) {
        const auto& e = stage.entries[k];
        const Instr& fold = p.code[static_cast<std::size_t>(e.reg)];
        for (const std::int32_t r : reads[k]) {
          plan.home_index[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(plan.hoisted_regs.size());
          plan.hoisted_regs.push_back(r);
          plan.hoisted_window_kind.push_back(fold.window_kind);
          plan.hoisted_window_param.push_back(fold.window);
          plan.hoisted_windows.push_back(e.windows);
          plan.hoisted_stage.push_back(stage_index);
          std::vector<kernels::FoldRequest> requests;
          for (const int idx : e.series) {
            requests.push_back(stage.requests[static_cast<std::size_t>(idx)]);
            requests.back().cross_section = hoisted[static_cast<std::size_t>(r)].cross_section;
          }
          plan.hoisted_requests.push_back(std::move(requests));
        }
      }
    }
  }
  for (const WindowKind k : plan.hoisted_window_kind)
    if (k == WindowKind::scalar) plan.window_code = p.code;
  for (std::size_t r = 0; r < n_regs; ++r)
    if (needed[r] && plan.home[r] == RegisterHome::hoisted && plan.home_index[r] < 0)
      throw Error(ErrorCategory::internal, "hoisted register " + std::to_string(r) + " has no fold plan");

  // Windows below an op's minimum are refused before any work, as the reference
  // evaluator refuses them (rolling_std and zscore need 2 values, lag 0, others 1).
  for (std::size_t r = 0; r < n_regs; ++r) {
    const Instr& i = p.code[r];
    if (plan.home[r] != RegisterHome::streamed || !op_info(i.op).streams_in_thread) continue;
    const long min_w = min_window(i.op);
    std::vector<double> windows{static_cast<double>(i.window)};
    if (i.window_kind == WindowKind::param) windows = p.param_axes[static_cast<std::size_t>(i.window)];
    if (i.window_kind == WindowKind::scalar) windows = scalar_register_values(p, i.window);
    for (double w : windows)
      if (w < min_w || w != std::floor(w))
        throw Error(ErrorCategory::language, std::string("window ") + std::to_string(static_cast<long>(w)) +
                                                 " of " + to_string(i.op) + " is below its minimum " +
                                                 std::to_string(min_w));
  }

  // Higher timeframes.
  plan.frame_bars.assign(p.frame_ns.size(), static_cast<std::int64_t>(plan.n_bars));
  plan.frame_visible.assign(p.frame_ns.size(), {});
  for (std::size_t f = 1; f < p.frame_ns.size(); ++f) {
    const TimeframeGrid g = timeframe_grid(bars.timestamps, p.frame_ns[f]);
    plan.frame_bars[f] = static_cast<std::int64_t>(g.begin.size());
    plan.frame_visible[f].assign(g.visible.begin(), g.visible.end());
  }

  // Per-thread ring buffers and recurrence state of streamed registers.
  const std::size_t n_sym = plan.n_symbols;
  for (std::size_t r = 0; r < n_regs; ++r) {
    if (plan.home[r] != RegisterHome::streamed) continue;
    plan.streamed.push_back(static_cast<std::int32_t>(r));
    const Instr& i = p.code[r];
    if (!op_info(i.op).streams_in_thread) continue;
    const std::int64_t w = std::max<std::int64_t>(max_window(p, i), 1);
    std::int64_t cap = 0, state = 0;
    switch (i.op) {
      case OpCode::lag: case OpCode::roc: cap = w + 1; break;
      case OpCode::ema: state = 2; break;                  // seeded, e
      case OpCode::rsi: state = 7; break;                  // x[t-1], run, seeded, gain sum/avg, loss sum/avg
      default: cap = w; break;
    }
    if (cap > 0) {
      plan.ring_offset[r] = static_cast<std::int32_t>(plan.ring_size);
      plan.ring_capacity[r] = static_cast<std::int32_t>(cap);
      plan.ring_size += static_cast<std::size_t>(cap) * n_sym;
    }
    if (state > 0) {
      plan.state_offset[r] = static_cast<std::int32_t>(plan.state_size);
      plan.state_size += static_cast<std::size_t>(state) * n_sym;
    }
  }
  plan.scan_trigger.assign(p.scans.size(), -1);
  plan.scan_state_offset.assign(p.scans.size(), -1);
  for (std::int32_t r : plan.streamed) {
    const Instr& i = p.code[static_cast<std::size_t>(r)];
    if (i.op != OpCode::scan_output || plan.scan_trigger[static_cast<std::size_t>(i.aux)] >= 0) continue;
    const ScanProgram& sp = p.scans[static_cast<std::size_t>(i.aux)];
    plan.scan_trigger[static_cast<std::size_t>(i.aux)] = r;
    plan.scan_state_offset[static_cast<std::size_t>(i.aux)] = static_cast<std::int32_t>(plan.state_size);
    // Per symbol: seeded flag, states, this bar's outputs, this bar's inputs.
    plan.state_size += static_cast<std::size_t>(1 + sp.n_states + sp.n_outputs + sp.n_inputs) * n_sym;
    plan.scan_slots = std::max<std::size_t>(plan.scan_slots, static_cast<std::size_t>(
        std::max(sp.init_end - sp.init_begin, sp.update_end - sp.update_begin)));
  }
  return plan;
}

}  // namespace kbt
