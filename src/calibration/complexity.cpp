// Strategy complexity for the cost model: the work the sweep kernel does per
// bar per combo, counted on the compiled program with the sweep plan's rules
// (docs/calibration.md, docs/sweep.md "Where each series lives").

#include <kbt/calibration/calibration.hpp>
#include <kbt/kernels/hoisting_plan.hpp>

#include <cstdio>
#include <vector>

namespace kbt {
namespace {

// Mean window of a windowed op over the grid (its axis values when swept).
// (A window expression: the mean of its distinct values.)
double mean_window(const Program& p, const Instr& i) {
  if (i.window_kind == WindowKind::constant) return static_cast<double>(i.window);
  std::vector<double> values;
  if (i.window_kind == WindowKind::param) values = p.param_axes[static_cast<std::size_t>(i.window)];
  else
    for (std::int64_t w : window_values(p, i.window_kind, i.window)) values.push_back(static_cast<double>(w));
  if (values.empty()) return 0;
  double s = 0;
  for (double v : values) s += v;
  return s / static_cast<double>(values.size());
}

// Ring reads per bar of a streamed windowed op in the sweep kernel.
double window_reads(const Program& p, const Instr& i) {
  switch (i.op) {
    case OpCode::rolling_sum: case OpCode::rolling_mean: case OpCode::rolling_min: case OpCode::rolling_max:
      return mean_window(p, i);
    case OpCode::rolling_std: case OpCode::zscore:
      return 2 * mean_window(p, i);
    default:
      return 0;  // lag, roc, ema, rsi: O(1) per bar
  }
}

}  // namespace

StrategyComplexity strategy_complexity(const Program& p, std::size_t n_symbols, const SimulationSettings& sim) {
  StrategyComplexity c;
  c.n_symbols = n_symbols;
  const std::vector<kernels::HoistedRegister> hoisted = kernels::hoisted_registers(p);
  std::vector<bool> scan_in_thread(p.scans.size(), false);
  for (std::size_t r = 0; r < p.code.size(); ++r) {
    const Instr& i = p.code[r];
    if (!i.is_series) continue;  // scalars: once per combo, not per bar
    if (hoisted[r].fold >= 0) {
      ++c.hoisted;  // one read of the combo's row per bar
    } else if (i.depends_on_params) {
      ++c.streamed;  // evaluated in-thread, bar by bar
      c.window_reads_per_symbol += window_reads(p, i);
      if (i.op == OpCode::scan_output) scan_in_thread[static_cast<std::size_t>(i.aux)] = true;
    }
    // param-free series are materialized once per run: no per-combo work
  }
  for (std::size_t s = 0; s < p.scans.size(); ++s)
    if (scan_in_thread[s]) c.scan_tape += static_cast<std::size_t>(p.scans[s].update_end - p.scans[s].update_begin);
  c.stops = (sim.stop_loss ? 1u : 0u) + (sim.take_profit ? 1u : 0u) + (sim.trailing_stop ? 1u : 0u);
  const double sym = static_cast<double>(n_symbols);
  c.work.instructions = sym * static_cast<double>(1 + c.streamed + c.hoisted + c.scan_tape + c.stops);
  c.work.window_reads = sym * c.window_reads_per_symbol;
  return c;
}

std::string to_string(const Complexity& c) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%g instructions + %g window reads", c.instructions, c.window_reads);
  return buf;
}

}  // namespace kbt
