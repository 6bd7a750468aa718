// The per-backend test harness itself: the spaces the typed tests run on are
// exactly the ones CMake found (KBT_KOKKOS_DEVICES), and the multi-thread ctest
// runs really get the thread count they ask for.
#include "support/execution_spaces.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <string>

TEST(ExecutionSpaceHarness, TypedTestSpacesMatchCMake) {
  EXPECT_EQ(kbt::test::enabled_space_names(), std::string(KBT_TEST_KOKKOS_DEVICES));
  EXPECT_FALSE(kbt::test::enabled_space_names().empty());
}

TEST(ExecutionSpaceHarness, HostThreadCountIsTheRequestedOne) {
  const char* requested = std::getenv("KBT_TEST_HOST_THREADS");
  if (requested == nullptr) GTEST_SKIP() << "not a fixed-thread-count run";
#ifdef KOKKOS_ENABLE_OPENMP
  EXPECT_EQ(Kokkos::OpenMP().concurrency(), std::atoi(requested));
#else
  GTEST_SKIP() << "no OpenMP in this Kokkos";
#endif
}
