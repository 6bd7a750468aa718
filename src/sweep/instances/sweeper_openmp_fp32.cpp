// The sweep kernel on Kokkos::OpenMP in fp32, compiled once for the library (one
// translation unit per space and precision, so that they build in parallel;
// include/kbt/sweep/sweep_kernel.hpp declares them extern).

#include <kbt/sweep/sweep_kernel.hpp>

#ifdef KOKKOS_ENABLE_OPENMP
namespace kbt {
template class KernelSweeper<Kokkos::OpenMP, float>;
}  // namespace kbt
#endif
