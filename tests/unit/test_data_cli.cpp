// The real `kbt data ...` CLI: the bad-input corpus of tests/bad_input/data/,
// the committed sample (re-made from the command in docs/data-format.md),
// and the happy paths.

#include "kbt_test_paths.hpp"  // KBT_CLI_PATH, KBT_SOURCE_DIR, KBT_TEST_DIR
#include <gtest/gtest.h>
#include <H5public.h>
#include <kbt/data/data_digest.hpp>
#include <kbt/data/data_io.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

#include "support/cli_runner.hpp"
#include "unit/test_data_support.hpp"

namespace {

const std::string kBadDir = std::string(KBT_TEST_DIR) + "/bad_input/data/";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

// Asserts a failed run printed exactly one line: the error with `category`,
// containing every string of `wants`.
void expect_one_error(const kbt::test::CliResult& r, const std::string& category,
                      const std::vector<std::string>& wants) {
  EXPECT_NE(r.exit_code, 0) << r.output;
  const auto lines = lines_of(r.output);
  ASSERT_EQ(lines.size(), 1u) << r.output;
  EXPECT_EQ(lines[0].rfind("kbt: error [" + category + "]: ", 0), 0u) << lines[0];
  for (const auto& w : wants) EXPECT_NE(lines[0].find(w), std::string::npos) << "missing '" << w << "' in: " << lines[0];
}

struct BadHdf5 {
  const char* file;
  std::vector<std::string> wants;  // besides the file name
};

TEST(DataCli, InspectRejectsEveryBadHdf5File) {
  const std::vector<BadHdf5> cases = {
      {"not_hdf5.h5", {"not an HDF5 file"}},
      {"truncated.h5", {"corrupt or truncated"}},
      {"corrupt_chunk.h5", {"dataset /bars/close: read failed (file is corrupt or truncated)"}},
      {"wrong_dtype_close.h5", {"dataset /bars/close: expected float64 [2][6], found int32 [2][6]"}},
      {"shape_mismatch.h5", {"dataset /bars/high: expected float64 [2][6], found float64 [2][5]"}},
      {"non_increasing_timestamps.h5", {"dataset /timestamps: timestamps not increasing at index 3", "at index 2"}},
      {"duplicate_timestamps.h5", {"dataset /timestamps: duplicate timestamp at index 4", "2021-01-01T03:00:00Z"}},
      {"missing_close.h5", {"dataset /bars/close: missing required dataset"}},
      {"missing_timestamps.h5", {"dataset /timestamps: missing required dataset"}},
      {"wrong_dtype_timestamps.h5", {"dataset /timestamps: expected int64 [n], found float64 [6]"}},
      {"duplicate_symbols.h5", {"dataset /symbols: duplicate symbol 'AAA'"}},
      {"symbols_not_strings.h5", {"dataset /symbols: expected string [n], found int32 [2]"}},
      {"symbol_nul_inside.h5", {"dataset /symbols: string 0 has a NUL byte inside"}},
      {"symbol_not_utf8.h5", {"dataset /symbols: symbol 0 is not valid UTF-8"}},
      {"external_link_close.h5", {"dataset /bars/close: is an external link (to another file): kbt reads only the file"}},
      {"virtual_close.h5", {"dataset /bars/close: is a virtual dataset (its values live in other files)"}},
      {"missing_filter_close.h5", {"dataset /bars/close: is compressed with HDF5 filter 32001 (kbt-test-private), "
                                   "which this HDF5 library cannot decode"}},
      {"venues_count_mismatch.h5", {"dataset /venues: expected string [2], found string [1]"}},
      {"exo_not_increasing.h5", {"dataset /exo/hashrate/timestamps: timestamps not increasing at index 2"}},
      {"infinite_close.h5", {"dataset /bars/close: symbol 'BBB', bar 2 at 2021-01-01T02:00:00Z: price inf; "
                             "a price is a finite number > 0"}},
      {"negative_close.h5", {"dataset /bars/close: symbol 'BBB', bar 2 at 2021-01-01T02:00:00Z: price -5;"}},
  };
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = kBadDir + c.file;
    ASSERT_TRUE(std::ifstream(path).good()) << "corpus file missing: " << path;
    auto wants = c.wants;
    wants.push_back(path + ": ");
    expect_one_error(kbt::test::run_kbt("data inspect '" + path + "'"), "data_format", wants);
  }
}

TEST(DataCli, InspectRefusesFilesThatCrashLibhdf5) {
  // Fuzzer-made files on which libhdf5 1.10 itself dies (SIGSEGV reading a
  // corrupt heap, SIGFPE decoding a zero chunk dimension): one data_format
  // error naming the file, from kbt's reader process (docs/data-format.md).
  for (const char* file : {"libhdf5_crash_corrupt_heap_read.h5", "libhdf5_crash_zero_chunk_dimension.h5"}) {
    SCOPED_TRACE(file);
    const std::string path = kBadDir + file;
    ASSERT_TRUE(std::ifstream(path).good()) << "corpus file missing: " << path;
    expect_one_error(kbt::test::run_kbt("data inspect '" + path + "'"), "data_format", {path + ": "});
  }
}

// The summary without its `file:` line (the same data under another name).
std::string summary_body(const std::string& output) {
  const auto first = output.find('\n');
  return first == std::string::npos ? std::string() : output.substr(first + 1);
}

TEST(DataCli, FollowsExternalDataOnlyWhenAllowedAndOnlyWhenItIsThere) {
  // Copies of the corpus pair in a directory of their own: relative targets
  // resolve against the linking file's directory, whatever the working one.
  const std::filesystem::path dir =
      std::filesystem::temp_directory_path() / ("kbt_external_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  for (const char* f : {"external_link_close.h5", "virtual_close.h5", "external_target.h5"})
    std::filesystem::copy_file(kBadDir + f, dir / f, std::filesystem::copy_options::overwrite_existing);
  const auto target = kbt::test::run_kbt("data inspect '" + (dir / "external_target.h5").string() + "'");
  ASSERT_EQ(target.exit_code, 0) << target.output;
  ASSERT_NE(target.output.find("bars:       6"), std::string::npos) << target.output;  // not vacuous
  for (const char* f : {"external_link_close.h5", "virtual_close.h5"}) {
    SCOPED_TRACE(f);
    const std::string path = (dir / f).string();
    const auto followed = kbt::test::run_kbt("data inspect --follow-external '" + path + "'");
    ASSERT_EQ(followed.exit_code, 0) << followed.output;
    EXPECT_EQ(summary_body(followed.output), summary_body(target.output));
    expect_one_error(kbt::test::run_kbt("data inspect '" + path + "'"), "data_format",
                     {path + ": dataset /bars/close: ", "or allow it (external_data: follow in the config"});
  }
  // What a run identifies its data by (the checkpoint's data digest) is the
  // values read, wherever they live.
  const std::string target_digest = kbt::data_digest(kbt::load_bars_hdf5((dir / "external_target.h5").string()));
  for (const char* f : {"external_link_close.h5", "virtual_close.h5"})
    EXPECT_EQ(kbt::data_digest(kbt::load_bars_hdf5((dir / f).string(), {}, kbt::ExternalData::follow)), target_digest)
        << f;
  // Without the target, libhdf5 would read a virtual dataset as fill values.
  std::filesystem::remove(dir / "external_target.h5");
  expect_one_error(kbt::test::run_kbt("data inspect --follow-external '" + (dir / "virtual_close.h5").string() + "'"),
                   "data_format", {"is a virtual dataset whose source external_target.h5:/bars/close cannot be opened"});
  expect_one_error(
      kbt::test::run_kbt("data inspect --follow-external '" + (dir / "external_link_close.h5").string() + "'"),
      "data_format", {"is an external link to external_target.h5:/bars/close, which cannot be opened"});
  std::filesystem::remove_all(dir);
}

TEST(DataCli, InspectMissingFileIsIo) {
  expect_one_error(kbt::test::run_kbt("data inspect /nonexistent/x.h5"), "io", {"/nonexistent/x.h5"});
  expect_one_error(kbt::test::run_kbt("data inspect '" + kBadDir + "'"), "io", {"is a directory"});
}

struct BadCsv {
  const char* file;
  std::string where;  // ":line" or "" (whole-file problems)
  std::string problem;
};

TEST(DataCli, ImportRejectsEveryBadCsvAndLeavesNoOutput) {
  const std::vector<BadCsv> cases = {
      {"csv_bad_row.csv", ":3", "column 'close': bad number 'abc'"},
      {"csv_wrong_column_count.csv", ":3", "expected 6 fields, found 5"},
      {"csv_bad_time.csv", ":3", "cannot parse time '2021-13-01 01:00:00'"},
      {"csv_non_increasing_time.csv", ":4", "time 2021-01-01T01:00:00Z is before 2021-01-01T02:00:00Z at line 3"},
      {"csv_duplicate_time.csv", ":4", "duplicate time 2021-01-01T01:00:00Z (also at line 3)"},
      {"csv_missing_close_column.csv", ":1", "missing column 'close'"},
      {"csv_no_time_column.csv", ":1", "no time column"},
      {"csv_empty.csv", "", "file is empty"},
      {"csv_blank_lines_only.csv", "", "file is empty"},
      {"csv_header_only.csv", "", "no data rows"},
  };
  kbt::test::TempDir dir;
  for (const auto& c : cases) {
    SCOPED_TRACE(c.file);
    const std::string path = kBadDir + c.file;
    ASSERT_TRUE(std::ifstream(path).good()) << "corpus file missing: " << path;
    const std::string out = dir.file("out.h5");
    expect_one_error(kbt::test::run_kbt("data import --out '" + out + "' '" + path + "'"), "data_format",
                     {path + c.where + ": " + c.problem});
    EXPECT_TRUE(dir.files().empty()) << "output left behind";
  }
  // A bad funding file after good bars: still nothing written.
  const std::string good = dir.write("G.csv", "time,open,high,low,close,volume\n2021-01-01,1,1,1,1,1\n");
  const std::string out = dir.file("out.h5");
  expect_one_error(
      kbt::test::run_kbt("data import --out '" + out + "' '" + good + "' --funding G='" + kBadDir + "csv_bad_row.csv'"),
      "data_format", {"csv_bad_row.csv:"});
  std::remove(good.c_str());
  EXPECT_TRUE(dir.files().empty());
  expect_one_error(kbt::test::run_kbt("data import --out '" + out + "' /nonexistent/A.csv"), "io", {"/nonexistent/A.csv"});
}

TEST(DataCli, SynthBadOptionsAreOneErrorAndNoFile) {
  kbt::test::TempDir dir;
  const std::string out = dir.file("s.h5");
  expect_one_error(kbt::test::run_kbt("data synth --out '" + out + "' --freq 1y"), "config", {"--freq '1y'"});
  expect_one_error(kbt::test::run_kbt("data synth --out '" + out + "' --symbols 0"), "config", {"symbols"});
  expect_one_error(kbt::test::run_kbt("data synth --out '" + out + "' --start 2021-13-01"), "config", {"--start"});
  expect_one_error(kbt::test::run_kbt("data synth --out '" + out + "' --symbols 2 --venues a,b,c"), "config", {"3 venues"});
  expect_one_error(kbt::test::run_kbt("data synth --out '" + out + "' --listings 2"), "config", {"listings"});
  EXPECT_TRUE(dir.files().empty());
}

// Fewer venues than symbols are assigned in turn (docs/data-format.md "Synthetic data").
TEST(DataCli, SynthAssignsFewerVenuesInTurn) {
  kbt::test::TempDir dir;
  const std::string out = dir.file("s.h5");
  const auto r = kbt::test::run_kbt("data synth --out '" + out + "' --symbols 5 --bars 20 --venues binance,okx");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const kbt::BarData bars = kbt::load_bars_hdf5(out);
  EXPECT_EQ(bars.venues, (std::vector<std::string>{"binance", "okx", "binance", "okx", "binance"}));
}

// The `kbt data synth ... --out data/sample.h5` command as written in docs/data-format.md.
std::string documented_sample_command() {
  std::ifstream in(std::string(KBT_SOURCE_DIR) + "/docs/data-format.md");
  std::string line, command;
  bool collecting = false;
  while (std::getline(in, line)) {
    if (!collecting && line.find("kbt data synth") != std::string::npos &&
        line.find("data/sample.h5") != std::string::npos)
      collecting = true;
    if (!collecting) continue;
    const bool continues = !line.empty() && line.back() == '\\';
    command += continues ? line.substr(0, line.size() - 1) : line;
    if (!continues) break;
  }
  return command;
}

std::string remake_sample(const kbt::test::TempDir& dir) {
  std::string cmd = documented_sample_command();
  const std::size_t at = cmd.find("kbt data synth");
  EXPECT_NE(at, std::string::npos) << "no 'kbt data synth ... data/sample.h5' command in docs/data-format.md";
  if (at == std::string::npos) return "";
  cmd = cmd.substr(at + 4);  // drop "kbt "
  const std::size_t p = cmd.find("data/sample.h5");
  cmd.replace(p, std::string("data/sample.h5").size(), "'" + dir.file("sample.h5") + "'");
  const auto r = kbt::test::run_kbt(cmd);
  EXPECT_EQ(r.exit_code, 0) << cmd << "\n" << r.output;
  return dir.file("sample.h5");
}

TEST(DataCli, SampleContentIsWhatTheDocumentedCommandMakes) {
  kbt::test::TempDir dir;
  const std::string sample = std::string(KBT_SOURCE_DIR) + "/data/sample.h5";
  const auto remade = kbt::load_bars_hdf5(remake_sample(dir));
  const auto shipped = kbt::load_bars_hdf5(sample);
  EXPECT_EQ(shipped.symbols, (std::vector<std::string>{"AAA", "BBB", "CCC"}));
  EXPECT_EQ(shipped.n_bars(), 20000u);
  EXPECT_FALSE(shipped.venues.empty());
  EXPECT_TRUE(shipped.has_column("funding_rate"));
  EXPECT_EQ(shipped.exo.size(), 1u);
  EXPECT_EQ(remade.timestamps, shipped.timestamps);
  EXPECT_EQ(remade.symbols, shipped.symbols);
  EXPECT_EQ(remade.venues, shipped.venues);
  ASSERT_EQ(remade.columns.size(), shipped.columns.size());
  for (const auto& [name, values] : shipped.columns)
    EXPECT_TRUE(kbt::test::same_bits(remade.columns.at(name), values)) << name;
  for (const auto& [name, values] : shipped.exo) EXPECT_TRUE(kbt::test::same_bits(remade.exo.at(name), values)) << name;
  std::ifstream f(sample, std::ios::binary | std::ios::ate);
  EXPECT_LT(static_cast<long>(f.tellg()), 5L * 1024 * 1024);
}

// Byte identity also depends on the HDF5 library's file-format writer; the
// sample was written by HDF5 1.10 (Debian 12).
TEST(DataCli, SampleBytesAreWhatTheDocumentedCommandMakes) {
  unsigned maj = 0, min = 0, rel = 0;
  H5get_libversion(&maj, &min, &rel);
  if (maj != 1 || min != 10) GTEST_SKIP() << "sample written with HDF5 1.10; this is " << maj << "." << min;
  kbt::test::TempDir dir;
  const std::string remade = kbt::test::read_bytes(remake_sample(dir));
  const std::string shipped = kbt::test::read_bytes(std::string(KBT_SOURCE_DIR) + "/data/sample.h5");
  ASSERT_FALSE(shipped.empty());
  EXPECT_TRUE(remade == shipped) << "data/sample.h5 differs from the output of the command in docs/data-format.md ("
                                 << remade.size() << " vs " << shipped.size() << " bytes)";
}

TEST(DataCli, SynthImportInspectHappyPaths) {
  kbt::test::TempDir dir;
  const std::string s = dir.file("s.h5");
  auto r = kbt::test::run_kbt("data synth --out '" + s + "' --symbols 2 --bars 100 --freq 15m --seed 3 --funding --exo btc_hashrate");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("2 symbols x 100 bars"), std::string::npos) << r.output;
  r = kbt::test::run_kbt("data inspect '" + s + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  for (const char* want : {"symbols:    2: AAA, BBB", "bars:       100", "frequency:  15m", "funding_rate", "btc_hashrate: "})
    EXPECT_NE(r.output.find(want), std::string::npos) << want << "\n" << r.output;

  const auto a = dir.write("A.csv", ",Open,High,Low,Close,Volume,Extra\n2021-01-01,1,2,0.5,1.5,10,x\n2021-01-02,1,2,0.5,1.5,10,y\n");
  const auto f = dir.write("fa.csv", "time,rate\n2021-01-02,0.001\n");
  const auto e = dir.write("ex.csv", "time,value\n2020-12-31 12:00,3\n");
  const std::string out = dir.file("i.h5");
  r = kbt::test::run_kbt("data import --out '" + out + "' --symbol BTC='" + a + "' --funding BTC='" + f + "' --exo hr='" + e +
                         "' --venue BTC=binance");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ignored columns: extra"), std::string::npos) << r.output;
  // A positional CSV after a repeatable NAME=path option is still a bar file.
  const std::string out2 = dir.file("i2.h5");
  r = kbt::test::run_kbt("data import --out '" + out2 + "' --exo hr='" + e + "' '" + a + "'");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_EQ(kbt::load_bars_hdf5(out2).symbols, std::vector<std::string>{"A"});
  const auto b = kbt::load_bars_hdf5(out);
  EXPECT_EQ(b.symbols, std::vector<std::string>{"BTC"});
  EXPECT_EQ(b.venues, std::vector<std::string>{"binance"});
  EXPECT_EQ(b.columns.at("funding_rate")[1], 0.001);
  EXPECT_EQ(b.exo.at("hr"), (std::vector<double>{3, 3}));
}

TEST(DataCli, HelpDescribesEveryCommand) {
  for (const char* sub : {"import", "synth", "inspect"}) {
    const auto r = kbt::test::run_kbt(std::string("data ") + sub + " --help");
    EXPECT_EQ(r.exit_code, 0) << r.output;
    EXPECT_NE(r.output.find("docs/data-format.md"), std::string::npos) << sub;
  }
  const auto r = kbt::test::run_kbt("data synth --help");
  for (const char* opt : {"--out", "--symbols", "--bars", "--freq", "--seed", "--funding", "--exo", "--start", "--venues"})
    EXPECT_NE(r.output.find(opt), std::string::npos) << opt;
}

}  // namespace
