// Metric sets (docs/metrics.md "Metric sets"): the sweep kernel compiled for
// each set gives, for every metric of the set, the reference engine's bits
// (fp64) on every enabled space, with one and two combos per thread, and NaN
// for every other metric; in fp32 the set's metrics equal the all-metrics
// fp32 kernel's. The rows a run keeps hold the set; its best rows get all 21,
// equal to the reference's.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

#include <cmath>
#include <cstring>

#include "support/synthetic.hpp"

namespace {

bool same_bits(double a, double b) { return std::memcmp(&a, &b, sizeof a) == 0; }

struct Case {
  kbt::RunConfig config;
  kbt::BarData bars;
  kbt::PreparedSweep sweep;
  std::vector<double> params;     // a sample of the combos, [n][n_params]
  std::vector<double> reference;  // their 21 metrics by the reference engine
};

// The example config, its first `bars` bars and a sample of 16 combos.
Case prepare(const std::string& name, std::size_t bars) {
  Case c;
  c.config = kbt::load_run_config(std::string(KBT_SOURCE_DIR) + "/configs/" + name);
  c.bars = kbt::test::first_bars(kbt::load_bars_hdf5(c.config.data_path, c.config.symbols), bars);
  kbt::PrepareOptions sample;
  sample.sample = 16;
  sample.sample_seed = 5;
  c.sweep = kbt::prepare_sweep(c.config, c.bars, sample);
  c.params = c.sweep.combos.params(0, c.sweep.combos.size());
  const std::size_t np = c.sweep.n_params();
  std::size_t trading = 0;
  for (std::size_t i = 0; i < c.sweep.n_combos(); ++i) {
    const auto signals = kbt::evaluate_strategy_reference(c.sweep.program, c.bars, &c.params[i * np]);
    const auto sim = kbt::simulate_reference(c.bars, c.sweep.sim, signals);
    c.reference.insert(c.reference.end(), sim.metrics.begin(), sim.metrics.end());
    trading += sim.metrics[int(kbt::Metric::n_trades)] > 0;
  }
  EXPECT_GT(trading, 0u) << name << ": vacuous case, no combo trades";
  return c;
}

std::vector<double> kernel_metrics(const Case& c, const std::string& device, bool fp32, unsigned groups,
                                   bool position_per_bar = true) {
  const kbt::SweepPlan plan = kbt::make_sweep_plan(c.sweep.program, c.bars);
  kbt::KernelSweepOptions options;
  options.metric_groups = groups;
  options.position_per_bar = position_per_bar;
  return kbt::run_sweep_kernel_on(device, fp32, c.sweep.program, plan, c.bars, c.sweep.sim, c.params, options);
}

class MetricSets : public ::testing::TestWithParam<const char*> {};

}  // namespace

TEST_P(MetricSets, EverySetGivesTheReferenceBitsOfItsMetricsAndNaNForTheOthers) {
  const Case c = prepare(GetParam(), 3000);
  for (const auto& space : kbt::enabled_execution_spaces())
    for (const unsigned set : kbt::compiled_metric_sets)
      for (const bool per_bar : {false, true}) {
        SCOPED_TRACE(space.name + " set " + std::to_string(set) + " position per bar " + std::to_string(per_bar));
        const kbt::MetricMask mask = kbt::metrics_of_groups(set);
        const auto kernel = kernel_metrics(c, space.name, false, set, per_bar);
        ASSERT_EQ(kernel.size(), c.reference.size());
        std::size_t differ = 0, not_nan = 0;
        for (std::size_t k = 0; k < kernel.size(); ++k) {
          const int m = static_cast<int>(k % kbt::n_metrics);
          if (kbt::has_metric(mask, m))
            differ += !same_bits(kernel[k], c.reference[k]);
          else
            not_nan += !std::isnan(kernel[k]);
        }
        EXPECT_EQ(differ, 0u);
        EXPECT_EQ(not_nan, 0u);
      }
}

TEST_P(MetricSets, Fp32SetsGiveTheAllMetricsFp32Bits) {
  const Case c = prepare(GetParam(), 2000);
  for (const auto& space : kbt::enabled_execution_spaces()) {
    const auto all = kernel_metrics(c, space.name, true, kbt::metric_group::all);
    for (const unsigned set : kbt::compiled_metric_sets) {
      SCOPED_TRACE(space.name + " set " + std::to_string(set));
      const auto kernel = kernel_metrics(c, space.name, true, set);
      const kbt::MetricMask mask = kbt::metrics_of_groups(set);
      for (std::size_t k = 0; k < kernel.size(); ++k)
        if (kbt::has_metric(mask, static_cast<int>(k % kbt::n_metrics))) ASSERT_TRUE(same_bits(kernel[k], all[k])) << k;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(ExampleConfigs, MetricSets,
                         ::testing::Values("sma_cross.yaml", "breakout_sltp.yaml", "multi_asset_funding.yaml",
                                           "kalman_meanrev.yaml"));

// The smallest compiled set that holds what a run needs.
TEST(MetricSetChoice, TheSmallestCompiledSetHoldingTheNeededMetrics) {
  using namespace kbt;
  const auto set_for = [](std::vector<std::string> names) { return compiled_set_for(metric_mask_of(names)); };
  EXPECT_EQ(set_for({"total_return", "n_trades"}), 0u);
  EXPECT_EQ(set_for({"sharpe", "n_trades"}), metric_group::returns);
  EXPECT_EQ(set_for({"sortino"}), metric_group::returns);
  EXPECT_EQ(set_for({"calmar"}), metric_group::returns | metric_group::drawdown);
  EXPECT_EQ(set_for({"sharpe", "max_drawdown"}), metric_group::returns | metric_group::drawdown);
  EXPECT_EQ(set_for({"win_rate"}), metric_group::all);
  EXPECT_EQ(set_for({"turnover"}), metric_group::all);
  // What each set yields, by the documented groups.
  EXPECT_EQ(metric_names_of(metrics_of_groups(0)),
            (std::vector<std::string>{"total_return", "cagr", "n_trades", "final_equity"}));
  EXPECT_EQ(metric_names_of(metrics_of_groups(metric_group::returns)),
            (std::vector<std::string>{"total_return", "cagr", "ann_volatility", "sharpe", "sortino", "n_trades",
                                      "final_equity"}));
  EXPECT_EQ(metrics_of_groups(metric_group::all), all_metrics_mask);
}

// A run with the default metric set: its rows hold the set (NaN elsewhere),
// its best rows all 21 metrics, equal on every device to the reference's.
TEST(MetricSetRun, RowsHoldTheSetAndTheBestRowsEveryMetric) {
  kbt::RunConfig config = kbt::load_run_config(std::string(KBT_SOURCE_DIR) + "/configs/sma_cross.yaml");
  config.sweep.top_k = 5;
  const kbt::BarData bars = kbt::load_run_data(config);
  ASSERT_EQ(kbt::metric_groups_for(config), kbt::metric_group::returns);  // sharpe objective
  std::vector<std::string> devices{"reference"};
  for (const auto& s : kbt::enabled_execution_spaces()) devices.push_back(s.name);
  kbt::RunConfig every = config;
  every.sweep.all_metrics = true;
  kbt::SweepRequest request;
  request.device = "reference";
  request.quiet = true;
  const kbt::SweepOutcome full = kbt::run_sweep(every, bars, request);
  const kbt::RowTable all_rows = kbt::read_all_rows(*full.results.rows);
  for (const auto& device : devices) {
    SCOPED_TRACE(device);
    request.device = device;
    const kbt::SweepOutcome run = kbt::run_sweep(config, bars, request);
    const kbt::MetricMask mask = run.results.rows->metric_mask();
    EXPECT_EQ(mask, kbt::metrics_of_groups(kbt::metric_group::returns));
    const kbt::RowTable rows = kbt::read_all_rows(*run.results.rows);
    ASSERT_EQ(rows.size(), all_rows.size());
    for (std::size_t k = 0; k < rows.metrics.size(); ++k) {
      const int m = static_cast<int>(k % kbt::n_metrics);
      if (kbt::has_metric(mask, m)) ASSERT_TRUE(same_bits(rows.metrics[k], all_rows.metrics[k])) << k;
      else ASSERT_TRUE(std::isnan(rows.metrics[k])) << k;
    }
    const kbt::RowTable best = run.results.top_k_rows(), expected = full.results.top_k_rows();
    ASSERT_EQ(best.rows, expected.rows);
    ASSERT_EQ(best.size(), 5u);
    for (std::size_t k = 0; k < best.metrics.size(); ++k) ASSERT_TRUE(same_bits(best.metrics[k], expected.metrics[k])) << k;
  }
}
