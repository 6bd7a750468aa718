// Uses kbt the way an application does: Kokkos initialized by the caller, kbt's
// public headers (a kernel with kbt math) and its library (space listing).
#include <kbt/detail/scalar_math.hpp>
#include <kbt/execution_spaces.hpp>
#include <kbt/kokkos_compat.hpp>

#include <Kokkos_Core.hpp>

#include <cstdio>
#include <string>

struct Compound {
  Kokkos::View<double*> out;
  KOKKOS_INLINE_FUNCTION void operator()(const int i) const {
    out(i) = kbt::math::pow(1.0 + 0.01 * (i + 1), 12.0) * kbt::math::exp(0.0);
  }
};

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard kokkos(argc, argv);
  Kokkos::View<double*> out("out", 3);
  Kokkos::parallel_for("compound", Kokkos::RangePolicy<>(0, 3), Compound{out});
  kbt::kx::fence("compound");
  auto host = kbt::kx::to_host(out);
  std::string spaces;
  for (const auto& space : kbt::enabled_execution_spaces()) {
    spaces += (spaces.empty() ? "" : ",") + space.name;
  }
  // 1.01^12, 1.02^12, 1.03^12 to 6 places: 1.126825 1.268242 1.425761
  std::printf("kbt downstream: kokkos %s spaces=%s growth=%.6f %.6f %.6f\n",
              kbt::kokkos_version_string().c_str(), spaces.c_str(), host(0), host(1), host(2));
  return 0;
}
