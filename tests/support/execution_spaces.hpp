#pragma once
// The execution spaces this Kokkos enables, as GoogleTest type lists, so that a
// typed test runs once per space (docs/testing.md: tests run on every enabled space):
//
//   template <class Space> class MyKernel : public ::testing::Test {};
//   TYPED_TEST_SUITE(MyKernel, kbt::test::ExecutionSpaces, kbt::test::SpaceNames);
//   TYPED_TEST(MyKernel, Works) { using Space = TypeParam; ... }
//
// Launch kernels from free function templates or named functors, not from a
// KOKKOS_LAMBDA written in the TYPED_TEST body: that body is a private member
// function, where nvcc rejects extended lambdas.
//
// Also kbt::test::SpaceRealPairs / SpaceRealNames for kernels templated on
// (space, real type). The list follows KOKKOS_ENABLE_* from Kokkos' own config
// header; the CMake-side list (KBT_KOKKOS_DEVICES) is checked against it by
// tests/unit/test_execution_space_harness.cpp. Test names read
// "MyKernel/Serial.Works", "MyKernel/OpenMP.Works", "MyKernel/Cuda_float.Works".

#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

#include <string>

namespace kbt::test {

template <class... Ts>
struct TypeList {};

template <class List, class T>
struct Append;
template <class... Ts, class T>
struct Append<TypeList<Ts...>, T> {
  using type = TypeList<Ts..., T>;
};

template <class List>
struct ToGtest;
template <class... Ts>
struct ToGtest<TypeList<Ts...>> {
  using type = ::testing::Types<Ts...>;
};

using SpaceList0 = TypeList<>;
#ifdef KOKKOS_ENABLE_SERIAL
using SpaceList1 = Append<SpaceList0, Kokkos::Serial>::type;
#else
using SpaceList1 = SpaceList0;
#endif
#ifdef KOKKOS_ENABLE_OPENMP
using SpaceList2 = Append<SpaceList1, Kokkos::OpenMP>::type;
#else
using SpaceList2 = SpaceList1;
#endif
#ifdef KOKKOS_ENABLE_CUDA
using SpaceList3 = Append<SpaceList2, Kokkos::Cuda>::type;
#else
using SpaceList3 = SpaceList2;
#endif
using EnabledSpaces = SpaceList3;

using ExecutionSpaces = ToGtest<EnabledSpaces>::type;

// Kokkos' own name of the space: "Serial", "OpenMP", "Cuda".
struct SpaceNames {
  template <class Space>
  static std::string GetName(int) {
    return Space::name();
  }
};

// (execution space, real type) pairs for kernels templated on both.
template <class SpaceT, class RealT>
struct SpaceReal {
  using Space = SpaceT;
  using Real = RealT;
};

template <class List>
struct WithReals;
template <class... Spaces>
struct WithReals<TypeList<Spaces...>> {
  using type = ::testing::Types<SpaceReal<Spaces, double>..., SpaceReal<Spaces, float>...>;
};
using SpaceRealPairs = WithReals<EnabledSpaces>::type;

struct SpaceRealNames {
  template <class Pair>
  static std::string GetName(int) {
    const bool is_double = std::is_same<typename Pair::Real, double>::value;
    return std::string(Pair::Space::name()) + (is_double ? "_double" : "_float");
  }
};

// The spaces as the lower-case, comma-separated names CMake uses
// (KBT_KOKKOS_DEVICES, upper-case there): "serial,openmp".
inline std::string enabled_space_names() {
  std::string names;
  auto add = [&names](const char* name) { names += (names.empty() ? "" : ",") + std::string(name); };
#ifdef KOKKOS_ENABLE_SERIAL
  add("serial");
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  add("openmp");
#endif
#ifdef KOKKOS_ENABLE_CUDA
  add("cuda");
#endif
  return names;
}

}  // namespace kbt::test
