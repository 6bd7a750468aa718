// Instantiates the sweep kernel for every execution space this Kokkos enables,
// in both precisions, and picks one by name.

#include <kbt/core/error.hpp>
#include <kbt/sweep/sweep_kernel.hpp>

namespace kbt {
namespace {

template <class Space>
std::vector<double> run_on(bool fp32, const Program& program, const SweepPlan& plan, const BarData& bars,
                           const ResolvedSimulation& sim, const std::vector<double>& combos,
                           const KernelSweepOptions& options) {
  const Space space;
  if (fp32) return run_sweep_kernel<Space, float>(space, program, plan, bars, sim, combos, options);
  return run_sweep_kernel<Space, double>(space, program, plan, bars, sim, combos, options);
}

template <class Space>
std::unique_ptr<KernelSweepRunner> runner_on(bool fp32, const Program& program, const SweepPlan& plan,
                                             const BarData& bars, const ResolvedSimulation& sim,
                                             const KernelSweepOptions& options) {
  const Space space;
  if (fp32) return std::make_unique<KernelSweeper<Space, float>>(space, program, plan, bars, sim, options);
  return std::make_unique<KernelSweeper<Space, double>>(space, program, plan, bars, sim, options);
}

}  // namespace

std::unique_ptr<KernelSweepRunner> make_kernel_sweep_runner(const std::string& device, bool fp32,
                                                           const Program& program, const SweepPlan& plan,
                                                           const BarData& bars, const ResolvedSimulation& sim,
                                                           const KernelSweepOptions& options) {
#ifdef KOKKOS_ENABLE_SERIAL
  if (device == "serial") return runner_on<Kokkos::Serial>(fp32, program, plan, bars, sim, options);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (device == "openmp") return runner_on<Kokkos::OpenMP>(fp32, program, plan, bars, sim, options);
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (device == "cuda") return runner_on<Kokkos::Cuda>(fp32, program, plan, bars, sim, options);
#endif
  throw Error(ErrorCategory::unsupported, "device '" + device + "' is not enabled in this build of kbt");
}

KernelSweepOutput run_sweep_kernel_with_top_k_on(const std::string& device, bool fp32, const Program& program,
                                                 const SweepPlan& plan, const BarData& bars,
                                                 const ResolvedSimulation& sim, const std::vector<double>& combos,
                                                 const KernelTopKRequest& top_k, const KernelSweepOptions& options) {
  return make_kernel_sweep_runner(device, fp32, program, plan, bars, sim, options)->run(combos, top_k);
}

std::vector<double> run_sweep_kernel_on(const std::string& device, bool fp32, const Program& program,
                                        const SweepPlan& plan, const BarData& bars, const ResolvedSimulation& sim,
                                        const std::vector<double>& combos, const KernelSweepOptions& options) {
#ifdef KOKKOS_ENABLE_SERIAL
  if (device == "serial") return run_on<Kokkos::Serial>(fp32, program, plan, bars, sim, combos, options);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (device == "openmp") return run_on<Kokkos::OpenMP>(fp32, program, plan, bars, sim, combos, options);
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (device == "cuda") return run_on<Kokkos::Cuda>(fp32, program, plan, bars, sim, combos, options);
#endif
  throw Error(ErrorCategory::unsupported, "device '" + device + "' is not enabled in this build of kbt");
}

}  // namespace kbt

namespace kbt {

std::vector<double> evaluate_register_kernel_on(const std::string& device, bool fp32, const Program& program,
                                                const SweepPlan& plan, const BarData& bars,
                                                const std::vector<double>& params, int reg) {
#define KBT_EVALUATE_ON(Space)                                                                   \
  return fp32 ? evaluate_register_kernel<Space, float>(Space(), program, plan, bars, params, reg) \
              : evaluate_register_kernel<Space, double>(Space(), program, plan, bars, params, reg)
#ifdef KOKKOS_ENABLE_SERIAL
  if (device == "serial") KBT_EVALUATE_ON(Kokkos::Serial);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (device == "openmp") KBT_EVALUATE_ON(Kokkos::OpenMP);
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (device == "cuda") KBT_EVALUATE_ON(Kokkos::Cuda);
#endif
#undef KBT_EVALUATE_ON
  throw Error(ErrorCategory::unsupported, "device '" + device + "' is not enabled in this build of kbt");
}

}  // namespace kbt
