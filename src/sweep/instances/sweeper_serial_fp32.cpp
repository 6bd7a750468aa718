// The sweep kernel on Kokkos::Serial in fp32, compiled once for the library (one
// translation unit per space and precision, so that they build in parallel;
// include/kbt/sweep/sweep_kernel.hpp declares them extern).

#include <kbt/sweep/sweep_kernel.hpp>

#ifdef KOKKOS_ENABLE_SERIAL
namespace kbt {
template class KernelSweeper<Kokkos::Serial, float>;
}  // namespace kbt
#endif
