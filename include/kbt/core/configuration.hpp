#pragma once
// What this build of kbt is, for a host code's log (and `kbt info`, which
// prints the same): kbt's version and build type, Kokkos' version and the
// execution spaces it enables with their concurrency, HDF5, and MPI.

#include <iosfwd>

namespace kbt {

// `mpi_ranks` > 0 names the ranks of a running MPI job on the MPI line.
void print_configuration(std::ostream& out, int mpi_ranks = 0);

}  // namespace kbt
