// Determinism (docs/verify.md, docs/testing.md): the same `kbt run` gives the same bytes in every
// dataset of the results file, run after run and at 1 or 2 host threads; and the
// file records what is needed to reproduce it (versions, the config as run, the
// --sample seed). Only /profile may differ (timings, thread count).

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>

#include <hdf5.h>

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

fs::path scratch(const std::string& name) {
  const auto dir = fs::temp_directory_path() / ("kbt_determinism_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string config(const std::string& name) { return std::string(KBT_SOURCE_DIR) + "/configs/" + name; }

std::string read_all(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Every dataset of an HDF5 file as the bytes stored for it (read in its own file
// type, so nothing is converted), keyed by path.
std::map<std::string, std::string> dataset_bytes(const std::string& path) {
  std::map<std::string, std::string> out;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  EXPECT_GE(file, 0) << path;
  if (file < 0) return out;
  const auto visit = [](hid_t root, const char* name, const H5L_info_t*, void* data) -> herr_t {
    auto& map = *static_cast<std::map<std::string, std::string>*>(data);
    const hid_t obj = H5Oopen(root, name, H5P_DEFAULT);
    if (obj < 0) return -1;
    if (H5Iget_type(obj) == H5I_DATASET) {
      const hid_t type = H5Dget_type(obj), space = H5Dget_space(obj);
      const hssize_t n = H5Sget_simple_extent_npoints(space);
      std::string bytes(static_cast<std::size_t>(n) * H5Tget_size(type), '\0');
      if (n > 0 && H5Dread(obj, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, bytes.data()) < 0) bytes = "<read failed>";
      map[std::string("/") + name] = bytes;
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

// /profile attributes: strings as they are, numbers printed exactly.
std::map<std::string, std::string> profile_of(const std::string& path) {
  std::map<std::string, std::string> out;
  const hid_t file = H5Fopen(path.c_str(), H5F_ACC_RDONLY, H5P_DEFAULT);
  if (file < 0) return out;
  const hid_t group = H5Gopen2(file, "profile", H5P_DEFAULT);
  const auto visit = [](hid_t loc, const char* name, const H5A_info_t*, void* data) -> herr_t {
    auto& map = *static_cast<std::map<std::string, std::string>*>(data);
    const hid_t attr = H5Aopen(loc, name, H5P_DEFAULT);
    const hid_t type = H5Aget_type(attr);
    if (H5Tget_class(type) == H5T_STRING) {
      std::string text(H5Tget_size(type), '\0');
      H5Aread(attr, type, text.data());
      map[name] = text.substr(0, text.find('\0'));
    } else {
      double value = 0;
      H5Aread(attr, H5T_NATIVE_DOUBLE, &value);
      std::ostringstream s;
      s.precision(17);
      s << value;
      map[name] = s.str();
    }
    H5Tclose(type);
    H5Aclose(attr);
    return 0;
  };
  if (group >= 0) {
    H5Aiterate2(group, H5_INDEX_NAME, H5_ITER_INC, nullptr, visit, &out);
    H5Gclose(group);
  }
  H5Fclose(file);
  return out;
}

// Runs `kbt run` four times (1, 1, 2, 2 threads) and compares every dataset.
void expect_byte_identical_runs(const std::string& config_name, const std::string& extra) {
  const auto dir = scratch(config_name.substr(0, config_name.find('.')));
  std::vector<std::string> files;
  for (const int threads : {1, 1, 2, 2}) {
    const std::string out = (dir / ("run" + std::to_string(files.size()) + ".h5")).string();
    const auto r = kbt::test::run_kbt("run " + config(config_name) + " --device reference --quiet --threads " +
                                      std::to_string(threads) + " " + extra + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.output;
    files.push_back(out);
  }
  const auto reference = dataset_bytes(files[0]);
  // Non-vacuous: the metrics of the sampled combos are there and not all zero.
  ASSERT_TRUE(reference.count("/metrics/sharpe"));
  ASSERT_TRUE(reference.count("/combo_id"));
  const std::string& sharpe = reference.at("/metrics/sharpe");
  EXPECT_NE(sharpe, std::string(sharpe.size(), '\0'));
  for (std::size_t i = 1; i < files.size(); ++i) {
    const auto other = dataset_bytes(files[i]);
    EXPECT_EQ(other.size(), reference.size()) << files[i];
    for (const auto& [name, bytes] : reference) {
      ASSERT_TRUE(other.count(name)) << files[i] << " lacks " << name;
      EXPECT_TRUE(other.at(name) == bytes) << name << " differs between " << files[0] << " and " << files[i];
    }
  }
  const auto p1 = profile_of(files[0]), p2 = profile_of(files[2]);
  EXPECT_EQ(p1.at("threads"), "1");
  EXPECT_EQ(p2.at("threads"), "2");
  fs::remove_all(dir);
}

TEST(Determinism, SampledSweepIsByteIdenticalAcrossRunsAndThreadCounts) {
  expect_byte_identical_runs("sma_cross.yaml", "--sample 24 --seed 11");
}

TEST(Determinism, MultiAssetFundingSweepIsByteIdenticalAcrossRunsAndThreadCounts) {
  // Cross-sectional ranks, funding, per-venue fees, equal weighting.
  expect_byte_identical_runs("multi_asset_funding.yaml", "--sample 5 --seed 3");
}

TEST(Determinism, ResultsRecordVersionsConfigAndSampleSeed) {
  const auto dir = scratch("profile");
  const std::string out = (dir / "run.h5").string();
  const auto r = kbt::test::run_kbt("run " + config("sma_cross.yaml") +
                                    " --device reference --quiet --sample 7 --seed 18446744073709551615 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const auto profile = profile_of(out);
  for (const char* key : {"kbt_version", "kokkos_version", "config_path", "data_path", "device"}) {
    ASSERT_TRUE(profile.count(key)) << key;
    EXPECT_FALSE(profile.at(key).empty()) << key;
  }
  EXPECT_EQ(profile.at("config_path"), config("sma_cross.yaml"));
  // The seed survives exactly, even past 2^53.
  ASSERT_TRUE(profile.count("sample_seed"));
  EXPECT_EQ(profile.at("sample_seed"), "18446744073709551615");
  EXPECT_EQ(profile.at("combos"), "7");
  // The config as run, byte for byte.
  const auto datasets = dataset_bytes(out);
  ASSERT_TRUE(datasets.count("/config"));
  const std::string stored = datasets.at("/config");
  EXPECT_EQ(stored.substr(0, stored.find('\0')), read_all(config("sma_cross.yaml")));
  fs::remove_all(dir);
}

}  // namespace
