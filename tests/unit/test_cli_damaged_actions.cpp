// A damaged actions file (docs/simulate.md "The simulate job": `simulate.actions`),
// through the real binary: seeded bit flips, truncation and a shape that
// declares more than the file holds give exit 0 or one error naming the file
// (and the dataset) — data_format, or config for a flipped value that is not
// an action — never a crash, an internal error or a half-written output.
// Before, the declared shape went straight to the allocator: a shape of 2^40
// bars was `[limit] out of memory` in the reader process and killed kbt by
// std::bad_alloc with KBT_HDF5_IN_PROCESS=1.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <hdf5.h>
#include <kbt/data/data_io.hpp>

#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "support/cli_runner.hpp"
#include "support/damage.hpp"
#include "support/scratch_dir.hpp"

namespace {

struct Scratch : kbt::test::ScratchDir {
  Scratch() : ScratchDir("cli_damaged_actions") {}
};

const std::string kSample = std::string(KBT_SOURCE_DIR) + "/data/sample.h5";

// Dataset /actions of `dims` (float64, 0.5 everywhere), contiguous or chunked + deflated.
void write_actions(const std::string& path, const std::vector<hsize_t>& dims, bool deflate) {
  std::size_t n = 1;
  for (const auto d : dims) n *= d;
  const std::vector<double> values(n, 0.5);
  const hid_t file = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
  const hid_t space = H5Screate_simple(static_cast<int>(dims.size()), dims.data(), nullptr);
  const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
  if (deflate) {
    H5Pset_chunk(dcpl, static_cast<int>(dims.size()), dims.data());
    H5Pset_deflate(dcpl, 6);
  }
  const hid_t set = H5Dcreate2(file, "actions", H5T_IEEE_F64LE, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
  H5Dwrite(set, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data());
  H5Dclose(set);
  H5Pclose(dcpl);
  H5Sclose(space);
  H5Fclose(file);
}

// `bytes` with the shape `dims` in the dataspace message (8-byte little-endian
// extents, consecutive) replaced by `declared`; empty when it is not found.
std::string with_declared_shape(std::string bytes, const std::vector<std::uint64_t>& dims,
                                const std::vector<std::uint64_t>& declared) {
  std::string from(dims.size() * 8, '\0'), to(declared.size() * 8, '\0');
  for (std::size_t i = 0; i < dims.size(); ++i)
    for (int b = 0; b < 8; ++b) {
      from[i * 8 + b] = static_cast<char>((dims[i] >> (8 * b)) & 0xff);
      to[i * 8 + b] = static_cast<char>((declared[i] >> (8 * b)) & 0xff);
    }
  const auto at = bytes.find(from);
  if (at == std::string::npos) return {};
  bytes.replace(at, to.size(), to);
  return bytes;
}

std::string write_config(const Scratch& s) {
  const std::string path = s / "sim.yaml";
  std::ofstream(path) << "job: simulate\ndata: " << kSample
                      << "\nsymbols: [AAA, BBB]\nsimulation:\n  initial_capital: 1000\n  fee_bps: 5\n"
                         "  score_start: 2021-03-01T00:00:00Z\nsimulate:\n  actions: actions.h5\n"
                         "  device: reference\noutput: {path: "
                      << (s / "sim.h5") << "}\n";
  return path;
}

struct Tally {
  int read = 0, refused = 0, declared_too_much = 0, bad_value = 0;
};

// `kbt <args>` on the damaged file: exit 0, or exit 1 with an error naming it and
// no results file.
void expect_clean(const std::string& args, const Scratch& s, Tally& tally) {
  const std::string file = s / "actions.h5";
  std::remove((s / "sim.h5").c_str());
  const auto r = kbt::test::run_kbt(args);
  ASSERT_TRUE(r.exit_code == 0 || r.exit_code == 1) << args << " exited " << r.exit_code << ":\n" << r.output;
  if (r.exit_code == 0) {
    ++tally.read;
    return;
  }
  ++tally.refused;
  EXPECT_EQ(r.output.find("[internal]"), std::string::npos) << args << "\n" << r.output;
  EXPECT_FALSE(std::ifstream(s / "sim.h5").good()) << "a refused run writes no results\n" << r.output;
  // A flip inside the values may make one that is not an action: the job's
  // value error, prefixed with the file and dataset (docs/simulate.md).
  const bool bad_value = r.output.find("kbt: error [config]: " + file + ": /actions: actions: trial ") != std::string::npos;
  tally.bad_value += bad_value;
  if (!bad_value)
    EXPECT_NE(r.output.find("kbt: error [data_format]: " + file + ": "), std::string::npos) << args << "\n" << r.output;
  tally.declared_too_much += r.output.find("dataset /actions declares ") != std::string::npos;
}

}  // namespace

TEST(CliDamagedActions, FlippedTruncatedOrOversizedActionsAreRefusedCleanly) {
  Scratch s;
  const std::size_t nb = kbt::load_bars_hdf5(kSample, {"AAA", "BBB"}).n_bars();
  const std::string config = write_config(s);
  const std::string damaged = s / "actions.h5";
  const std::vector<std::string> readers = {"run '" + config + "' --quiet", "check '" + config + "' --data"};
  Tally tally;
  std::mt19937_64 rng(20261208);
  for (const bool deflate : {false, true}) {
    SCOPED_TRACE(deflate ? "deflated" : "contiguous");
    write_actions(s / "clean.h5", {2, 2, nb}, deflate);
    const std::string clean = kbt::test::bytes_of(s / "clean.h5");
    kbt::test::write_bytes(damaged, clean);
    for (const auto& args : readers) ASSERT_EQ(kbt::test::run_kbt(args).exit_code, 0) << args << ": the clean file";
    std::vector<std::string> variants;
    for (int i = 0; i < 12; ++i) variants.push_back(kbt::test::flipped(clean, rng));
    for (const std::size_t keep : {clean.size() / 2, clean.size() - 100, std::size_t{1000}})
      variants.push_back(clean.substr(0, keep));
    // 2^40 bars: 32 TiB as float64.
    const std::string oversized = with_declared_shape(clean, {2, 2, nb}, {2, 2, std::uint64_t{1} << 40});
    ASSERT_FALSE(oversized.empty()) << "the dataspace message was not found";
    variants.push_back(oversized);
    for (std::size_t v = 0; v < variants.size(); ++v) {
      SCOPED_TRACE("variant " + std::to_string(v));
      kbt::test::write_bytes(damaged, variants[v]);
      for (const auto& args : readers) expect_clean(args, s, tally);
    }
    // Read in kbt's own process, the declared size is refused before allocation as well.
    kbt::test::write_bytes(damaged, oversized);
    const auto r = kbt::test::run_command("KBT_HDF5_IN_PROCESS=1 '" + std::string(KBT_CLI_PATH) + "' run '" + config +
                                          "' --quiet");
    EXPECT_EQ(r.exit_code, 1) << r.output;
    EXPECT_NE(r.output.find("kbt: error [data_format]: " + damaged + ": dataset /actions declares 35184372088832 bytes"),
              std::string::npos)
        << r.output;
  }
  EXPECT_GT(tally.refused, 10) << "the damage was too light to prove anything";
  EXPECT_GE(tally.declared_too_much, 4) << "the oversized shape was not refused as such";
  std::printf("damaged actions files: %d reads, %d refusals (%d declared too much, %d bad values)\n", tally.read,
              tally.refused, tally.declared_too_much, tally.bad_value);
}

// The actions cases of the bad-input corpus (tests/bad_input/data/actions_*.h5,
// generate_bad_actions.py): `kbt check --data` names the file and the damage,
// in kbt's reader process and in its own.
TEST(CliDamagedActions, BadInputCorpus) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"actions_declares_32tib.h5",
       "dataset /actions declares 35184372088832 bytes, more than a file of 2240 bytes can hold: the file is damaged"},
      {"actions_truncated.h5", "cannot open as HDF5 (file is corrupt or truncated)"},
  };
  Scratch s;
  const std::string dir = std::string(KBT_TEST_DIR) + "/bad_input/data/";
  for (const auto& [name, wants] : cases) {
    SCOPED_TRACE(name);
    const std::string path = dir + name;
    const std::string config = s / "c.yaml";
    std::ofstream(config) << "job: simulate\ndata: " << kSample
                          << "\nsymbols: [AAA, BBB]\nsimulation: {initial_capital: 1000}\nsimulate: {actions: " << path
                          << "}\noutput: {path: " << (s / "sim.h5") << "}\n";
    for (const char* env : {"", "KBT_HDF5_IN_PROCESS=1 "}) {
      const auto r = kbt::test::run_command(env + ("'" + std::string(KBT_CLI_PATH) + "' check '" + config + "' --data"));
      EXPECT_EQ(r.exit_code, 1) << env << r.output;
      EXPECT_NE(r.output.find("kbt: error [data_format]: " + path + ": " + wants), std::string::npos) << env << r.output;
    }
  }
  std::size_t on_disk = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    on_disk += entry.path().filename().string().rfind("actions_", 0) == 0 && entry.path().extension() == ".h5";
  EXPECT_EQ(on_disk, cases.size()) << "a corpus file without a case here";
}
