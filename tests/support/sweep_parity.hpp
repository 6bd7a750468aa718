#pragma once
// The sweep kernel against the reference engine, by the bits of every fp64
// metric of every combo (tests/unit/test_sweep_kernel_parity.cpp and the suites
// of single kernel features): a case is a config, its bars and a deterministic
// sample of its combos.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include "support/synthetic.hpp"

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace kbt::test::parity {


struct Case {
  kbt::RunConfig config;
  kbt::BarData bars;
  kbt::Program program;
  std::vector<std::uint64_t> ids;
  std::vector<double> params;  // [n][n_params]
};

// Compiles the case's strategy and keeps a deterministic sample of its combos.
inline void compile_and_sample(Case& c, std::size_t sample, std::uint64_t seed) {
  c.program = kbt::compile_strategy(c.config.strategy, kbt::schema_of(c.bars));
  const kbt::ParamGrid grid(c.config.strategy.params);
  c.ids = kbt::filter_combos(grid, [&](const double* v) { return kbt::constraints_hold(c.program, v); });
  c.ids = kbt::sample_combos(c.ids, sample, seed);
  c.params.resize(c.ids.size() * grid.n_params());
  for (std::size_t i = 0; i < c.ids.size(); ++i) grid.combo_values(c.ids[i], &c.params[i * grid.n_params()]);
  c.config.simulation.periods_per_year = kbt::resolve_periods_per_year(c.bars, c.config.simulation);
}

inline Case prepare(const std::string& config_name, std::size_t sample, std::size_t first_bars = 0) {
  Case c;
  c.config = kbt::load_run_config(std::string(KBT_SOURCE_DIR) + "/configs/" + config_name);
  c.bars = kbt::load_bars_hdf5(c.config.data_path, c.config.symbols);
  if (first_bars > 0) c.bars = kbt::test::first_bars(c.bars, first_bars);  // to keep the reference fast
  compile_and_sample(c, sample, 42);
  return c;
}

inline void expect_parity(const Case& c, const std::string& device, std::size_t chunk = 0, int block_bars = 0,
                          bool position_per_bar = true) {
  const kbt::SweepPlan plan = kbt::make_sweep_plan(c.program, c.bars);
  kbt::KernelSweepOptions opts;
  opts.chunk_combos = chunk;
  opts.block_bars = block_bars;
  opts.position_per_bar = position_per_bar;
  const auto kernel = kbt::run_sweep_kernel_on(device, false, c.program, plan, c.bars, kbt::resolve_simulation(c.config.simulation, c.bars), c.params, opts);
  const std::size_t n_params = c.program.n_params();
  ASSERT_FALSE(c.ids.empty()) << "vacuous case: no combos";
  ASSERT_EQ(kernel.size(), c.ids.size() * kbt::n_metrics);
  const kbt::ResolvedSimulation sim = kbt::resolve_simulation(c.config.simulation, c.bars);
  // A case where nothing trades, or every metric is NaN, would compare
  // nothing but the initial state: it must fail instead.
  std::size_t trading = 0, finite_sharpe = 0;
  for (std::size_t i = 0; i < c.ids.size(); ++i) {
    const auto signals = kbt::evaluate_strategy_reference(c.program, c.bars, &c.params[i * n_params]);
    // The combo's own settings where some are swept (docs/semantics.md "Swept settings").
    const auto ref = kbt::simulate_reference(
        c.bars, kbt::combo_simulation(sim, c.program.param_names, &c.params[i * n_params]), signals);
    trading += ref.metrics[static_cast<std::size_t>(kbt::metric_index("n_trades"))] > 0 ? 1 : 0;
    finite_sharpe += std::isnan(ref.metrics[static_cast<std::size_t>(kbt::metric_index("sharpe"))]) ? 0 : 1;
    for (std::size_t m = 0; m < kbt::n_metrics; ++m) {
      const double k = kernel[i * kbt::n_metrics + m], r = ref.metrics[m];
      EXPECT_EQ(std::memcmp(&k, &r, sizeof k), 0)
          << device << " combo " << c.ids[i] << " metric " << kbt::metric_names()[m] << ": kernel " << k
          << " reference " << r;
    }
  }
  EXPECT_GT(trading, 0u) << "vacuous case: no combo trades";
  EXPECT_GT(finite_sharpe, 0u) << "vacuous case: every combo's Sharpe ratio is NaN";
}

inline std::vector<std::string> devices() {
  std::vector<std::string> out;
  for (const auto& s : kbt::enabled_execution_spaces()) out.push_back(s.name);
  return out;
}


// A case from a config in YAML on the given bars.
inline Case prepare_yaml(const std::string& yaml, const kbt::BarData& bars, std::size_t sample) {
  Case c;
  c.config = kbt::parse_run_config(yaml, "<parity>", "");
  c.bars = bars;
  compile_and_sample(c, sample, 3);
  return c;
}

}  // namespace kbt::test::parity
