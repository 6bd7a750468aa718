// The action simulation on an engine named at run time: the reference, or
// ActionSimulator instantiated for every execution space this Kokkos enables.

#include <kbt/core/error.hpp>
#include <kbt/simulate/action_simulator.hpp>
#include <kbt/simulate/simulate_job.hpp>

namespace kbt {

ActionSimulationResult simulate_actions_on(const std::string& device, const BarData& bars,
                                           const ResolvedSimulation& sim, const ActionMatrix& actions,
                                           const ActionSettings& settings, bool keep_bars,
                                           const RewardSettings& rewards) {
  if (device == "reference") return simulate_actions_reference(bars, sim, actions, settings, keep_bars, rewards);
#ifdef KOKKOS_ENABLE_SERIAL
  if (device == "serial") return ActionSimulator<Kokkos::Serial>(bars, sim).run(actions, settings, keep_bars, rewards);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (device == "openmp") return ActionSimulator<Kokkos::OpenMP>(bars, sim).run(actions, settings, keep_bars, rewards);
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (device == "cuda") return ActionSimulator<Kokkos::Cuda>(bars, sim).run(actions, settings, keep_bars, rewards);
#endif
  throw Error(ErrorCategory::unsupported, "device '" + device + "' is not enabled in this build of kbt");
}

}  // namespace kbt
