#include <kbt/core/configuration.hpp>

#include <kbt/core/execution_spaces.hpp>
#include <kbt/core/version.hpp>

#include <H5public.h>

#include <cstdio>
#include <ostream>
#include <string>

namespace kbt {

void print_configuration(std::ostream& out, int mpi_ranks) {
  unsigned major = 0, minor = 0, release = 0;
  H5get_libversion(&major, &minor, &release);
  out << "kbt " << version_string << " (" << (*KBT_BUILD_TYPE ? std::string(KBT_BUILD_TYPE) + " build" : "no CMAKE_BUILD_TYPE")
      << ")\n"
      << "Kokkos " << kokkos_version_string() << "\n"
      << "HDF5 " << major << '.' << minor << '.' << release << "\n"
      << "MPI: ";
  if (!mpi_compiled_in)
    out << "no (build with -DKBT_ENABLE_MPI=ON; docs/mpi.md)\n";
  else if (mpi_ranks > 0)
    out << "yes, " << mpi_ranks << " rank" << (mpi_ranks == 1 ? "" : "s") << " (mpirun kbt run; docs/mpi.md)\n";
  else
    out << "yes (mpirun kbt run; docs/mpi.md)\n";
  out << "execution spaces:\n";
  for (const auto& s : enabled_execution_spaces()) {
    char line[160];
    std::snprintf(line, sizeof line, "  %-7s (Kokkos %s) concurrency %d%s\n", s.name.c_str(), s.kokkos_name.c_str(),
                  s.concurrency, s.is_default ? "  [default]" : "");
    out << line;
  }
}

}  // namespace kbt
