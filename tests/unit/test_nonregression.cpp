// Non-regression: every example config's results, as digests of the bytes of
// every dataset of its results file, must stay what they were when the digests
// in tests/nonregression/example_configs.txt were recorded (docs/testing.md
// "Non-regression digests"). A refactor changes no bit; a change that means to
// change results re-records them (KBT_RECORD_NONREGRESSION=FILE writes the
// digests this build computes) and says why in its commit.
//
// Each config runs twice through the real binary: on the reference engine (a
// deterministic sample of its grid, no verification) and on the serial Kokkos
// space (the whole grid, with verification).

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>

#include <hdf5.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

#include "support/cli_runner.hpp"

namespace {

namespace fs = std::filesystem;

// FNV-1a, 64 bit: a digest of bytes, not a security hash.
std::uint64_t fnv1a(const std::string& bytes) {
  std::uint64_t h = 1469598103934665603ULL;
  for (const unsigned char c : bytes) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  return h;
}

// Digest of every dataset of a results file but /config (the YAML text) and
// the /profile group (timings, versions, paths), keyed by dataset path.
std::map<std::string, std::uint64_t> dataset_digests(const std::string& path) {
  std::map<std::string, std::uint64_t> out;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return out;
  const auto visit = [](hid_t root, const char* name, const H5L_info_t*, void* data) -> herr_t {
    auto& map = *static_cast<std::map<std::string, std::uint64_t>*>(data);
    const std::string key = std::string("/") + name;
    if (key == "/config" || key.rfind("/profile", 0) == 0) return 0;
    const hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
    if (obj < 0) return -1;
    if (H5Iget_type(obj) == H5I_DATASET) {
      const hid_t stored = H5Dget_type(obj), space = H5Dget_space(obj);
      // Values, not their storage: floats and signed integers (the counts and
      // integer params, float64 in files before they became int64) are
      // digested as doubles; other types as stored.
      const H5T_class_t cls = H5Tget_class(stored);
      const bool as_double = cls == H5T_FLOAT || (cls == H5T_INTEGER && H5Tget_sign(stored) == H5T_SGN_2);
      const hid_t type = as_double ? H5Tcopy(H5T_NATIVE_DOUBLE) : H5Tcopy(stored);
      H5Tclose(stored);
      const hssize_t n = H5Sget_simple_extent_npoints(space);
      std::string bytes(static_cast<std::size_t>(n) * H5Tget_size(type), '\0');
      if (n > 0 && H5Dread(obj, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0) bytes = "<read failed>";
      map[key] = fnv1a(bytes);
      H5Sclose(space);
      H5Tclose(type);
    }
    H5Oclose(obj);
    return 0;
  };
  H5Lvisit(file, H5_INDEX_NAME, H5_ITER_INC, visit, &out);
  H5Fclose(file);
  return out;
}

struct Case {
  std::string config;  // file in configs/
  std::string mode;    // "reference" or "serial"
  std::string args;
};

std::vector<Case> cases() {
  std::vector<Case> out;
  for (const char* name : {"bollinger_zscore", "breakout_sltp", "exo_signal", "kalman_meanrev", "mtf_trend",
                           "multi_asset_funding", "sma_cross", "sma_cross_signals"}) {
    out.push_back({name, "reference", "--device reference --sample 40 --seed 5 --no-verify"});
    out.push_back({name, "serial", "--device serial"});
  }
  return out;
}

// "<config> <mode> <dataset> <digest hex>" lines.
std::map<std::string, std::string> recorded() {
  std::map<std::string, std::string> out;
  std::ifstream in(std::string(KBT_TEST_DIR) + "/nonregression/example_configs.txt");
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream fields(line);
    std::string config, mode, dataset, digest;
    fields >> config >> mode >> dataset >> digest;
    out[config + " " + mode + " " + dataset] = digest;
  }
  return out;
}

std::string hex(std::uint64_t v) {
  char text[17];
  std::snprintf(text, sizeof text, "%016llx", static_cast<unsigned long long>(v));
  return text;
}

TEST(NonRegression, EveryExampleConfigGivesTheRecordedBits) {
  const auto dir = fs::temp_directory_path() / ("kbt_nonregression_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  const auto expected = recorded();
  const char* record = std::getenv("KBT_RECORD_NONREGRESSION");
  std::ofstream record_out;
  if (record) {
    record_out.open(record);
    record_out << "# config mode dataset fnv1a64 (tests/unit/test_nonregression.cpp)\n";
  } else {
    // Non-vacuous: every case has its digests on file.
    ASSERT_GE(expected.size(), cases().size() * 40) << "tests/nonregression/example_configs.txt is missing or short";
  }
  std::size_t compared = 0;
  for (const Case& c : cases()) {
    const std::string out = (dir / (c.config + "_" + c.mode + ".h5")).string();
    const auto r = kbt::test::run_kbt("run " + std::string(KBT_SOURCE_DIR) + "/configs/" + c.config + ".yaml " +
                                      c.args + " --quiet --show 0 --out " + out);
    ASSERT_EQ(r.exit_code, 0) << c.config << " " << c.mode << ": " << r.output;
    const auto digests = dataset_digests(out);
    ASSERT_TRUE(digests.count("/metrics/sharpe")) << out;
    for (const auto& [dataset, digest] : digests) {
      const std::string key = c.config + " " + c.mode + " " + dataset;
      if (record) {
        record_out << key << " " << hex(digest) << "\n";
        continue;
      }
      const auto it = expected.find(key);
      ASSERT_NE(it, expected.end()) << key << " has no recorded digest";
      EXPECT_EQ(hex(digest), it->second) << key << " changed";
      ++compared;
    }
    // Every recorded dataset of this case is still written.
    for (const auto& [key, digest] : expected)
      if (key.rfind(c.config + " " + c.mode + " ", 0) == 0)
        EXPECT_TRUE(digests.count(key.substr(c.config.size() + c.mode.size() + 2))) << key << " is no longer written";
  }
  if (!record) EXPECT_EQ(compared, expected.size());
  fs::remove_all(dir);
}

}  // namespace
