// `kbt info`: what this build of kbt is and where it can run.

#include <CLI/CLI.hpp>
#include <H5public.h>
#include <kbt/calibration/calibration.hpp>
#include <kbt/core/configuration.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/core/version.hpp>

#include <cstdio>
#include <optional>
#include <sstream>
#include <string>

#include "cli/commands.hpp"
#include "cli/json_writer.hpp"
#include "cli/mpi_session.hpp"

namespace kbt::cli {

namespace {

const char* const conservative_rule = "conservative rule (cuda from 10000 combos, else openmp, else serial)";

struct InfoFacts {
  std::string hdf5;
  std::optional<CalibrationStatus> status;
  std::string calibration_error;  // a bad or missing explicit file
};

InfoFacts gather(const std::string& calibration) {
  InfoFacts f;
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  f.hdf5 = std::to_string(maj) + "." + std::to_string(min) + "." + std::to_string(rel);
  // A bad or missing explicit file is reported here, not as a failed command:
  // `kbt info` is where one looks when something is wrong.
  try {
    f.status = load_calibration_status(calibration, this_machine_identity());
  } catch (const Error& e) {
    f.calibration_error = std::string("error [") + to_string(e.category()) + "]: " + e.what();
  }
  return f;
}

void print_text(const InfoFacts& f) {
  std::ostringstream configuration;  // what a host code logs: kbt::print_configuration
  print_configuration(configuration, world_size());
  std::fputs(configuration.str().c_str(), stdout);
  if (!f.status) {
    std::printf("calibration: %s\n  device auto: %s\n", f.calibration_error.c_str(), conservative_rule);
    return;
  }
  const CalibrationStatus& st = *f.status;
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
    std::printf("  device auto: %s%s\n", conservative_rule,
                st.exists ? "" : "; run `kbt calibrate` to measure this machine");
  }
}

void print_json(const InfoFacts& f) {
  JsonWriter j;
  j.begin_object();
  j.key("kbt").value(version_string);
  j.key("build_type").value(KBT_BUILD_TYPE);
  j.key("kokkos").value(kokkos_version_string());
  j.key("hdf5").value(f.hdf5);
  j.key("mpi").value(mpi_compiled_in);
  j.key("mpi_ranks").value(world_size());
  j.key("execution_spaces").begin_array();
  for (const auto& s : enabled_execution_spaces()) {
    j.begin_object();
    j.key("name").value(s.name);
    j.key("kokkos_name").value(s.kokkos_name);
    j.key("concurrency").value(s.concurrency);
    j.key("default").value(s.is_default);
    j.end_object();
  }
  j.end_array();
  j.key("calibration").begin_object();
  const bool usable = f.status && f.status->usable();
  if (f.status) {
    j.key("path").value(f.status->location.path);
    j.key("source").value(f.status->location.source);
    j.key("exists").value(f.status->exists);
    j.key("usable").value(usable);
    j.key("status").value(f.status->describe());
  } else {
    j.key("usable").value(false);
    j.key("error").value(f.calibration_error);
  }
  j.key("models").begin_array();
  if (usable)
    for (const auto& m : f.status->calibration->models) {
      j.begin_object();
      j.key("space").value(m.space);
      j.key("fixed_seconds").value(m.fixed_seconds);
      j.key("per_bar_combo_base").value(m.per_bar_combo_base);
      j.key("per_instruction").value(m.per_instruction);
      j.key("per_window_read").value(m.per_window_read);
      j.end_object();
    }
  j.end_array();
  j.end_object();
  j.key("device_auto").value(usable ? "lowest predicted time" : conservative_rule);
  j.end_object();
  std::fputs(j.text().c_str(), stdout);
}

}  // namespace

void add_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print versions, enabled execution spaces and calibration status");
  static std::string calibration;
  static bool json = false;
  cmd->add_option("--calibration", calibration,
                  "Calibration file to check (default: $KBT_CALIBRATION, else ~/.config/kbt/calibration.yaml)");
  cmd->add_flag("--json", json, "Print the same facts as one JSON document (docs/cli.md)");
  cmd->footer("\nExamples:\n  kbt info\n  kbt info --json | jq -r '.execution_spaces[].name'");
  cmd->callback([] {
    const InfoFacts facts = gather(calibration);
    json ? print_json(facts) : print_text(facts);
  });
}

}  // namespace kbt::cli
