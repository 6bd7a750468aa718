// Damaged files that kbt reads back (docs/results.md "Damaged files"): a
// results file with flipped bits or cut short, and a damaged checkpoint on
// --resume, give one data_format error naming the file — never a crash, never
// an internal error. Before, libhdf5 crashed kbt itself (SIGSEGV in
// H5Aiterate2 under `kbt show`) or a declared size reached the allocator
// ("cannot create std::vector larger than max_size()").

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/core/error.hpp>
#include <kbt/output/checkpoint.hpp>
#include <kbt/output/results.hpp>

#include <filesystem>
#include <random>
#include <string>
#include <unistd.h>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/damage.hpp"

namespace {

namespace fs = std::filesystem;

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("kbt_damaged_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

using kbt::test::bytes_of;
using kbt::test::flipped;
using kbt::test::write_bytes;

struct Tally {
  int read = 0, refused = 0, crashed_in_reader = 0;
};

// One reader command on a damaged file: exit 0, or exit 1 with one line that
// is a data_format error naming the file.
void expect_clean(const std::string& args, const std::string& file, Tally& tally) {
  const kbt::test::CliResult r = kbt::test::run_kbt(args);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << args << " exited " << r.exit_code << ":\n" << r.output;
  if (r.exit_code == 0) {
    ++tally.read;
    return;
  }
  ++tally.refused;
  EXPECT_EQ(r.output.find("[internal]"), std::string::npos) << args << "\n" << r.output;
  EXPECT_NE(r.output.find("kbt: error [data_format]: " + file + ": "), std::string::npos) << args << "\n" << r.output;
  tally.crashed_in_reader += r.output.find("the HDF5 library crashed reading this file") != std::string::npos;
}

}  // namespace

TEST(ResultsDamaged, EveryReaderRefusesAFlippedOrTruncatedResultsFileCleanly) {
  const fs::path dir = scratch("results");
  const fs::path clean = dir / "r.h5";
  const auto run = kbt::test::run_kbt("run '" + std::string(KBT_SOURCE_DIR) +
                                      "/configs/sma_cross.yaml' --device reference --quiet -o '" + clean.string() + "'");
  ASSERT_EQ(run.exit_code, 0) << run.output;
  const std::string bytes = bytes_of(clean);
  ASSERT_GT(bytes.size(), 10000u);
  const std::string d = (dir / "d.h5").string();
  const std::vector<std::string> readers = {"show '" + d + "'", "show '" + d + "' --sort total_return",
                                            "plot '" + d + "' --x fast --y slow --out '" + (dir / "d.png").string() + "'",
                                            "backtest '" + d + "' --combo 3"};
  Tally tally;
  std::mt19937_64 rng(20261207);
  for (int variant = 0; variant < 24; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    write_bytes(d, flipped(bytes, rng));
    for (const auto& args : readers) expect_clean(args, d, tally);
  }
  for (const std::size_t keep : {bytes.size() / 2, bytes.size() / 3, bytes.size() - 100}) {
    SCOPED_TRACE("truncated to " + std::to_string(keep));
    write_bytes(d, bytes.substr(0, keep));
    for (const auto& args : readers) expect_clean(args, d, tally);
  }
  // Not vacuous: damage that libhdf5 survives, damage it does not.
  EXPECT_GT(tally.refused, 0);
  EXPECT_GT(tally.crashed_in_reader, 0) << "no variant made libhdf5 crash: the isolation was not exercised";
  std::printf("damaged results files: %d reads, %d refusals (%d of them libhdf5 crashes in the reader process)\n",
              tally.read, tally.refused, tally.crashed_in_reader);
}

// --resume reads the checkpoint back: a damaged one is refused with an error
// naming it (its identity or rows may also read as another run's: config).
TEST(ResultsDamaged, ResumeAndStatusRefuseADamagedCheckpointCleanly) {
  const fs::path dir = scratch("checkpoint");
  kbt::ParamSpec a;
  a.name = "a";
  for (int v = 1; v <= 300; ++v) a.values.push_back(v);
  const kbt::ComboRows combos = kbt::ComboRows::of_grid(kbt::ParamGrid({a}));
  kbt::CheckpointIdentity id =
      kbt::CheckpointIdentity::for_data(std::string(KBT_SOURCE_DIR) + "/data/sample.h5", "0123456789abcdef");
  id.n_combos = 300;
  const fs::path clean = dir / "clean.h5.partial.h5";
  {
    auto checkpoint = kbt::Checkpoint::create(clean.string(), id, {"a"}, combos, kbt::all_metrics_mask, "r.h5",
                                              "kbt run x.yaml --resume");
    const std::vector<double> rows(100 * kbt::n_metrics, 2.0);  // whole: counts are stored as int64
    checkpoint->commit(0, 100, rows.data());
  }
  const std::string bytes = bytes_of(clean);
  const fs::path d = dir / "d.h5.partial.h5";
  std::mt19937_64 rng(7);
  int refused = 0;
  for (int variant = 0; variant < 24; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    write_bytes(d, flipped(bytes, rng));
    for (const bool resume : {false, true}) {
      try {
        if (resume)
          kbt::Checkpoint::resume(d.string(), id, {"a"}, combos, kbt::all_metrics_mask);
        else
          kbt::read_checkpoint_status(d.string());
      } catch (const kbt::Error& e) {
        ++refused;
        const std::string msg = e.what();
        EXPECT_NE(e.category(), kbt::ErrorCategory::internal) << msg;
        EXPECT_EQ(msg.rfind(d.string() + ": ", 0), 0u) << msg;
      }
    }
  }
  EXPECT_GT(refused, 10) << "the damage was too light to prove anything";
}
