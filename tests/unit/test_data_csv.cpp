// CSV import: headers, time formats, alignment, funding/exo, errors.

#include <gtest/gtest.h>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>

#include "unit/test_data_support.hpp"

namespace {

using kbt::test::kHourNs;
using kbt::test::k2021Ns;
constexpr std::int64_t kDayNs = 24 * kHourNs;

kbt::CsvImportOptions one(const std::string& symbol, const std::string& path) {
  kbt::CsvImportOptions o;
  o.bars.push_back({symbol, path});
  return o;
}

std::string error_of(const kbt::CsvImportOptions& o, kbt::ErrorCategory want = kbt::ErrorCategory::data_format) {
  return kbt::test::csv_import_error(o, want);
}

TEST(DataCsv, GoogLikeDailyRowsWithUnnamedTimeColumn) {
  kbt::test::TempDir dir;
  // The layout of Yahoo/backtesting.py exports: unnamed first column, capitalized names.
  const auto path = dir.write("GOOG.csv",
                              ",Open,High,Low,Close,Volume\n"
                              "2004-08-19,100,104.06,95.96,100.34,22351900\n"
                              "2004-08-20,101.01,109.08,100.5,108.31,11428600\n"
                              "2004-08-23,110.75,113.48,109.05,109.4,9137200\n");
  const auto b = kbt::import_csv(one("", path));
  ASSERT_EQ(b.symbols, std::vector<std::string>{"GOOG"});  // from the file stem
  // 2004-08-19 is day 12649 since 1970-01-01.
  const std::int64_t d0 = 12649LL * kDayNs;
  EXPECT_EQ(b.timestamps, (std::vector<std::int64_t>{d0, d0 + kDayNs, d0 + 4 * kDayNs}));
  EXPECT_EQ(b.columns.at("open"), (std::vector<double>{100, 101.01, 110.75}));
  EXPECT_EQ(b.columns.at("high"), (std::vector<double>{104.06, 109.08, 113.48}));
  EXPECT_EQ(b.columns.at("low"), (std::vector<double>{95.96, 100.5, 109.05}));
  EXPECT_EQ(b.columns.at("close"), (std::vector<double>{100.34, 108.31, 109.4}));
  EXPECT_EQ(b.columns.at("volume"), (std::vector<double>{22351900, 11428600, 9137200}));
  EXPECT_TRUE(b.venues.empty());
  EXPECT_FALSE(b.has_column("funding_rate"));
}

TEST(DataCsv, IsoVariantsAndEpochUnitsGiveTheSameGrid) {
  kbt::test::TempDir dir;
  const std::string rows_iso =
      "time,open,high,low,close,volume\n"
      "2021-01-01T00:00:00Z,1,2,0.5,1.5,10\n"
      "2021-01-01 01:00:00,1,2,0.5,1.5,10\n"
      "2021-01-01T03:00:00+01:00,1,2,0.5,1.5,10\n"  // = 02:00Z
      "2021-01-01T03:00:00.000,1,2,0.5,1.5,10\n";
  const std::string s = "1609459200", ms = "1609459200000", us = "1609459200000000", ns = "1609459200000000000";
  const std::string rows_epoch = "timestamp,open,high,low,close,volume\n" + s + ",1,2,0.5,1.5,10\n" +
                                 "1609462800000,1,2,0.5,1.5,10\n" + "1609466400000000,1,2,0.5,1.5,10\n" +
                                 "1609470000000000000,1,2,0.5,1.5,10\n";
  const std::vector<std::int64_t> want{k2021Ns, k2021Ns + kHourNs, k2021Ns + 2 * kHourNs, k2021Ns + 3 * kHourNs};
  EXPECT_EQ(kbt::import_csv(one("X", dir.write("iso.csv", rows_iso))).timestamps, want);
  EXPECT_EQ(kbt::import_csv(one("X", dir.write("epoch.csv", rows_epoch))).timestamps, want);
}

TEST(DataCsv, HeaderlessQuotedCrlfAndExtraColumns) {
  kbt::test::TempDir dir;
  const auto headerless = dir.write("h.csv", "2021-01-01,1,2,0.5,1.5\r\n\r\n2021-01-02,2,3,1.5,2.5\r\n");
  const auto b = kbt::import_csv(one("H", headerless));
  EXPECT_EQ(b.columns.at("close"), (std::vector<double>{1.5, 2.5}));
  EXPECT_TRUE(std::isnan(b.columns.at("volume")[0]));  // no volume column -> NaN
  // Lone CR line ends (classic Mac OS exports): the same rows, with line numbers.
  const auto cr = dir.write("cr.csv", "time,open,high,low,close\r2021-01-01,1,2,0.5,1.5\r\r2021-01-02,2,3,1.5,2.5\r");
  const auto c = kbt::import_csv(one("C", cr));
  EXPECT_EQ(c.columns.at("close"), (std::vector<double>{1.5, 2.5}));
  EXPECT_EQ(c.timestamps, b.timestamps);
  EXPECT_NE(error_of(one("C", dir.write("crbad.csv", "time,open,high,low,close\r2021-01-01,1,2,0.5,1.5\r\r2021-01-02,x,3,1.5,2.5\r")))
                .find("crbad.csv:4: column 'open': bad number 'x'"),
            std::string::npos);
  const auto quoted = dir.write("q.csv",
                                "\"Date\",\"Open\",\"High\",\"Low\",\"Close\",\"Adj Close\",\"Volume\"\n"
                                "\"2021-01-01\",\"1\",\"2\",\"0.5\",\"1.5\",\"1.4\",\"7\"\n");
  kbt::CsvImportNotes notes;
  const auto q = kbt::import_csv(one("Q", quoted), &notes);
  EXPECT_EQ(q.columns.at("volume"), std::vector<double>{7});
  ASSERT_EQ(notes.lines.size(), 1u);
  EXPECT_NE(notes.lines[0].find("ignored columns: adj close"), std::string::npos) << notes.lines[0];
}

TEST(DataCsv, SymbolsAlignOnTheUnionGridWithNaN) {
  kbt::test::TempDir dir;
  const auto a = dir.write("a.csv", "time,open,high,low,close,volume\n"
                                    "2021-01-01 00:00,1,1,1,1,1\n2021-01-01 02:00,3,3,3,3,3\n");
  const auto b = dir.write("b.csv", "time,open,high,low,close,volume\n"
                                    "2021-01-01 01:00,20,20,20,20,20\n2021-01-01 02:00,30,30,30,30,30\n"
                                    "2021-01-01 03:00,40,40,40,40,40\n");
  kbt::CsvImportOptions o;
  o.bars = {{"A", a}, {"B", b}};
  o.venues = {{"A", "binance"}, {"B", "okx"}};
  const auto bars = kbt::import_csv(o);
  EXPECT_EQ(bars.timestamps,
            (std::vector<std::int64_t>{k2021Ns, k2021Ns + kHourNs, k2021Ns + 2 * kHourNs, k2021Ns + 3 * kHourNs}));
  EXPECT_EQ(bars.venues, (std::vector<std::string>{"binance", "okx"}));
  const auto& close = bars.columns.at("close");
  const double N = std::nan("");
  const std::vector<double> want{1, N, 3, N, N, 20, 30, 40};
  EXPECT_TRUE(kbt::test::same_bits(close, want));
}

TEST(DataCsv, FundingOnBarTimesAndExoRaw) {
  kbt::test::TempDir dir;
  const auto bars = dir.write("X.csv", "time,open,high,low,close,volume\n"
                                       "2021-01-01 00:00,1,1,1,1,1\n2021-01-01 01:00,1,1,1,1,1\n"
                                       "2021-01-01 02:00,1,1,1,1,1\n");
  const auto funding = dir.write("f.csv", "timestamp,rate\n2021-01-01 01:00,0.0001\n");
  const auto exo = dir.write("e.csv", "1609461000,5.5\n1609466400,6.5\n");  // 00:30, 02:00 (headerless, epoch s)
  kbt::CsvImportOptions o = one("", bars);
  o.funding = {{"X", funding}};
  o.exo = {{"hashrate", exo}};
  const auto raw = kbt::import_csv_raw(o);
  EXPECT_EQ(raw.exo.at("hashrate").timestamps, (std::vector<std::int64_t>{k2021Ns + kHourNs / 2, k2021Ns + 2 * kHourNs}));
  const auto b = kbt::import_csv(o);
  const auto& f = b.columns.at("funding_rate");
  EXPECT_TRUE(std::isnan(f[0]));
  EXPECT_EQ(f[1], 0.0001);
  EXPECT_TRUE(std::isnan(f[2]));
  const auto& h = b.exo.at("hashrate");
  EXPECT_TRUE(std::isnan(h[0]));
  EXPECT_EQ(h[1], 5.5);
  EXPECT_EQ(h[2], 6.5);

  o.funding = {{"X", dir.write("off.csv", "time,rate\n2021-01-01 00:30,0.1\n")}};
  EXPECT_NE(error_of(o).find("off.csv:2: funding time 2021-01-01T00:30:00Z is not a bar time"), std::string::npos);
  o.funding = {{"Y", funding}};
  EXPECT_NE(error_of(o, kbt::ErrorCategory::config).find("'Y', which is not imported"), std::string::npos);
}

TEST(DataCsv, ErrorsNameFileAndLine) {
  kbt::test::TempDir dir;
  const std::string head = "time,open,high,low,close,volume\n";
  const std::string ok = "2021-01-01 00:00,1,2,0.5,1.5,10\n";
  auto err = [&](const std::string& name, const std::string& text) { return error_of(one("S", dir.write(name, text))); };
  EXPECT_NE(err("n.csv", head + ok + "2021-01-01 01:00,1,2,x1,1.5,10\n").find("n.csv:3: column 'low': bad number 'x1'"),
            std::string::npos);
  EXPECT_NE(err("inf.csv", head + ok + "2021-01-01 01:00,1,inf,1,1.5,10\n").find("inf.csv:3: column 'high'"),
            std::string::npos);
  EXPECT_NE(err("w.csv", head + ok + "\n2021-01-01 01:00,1,2\n").find("w.csv:4: expected 6 fields, found 3"),
            std::string::npos);
  EXPECT_NE(err("t.csv", head + ok + "2021-02-30,1,2,0.5,1.5,10\n").find("t.csv:3: cannot parse time '2021-02-30'"),
            std::string::npos);
  // A time finer than 1 ns is refused, not cut to the nanosecond.
  EXPECT_NE(err("ns.csv", head + ok + "2021-01-01T01:00:00.1234567891,1,2,0.5,1.5,10\n")
                .find("ns.csv:3: cannot parse time '2021-01-01T01:00:00.1234567891'"),
            std::string::npos);
  EXPECT_NE(err("o.csv", head + "2021-01-02,1,2,0.5,1.5,10\n" + ok).find("o.csv:3: time 2021-01-01T00:00:00Z is before"),
            std::string::npos);
  EXPECT_NE(err("d.csv", head + ok + ok).find("d.csv:3: duplicate time"), std::string::npos);
  EXPECT_NE(err("e.csv", "").find("e.csv: file is empty"), std::string::npos);
  EXPECT_NE(err("ho.csv", head).find("ho.csv: no data rows"), std::string::npos);
  EXPECT_NE(err("m.csv", "time,open,high,low,volume\n2021-01-01,1,2,0.5,1\n").find("m.csv:1: missing column 'close'"),
            std::string::npos);
  EXPECT_NE(err("hl.csv", "2021-01-01,1,2\n").find("hl.csv:1: no header and 3 fields"), std::string::npos);
  EXPECT_NE(error_of(one("S", dir.file("absent.csv")), kbt::ErrorCategory::io).find("absent.csv"), std::string::npos);
  // Two files with the same stem.
  kbt::CsvImportOptions two;
  const auto p = dir.write("X.csv", head + ok);
  two.bars = {{"", p}, {"", p}};
  EXPECT_NE(error_of(two, kbt::ErrorCategory::config).find("'X' given twice"), std::string::npos);
}

TEST(DataCsv, CsvWriterRoundTrips) {
  kbt::test::TempDir dir;
  kbt::SynthOptions so;
  so.n_symbols = 2;
  so.n_bars = 50;
  so.funding = true;
  const auto b = kbt::synth_bars(so);
  kbt::write_bars_csv(b, "BBB", dir.file("BBB.csv"));
  kbt::CsvImportOptions o = one("", dir.file("BBB.csv"));
  // The funding_rate column is extra for the bar importer: round trip OHLCV.
  const auto back = kbt::import_csv(o);
  EXPECT_EQ(back.timestamps, b.timestamps);
  for (const auto& name : kbt::required_bar_columns())
    EXPECT_TRUE(kbt::test::same_bits(back.columns.at(name),
                                     std::vector<double>(b.series(name, 1), b.series(name, 1) + b.n_bars())))
        << name;
}

TEST(DataCsv, DailyAndIntradayFilesOfTheTwoExportLayoutsAlignOnTheUnionOfTheirTimes) {
  // Generated in the layouts of the public GOOG (daily, date only) and EURUSD
  // (hourly, "date time") exports, which share no timestamp: the grid is the
  // union, each symbol NaN where it has no bar.
  kbt::test::TempDir dir;
  std::string goog = ",Open,High,Low,Close,Volume\n", eurusd = goog;
  constexpr int n_days = 30, n_hours = 50;
  for (int d = 0; d < n_days; ++d) {  // 2004-08-19 onwards, every day
    const std::int64_t day = 12649 + d;
    const std::int64_t z = day + 719468, era = z / 146097, doe = z - era * 146097;  // civil_from_days
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365, doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153, dd = doy - (153 * mp + 2) / 5 + 1, mm = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t yy = yoe + era * 400 + (mm <= 2 ? 1 : 0);
    char line[96];
    std::snprintf(line, sizeof line, "%04lld-%02lld-%02lld,%d,%d,%d,%d,1000\n", static_cast<long long>(yy),
                  static_cast<long long>(mm), static_cast<long long>(dd), 100 + d, 101 + d, 99 + d, 100 + d);
    goog += line;
  }
  for (int h = 0; h < n_hours; ++h) {  // 2017-04-19 09:00 onwards, hourly
    char line[96];
    std::snprintf(line, sizeof line, "2017-04-%02d %02d:00:00,1.07,1.08,1.06,1.07%02d,10\n", 19 + (9 + h) / 24,
                  (9 + h) % 24, h);
    eurusd += line;
  }
  kbt::CsvImportOptions o;
  o.bars = {{"", dir.write("GOOG.csv", goog)}, {"", dir.write("EURUSD.csv", eurusd)}};
  const auto b = kbt::import_csv(o);
  EXPECT_EQ(b.symbols, (std::vector<std::string>{"GOOG", "EURUSD"}));
  ASSERT_EQ(b.n_bars(), std::size_t(n_days + n_hours));  // the two files share no timestamp
  EXPECT_EQ(b.timestamps.front(), 12649LL * kDayNs);  // 2004-08-19
  // 2017-04-19 is day 17275.
  EXPECT_EQ(b.timestamps[n_days], 17275LL * kDayNs + 9 * kHourNs);
  EXPECT_EQ(b.timestamps.back(), 17275LL * kDayNs + (9 + n_hours - 1) * kHourNs);
  const auto& close = b.columns.at("close");  // [symbol][bar]
  EXPECT_EQ(close[n_days - 1], 100.0 + (n_days - 1));
  EXPECT_TRUE(std::isnan(close[n_days]));                 // GOOG has no hourly bar
  EXPECT_TRUE(std::isnan(close[b.n_bars() + 0]));         // EURUSD has no daily bar
  EXPECT_EQ(close[b.n_bars() + n_days + 3], 1.0703);
}

}  // namespace
