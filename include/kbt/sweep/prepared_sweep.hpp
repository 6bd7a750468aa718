#pragma once
// Everything a sweep needs before its first combo, made once from a run config
// and its data: the compiled program, the combos (grid order after the
// constraints, optionally a deterministic sample) with their parameter
// values, and the simulation settings resolved on the data. Shared by
// `kbt run`, the C++ API (run_sweep_on), calibration, tests and benchmarks, so
// that none of them compiles, filters or resolves on its own.

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/simulation/resolved_simulation.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

struct PreparedSweep {
  Program program;
  std::vector<std::string> param_names;   // grid axis order = Program::param_names order
  std::vector<std::uint64_t> combo_ids;   // [n] grid numbering (docs/config.md), ascending
  std::vector<double> params;             // [n][n_params], row-major
  std::uint64_t combos_in_grid = 0;       // before constraints and sampling
  ResolvedSimulation sim;                 // resolve_simulation(config, bars)

  std::size_t n_params() const { return param_names.size(); }
  std::size_t n_combos() const { return combo_ids.size(); }
  const double* params_of(std::size_t row) const { return params.data() + row * n_params(); }

  // The same program and settings with only the combos at `rows` (in that order).
  PreparedSweep subset(const std::vector<std::size_t>& rows) const;
};

struct PrepareOptions {
  std::optional<std::uint64_t> sample;  // keep a deterministic random subset of this many combos
  std::uint64_t sample_seed = 0;
};

// Host memory a run keeps per combo until its results are written (bytes).
std::uint64_t resident_bytes_per_combo(std::size_t n_params);

// Compiles the config's strategy for `bars`, expands the grid, applies the
// constraints (and the sample) and resolves the simulation settings. Errors
// name the config file and key (language errors the expression's line). A
// grid whose combos would not fit in the host memory this process may still
// use (MemAvailable, and ulimit -v) is refused first, kbt::Error(limit).
PreparedSweep prepare_sweep(const RunConfig& config, const BarData& bars, const PrepareOptions& options = {});

}  // namespace kbt
