// Inputs that once crashed a libFuzzer target (tests/fuzz/), kept as regression
// tests: each must now end in a clean kbt::Error (or load), never a crash, a
// non-kbt exception or an internal error. The inputs live in
// tests/fuzz/regressions/<target>/ and are fed through the same calls as the
// target; scripts/fuzz.sh finds new ones (docs/testing.md "Fuzzing").

#include <gtest/gtest.h>
#include <kbt/config_loader.hpp>
#include <kbt/data_io.hpp>
#include <kbt/error.hpp>
#include <kbt/lang/compiler.hpp>

#include <hdf5.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;

fs::path regressions(const std::string& target) { return fs::path(KBT_TEST_DIR) / "fuzz" / "regressions" / target; }

std::vector<fs::path> inputs_of(const std::string& target) {
  std::vector<fs::path> files;
  if (fs::exists(regressions(target)))
    for (const auto& entry : fs::directory_iterator(regressions(target))) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// Runs `body`; a kbt::Error other than `internal` is a pass, and is returned.
template <class F>
std::string expect_clean_outcome(const fs::path& input, F&& body) {
  try {
    body();
  } catch (const kbt::Error& e) {
    EXPECT_NE(e.category(), kbt::ErrorCategory::internal) << input << ": " << e.what();
    return e.what();
  } catch (const std::exception& e) {
    ADD_FAILURE() << input << ": non-kbt exception " << typeid(e).name() << ": " << e.what();
  }
  return "";
}

TEST(FuzzRegressions, Hdf5InputsLoadOrFailCleanlyAndCloseEverything) {
  for (const auto& input : inputs_of("fuzz_hdf5")) {
    expect_clean_outcome(input, [&] { (void)kbt::load_bars_hdf5(input.string()); });
    EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0) << input;
  }
}

TEST(FuzzRegressions, Hdf5DatasetExtentLargerThanTheFileIsRefusedBeforeAllocating) {
  // A mutated dataspace message gave /symbols an extent of ~2^40 strings in an
  // 8 KiB file; the reader reserved memory for all of them (std::length_error
  // or an out-of-memory kill) instead of reporting the corruption.
  const fs::path input = regressions("fuzz_hdf5") / "symbols_huge_extent.h5";
  ASSERT_TRUE(fs::exists(input));
  try {
    (void)kbt::load_bars_hdf5(input.string());
    FAIL() << "expected a kbt::Error";
  } catch (const kbt::Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format) << message;
    EXPECT_NE(message.find(input.string()), std::string::npos) << message;
    EXPECT_NE(message.find("/symbols"), std::string::npos) << message;
    EXPECT_NE(message.find("claims more data than a file of 8736 bytes can hold"), std::string::npos) << message;
  }
}

TEST(FuzzRegressions, ConfigInputsParseOrFailCleanly) {
  kbt::DataSchema schema;
  schema.symbols = {"AAA", "BBB", "CCC"};
  schema.columns = {"open", "high", "low", "close", "volume", "funding_rate"};
  schema.exo = {"vix"};
  for (const auto& input : inputs_of("fuzz_config"))
    expect_clean_outcome(input, [&] {
      const auto config = kbt::parse_run_config(read_all(input), "fuzz.yaml", "/nonexistent");
      (void)kbt::compile_strategy(config.strategy, schema);
    });
}

TEST(FuzzRegressions, CsvInputsImportOrFailCleanly) {
  for (const auto& input : inputs_of("fuzz_csv")) {
    kbt::CsvImportOptions options;
    options.bars.push_back({"AAA", input.string()});
    expect_clean_outcome(input, [&] { (void)kbt::import_csv(options); });
  }
}

}  // namespace
