#include <Kokkos_Core.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>

namespace kbt {
namespace {

template <class Space>
ExecutionSpaceInfo describe(const char* name) {
  Space space;
  return {name, Space::name(), static_cast<int>(space.concurrency()),
          std::is_same<Space, Kokkos::DefaultExecutionSpace>::value};
}

}  // namespace

std::vector<ExecutionSpaceInfo> enabled_execution_spaces() {
  std::vector<ExecutionSpaceInfo> spaces;
#ifdef KOKKOS_ENABLE_SERIAL
  spaces.push_back(describe<Kokkos::Serial>("serial"));
#endif
#ifdef KOKKOS_ENABLE_OPENMP
  spaces.push_back(describe<Kokkos::OpenMP>("openmp"));
#endif
#ifdef KOKKOS_ENABLE_CUDA
  spaces.push_back(describe<Kokkos::Cuda>("cuda"));
#endif
  return spaces;
}

std::string choose_job_device(const std::string& requested) {
  if (requested == "reference") return requested;
  std::string enabled = "reference";
  for (const auto& s : enabled_execution_spaces()) {
    if (requested == "auto" ? s.is_default : s.name == requested) return s.name;
    enabled += ", " + s.name;
  }
  throw Error(ErrorCategory::unsupported,
              "device '" + requested + "' is not enabled in this build of kbt (enabled: " + enabled + ")");
}

std::string kokkos_version_string() {
  const int v = KOKKOS_VERSION;
  return std::to_string(v / 10000) + "." + std::to_string(v / 100 % 100) + "." +
         (v % 100 < 10 ? "0" : "") + std::to_string(v % 100);
}

}  // namespace kbt
