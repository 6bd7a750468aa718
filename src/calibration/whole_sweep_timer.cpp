// One whole sweep as a run pays for it: the plan (materialized and hoisted
// series), then the kernel with its upload and download.

#include <kbt/calibration/calibration_workloads.hpp>
#include <kbt/sweep/sweep_kernel.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <chrono>

namespace kbt {

double time_whole_sweep(const std::string& space, const CalibrationWorkload& w, const std::vector<double>& combo_params) {
  const auto t0 = std::chrono::steady_clock::now();
  const SweepPlan plan = make_sweep_plan(w.program, w.bars);
  const std::vector<double> metrics = run_sweep_kernel_on(space, false, w.program, plan, w.bars, w.resolved, combo_params);
  const auto t1 = std::chrono::steady_clock::now();
  volatile double sink = metrics.empty() ? 0.0 : metrics.front();
  (void)sink;
  return std::chrono::duration<double>(t1 - t0).count();
}

}  // namespace kbt
