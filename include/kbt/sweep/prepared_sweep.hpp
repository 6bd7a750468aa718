#pragma once
// Everything a sweep needs before its first combo, made once from a run config
// and its data: the compiled program, the combos (grid order after the
// constraints, optionally a deterministic sample; their ids and values are
// generated a range of rows at a time, config/combo_rows.hpp), and the
// simulation settings resolved on the data. Shared by
// `kbt run`, the C++ API (run_sweep_on), calibration, tests and benchmarks, so
// that none of them compiles, filters or resolves on its own.

#include <kbt/config/combo_rows.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/lang/program.hpp>
#include <kbt/metrics/metric_set.hpp>
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
  ComboRows combos;                       // [n] grid numbering (docs/config.md), ascending ids
  std::uint64_t combos_in_grid = 0;       // before constraints and sampling
  ResolvedSimulation sim;                 // resolve_simulation(config, bars)
  // The metric set of the sweep pass (metric_set.hpp): the smallest compiled
  // set holding the objective, n_trades and sweep.metrics, and the metrics it
  // yields (what every row holds; the best rows get all 21).
  unsigned metric_groups = metric_group::all;
  MetricMask metrics = all_metrics_mask;

  std::size_t n_params() const { return param_names.size(); }
  std::size_t n_combos() const { return static_cast<std::size_t>(combos.size()); }

  // The same program and settings with only the combos at `rows` (ascending).
  PreparedSweep subset(const std::vector<std::uint64_t>& rows) const;
};

struct PrepareOptions {
  std::optional<std::uint64_t> sample;  // keep a deterministic random subset of this many combos
  std::uint64_t sample_seed = 0;
};

// The metric set a config's sweep pass needs (PreparedSweep::metric_groups).
unsigned metric_groups_for(const RunConfig& config);

// Host memory per combo of a sweep whose rows are all kept in memory (the
// C++ API's run_sweep without a checkpoint; bytes).
std::uint64_t resident_bytes_per_combo(std::size_t n_params);

// Compiles the config's strategy for `bars`, expands the grid, applies the
// constraints (and the sample) and resolves the simulation settings. Errors
// name the config file and key (language errors the expression's line).
// Nothing grid-sized is kept: a grid with constraints costs one counting
// pass over its combos and 8 bytes per 4096 kept rows.
PreparedSweep prepare_sweep(const RunConfig& config, const BarData& bars, const PrepareOptions& options = {});

// Refuses, before anything is allocated, `n` combos whose `what` takes
// `per_combo` bytes each when that does not fit in the host memory this
// process may still use (MemAvailable and ulimit -v): kbt::Error(limit)
// naming the estimate and the knobs.
void check_host_memory(const RunConfig& config, std::uint64_t n, std::uint64_t per_combo, const std::string& what);

}  // namespace kbt
