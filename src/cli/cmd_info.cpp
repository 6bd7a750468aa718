// `kbt info`: what this build of kbt is and where it can run.

#include <CLI/CLI.hpp>
#include <H5public.h>
#include <kbt/execution_spaces.hpp>
#include <kbt/version.hpp>

#include <cstdio>

#include "cli/commands.hpp"

namespace kbt::cli {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print versions, enabled execution spaces and calibration status");
  cmd->callback([] {
    unsigned maj = 0, min = 0, rel = 0;
    H5get_libversion(&maj, &min, &rel);
    std::printf("kbt %s\n", version_string);
    std::printf("Kokkos %s\n", kokkos_version_string().c_str());
    std::printf("HDF5 %u.%u.%u\n", maj, min, rel);
    std::printf("execution spaces:\n");
    for (const auto& s : enabled_execution_spaces()) {
      std::printf("  %-7s (Kokkos %s) concurrency %d%s\n", s.name.c_str(), s.kokkos_name.c_str(),
                  s.concurrency, s.is_default ? "  [default]" : "");
    }
    std::printf("calibration: none (kbt calibrate is not available in this version)\n");
  });
}

}  // namespace kbt::cli
