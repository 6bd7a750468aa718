// The action-driven simulation's config (docs/config.md "job: simulate",
// docs/simulate.md): what it holds, its defaults, and every error at its
// file:line:col.

#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>

#include <string>

#include "unit/test_config_support.hpp"

namespace {

void expect_error(const std::string& yaml, kbt::ErrorCategory category, const std::string& prefix,
                  const std::string& text, bool any_job = true) {
  kbt::test::expect_config_error(any_job ? &kbt::parse_job_config : &kbt::parse_run_config, "s.yaml", yaml, category,
                                 prefix, text);
}

const std::string head = "job: simulate\ndata: d.h5\nsimulate:\n";  // lines 1-3

}  // namespace

TEST(ConfigSimulate, HoldsTheActionsTheirMeaningAndTheDefaults) {
  const auto file = kbt::parse_job_config(head + "  actions: rollouts/a.h5\n", "s.yaml", "/cfg");
  EXPECT_EQ(file.job, kbt::Job::simulate);
  EXPECT_EQ(file.simulate.actions_path, "/cfg/rollouts/a.h5");  // relative to the config, as `data`
  EXPECT_EQ(file.simulate.actions_dataset, "actions");
  EXPECT_EQ(file.simulate.random_trials, 0);
  EXPECT_EQ(file.simulate.kind, "exposure");
  EXPECT_EQ(file.simulate.cash_reserve, 0.0);
  EXPECT_EQ(file.simulate.spread_bps, 0.0);
  EXPECT_FALSE(file.simulate.per_bar);
  EXPECT_EQ(file.simulate.reward, "log_return");
  EXPECT_EQ(file.simulate.eta, 0.01);
  EXPECT_EQ(file.simulate.device, "auto");
  EXPECT_EQ(file.output.path, "results/simulate.h5");

  const auto random = kbt::parse_job_config(head +
                                                "  random: {trials: 128, seed: 9, hold: 6}\n"
                                                "  kind: discrete\n  cash_reserve: 0.05\n  spread_bps: 3\n"
                                                "  per_bar: true\n  reward: differential_sharpe\n  eta: 0.1\n"
                                                "  device: reference\n"
                                                "simulation: {fee_bps: 2}\n",
                                            "s.yaml", "");
  EXPECT_EQ(random.simulate.random_trials, 128);
  EXPECT_EQ(random.simulate.random_seed, 9u);
  EXPECT_EQ(random.simulate.random_hold, 6);
  EXPECT_EQ(random.simulate.kind, "discrete");
  EXPECT_EQ(random.simulate.cash_reserve, 0.05);
  EXPECT_EQ(random.simulate.spread_bps, 3.0);
  EXPECT_TRUE(random.simulate.per_bar);
  EXPECT_EQ(random.simulate.reward, "differential_sharpe");
  EXPECT_EQ(random.simulate.eta, 0.1);
  EXPECT_EQ(random.simulate.device, "reference");
  EXPECT_EQ(random.simulation.fee_bps, 2.0);
}

TEST(ConfigSimulate, ErrorsNameTheirLine) {
  using C = kbt::ErrorCategory;
  expect_error(head + "  random: {trials: 2}\n", C::config, "s.yaml:1:6: ",
               "this is an action-driven simulation (job: simulate); `kbt run` and `kbt check` take it", false);
  expect_error("job: simulate\ndata: d.h5\n", C::config, "s.yaml:1:1: ", "missing required key 'simulate'");
  expect_error(head + "  kind: discrete\n", C::config, "s.yaml:3:1: ", "simulate needs exactly one of 'actions'");
  expect_error(head + "  actions: a.h5\n  random: {trials: 2}\n", C::config, "s.yaml:3:1: ",
               "simulate needs exactly one of 'actions'");
  expect_error(head + "  random: {seed: 2}\n", C::config, "s.yaml:4:3: ", "simulate.random needs 'trials'");
  expect_error(head + "  random: {trials: 0}\n", C::config, "s.yaml:4:", "simulate.random.trials");
  expect_error(head + "  random: {trials: 2, hold: 0}\n", C::config, "s.yaml:4:", "simulate.random.hold");
  expect_error(head + "  random: {trials: 2}\n  dataset: x\n", C::config, "s.yaml:5:3: ",
               "a random policy has none");
  expect_error(head + "  random: {trials: 2}\n  kind: binary\n", C::config, "s.yaml:5:9: ", "simulate.kind");
  expect_error(head + "  random: {trials: 2}\n  cash_reserve: 1\n", C::config, "s.yaml:5:17: ",
               "a fraction in [0, 1) of equity kept uninvested");
  expect_error(head + "  random: {trials: 2}\n  spread_bps: -1\n", C::config, "s.yaml:5:15: ", "simulate.spread_bps");
  expect_error(head + "  random: {trials: 2}\n  eta: 2\n", C::config, "s.yaml:5:8: ", "a rate in (0, 1]");
  expect_error(head + "  random: {trials: 2}\n  reward: sharpe\n", C::config, "s.yaml:5:11: ", "simulate.reward");
  expect_error(head + "  random: {trials: 2}\n  rewards: pnl\n", C::config, "s.yaml:5:3: ",
               "unknown key 'rewards' in simulate; did you mean 'reward'?");
  expect_error(head + "  random: {trials: 2}\nstrategy: {position: 1}\n", C::config, "s.yaml:5:1: ",
               "'strategy' belongs to sweeps; this `job: simulate` takes");
  expect_error(head + "  random: {trials: 2}\nlabel: {volatility: 1}\n", C::config, "s.yaml:5:1: ",
               "'label' belongs to `job: label`");
  expect_error("data: d.h5\nstrategy: {position: 1}\nsimulate: {random: {trials: 2}}\n", C::config, "s.yaml:3:1: ",
               "'simulate' belongs to `job: simulate`; this sweep takes");
}

TEST(ConfigCallerInputs, BarsAndActionsFromTheCallerMayBeLeftOut) {
  // A caller that hands over the bars and the actions (the Python module).
  const kbt::CallerInputs both{true, true};
  const auto bare = kbt::parse_caller_job_config("job: simulate\nsimulation: {fee_bps: 2}\n", "s.yaml", "", both);
  EXPECT_EQ(bare.job, kbt::Job::simulate);
  EXPECT_TRUE(bare.data_path.empty());
  EXPECT_EQ(bare.simulate.random_trials, 0);
  EXPECT_TRUE(bare.simulate.actions_path.empty());
  EXPECT_EQ(bare.simulation.fee_bps, 2.0);
  // Given anyway, the config's are still read (the caller's replace them).
  const auto named = kbt::parse_caller_job_config(head + "  random: {trials: 3}\n", "s.yaml", "", both);
  EXPECT_EQ(named.simulate.random_trials, 3);
  // Without them from the caller, the keys stay required.
  kbt::test::expect_config_error(
      [](const std::string& y, const std::string& s, const std::string& b) {
        return kbt::parse_caller_job_config(y, s, b, kbt::CallerInputs{true, false});
      },
      "s.yaml", "job: simulate\n", kbt::ErrorCategory::config, "s.yaml:1:1", "missing required key 'simulate'");
  kbt::test::expect_config_error(
      [](const std::string& y, const std::string& s, const std::string& b) {
        return kbt::parse_caller_job_config(y, s, b, kbt::CallerInputs{false, true});
      },
      "s.yaml", "job: simulate\n", kbt::ErrorCategory::config, "s.yaml:1:1", "missing required key 'data'");
  kbt::test::expect_config_error(
      [](const std::string& y, const std::string& s, const std::string& b) {
        return kbt::parse_caller_job_config(y, s, b, kbt::CallerInputs{true, true});
      },
      "s.yaml", head + "  random: {trials: 3}\n  actions: a.h5\n", kbt::ErrorCategory::config, "s.yaml:3:1",
      "exactly one of 'actions'");
}
