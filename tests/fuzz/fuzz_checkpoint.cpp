// libFuzzer target: what `kbt run --resume` and `kbt show` of a checkpoint
// read back (docs/results.md "Incomplete runs and --resume"): the status
// attributes, then Checkpoint::resume for the run that wrote the seed, then
// every row. kbt::Error (data_format, io, config: "another run's
// checkpoint") is the expected answer. In this process, not kbt's reader
// child, as in fuzz_results: the fuzzer is there to see the crashes that the
// child turns into data_format errors.
//
// The seed is a checkpoint of this target's own run (300 combos of one
// parameter, 100 committed), written by the target itself so that it always
// matches today's format: KBT_FUZZ_WRITE_SEED=PATH fuzz_checkpoint writes it
// to PATH and exits (scripts/fuzz.sh does this before fuzzing).

#include <kbt/config/combo_rows.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/output/checkpoint.hpp>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include <hdf5.h>

#include "fuzz_support.hpp"
#include "output/results_io.hpp"

namespace {

struct SeedRun {
  kbt::ComboRows combos;
  kbt::CheckpointIdentity identity;
};

const SeedRun& seed_run() {
  static const SeedRun run = [] {
    kbt::ParamSpec a;
    a.name = "a";
    for (int v = 1; v <= 300; ++v) a.values.push_back(v);
    SeedRun r{kbt::ComboRows::of_grid(kbt::ParamGrid({a})), {}};
    r.identity.kbt_version = "fuzz";
    r.identity.config_yaml = "strategy: fuzz";
    r.identity.data_path = "/fuzz/data.h5";
    r.identity.data_digest = "0123456789abcdef";
    r.identity.device = "reference";
    r.identity.precision = "fp64";
    r.identity.sample = "none";
    r.identity.n_combos = 300;
    return r;
  }();
  return run;
}

void write_seed(const char* path) {
  const SeedRun& run = seed_run();
  auto checkpoint = kbt::Checkpoint::create(path, run.identity, {"a"}, run.combos, kbt::all_metrics_mask, "r.h5",
                                            "kbt run fuzz.yaml --resume");
  const std::vector<double> rows(100 * kbt::n_metrics, 2.0);
  checkpoint->commit(0, 100, rows.data());
}

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  kbt::set_hdf5_read_isolation(kbt::Hdf5ReadIsolation::in_process);
  kbt::fuzz::write_seed_if_asked(write_seed);
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string path = kbt::fuzz::write_scratch_file("r.h5.partial.h5", data, size);
  const SeedRun& run = seed_run();
  kbt::fuzz::run_expecting_kbt_errors([&] { kbt::read_checkpoint_status(path); });
  kbt::fuzz::run_expecting_kbt_errors([&] {
    const auto checkpoint = kbt::Checkpoint::resume(path, run.identity, {"a"}, run.combos, kbt::all_metrics_mask);
    kbt::detail::read_every_row(*checkpoint->rows());
  });
  const ssize_t open_objects = H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL);
  if (open_objects != 0) {
    std::fprintf(stderr, "the checkpoint readers left %zd HDF5 object(s) open\n", open_objects);
    std::abort();
  }
  return 0;
}
