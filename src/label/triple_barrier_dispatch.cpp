// Triple-barrier labels on an engine named at run time: the reference, or
// the kernel instantiated for every execution space this Kokkos enables.

#include <kbt/core/error.hpp>
#include <kbt/label/label_job.hpp>

namespace kbt {

BarrierLabels triple_barrier_on_device(const std::string& device, const BarrierInputs& in,
                                       const std::vector<BarrierSetting>& settings) {
  if (device == "reference") return triple_barrier_reference(in, settings);
#ifdef KOKKOS_ENABLE_SERIAL
  if (device == "serial") return triple_barrier_on<Kokkos::Serial>(in, settings);
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  if (device == "openmp") return triple_barrier_on<Kokkos::OpenMP>(in, settings);
#endif
#ifdef KOKKOS_ENABLE_CUDA
  if (device == "cuda") return triple_barrier_on<Kokkos::Cuda>(in, settings);
#endif
  throw Error(ErrorCategory::unsupported, "device '" + device + "' is not enabled in this build of kbt");
}

}  // namespace kbt
