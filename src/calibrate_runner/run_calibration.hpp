#pragma once
// `kbt calibrate` and benchmarks/bench_calibrate: times every enabled execution
// space with Google Benchmark (one registered benchmark per space x workload x
// bars x combos, collected by a custom reporter) and fits the cost model.
// Internal library kbt_calibrate (links benchmark; not installed).

#include <kbt/calibration/calibration.hpp>
#include <kbt/calibration/calibration_workloads.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace kbt {

struct CalibrateOptions {
  std::string mode = "full";          // calibration_ladder()
  std::vector<std::string> spaces;    // empty: every enabled space
  std::vector<std::string> workloads; // empty: calibration_workload_names()
  std::FILE* progress = nullptr;      // one line per measured point, or nothing
};

// Measures and fits; requires Kokkos to be initialized.
Calibration run_calibration(const CalibrateOptions& options);

// The summary `kbt calibrate` prints: per space its coefficients and fit, the
// predicted per-bar-combo cost of each workload, and the break-even table.
std::string format_calibration_summary(const Calibration& calibration);

}  // namespace kbt
