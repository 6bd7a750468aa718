// The sweep kernel on Kokkos::Cuda in fp64, compiled once for the library (one
// translation unit per space and precision, so that they build in parallel;
// include/kbt/sweep/sweep_kernel.hpp declares them extern).

#include <kbt/sweep/sweep_kernel.hpp>

#ifdef KOKKOS_ENABLE_CUDA
namespace kbt {
template class KernelSweeper<Kokkos::Cuda, double>;
}  // namespace kbt
#endif
