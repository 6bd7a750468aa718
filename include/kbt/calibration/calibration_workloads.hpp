#pragma once
// What `kbt calibrate` times (docs/calibration.md): three strategies of rising
// complexity on synthetic data, a ladder of grid sizes per bar count, and one
// whole sweep per measurement (make_sweep_plan + run_sweep_kernel_on: hoisting,
// upload, kernel, download). Shared by `kbt calibrate` and
// benchmarks/bench_calibrate.cpp. Requires Kokkos to be initialized.

#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/calibration/calibration.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/lang/program.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace kbt {

struct CalibrationWorkload {
  std::string name;           // sma_cross | zscore_expr | kalman_stops
  RunConfig config;           // the strategy (data is synthetic, never read from disk)
  BarData bars;               // synth_bars
  Program program;
  SimulationSettings sim;     // the config's simulation settings
  ResolvedSimulation resolved;  // resolved on `bars`
  std::vector<double> grid;   // the config's combos after constraints, [n][n_params]
  std::size_t grid_combos = 0;
  Complexity complexity;      // strategy_complexity(...).work

  // `n` combos for one measurement: the grid's combos in order, repeated as
  // often as needed ([n][n_params]). Every combo costs the same to the kernel
  // whether or not it repeats; the hoisted series are the whole grid's.
  std::vector<double> combos(std::size_t n) const;
};

// The workload names, simplest first.
std::vector<std::string> calibration_workload_names();

// Throws kbt::Error(config) for an unknown name.
CalibrationWorkload make_calibration_workload(const std::string& name, std::size_t n_bars);

// Seconds of one whole sweep of `combo_params` on `space` (fp64).
double time_whole_sweep(const std::string& space, const CalibrationWorkload& workload,
                        const std::vector<double>& combo_params);

struct CalibrationLadder {
  std::string mode;                  // full | quick | tiny
  std::vector<std::size_t> bars;     // bar counts
  std::vector<std::size_t> combos;   // grid sizes, ascending
  double point_budget_seconds = 0;   // a ladder stops before a point predicted to take longer
  double min_time_seconds = 0;       // Google Benchmark's MinTime per point
};

// "full" (default), "quick", or "tiny" (the test suite's); kbt::Error(config) otherwise.
CalibrationLadder calibration_ladder(const std::string& mode);

}  // namespace kbt
