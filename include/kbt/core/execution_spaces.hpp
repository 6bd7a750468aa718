#pragma once
// The execution spaces this build of kbt can run sweeps on, by stable name.

#include <string>
#include <vector>

namespace kbt {

struct ExecutionSpaceInfo {
  std::string name;         // "serial", "openmp", "cuda"
  std::string kokkos_name;  // Kokkos' own name for it
  int concurrency;          // threads (host) or resident threads (device)
  bool is_default;          // Kokkos::DefaultExecutionSpace
};

// Requires Kokkos to be initialized.
std::vector<ExecutionSpaceInfo> enabled_execution_spaces();

// "4.6.99"-style version of the Kokkos kbt was compiled against.
std::string kokkos_version_string();

}  // namespace kbt
