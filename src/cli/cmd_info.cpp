// `kbt info`: what this build of kbt is and where it can run.

#include <CLI/CLI.hpp>
#include <H5public.h>
#include <kbt/calibration/calibration.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/core/version.hpp>

#include <cstdio>

#include "cli/commands.hpp"

namespace kbt::cli {

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print versions, enabled execution spaces and calibration status");
  static std::string calibration;
  cmd->add_option("--calibration", calibration,
                  "Calibration file to check (default: $KBT_CALIBRATION, else ~/.config/kbt/calibration.yaml)");
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
    // A bad or missing explicit file is reported here, not as a failed command:
    // `kbt info` is where one looks when something is wrong.
    try {
      const CalibrationStatus st = load_calibration_status(calibration, this_machine_identity());
      std::printf("calibration: %s\n", st.describe().c_str());
      if (st.usable()) {
        for (const auto& m : st.calibration->models)
          std::printf("  %-7s fixed %.3g s; per bar-combo %.3g s + %.3g s/instruction + %.3g s/window read\n",
                      m.space.c_str(), m.fixed_seconds, m.per_bar_combo_base, m.per_instruction, m.per_window_read);
        for (const auto& b : st.calibration->break_even)
          std::printf("  break-even %s vs %s, %s, %g bars: %s\n", b.host.c_str(), b.other.c_str(), b.workload.c_str(),
                      b.bars, b.combos ? (std::to_string(static_cast<long long>(*b.combos)) + " combos").c_str() : "never");
        std::printf("  device auto: lowest predicted time\n");
      } else {
        std::printf("  device auto: conservative rule (cuda from 10000 combos, else openmp, else serial)%s\n",
                    st.exists ? "" : "; run `kbt calibrate` to measure this machine");
      }
    } catch (const Error& e) {
      std::printf("calibration: error [%s]: %s\n", to_string(e.category()), e.what());
      std::printf("  device auto: conservative rule (cuda from 10000 combos, else openmp, else serial)\n");
    }
  });
}

}  // namespace kbt::cli
