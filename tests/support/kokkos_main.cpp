// GoogleTest main that brackets the whole run with Kokkos::initialize/finalize:
// no Kokkos object may exist before initialize or after finalize.
#include <Kokkos_Core.hpp>
#include <gtest/gtest.h>

int main(int argc, char* argv[]) {
  ::testing::InitGoogleTest(&argc, argv);
  Kokkos::ScopeGuard kokkos(argc, argv);
  return RUN_ALL_TESTS();
}
