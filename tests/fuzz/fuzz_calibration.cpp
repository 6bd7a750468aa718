// libFuzzer target: the calibration file (docs/calibration.md), what `kbt
// info` and `device: auto` read back: read_calibration_file on arbitrary
// bytes written to a scratch file, then what kbt does with a file it accepts
// (the identity compared with a machine's, every model's prediction, the
// break-even table). kbt::Error (data_format, io) is the expected answer.
//
// The seed is a file of today's format (two spaces, points and break-even),
// written by the target itself: KBT_FUZZ_WRITE_SEED=PATH fuzz_calibration
// writes it to PATH and exits (scripts/fuzz.sh does this before fuzzing).

#include <kbt/calibration/calibration.hpp>

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <string>

#include "fuzz_support.hpp"

namespace {

kbt::MachineIdentity some_machine() {
  kbt::MachineIdentity m;
  m.host = "fuzz";
  m.cpu = "AMD EPYC";
  m.gpu = "none";
  m.kokkos_version = "3.4.01";
  m.spaces = {{"serial", 1}, {"openmp", 2}};
  return m;
}

void write_seed(const char* path) {
  kbt::Calibration c;
  c.kbt_version = "fuzz";
  c.created_utc = "2026-12-01T07:53:36Z";
  c.mode = "quick";
  c.machine = some_machine();
  const kbt::Complexity k{5, 0};
  for (const auto& [space, base] : {std::pair<const char*, double>{"serial", 4e-8}, {"openmp", 2e-8}}) {
    kbt::SpaceCostModel m;
    m.space = space;
    m.concurrency = space[0] == 's' ? 1 : 2;
    m.fixed_seconds = 3e-4;
    m.per_bar_combo_base = base;
    m.per_instruction = 5e-9;
    m.per_window_read = 2e-9;
    m.n_points = 2;
    c.models.push_back(m);
    for (const double combos : {10.0, 30000.0}) c.points.push_back({space, "sma_cross", 500, combos, k, 0.5});
  }
  c.break_even = kbt::break_even_table(c.models, {500}, {{"sma_cross", k}});
  std::ofstream(path, std::ios::binary) << kbt::format_calibration(c);
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kbt::fuzz::write_seed_if_asked(write_seed);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = kbt::fuzz::write_scratch_file("calibration.yaml", data, size);
  kbt::fuzz::run_expecting_kbt_errors([&] {
    const kbt::Calibration c = kbt::read_calibration_file(path);
    (void)kbt::identity_mismatches(c.machine, some_machine());
    const kbt::Complexity k{12, 40};
    for (const auto& m : c.models) (void)m.predict_seconds(1e6, 2e4, k);
    (void)kbt::break_even_table(c.models, {2e4}, {{"fuzz", k}});
  });
  return 0;
}
