#pragma once
// A whole sweep on an execution space instance the caller owns, with the
// metrics and the top-K left in that space's memory (docs/api.md): for HPC
// codes that go on working with the results on the device (their own
// reductions, MPI) without files or host copies of every combo.

#include <kbt/config/run_config.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/config/param_grid.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
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
  const Program program = compile_strategy(config.strategy, schema_of(bars));
  if (const auto reason = sweep_kernel_unsupported(program))
    throw Error(ErrorCategory::unsupported, "the sweep kernel cannot run this strategy (" + *reason + ")");
  const ParamGrid grid(config.strategy.params);
  const std::vector<std::uint64_t> ids =
      filter_combos(grid, [&](const double* values) { return constraints_hold(program, values); });

  SpaceSweepResult<ExecSpace> out;
  const std::size_t n_params = grid.n_params();
  for (std::size_t p = 0; p < n_params; ++p) out.param_names.push_back(grid.axis(p).name);
  out.params.assign(ids.size() * n_params, 0.0);
  for (std::size_t i = 0; i < ids.size(); ++i) grid.combo_values(ids[i], &out.params[i * n_params]);

  const ResolvedSimulation sim = resolve_simulation(config, bars);
  const SweepPlan plan = make_sweep_plan(program, bars);
  const bool fp32 = config.sweep.precision == "fp32";
  out.precision = fp32 ? "fp32" : "fp64";
  out.metrics = fp32 ? sweep_metrics_on<ExecSpace, float>(exec, program, plan, bars, sim, out.params, options)
                     : sweep_metrics_on<ExecSpace, double>(exec, program, plan, bars, sim, out.params, options);
  out.combo_ids = detail::upload_1d<std::uint64_t, Mem>(ids, "kbt::combo_ids");
  out.top_k = select_top_k_on(exec, out.metrics, out.combo_ids, config.sweep.objective,
                              static_cast<std::size_t>(config.sweep.top_k));
  return out;
}

}  // namespace kbt
