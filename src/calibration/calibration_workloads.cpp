// The strategies, data and ladders that `kbt calibrate` times.

#include <kbt/calibration/calibration.hpp>
#include <kbt/calibration/calibration_workloads.hpp>

#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>

namespace kbt {
namespace {

struct WorkloadText {
  const char* name;
  std::size_t n_symbols;
  const char* yaml;
};

// Four complexities: hoisted reads only, on one and on three symbols (the
// instruction costs); a streamed expression with a streamed rolling window (the
// window-read cost); an in-thread scan (Kalman filter) with a rolling window and
// all three stops, on two symbols.
const char* kSmaCross = R"(data: synthetic.h5
strategy:
  params:
    fast: {range: [5, 50, 5]}
    slow: {range: [20, 400, 20]}
  constraints: ["fast < slow"]
  signals:
    f: sma(close, fast)
    s: sma(close, slow)
  position: where(f > s, 1, -1)
simulation: {fee_bps: 5, slippage_bps: 1}
)";

const WorkloadText kWorkloads[] = {
    {"sma_cross", 1, kSmaCross},
    {"sma_cross_3sym", 3, kSmaCross},
    {"zscore_expr", 1, R"(data: synthetic.h5
strategy:
  params:
    a: {range: [10, 100, 10]}
    b: {range: [10, 60, 10]}
    k: {linspace: [1.0, 2.5, 4]}
  signals:
    dev: close - sma(close, a)
    z: zscore(dev, b)
  position: where(z > k, -1, where(z < -k, 1, 0))
simulation: {fee_bps: 5, slippage_bps: 1}
)"},
    {"kalman_stops", 2, R"(data: synthetic.h5
strategy:
  params:
    q: {logspace: [0.0001, 0.1, 4]}
    r: {logspace: [0.1, 10, 3]}
    k: {values: [1.0, 2.0]}
  scans:
    kf:
      inputs: {z: close}
      init:   {x: z, p: 1.0}
      update:
        p_pred: p + q
        g: p_pred / (p_pred + r)
        x: x + g * (z - x)
        p: (1 - g) * p_pred
      outputs: {level: x, gain: g}
  signals:
    dev: close - kf.level
    band: k * rolling_std(dev, 50)
  position: where(dev > band, -1, where(dev < -band, 1, 0))
simulation:
  fee_bps: 4
  stop_loss: 0.03
  take_profit: 0.08
  trailing_stop: 0.05
)"},
};

}  // namespace

std::vector<std::string> calibration_workload_names() {
  std::vector<std::string> names;
  for (const auto& w : kWorkloads) names.emplace_back(w.name);
  return names;
}

std::vector<double> CalibrationWorkload::combos(std::size_t n) const {
  const std::size_t np = program.n_params();
  std::vector<double> out(n * np);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t k = 0; k < np; ++k) out[i * np + k] = grid[(i % grid_combos) * np + k];
  return out;
}

CalibrationWorkload make_calibration_workload(const std::string& name, std::size_t n_bars) {
  const WorkloadText* text = nullptr;
  for (const auto& w : kWorkloads)
    if (name == w.name) text = &w;
  if (!text) throw Error(ErrorCategory::config, "unknown calibration workload '" + name + "'");
  CalibrationWorkload w;
  w.name = name;
  w.config = parse_run_config(text->yaml, std::string("<calibration:") + name + ">", "");
  SynthOptions o;
  o.n_symbols = text->n_symbols;
  o.n_bars = n_bars;
  o.seed = 7;
  w.bars = synth_bars(o);
  PreparedSweep sweep = prepare_sweep(w.config, w.bars);
  w.program = std::move(sweep.program);
  w.sim = w.config.simulation;
  w.resolved = std::move(sweep.sim);
  w.grid_combos = sweep.n_combos();
  w.grid = sweep.combos.params(0, sweep.combos.size());
  w.complexity = strategy_complexity(w.program, w.bars.n_symbols(), w.sim).work;
  return w;
}

CalibrationLadder calibration_ladder(const std::string& mode) {
  CalibrationLadder l;
  l.mode = mode;
  // Half-decade steps from 10 to 1M combos; each ladder stops at the budget.
  const std::vector<std::size_t> all{10, 30, 100, 300, 1000, 3000, 10000, 30000, 100000, 300000, 1000000};
  if (mode == "full") {
    l.bars = {1000, 10000};
    l.combos = all;
    l.point_budget_seconds = 20;
    l.min_time_seconds = 0.2;
  } else if (mode == "quick") {
    l.bars = {500, 2000};
    l.combos = all;
    l.point_budget_seconds = 1.5;
    l.min_time_seconds = 0.05;
  } else if (mode == "tiny") {
    l.bars = {200, 400};
    l.combos = {10, 30, 100, 300, 1000};
    l.point_budget_seconds = 0.25;
    l.min_time_seconds = 0.01;
  } else {
    throw Error(ErrorCategory::config, "unknown calibration mode '" + mode + "' (full, quick, tiny)");
  }
  return l;
}

}  // namespace kbt
