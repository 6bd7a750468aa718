#pragma once
// A host vector copied into a new View on a memory space.

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

namespace kbt {
namespace detail {

template <class T, class Space>
Kokkos::View<T*, Space> upload_1d(const std::vector<T>& host, const char* label) {
  Kokkos::View<T*, Space> dev(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), host.size());
  Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> src(host.data(), host.size());
  Kokkos::deep_copy(dev, src);
  return dev;
}

}  // namespace detail
}  // namespace kbt
