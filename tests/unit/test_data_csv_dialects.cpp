// CSV dialects of real exports: quoted thousands, ';' with decimal commas,
// tabs, pipes, headerless exchange klines mapped by position, renamed columns
// (--map), and errors that still name file:line (docs/data-format.md).

#include <gtest/gtest.h>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "unit/test_data_support.hpp"

namespace {

using kbt::test::kHourNs;
using kbt::test::k2021Ns;

kbt::CsvImportOptions one(const std::string& path, const kbt::CsvDialect& dialect = {},
                          std::map<std::string, std::string> columns = {}) {
  kbt::CsvImportOptions o;
  o.bars.push_back({"S", path});
  o.dialect = dialect;
  o.columns = std::move(columns);
  return o;
}

std::string error_of(const kbt::CsvImportOptions& o, kbt::ErrorCategory want = kbt::ErrorCategory::data_format) {
  return kbt::test::csv_import_error(o, want);
}

const std::vector<std::int64_t> kTwoHours = {k2021Ns, k2021Ns + kHourNs};

TEST(DataCsvDialects, QuotedFieldsWithThousandsSeparators) {
  kbt::test::TempDir dir;
  // A broker export: every field quoted, prices and volumes grouped by commas.
  const auto path = dir.write("q.csv",
                              "\"Date\",\"Open\",\"High\",\"Low\",\"Close\",\"Volume\"\n"
                              "\"2021-01-01 00:00\",\"1,000.5\",\"1,010\",\"990\",\"1,005.25\",\"1,234,567\"\n"
                              "\"2021-01-01 01:00\",\"1,005.25\",\"1,020.75\",\"1,001\",\"1,019\",\"-12,345\"\n");
  const auto b = kbt::import_csv(one(path));
  EXPECT_EQ(b.timestamps, kTwoHours);
  EXPECT_EQ(b.columns.at("open"), (std::vector<double>{1000.5, 1005.25}));
  EXPECT_EQ(b.columns.at("high"), (std::vector<double>{1010, 1020.75}));
  EXPECT_EQ(b.columns.at("low"), (std::vector<double>{990, 1001}));
  EXPECT_EQ(b.columns.at("close"), (std::vector<double>{1005.25, 1019}));
  EXPECT_EQ(b.columns.at("volume"), (std::vector<double>{1234567, -12345}));
  // A quoted delimiter with a doubled quote inside an ignored text column.
  const auto notes = dir.write("n.csv",
                               "time,open,high,low,close,comment\n"
                               "2021-01-01 00:00,1,2,0.5,1.5,\"said \"\"hi, there\"\"\"\n"
                               "2021-01-01 01:00,2,3,1.5,2.5,plain\n");
  EXPECT_EQ(kbt::import_csv(one(notes)).columns.at("close"), (std::vector<double>{1.5, 2.5}));
  // Grouping must be in threes: "1,5" is not a number unless the comma is decimal.
  const std::string bad = error_of(one(dir.write("g.csv", "time,open,high,low,close\n"
                                                          "2021-01-01,\"1,5\",2,1,1.5\n")));
  EXPECT_NE(bad.find("g.csv:2: column 'open': bad number '1,5'"), std::string::npos) << bad;
  EXPECT_NE(bad.find("--decimal-comma"), std::string::npos) << bad;
  EXPECT_NE(error_of(one(dir.write("g2.csv", "time,open,high,low,close\n2021-01-01,\"1,0000\",2,1,1.5\n")))
                .find("bad number '1,0000'"),
            std::string::npos);
}

TEST(DataCsvDialects, SemicolonsWithDecimalCommas) {
  kbt::test::TempDir dir;
  // A European spreadsheet export: ';' between fields, ',' as the decimal mark, '.' grouping.
  const std::string text =
      "Zeit;Open;High;Low;Close;Volume\n"
      "2021-01-01 00:00;1.000,5;1.010;990,25;1.005;12,5\n"
      "2021-01-01 01:00;1.005;1.020,75;1.001;1.019,125;7\n";
  const auto path = dir.write("eu.csv", text);
  kbt::CsvDialect dialect;
  dialect.decimal_comma = true;
  const auto b = kbt::import_csv(one(path, dialect, {{"time", "Zeit"}}));
  EXPECT_EQ(b.timestamps, kTwoHours);
  EXPECT_EQ(b.columns.at("open"), (std::vector<double>{1000.5, 1005}));
  EXPECT_EQ(b.columns.at("high"), (std::vector<double>{1010, 1020.75}));
  EXPECT_EQ(b.columns.at("low"), (std::vector<double>{990.25, 1001}));
  EXPECT_EQ(b.columns.at("close"), (std::vector<double>{1005, 1019.125}));
  EXPECT_EQ(b.columns.at("volume"), (std::vector<double>{12.5, 7}));
  // Headerless, the ';' count ties with the decimal commas: ';' still wins.
  const auto headerless = dir.write("eu2.csv", "2021-01-01 00:00;1,5;2,5;0,5;1,25\n2021-01-01 01:00;1;2;1;2\n");
  EXPECT_EQ(kbt::import_csv(one(headerless, dialect)).columns.at("close"), (std::vector<double>{1.25, 2}));
  // Without --decimal-comma the same file is refused with a hint.
  const std::string e = error_of(one(path, {}, {{"time", "zeit"}}));
  EXPECT_NE(e.find("eu.csv:2: column 'open': bad number '1.000,5'"), std::string::npos) << e;
}

TEST(DataCsvDialects, TabsAndPipesAreDetectedOrGiven) {
  kbt::test::TempDir dir;
  const auto tabs = dir.write("t.tsv", "time\topen\thigh\tlow\tclose\n"
                                       "2021-01-01 00:00\t1\t2\t0.5\t1.5\n"
                                       "2021-01-01 01:00\t 2 \t3\t1.5\t2.5\n");
  const auto b = kbt::import_csv(one(tabs));
  EXPECT_EQ(b.timestamps, kTwoHours);
  EXPECT_EQ(b.columns.at("open"), (std::vector<double>{1, 2}));
  const auto pipes = dir.write("p.txt", "time|open|high|low|close\n2021-01-01 00:00|1|2|0.5|1.5\n"
                                        "2021-01-01 01:00|2|3|1.5|2.5\n");
  EXPECT_EQ(kbt::import_csv(one(pipes)).columns.at("close"), (std::vector<double>{1.5, 2.5}));
  // Given explicitly, a delimiter that is not the file's finds one field per line.
  kbt::CsvDialect comma;
  comma.delimiter = ',';
  EXPECT_NE(error_of(one(tabs, comma)).find("t.tsv:1: no time column"), std::string::npos);
  EXPECT_EQ(kbt::parse_csv_delimiter("tab", "--delimiter"), '\t');
  EXPECT_EQ(kbt::parse_csv_delimiter(";", "--delimiter"), ';');
  EXPECT_THROW(kbt::parse_csv_delimiter(";;", "--delimiter"), kbt::Error);
  EXPECT_THROW(kbt::parse_csv_header("maybe", "--header"), kbt::Error);
}

// One row of a Binance kline dump: open time (ms), OHLCV, close time, quote
// volume, trades, taker buy base/quote volume, ignore.
std::string kline(std::int64_t open_ms, const char* ohlcv) {
  return std::to_string(open_ms) + "," + ohlcv + "," + std::to_string(open_ms + 3599999) +
         ",123.4,17,1.5,150.25,0\n";
}

TEST(DataCsvDialects, HeaderlessKlinesMappedByPosition) {
  kbt::test::TempDir dir;
  const std::int64_t ms = k2021Ns / 1000000;
  const auto path = dir.write("BTCUSDT-1h.csv", kline(ms, "100.5,101,99.5,100.75,12.25") +
                                                   kline(ms + 3600000, "100.75,102,100,101.5,8"));
  const std::string e = error_of(one(path));
  EXPECT_NE(e.find("BTCUSDT-1h.csv:1: no header and 12 fields"), std::string::npos) << e;
  EXPECT_NE(e.find("--map time=1,open=2,high=3,low=4,close=5,volume=6"), std::string::npos) << e;
  const std::map<std::string, std::string> klines = {{"time", "1"}, {"open", "2"},  {"high", "3"},
                                                     {"low", "4"},  {"close", "5"}, {"volume", "6"}};
  kbt::CsvImportNotes notes;
  kbt::CsvImportOptions o = one(path, {}, klines);
  const auto b = kbt::import_csv(o, &notes);
  EXPECT_EQ(b.timestamps, kTwoHours);
  EXPECT_EQ(b.columns.at("open"), (std::vector<double>{100.5, 100.75}));
  EXPECT_EQ(b.columns.at("high"), (std::vector<double>{101, 102}));
  EXPECT_EQ(b.columns.at("low"), (std::vector<double>{99.5, 100}));
  EXPECT_EQ(b.columns.at("close"), (std::vector<double>{100.75, 101.5}));
  EXPECT_EQ(b.columns.at("volume"), (std::vector<double>{12.25, 8}));
  ASSERT_FALSE(notes.lines.empty());
  EXPECT_NE(notes.lines[0].find("ignored columns: #7, #8, #9, #10, #11, #12"), std::string::npos) << notes.lines[0];
  // The close time as the bar time instead: a different, still increasing grid.
  auto by_close = klines;
  by_close["time"] = "7";
  EXPECT_EQ(kbt::import_csv(one(path, {}, by_close)).timestamps[0], k2021Ns + 3599999LL * 1000000);
  auto out_of_range = klines;
  out_of_range["close"] = "13";
  EXPECT_NE(error_of(one(path, {}, out_of_range)).find("--map close=13: position out of range (the file has 12"),
            std::string::npos);
  auto by_name = klines;
  by_name["close"] = "c";
  EXPECT_NE(error_of(one(path, {}, by_name)).find("the file has no header line"), std::string::npos);
}

TEST(DataCsvDialects, MapRenamesColumnsOfHeadedFiles) {
  kbt::test::TempDir dir;
  // A file whose own names kbt does not know, plus a 'close' that is not the close wanted.
  const auto path = dir.write("m.csv",
                              "open_time,o,h,l,close,c,vol\n"
                              "2021-01-01T00:00:00Z,1,2,0.5,9,1.5,10\n"
                              "2021-01-01T01:00:00Z,2,3,1.5,9,2.5,20\n");
  const std::map<std::string, std::string> map = {{"time", "open_time"}, {"open", "O"},    {"high", "h"},
                                                  {"low", "l"},          {"close", "c"},   {"volume", "vol"}};
  kbt::CsvImportNotes notes;
  kbt::CsvImportOptions o = one(path, {}, map);
  const auto b = kbt::import_csv(o, &notes);
  EXPECT_EQ(b.timestamps, kTwoHours);
  EXPECT_EQ(b.columns.at("open"), (std::vector<double>{1, 2}));
  EXPECT_EQ(b.columns.at("close"), (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(b.columns.at("volume"), (std::vector<double>{10, 20}));
  ASSERT_FALSE(notes.lines.empty());
  EXPECT_NE(notes.lines[0].find("ignored columns: close"), std::string::npos) << notes.lines[0];
  auto missing = map;
  missing["close"] = "last";
  EXPECT_NE(error_of(one(path, {}, missing)).find("m.csv:1: --map close=last: no column 'last' (found: open_time, o"),
            std::string::npos);
  EXPECT_NE(error_of(one(path, {}, {{"price", "c"}}), kbt::ErrorCategory::config).find("--map price=c: unknown column"),
            std::string::npos);
  EXPECT_NE(error_of(one(path)).find("m.csv:1: no time column"), std::string::npos);
  EXPECT_NE(error_of(one(path, {}, {{"time", "open_time"}})).find("missing column 'open'"), std::string::npos);
}

TEST(DataCsvDialects, HeaderModeAndMalformedQuotesNameTheLine) {
  kbt::test::TempDir dir;
  // A headerless file with a text column looks like a header: --header no says otherwise.
  const auto sym = dir.write("s.csv", "2021-01-01 00:00,BTC,1,2,0.5,1.5\n2021-01-01 01:00,BTC,2,3,1.5,2.5\n");
  kbt::CsvDialect no_header;
  no_header.header = kbt::CsvHeader::absent;
  const std::map<std::string, std::string> map = {{"time", "1"}, {"open", "3"}, {"high", "4"}, {"low", "5"},
                                                  {"close", "6"}};
  const auto b = kbt::import_csv(one(sym, no_header, map));
  EXPECT_EQ(b.timestamps, kTwoHours);
  EXPECT_EQ(b.columns.at("close"), (std::vector<double>{1.5, 2.5}));
  // Detected, its first row is taken for a header: the first data row is line 2.
  EXPECT_EQ(kbt::import_csv(one(sym, {}, map)).timestamps, std::vector<std::int64_t>{k2021Ns + kHourNs});
  // A quoted line break keeps later line numbers true.
  const auto multi = dir.write("ml.csv",
                               "time,open,high,low,close,note\n"
                               "2021-01-01 00:00,1,2,0.5,1.5,\"two\nlines\"\n"
                               "2021-01-01 01:00,1,2,0.5,x,\n");
  const std::string e = error_of(one(multi));
  EXPECT_NE(e.find("ml.csv:4: column 'close': bad number 'x'"), std::string::npos) << e;
  EXPECT_NE(error_of(one(dir.write("bq.csv", "time,open,high,low,close\n2021-01-01,1,2,0.5,1.5\n"
                                             "2021-01-02,\"1\"x,2,0.5,1.5\n")))
                .find("bq.csv:3: malformed quoting"),
            std::string::npos);
  EXPECT_NE(error_of(one(dir.write("uq.csv", "time,open,high,low,close\n2021-01-01,\"1,2,0.5,1.5\n")))
                .find("uq.csv:2: malformed quoting"),
            std::string::npos);
}

TEST(DataCsvDialects, TheCliTakesMapDelimiterHeaderAndDecimalComma) {
  kbt::test::TempDir dir;
  const auto csv = dir.write("EU.csv", "2021-01-01 00:00;BTC;1,5;2,5;0,5;1,25;1.000\n"
                                       "2021-01-01 01:00;BTC;1;2;1;2;2.000,5\n");
  const auto out = dir.file("eu.h5");
  const auto r = kbt::test::run_kbt("data import -o " + out + " --symbol EU=" + csv +
                                    " --delimiter semicolon --header no --decimal-comma"
                                    " --map time=1,open=3 --map high=4,low=5,close=6,volume=7");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  EXPECT_NE(r.output.find("ignored columns: #2"), std::string::npos) << r.output;
  const kbt::BarData b = kbt::load_bars_hdf5(out, {});
  EXPECT_EQ(b.timestamps, kTwoHours);
  EXPECT_EQ(b.columns.at("close"), (std::vector<double>{1.25, 2}));
  EXPECT_EQ(b.columns.at("volume"), (std::vector<double>{1000, 2000.5}));
  const auto bad = kbt::test::run_kbt("data import -o " + out + " " + csv + " --map close");
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("--map 'close': expected NAME=VALUE (e.g. --map time=open_time)"), std::string::npos)
      << bad.output;
}

}  // namespace
