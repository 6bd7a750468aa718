#pragma once
// Runs the sweep kernel over a list of combos on one execution space
// (detail/kernel_sweeper.hpp), by template or by device name: the runner of a
// run (kernel_sweep_runner.hpp), and one-call helpers for tests and tools.

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/simulation/resolved_simulation.hpp>
#include <kbt/sweep/detail/kernel_sweeper.hpp>
#include <kbt/sweep/kernel_sweep_options.hpp>
#include <kbt/sweep/kernel_sweep_runner.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <memory>
#include <string>
#include <vector>

namespace kbt {

// Simulates every combo of `combo_params` ([n_combos][n_params], row-major, in
// Program::param_names order) on `exec` and returns their metrics
// [n_combos][n_metrics] in `exec`'s memory space (fenced: ready to read).
template <class ExecSpace, class Real>
Kokkos::View<double**, typename ExecSpace::memory_space> sweep_metrics_on(
    const ExecSpace& exec, const Program& program, const SweepPlan& plan, const BarData& bars,
    const ResolvedSimulation& sim, const std::vector<double>& combo_params, const KernelSweepOptions& options = {}) {
  KernelSweeper<ExecSpace, Real> sweeper(exec, program, plan, bars, sim, options);
  return sweeper.metrics_on_space(combo_params);
}

// The same, with the metrics copied to the host, row-major.
template <class ExecSpace, class Real>
std::vector<double> run_sweep_kernel(const ExecSpace& exec, const Program& program, const SweepPlan& plan,
                                     const BarData& bars, const ResolvedSimulation& sim,
                                     const std::vector<double>& combo_params,
                                     const KernelSweepOptions& options = {}) {
  const auto metrics = sweep_metrics_on<ExecSpace, Real>(exec, program, plan, bars, sim, combo_params, options);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), metrics);
  const std::size_t n_combos = metrics.extent(0);
  std::vector<double> out(n_combos * n_metrics);
  for (std::size_t c = 0; c < n_combos; ++c)
    for (std::size_t m = 0; m < n_metrics; ++m) out[c * n_metrics + m] = host(c, m);
  return out;
}

// The series of register `reg` (e.g. Program::expression) for one combo,
// [n_symbols * n_bars] symbol-major, evaluated by the sweep kernel's in-thread
// evaluator on `exec` (`kbt eval --device`).
template <class ExecSpace, class Real>
std::vector<double> evaluate_register_kernel(const ExecSpace& exec, const Program& program, const SweepPlan& plan,
                                             const BarData& bars, const std::vector<double>& params, int reg) {
  KernelSweepOptions every_register_readable;
  every_register_readable.fuse_compare_selects = false;  // `reg` may be a comparison a `where` reads
  KernelSweeper<ExecSpace, Real> sweeper(exec, program, plan, bars, evaluation_only(bars), every_register_readable);
  auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), sweeper.evaluate_on_space(params, reg));
  std::vector<double> out(plan.n_symbols * plan.n_bars);
  for (std::size_t s = 0; s < plan.n_symbols; ++s)
    for (std::size_t b = 0; b < plan.n_bars; ++b) out[s * plan.n_bars + b] = static_cast<double>(host(s, b));
  return out;
}

// The sweepers of the enabled spaces are compiled once, in the library
// (src/sweep/instances/): code that includes this header links to them.
#ifdef KOKKOS_ENABLE_SERIAL
extern template class KernelSweeper<Kokkos::Serial, double>;
extern template class KernelSweeper<Kokkos::Serial, float>;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
extern template class KernelSweeper<Kokkos::OpenMP, double>;
extern template class KernelSweeper<Kokkos::OpenMP, float>;
#endif
#ifdef KOKKOS_ENABLE_CUDA
extern template class KernelSweeper<Kokkos::Cuda, double>;
extern template class KernelSweeper<Kokkos::Cuda, float>;
#endif

// Dispatch by device name ("serial", "openmp", "cuda") and precision.
std::vector<double> run_sweep_kernel_on(const std::string& device, bool fp32, const Program& program,
                                        const SweepPlan& plan, const BarData& bars, const ResolvedSimulation& sim,
                                        const std::vector<double>& combo_params,
                                        const KernelSweepOptions& options = {});
// A KernelSweeper for the space named `device` ("serial", "openmp", "cuda").
std::unique_ptr<KernelSweepRunner> make_kernel_sweep_runner(const std::string& device, bool fp32,
                                                           const Program& program, const SweepPlan& plan,
                                                           const BarData& bars, const ResolvedSimulation& sim,
                                                           const KernelSweepOptions& options = {});
KernelSweepOutput run_sweep_kernel_with_top_k_on(const std::string& device, bool fp32, const Program& program,
                                                 const SweepPlan& plan, const BarData& bars,
                                                 const ResolvedSimulation& sim,
                                                 const std::vector<double>& combo_params,
                                                 const KernelTopKRequest& top_k,
                                                 const KernelSweepOptions& options = {});
std::vector<double> evaluate_register_kernel_on(const std::string& device, bool fp32, const Program& program,
                                                const SweepPlan& plan, const BarData& bars,
                                                const std::vector<double>& params, int reg);

}  // namespace kbt
