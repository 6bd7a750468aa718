// Configure-time probe (cmake/KbtKokkos.cmake): a default-constructed View must
// be safe to destroy and to assign. GCC 12 builds of Kokkos' mdspan-based View
// (4.6.99 develop and later, without Kokkos_ENABLE_IMPL_VIEW_LEGACY) leave its
// reference-count bits at 0, and the destructor then dereferences a null
// allocation record (kokkos/kokkos#7464): every kbt sweep would crash.
#include <Kokkos_Core.hpp>

int main() {
  Kokkos::View<int*, Kokkos::HostSpace> a;
  Kokkos::View<int*, Kokkos::HostSpace> b;
  b = a;
  return a.use_count() == 0 && b.data() == nullptr ? 0 : 1;
}
