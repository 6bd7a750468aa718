#pragma once
// A whole sweep on an execution space instance the caller owns, with the
// metrics and the top-K left in that space's memory (docs/api.md): for HPC
// codes that go on working with the results on the device (their own
// reductions, MPI) without files or host copies of every combo.

#include <kbt/config/run_config.hpp>
#include <kbt/core/error.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/sweep/device_top_k.hpp>
#include <kbt/sweep/sweep_kernel.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbt {

template <class ExecSpace>
struct SpaceSweepResult {
  using memory_space = typename ExecSpace::memory_space;
  std::vector<std::string> param_names;           // Program::param_names order
  std::vector<double> params;                     // [n_combos][n_params], host, row-major
  Kokkos::View<std::uint64_t*, memory_space> combo_ids;  // [n_combos] grid numbering (docs/config.md)
  Kokkos::View<double**, memory_space> metrics;   // [n_combos][n_metrics], kbt::Metric order
  Kokkos::View<std::int64_t*, memory_space> top_k;  // rows of `metrics`, best first (sweep.top_k, objective)
  std::string precision;                          // "fp64" or "fp32"
};

// Compiles the config's strategy for `bars`, expands the grid, applies the
// constraints and runs every combo on `exec` in the config's precision; the
// top-K by the config's objective is selected on `exec` too. A strategy the
// kernel cannot run is refused with its stable `unsupported:<reason>`.
template <class ExecSpace>
SpaceSweepResult<ExecSpace> run_sweep_on(const ExecSpace& exec, const RunConfig& config, const BarData& bars,
                                         const KernelSweepOptions& options = {}) {
  using Mem = typename ExecSpace::memory_space;
  const PreparedSweep sweep = prepare_sweep(config, bars);
  if (const auto reason = sweep_kernel_unsupported(sweep.program))
    throw Error(ErrorCategory::unsupported, "the sweep kernel cannot run this strategy (" + *reason + ")");

  SpaceSweepResult<ExecSpace> out;
  out.param_names = sweep.param_names;
  out.params = sweep.combos.params(0, sweep.combos.size());
  const SweepPlan plan = make_sweep_plan(sweep.program, bars);
  const bool fp32 = config.sweep.precision == "fp32";
  out.precision = fp32 ? "fp32" : "fp64";
  out.metrics = fp32 ? sweep_metrics_on<ExecSpace, float>(exec, sweep.program, plan, bars, sweep.sim, out.params, options)
                     : sweep_metrics_on<ExecSpace, double>(exec, sweep.program, plan, bars, sweep.sim, out.params, options);
  const std::vector<std::uint64_t> ids = sweep.combos.ids(0, sweep.combos.size());
  out.combo_ids = detail::upload_1d<std::uint64_t, Mem>(ids, "kbt::combo_ids");
  out.top_k = select_top_k_on(exec, out.metrics, out.combo_ids, config.sweep.objective,
                              static_cast<std::size_t>(config.sweep.top_k));
  return out;
}

}  // namespace kbt
