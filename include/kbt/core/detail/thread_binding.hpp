#pragma once
// What kbt's own programs (the CLI, the Python module) tell the OpenMP runtime
// about thread binding before they start Kokkos (docs/cli.md "Threads"). A
// host code that starts Kokkos itself decides this itself.

namespace kbt::detail {

// Where the user set neither OMP_PROC_BIND nor OMP_PLACES, sets
// OMP_PROC_BIND=false: threads are left to the operating system, which is
// what the OpenMP runtime does without the variables anyway, and Kokkos then
// prints no binding advice before kbt's output. kbt does not pin by default
// because several kbt processes often share a machine (parallel runs, tests,
// notebooks), and pinned threads of two processes would share the same cores.
// A user's own setting is left as it is.
void leave_threads_unbound_unless_chosen();

}  // namespace kbt::detail
