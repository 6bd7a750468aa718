// `kbt calibrate`: time every enabled execution space (Google Benchmark), fit
// the cost model and write this machine's calibration file (docs/calibration.md).

#include <CLI/CLI.hpp>
#include <kbt/calibration/calibration.hpp>
#include <kbt/core/error.hpp>

#include <chrono>
#include <cstdio>

#include "calibrate_runner/run_calibration.hpp"
#include "cli/commands.hpp"

namespace kbt::cli {
namespace {

struct CalibrateArgs {
  std::string out;
  bool quick = false;
  bool tiny = false;  // hidden: the test suite's smallest ladder
  bool quiet = false;
};

void calibrate(const CalibrateArgs& a) {
  const auto t0 = std::chrono::steady_clock::now();
  CalibrateOptions options;
  options.mode = a.tiny ? "tiny" : a.quick ? "quick" : "full";
  options.progress = a.quiet ? nullptr : stderr;
  const CalibrationLocation location = resolve_calibration_location(a.out);
  if (location.path.empty())
    throw Error(ErrorCategory::io, "no place for the calibration file: HOME and XDG_CONFIG_HOME are not set; use --out FILE");
  if (!a.quiet)
    std::fprintf(stderr, "kbt: calibrating (%s): whole sweeps (plan, upload, kernel, download) per space, workload, bars, combos\n",
                 options.mode.c_str());
  const Calibration c = run_calibration(options);
  write_calibration_file(location.path, c);
  std::fputs(format_calibration_summary(c).c_str(), stdout);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("calibration: %s (%zu points, %.1f s)\n", location.path.c_str(), c.points.size(), seconds);
}

}  // namespace

void add_calibrate_command(CLI::App& app) {
  static CalibrateArgs args;
  auto* cmd = app.add_subcommand("calibrate", "Time every execution space and write this machine's calibration file");
  cmd->add_option("--out,-o", args.out,
                  "Calibration file to write (default: $KBT_CALIBRATION, else $XDG_CONFIG_HOME/kbt/calibration.yaml, "
                  "else ~/.config/kbt/calibration.yaml)");
  cmd->add_flag("--quick", args.quick, "A shorter ladder (about 15 s for Serial on 2 cores; the full one takes minutes)");
  cmd->add_flag("--tiny", args.tiny, "The test suite's ladder (seconds; not for real use)")->group("");
  cmd->add_flag("--quiet", args.quiet, "No progress lines on stderr");
  cmd->footer("\nExamples:\n  kbt calibrate --quick\n  kbt calibrate -o /shared/calibration-node17.yaml");
  cmd->callback([] { calibrate(args); });
}

}  // namespace kbt::cli
