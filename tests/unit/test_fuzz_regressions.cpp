// Inputs that once crashed a libFuzzer target (tests/fuzz/), kept as regression
// tests: each must now end in a clean kbt::Error (or load), never a crash, a
// non-kbt exception or an internal error. The inputs live in
// tests/fuzz/regressions/<target>/ and are fed through the same calls as the
// target; scripts/fuzz.sh finds new ones (docs/testing.md "Fuzzing").

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>
#include <kbt/lang/compiler.hpp>
#include <kbt/simulate/simulate_job.hpp>

#include <hdf5.h>

#include <algorithm>
#include <filesystem>
#include <optional>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "unit/test_data_support.hpp"

namespace {

namespace fs = std::filesystem;

fs::path regressions(const std::string& target) { return fs::path(KBT_TEST_DIR) / "fuzz" / "regressions" / target; }

// Every kept input of `target`; a missing or empty folder fails the test
// (a replay of zero inputs would pass without checking anything).
std::vector<fs::path> inputs_of(const std::string& target) {
  std::vector<fs::path> files;
  if (fs::exists(regressions(target)))
    for (const auto& entry : fs::directory_iterator(regressions(target))) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  EXPECT_FALSE(files.empty()) << "no regression inputs in " << regressions(target);
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

// The fuzz_hdf5 inputs are replayed the way the target reads them: libhdf5
// and kbt's checks in this process (so that this process's open-object count
// says what the read left open), not in kbt's default reader child.
struct InProcessHdf5Reads : kbt::test::ScopedHdf5ReadIsolation {
  InProcessHdf5Reads() : ScopedHdf5ReadIsolation(kbt::Hdf5ReadIsolation::in_process) {}
};

// Loads the regression input `name` of fuzz_hdf5, which must be refused as a
// data_format error naming the file and containing `expected`.
void expect_hdf5_refused(const std::string& name, const std::string& expected) {
  const fs::path input = regressions("fuzz_hdf5") / name;
  ASSERT_TRUE(fs::exists(input));
  InProcessHdf5Reads in_process;
  try {
    (void)kbt::load_bars_hdf5(input.string());
    ADD_FAILURE() << input << ": expected a kbt::Error";
  } catch (const kbt::Error& e) {
    const std::string message = e.what();
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format) << message;
    EXPECT_NE(message.find(input.string()), std::string::npos) << message;
    EXPECT_NE(message.find(expected), std::string::npos) << message;
  }
  EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0) << input;
}

TEST(FuzzRegressions, Hdf5InputsLoadOrFailCleanlyAndCloseEverything) {
  for (const auto& input : inputs_of("fuzz_hdf5")) {
    std::string in_process_error;
    {
      InProcessHdf5Reads in_process;
      in_process_error = expect_clean_outcome(input, [&] { (void)kbt::load_bars_hdf5(input.string()); });
      EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0) << input;
    }
    // kbt's default reader process gives the same answer.
    EXPECT_EQ(expect_clean_outcome(input, [&] { (void)kbt::load_bars_hdf5(input.string()); }), in_process_error);
  }
}

TEST(FuzzRegressions, Hdf5DatasetExtentLargerThanTheFileIsRefusedBeforeAllocating) {
  // A mutated dataspace message gave /symbols an extent of ~2^40 strings in an
  // 8 KiB file; the reader reserved memory for all of them (std::length_error
  // or an out-of-memory kill) instead of reporting the corruption.
  expect_hdf5_refused("symbols_huge_extent.h5", "/symbols: its extent");
  expect_hdf5_refused("symbols_huge_extent.h5", "claims more data than a file of 8736 bytes can hold");
}

TEST(FuzzRegressions, Hdf5ChunkLargerThanTheFileIsRefusedBeforeLibhdf5AllocatesIt) {
  // A mutated chunk index gave one 400-byte chunk of /bars/high a stored size
  // of ~4 GiB in a 33 KB file; H5Dread allocated it (libFuzzer out-of-memory).
  expect_hdf5_refused("chunk_claims_4gib.h5",
                      "dataset /bars/high: its storage claims 4294902184 bytes, more than the whole file of 33296 bytes");
}

TEST(FuzzRegressions, Hdf5UnfilteredChunkStoredShortIsRefusedBeforeLibhdf5ReadsPastIt) {
  // A mutated chunk index recorded the one unfiltered 400-byte chunk of
  // /timestamps as 238 bytes; H5Dread copied 400 bytes out of libhdf5's
  // 246-byte buffer (ASan heap-buffer-overflow inside libhdf5; in a normal
  // build garbage timestamps).
  expect_hdf5_refused("unfiltered_chunk_stored_short.h5",
                      "dataset /timestamps: stores 238 bytes where its layout needs 400 (file is corrupt)");
}

TEST(FuzzRegressions, Hdf5ChunkShapeLargerThanTheExtentIsRefused) {
  // /bars/high [2][50] with chunks of [254][50] and two chunks at [0][0]:
  // H5Dread copied 400 bytes out of a smaller libhdf5 buffer.
  expect_hdf5_refused("chunk_shape_larger_than_extent.h5",
                      "dataset /bars/high: its chunk shape [254][50] does not fit its extent [2][50] (file is corrupt)");
}

TEST(FuzzRegressions, Hdf5ChunkMarkedUnfilteredButStoredShortIsRefused) {
  // A deflated chunk's filter mask was mutated to "deflate skipped": libhdf5
  // copied the 346 stored bytes as a raw 400-byte chunk, past its buffer.
  expect_hdf5_refused("chunk_skips_deflate_stored_short.h5",
                      "dataset /bars/high: chunk 0 is stored unfiltered in 346 bytes, not a chunk's 400 (file is corrupt)");
}

TEST(FuzzRegressions, Hdf5CompactStringsWithNoStorageAreRefused) {
  // /symbols: 512 fixed-length strings of 8 bytes in a compact layout that
  // stores none of them; H5Dread copied 4096 bytes out of an empty buffer.
  expect_hdf5_refused("compact_strings_stored_empty.h5",
                      "dataset /symbols: stores 0 bytes where its layout needs 4096 (file is corrupt)");
}

TEST(FuzzRegressions, Hdf5CorruptMetadataSizeIsADataFormatError) {
  // A mutated object header makes libhdf5 ask for ~6e18 bytes of metadata; the
  // allocation fails inside HDF5 and the load must end in a clean error.
  expect_hdf5_refused("metadata_huge_allocation.h5", "");
}

TEST(FuzzRegressions, CompactDatesOutsideTheInt64NanosecondRangeAreNotTimes) {
  // "12020202" (YYYYMMDD, year 1202) overflowed int64 nanoseconds (signed
  // overflow, UBSan) while the CSV reader sniffed the header line.
  EXPECT_FALSE(kbt::parse_iso8601_ns("12020202").has_value());
  EXPECT_FALSE(kbt::parse_iso8601_ns("16770921").has_value());  // 1677-09-21 < -2^63 ns
  EXPECT_FALSE(kbt::parse_iso8601_ns("99991231").has_value());
  // In range: 2021-03-04 is 18690 days after the epoch; 1677-09-22 is the first
  // whole day in range (-106751 days, -9223286400 s).
  EXPECT_EQ(kbt::parse_iso8601_ns("20210304"), std::optional<std::int64_t>(18690LL * 86400 * 1000000000));
  EXPECT_EQ(kbt::parse_iso8601_ns("16770922"), std::optional<std::int64_t>(-9223286400LL * 1000000000));
  EXPECT_EQ(kbt::parse_iso8601_ns("22620411"), std::optional<std::int64_t>(106751LL * 86400 * 1000000000));

  const fs::path input = regressions("fuzz_csv") / "basic_date_year_1202.csv";
  ASSERT_TRUE(fs::exists(input));
  kbt::CsvImportOptions options;
  options.bars.push_back({"AAA", input.string()});
  try {
    (void)kbt::import_csv(options);
    FAIL() << "expected a kbt::Error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format) << e.what();
    EXPECT_NE(std::string(e.what()).find(input.string()), std::string::npos) << e.what();
  }
}

kbt::DataSchema fuzz_schema() {
  kbt::DataSchema schema;
  schema.symbols = {"AAA", "BBB", "CCC"};
  schema.columns = {"open", "high", "low", "close", "volume", "funding_rate"};
  schema.exo = {"vix"};
  return schema;
}

TEST(FuzzRegressions, ExpressionInputsCompileOrFailCleanly) {
  for (const auto& input : inputs_of("fuzz_expression"))
    expect_clean_outcome(input, [&] {
      (void)kbt::compile_expression(kbt::SourceText{read_all(input), "fuzz.yaml", 3, 7}, fuzz_schema(), {});
    });
}

TEST(FuzzRegressions, HtfTimeframeBeyondTheNanosecondRangeIsALanguageError) {
  // htf(s, "45506104h") multiplied 45506104 * 3600 * 1e9 in int64 (signed
  // overflow, UBSan). 106751 days still fits; 106752 days does not.
  const auto compile = [](const std::string& text) {
    return kbt::compile_expression(kbt::SourceText{text, "x.yaml", 4, 9}, fuzz_schema(), {});
  };
  EXPECT_NO_THROW(compile("htf(close, \"106751d\")"));
  for (const char* text : {"htf(close, \"45506104h\")", "htf(close, \"106752d\")", "htf(close, \"999999999w\")"}) {
    try {
      (void)compile(text);
      ADD_FAILURE() << text << ": expected a kbt::Error";
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), kbt::ErrorCategory::language) << e.what();
      EXPECT_NE(std::string(e.what()).find("x.yaml:4:"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("invalid timeframe"), std::string::npos) << e.what();
    }
  }
}

TEST(FuzzRegressions, ConfigInputsParseOrFailCleanly) {
  const kbt::DataSchema schema = fuzz_schema();
  for (const auto& input : inputs_of("fuzz_config"))
    expect_clean_outcome(input, [&] {
      const auto config = kbt::parse_run_config(read_all(input), "fuzz.yaml", "/nonexistent");
      (void)kbt::compile_strategy(config.strategy, schema);
    });
}

TEST(FuzzRegressions, StrayCommaAtDocumentLevelIsAConfigErrorNotAHang) {
  // yaml-cpp's LoadAll returned endless empty documents for a ',' outside any
  // flow collection (the loader hung, growing memory); now one config error.
  for (const char* yaml : {",\n", "\n\n,\n", ", x\n", "\"a\",\n", "{a: 1}\n,\n"}) {
    try {
      (void)kbt::parse_run_config(yaml, "c.yaml", "");
      ADD_FAILURE() << yaml << ": expected a kbt::Error";
    } catch (const kbt::Error& e) {
      EXPECT_EQ(e.category(), kbt::ErrorCategory::config) << e.what();
      EXPECT_EQ(std::string(e.what()).rfind("c.yaml:", 0), 0u) << e.what();
    }
  }
}

TEST(FuzzRegressions, ActionsInputsReadOrFailCleanlyAndCloseEverything) {
  // fuzz_actions reads both datasets of its seed's layout (tests/fuzz/fuzz_actions.cpp).
  for (const auto& input : inputs_of("fuzz_actions"))
    for (const char* dataset : {"actions", "deflated"}) {
      InProcessHdf5Reads in_process;
      expect_clean_outcome(input, [&] { (void)kbt::read_actions_hdf5(input.string(), dataset); });
      EXPECT_EQ(H5Fget_obj_count(H5F_OBJ_ALL, H5F_OBJ_ALL), 0) << input;
    }
}

TEST(FuzzRegressions, ActionsChunkStoredShortIsRefusedBeforeLibhdf5ReadsPastIt) {
  // A flipped filter mask made the one deflated 2,048-byte chunk of /deflated
  // read as 44 raw bytes: H5Dread copied 2,048 bytes out of libhdf5's buffer
  // (ASan heap-buffer-overflow inside libhdf5; in a normal build, garbage
  // actions). The data reader's storage checks now run on actions too.
  const fs::path input = regressions("fuzz_actions") / "deflated_chunk_stored_short.h5";
  InProcessHdf5Reads in_process;
  try {
    (void)kbt::read_actions_hdf5(input.string(), "deflated");
    ADD_FAILURE() << input << ": expected a kbt::Error";
  } catch (const kbt::Error& e) {
    EXPECT_EQ(e.category(), kbt::ErrorCategory::data_format) << e.what();
    EXPECT_EQ(std::string(e.what()),
              input.string() + ": dataset /deflated: stores 44 bytes where its layout needs 2048 (file is corrupt)");
  }
}

TEST(FuzzRegressions, CsvInputsImportOrFailCleanly) {
  for (const auto& input : inputs_of("fuzz_csv")) {
    kbt::CsvImportOptions options;
    options.bars.push_back({"AAA", input.string()});
    expect_clean_outcome(input, [&] { (void)kbt::import_csv(options); });
  }
}

}  // namespace
