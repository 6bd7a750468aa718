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

// The engine of a single-kernel job (labels, an action-driven simulation)
// that `requested` names: "reference", an enabled space's name, or "auto",
// Kokkos' default execution space. kbt::Error(unsupported) naming the enabled
// ones for a space this build does not enable. (Sweeps choose by the
// calibration instead: docs/calibration.md.)
std::string choose_job_device(const std::string& requested);

// "4.6.99"-style version of the Kokkos kbt was compiled against.
std::string kokkos_version_string();

}  // namespace kbt
