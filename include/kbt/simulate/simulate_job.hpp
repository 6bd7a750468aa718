#pragma once
// The action-driven simulation job (`job: simulate`, docs/simulate.md "The
// simulate job"): the actions of a config (an HDF5 file, or a random policy)
// simulated on one engine. The entry point of `kbt run` for such configs.

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/simulate/action_simulation.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbt {

// Actions with their shape (ActionMatrix views them).
struct Actions {
  std::vector<double> values;  // [trials][symbols][bars]
  std::size_t n_trials = 0, n_symbols = 0, n_bars = 0;
  ActionMatrix matrix() const { return {values.data(), n_trials, n_symbols, n_bars}; }
};

// Dataset `dataset` of the HDF5 file `path`: numbers [trials][symbols][bars],
// or [trials][bars] for data of one symbol, read as float64.
// kbt::Error(io) for a missing file, (data_format) naming file and dataset
// for a missing dataset or another rank or type, a shape larger than the file
// or this machine's memory can hold (checked before it is allocated), or a
// damaged file; read in kbt's reader process (docs/simulate.md). The shape
// against the bars and the values are check_actions'.
Actions read_actions_hdf5(const std::string& path, const std::string& dataset);

// The random policy of docs/simulate.md: per trial, then symbol, a new action
// every `hold` bars drawn from xoshiro256** seeded with `seed` (exposures
// -1, -0.5, 0, 0.5, 1; discrete codes 0, 1, 2), the same bits everywhere.
Actions random_policy_actions(std::size_t trials, std::size_t symbols, std::size_t bars, std::uint64_t seed,
                              std::size_t hold, ActionKind kind);

struct SimulateJobResult {
  ActionSimulationResult trials;
  ActionSettings settings;
  std::string device;
  double seconds_actions = 0, seconds_simulate = 0;
};

// The config's actions and settings (actions loaded or drawn, checked).
Actions simulate_job_actions(const RunConfig& config, const BarData& bars);
ActionSettings simulate_job_settings(const RunConfig& config);

// Runs `config` (RunConfig::job == Job::simulate) on `bars`; `device` empty:
// the config's simulate.device. `actions`: the caller's, in place of the
// config's simulate.actions or random (CallerInputs, config_loader.hpp); read
// where they are, not copied, and checked as the config's are.
SimulateJobResult run_simulate_job(const RunConfig& config, const BarData& bars, const std::string& device = {},
                                   const ActionMatrix* actions = nullptr);

// The action simulation on the engine named `device` (reference or an
// enabled Kokkos space), fp64.
ActionSimulationResult simulate_actions_on(const std::string& device, const BarData& bars,
                                           const ResolvedSimulation& sim, const ActionMatrix& actions,
                                           const ActionSettings& settings, bool keep_bars,
                                           const RewardSettings& rewards);

}  // namespace kbt
