// A damaged calibration file (docs/calibration.md "Which file applies"),
// through the real binary: `kbt info` and `kbt run --device auto` on seeded
// bit flips and truncations of a file that matches this machine give a
// reading, or one data_format error naming file:line:col — never a crash, an
// internal error or a hang. Before, the same damage was reported as a config
// error (as if the user's config were wrong), a byte flipped out of UTF-8 went
// on into `kbt info`, run profiles and Python (a UnicodeDecodeError there), a
// FIFO named as the file hung kbt, and a huge file was read into memory whole.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/calibration/calibration.hpp>

#include <cstdio>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include <sys/stat.h>

#include "data/utf8.hpp"
#include "support/cli_runner.hpp"
#include "support/damage.hpp"
#include "support/scratch_dir.hpp"
#include "unit/test_calibration_support.hpp"

namespace {

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_damaged_calibration") {}
};

const std::string kConfig = std::string(KBT_SOURCE_DIR) + "/configs/sma_cross.yaml";

struct Tally {
  int read = 0, refused = 0;
};

// `kbt info` never fails for a bad file (it reports it); `kbt run --device
// auto` exits 0 or 1 with the error. Either way the error is data_format and
// names the file (at file:line:col for what the YAML holds).
void expect_clean(const std::string& file, const Scratch& s, Tally& tally) {
  const auto info = kbt::test::run_command("timeout 60 '" + std::string(KBT_CLI_PATH) + "' info --calibration '" +
                                           file + "'");
  ASSERT_EQ(info.exit_code, 0) << info.output;
  EXPECT_EQ(info.output.find("[internal]"), std::string::npos) << info.output;
  // What a file gets through to (here a mismatch naming its host, in a run's
  // profile and Python's strings) is text.
  EXPECT_TRUE(kbt::detail::is_utf8(info.output)) << info.output;
  const bool refused = info.output.find("calibration: error [") != std::string::npos;
  if (refused)
    EXPECT_NE(info.output.find("calibration: error [data_format]: " + file + ":"), std::string::npos) << info.output;
  else
    EXPECT_NE(info.output.find("calibration: " + file + " (--calibration) "), std::string::npos) << info.output;
  const auto run = kbt::test::run_command("timeout 120 '" + std::string(KBT_CLI_PATH) + "' run '" + kConfig +
                                          "' --device auto --quiet --no-verify --calibration '" + file + "' -o '" +
                                          (s / "r.h5") + "'");
  ASSERT_TRUE(run.exit_code == 0 || run.exit_code == 1) << run.output;
  EXPECT_EQ(run.exit_code == 1, refused) << "info and run disagree:\n" << info.output << "\n" << run.output;
  if (run.exit_code == 1) {
    EXPECT_EQ(run.output.find("[internal]"), std::string::npos) << run.output;
    EXPECT_NE(run.output.find("kbt: error [data_format]: " + file + ":"), std::string::npos) << run.output;
  }
  ++(refused ? tally.refused : tally.read);
}

std::string clean_calibration() {
  const kbt::MachineIdentity here = kbt::this_machine_identity();
  std::vector<kbt::SpaceCostModel> models;
  for (const auto& space : here.spaces) models.push_back(kbt::test::cost_model(space.name, 1e-3, 1e-8, 1e-9, 1e-9));
  return kbt::format_calibration(kbt::test::crafted_calibration(here, models));
}

}  // namespace

TEST(CliDamagedCalibration, FlippedOrTruncatedCalibrationIsReadOrRefusedCleanly) {
  Scratch s;
  const std::string clean = clean_calibration();
  const std::string file = s / "calibration.yaml";
  kbt::test::write_bytes(file, clean);
  const auto info = kbt::test::run_kbt("info --calibration '" + file + "'");
  ASSERT_NE(info.output.find("matches this machine"), std::string::npos) << "the clean file must be used:\n" << info.output;
  Tally tally;
  std::mt19937_64 rng(20261208);
  for (int variant = 0; variant < 16; ++variant) {
    SCOPED_TRACE("variant " + std::to_string(variant));
    kbt::test::write_bytes(file, kbt::test::flipped(clean, rng, 1, 8));  // text: a few flips already break it
    expect_clean(file, s, tally);
  }
  for (const std::size_t keep : {clean.size() / 2, clean.size() - 7, std::size_t{3}}) {
    SCOPED_TRACE("truncated to " + std::to_string(keep));
    kbt::test::write_bytes(file, clean.substr(0, keep));
    expect_clean(file, s, tally);
  }
  EXPECT_GT(tally.refused, 5) << "the damage was too light to prove anything";
  std::printf("damaged calibration files: %d read, %d refused\n", tally.read, tally.refused);
}

// Not a file kbt wrote at all: far too large (data_format, before reading
// it), or not a regular file (io; a FIFO would block the read for ever).
TEST(CliDamagedCalibration, AHugeFileOrAFifoIsRefusedWithoutReadingIt) {
  Scratch s;
  const std::string huge = s / "huge.yaml";
  std::filesystem::resize_file((kbt::test::write_bytes(huge, "format: 1\n"), huge), 64u << 20);  // sparse
  const auto big = kbt::test::run_kbt("info --calibration '" + huge + "'");
  EXPECT_NE(big.output.find("calibration: error [data_format]: " + huge + ": 67108864 bytes, far more than a calibration file"),
            std::string::npos)
      << big.output;
  const std::string fifo = s / "fifo.yaml";
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto blocked = kbt::test::run_command("timeout 30 '" + std::string(KBT_CLI_PATH) + "' info --calibration '" +
                                              fifo + "'");
  EXPECT_EQ(blocked.exit_code, 0) << "(124: timed out) " << blocked.output;
  EXPECT_NE(blocked.output.find("calibration: error [io]: cannot read calibration file '" + fifo + "': not a regular file"),
            std::string::npos)
      << blocked.output;
}

// The calibration cases of the bad-input corpus (tests/bad_input/calibration/):
// each names the file, line and what is wrong.
TEST(CliDamagedCalibration, BadInputCorpus) {
  struct Case {
    const char* file;
    int line;
    const char* wants;
  };
  const std::vector<Case> cases = {
      {"truncated_in_a_flow_map.yaml", 29, "YAML syntax error: end of map flow not found"},
      {"flipped_key.yaml", 21, "unknown key 'per_instructioo' in 'serial'; did you mean 'per_instruction'?"},
      {"flipped_digit.yaml", 22, "'per_window_read' must be a finite number (got '1/948338289109812e-09')"},
      {"flipped_format.yaml", 5, "unsupported calibration format 3 (this kbt reads format 1)"},
      {"flipped_to_non_utf8.yaml", 11, ":12: not UTF-8 text (byte 0xa0): the file is damaged"},
      {"binary_garbage.yaml", 1, ":1: not UTF-8 text (byte 0x89)"},  // the first bytes of an HDF5 file
  };
  const std::string dir = std::string(KBT_TEST_DIR) + "/bad_input/calibration/";
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = dir + c.file;
    ASSERT_TRUE(std::filesystem::exists(path)) << "corpus file missing: " << path;
    const auto info = kbt::test::run_kbt("info --calibration '" + path + "'");
    const std::string at = "calibration: error [data_format]: " + path + ":" + std::to_string(c.line) + ":";
    EXPECT_NE(info.output.find(at), std::string::npos) << info.output;
    EXPECT_NE(info.output.find(c.wants), std::string::npos) << info.output;
  }
  std::size_t on_disk = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) on_disk += entry.path().extension() == ".yaml";
  EXPECT_EQ(on_disk, cases.size()) << "a corpus file without a case here";
}
