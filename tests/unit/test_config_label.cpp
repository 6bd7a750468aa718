// The labelling job's config (docs/config.md "job: label", docs/label.md):
// what it holds, its defaults, and every error at its file:line:col.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>

#include <string>

#include "unit/test_config_support.hpp"

namespace {

void expect_error(const std::string& yaml, kbt::ErrorCategory category, const std::string& prefix,
                  const std::string& text, bool any_job = true) {
  kbt::test::expect_config_error(any_job ? &kbt::parse_job_config : &kbt::parse_run_config, "l.yaml", yaml, category,
                                 prefix, text);
}

const std::string head = "job: label\ndata: d.h5\nlabel:\n";  // lines 1-3

}  // namespace

TEST(ConfigLabel, HoldsTheExpressionsTheGridAndItsDefaults) {
  const auto c = kbt::parse_job_config(head +
                                           "  signals:\n    r: log(close / lag(close, 1))\n"
                                           "  volatility: rolling_std(r, 50)\n"
                                           "  side: where(close > sma(close, 20), 1, -1)\n"
                                           "  horizon: {range: [10, 30, 10]}\n"
                                           "  stop: [0, 2]\n",
                                       "l.yaml", "");
  EXPECT_EQ(c.job, kbt::Job::label);
  EXPECT_EQ(c.label.volatility.text, "rolling_std(r, 50)");
  EXPECT_EQ(c.label.volatility.where(), "l.yaml:6:15");
  ASSERT_TRUE(c.label.side);
  EXPECT_FALSE(c.label.events);
  ASSERT_EQ(c.strategy.signals.size(), 1u);
  EXPECT_EQ(c.strategy.signals[0].first, "r");
  EXPECT_EQ(c.label.profit_take.values, std::vector<double>({1.0}));  // default 1
  EXPECT_EQ(c.label.stop.values, std::vector<double>({0.0, 2.0}));
  EXPECT_EQ(c.label.horizon.values, std::vector<double>({10.0, 20.0, 30.0}));
  EXPECT_EQ(c.label.device, "auto");
  EXPECT_EQ(c.output.path, "results/labels.h5");
  EXPECT_FALSE(c.output.csv);  // a row per event and setting: only when asked
  EXPECT_EQ(kbt::parse_job_config(head + "  volatility: 0.01\n  horizon: 5\noutput: {csv: true}\n", "l.yaml", "")
                .output.csv,
            true);
  // A sweep config is still a sweep for every loader.
  EXPECT_EQ(kbt::parse_job_config("data: d.h5\nstrategy: {position: 1}\n", "s.yaml", "").job, kbt::Job::sweep);
  EXPECT_EQ(kbt::parse_job_config("job: sweep\ndata: d.h5\nstrategy: {position: 1}\n", "s.yaml", "").job,
            kbt::Job::sweep);
}

TEST(ConfigLabel, ErrorsNameTheirLine) {
  using C = kbt::ErrorCategory;
  expect_error(head + "  volatility: 0.01\n  horizon: 5\n", C::config, "l.yaml:1:6: ",
               "this is a labelling job (job: label); `kbt run` and `kbt check` take it", false);
  expect_error("job: labels\ndata: d.h5\n", C::config, "l.yaml:1:6: ", "job");
  expect_error(head + "  horizon: 5\n", C::config, "l.yaml:3:1: ", "label needs 'volatility'");
  expect_error(head + "  volatility: 0.01\n", C::config, "l.yaml:3:1: ", "label needs 'horizon'");
  expect_error("job: label\ndata: d.h5\n", C::config, "l.yaml:1:1: ", "missing required key 'label'");
  expect_error(head + "  volatility: 0.01\n  horizon: 5\nstrategy: {position: 1}\n", C::config, "l.yaml:6:1: ",
               "'strategy' belongs to sweeps; this `job: label` takes data, symbols, external_data, label and output");
  expect_error(head + "  volatility: 0.01\n  horizon: 5\nsweep: {top_k: 3}\n", C::config, "l.yaml:6:1: ",
               "'sweep' belongs to sweeps");
  expect_error("data: d.h5\nstrategy: {position: 1}\nlabel: {volatility: 0.1}\n", C::config, "l.yaml:3:1: ",
               "'label' belongs to `job: label`; this sweep takes data, symbols");
  expect_error(head + "  volatility: 0.01\n  horizon: [5, 2.5]\n", C::config, "l.yaml:5:12: ",
               "label.horizon has the value 2.5; it needs whole numbers of bars >= 1");
  expect_error(head + "  volatility: 0.01\n  horizon: 0\n", C::config, "l.yaml:5:12: ",
               "label.horizon has the value 0");
  expect_error(head + "  volatility: 0.01\n  horizon: 5\n  stop: [1, -1]\n", C::config, "l.yaml:6:9: ",
               "label.stop has the value -1; it needs finite multiples >= 0");
  expect_error(head + "  volatility: 0.01\n  horizon: 5\n  profit_take: [1, 1]\n", C::grid, "l.yaml:6:3: ",
               "has the value 1 twice");
  expect_error(head + "  volatility: 0.01\n  horizon: 5\n  profit_tak: 2\n", C::config, "l.yaml:6:3: ",
               "unknown key 'profit_tak' in label; did you mean 'profit_take'?");
  expect_error(head + "  volatility: 0.01\n  horizon: 5\n  device: gpu\n", C::config, "l.yaml:6:11: ",
               "label.device");
  expect_error(head + "  volatility: 0.01\n  horizon: 5\noutput: {heatmap: [a, b]}\n", C::config, "l.yaml:6:10: ",
               "output.heatmap belongs to sweeps");
  expect_error(head + "  volatility: 0.01\n  horizon: {range: [1, 1000000, 1]}\n  stop: {range: [1, 1000, 1]}\n",
               C::limit, "l.yaml:3:1: ", "the barrier grid has more than 100,000,000 settings");
}
