#pragma once
// Running a whole sweep from a run config and bar data already in memory: the
// entry point for `kbt run` and for HPC codes that link kbt (docs/api.md).

#include <kbt/bar_data.hpp>
#include <kbt/config.hpp>
#include <kbt/results.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace kbt {

struct SweepRequest {
  std::string device;                   // empty: the config's sweep.device
  int threads = 0;                      // host threads for the reference engine; 0 = all cores
  std::optional<std::uint64_t> sample;  // run a deterministic random subset of this many combos
  std::uint64_t sample_seed = 0;
  bool quiet = false;                   // no warnings on stderr
  // Calibration file for the device choice (docs/calibration.md); empty:
  // $KBT_CALIBRATION, else the default location.
  std::string calibration;
};

struct SweepOutcome {
  SweepResults results;
  RunProfile profile;
  std::string device_used;                     // "reference", "serial", ...
  std::optional<std::string> fallback_reason;  // stable `unsupported:<reason>` string
};

// Loads the config's data file, restricted to config.symbols when given.
BarData load_run_data(const RunConfig& config);

// Compiles the strategy, expands the grid, applies constraints (and sampling),
// simulates every combo and selects the top-K.
SweepOutcome run_sweep(const RunConfig& config, const BarData& bars, const SweepRequest& request = {});

}  // namespace kbt
