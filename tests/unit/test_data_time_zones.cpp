// CSV times without an offset placed in a named time zone (--timezone):
// standard and daylight time, zoned and epoch times untouched, the gap and the
// repeated hour refused with file:line (docs/data-format.md "Time zones").

#include <gtest/gtest.h>
#include <kbt/data/data_io.hpp>
#include <kbt/data/time_zone.hpp>
#include <kbt/core/error.hpp>

#include <string>
#include <vector>

#include "support/cli_runner.hpp"
#include "unit/test_data_support.hpp"

namespace {

constexpr std::int64_t kHour = 3600LL * 1000000000LL;
// 2024-01-02T00:00:00Z and 2024-07-01T00:00:00Z, from days since 1970 (19724, 19905).
constexpr std::int64_t kJan2 = 19724LL * 24 * kHour;
constexpr std::int64_t kJul1 = 19905LL * 24 * kHour;

kbt::CsvImportOptions in_zone(const std::string& path, const std::string& zone) {
  kbt::CsvImportOptions o;
  o.bars.push_back({"S", path});
  o.timezone = zone;
  return o;
}

std::string error_of(const kbt::CsvImportOptions& o, kbt::ErrorCategory want = kbt::ErrorCategory::data_format) {
  return kbt::test::csv_import_error(o, want);
}

TEST(DataTimeZones, WallClockTimesFollowStandardAndDaylightTime) {
  kbt::test::TempDir dir;
  const auto path = dir.write("ny.csv",
                              "time,open,high,low,close\n"
                              "2024-01-02 09:30,1,2,0.5,1.5\n"          // EST, UTC-5
                              "2024-01-02T16:00:00Z,1,2,0.5,1.5\n"      // zoned: UTC as written
                              "2024-07-01 09:30:00,1,2,0.5,1.5\n"       // EDT, UTC-4
                              "2024-07-01T16:00:00+02:00,1,2,0.5,1.5\n"  // offset wins over the zone
                              "1719849600,1,2,0.5,1.5\n");              // epoch 2024-07-01T16:00Z: UTC
  const auto b = kbt::import_csv(in_zone(path, "America/New_York"));
  const std::int64_t half = kHour / 2;
  EXPECT_EQ(b.timestamps, (std::vector<std::int64_t>{kJan2 + 14 * kHour + half, kJan2 + 16 * kHour,
                                                     kJul1 + 13 * kHour + half, kJul1 + 14 * kHour,
                                                     kJul1 + 16 * kHour}));
  // Without a zone the same wall-clock times are UTC.
  EXPECT_EQ(kbt::import_csv(in_zone(path, "")).timestamps[0], kJan2 + 9 * kHour + half);
  // A date alone is local midnight: Tokyo is UTC+9 all year.
  const auto tokyo = dir.write("t.csv", "date,open,high,low,close\n2024-01-02,1,2,0.5,1.5\n");
  EXPECT_EQ(kbt::import_csv(in_zone(tokyo, "Asia/Tokyo")).timestamps[0], kJan2 - 9 * kHour);
}

TEST(DataTimeZones, TheGapAndTheRepeatedHourAreRefused) {
  kbt::test::TempDir dir;
  const std::string head = "time,open,high,low,close\n2024-03-09 12:00,1,2,0.5,1.5\n";
  const std::string gap = error_of(in_zone(dir.write("gap.csv", head + "2024-03-10 02:30,1,2,0.5,1.5\n"),
                                           "America/New_York"));
  EXPECT_NE(gap.find("gap.csv:3: local time '2024-03-10 02:30' does not exist in America/New_York"), std::string::npos)
      << gap;
  const std::string twice = error_of(in_zone(dir.write("twice.csv", head + "2024-11-03 01:30,1,2,0.5,1.5\n"),
                                             "America/New_York"));
  EXPECT_NE(twice.find("twice.csv:3: local time '2024-11-03 01:30' happens twice in America/New_York"),
            std::string::npos)
      << twice;
  // With its offset the repeated hour is fine.
  EXPECT_NO_THROW(kbt::import_csv(in_zone(dir.write("ok.csv", head + "2024-11-03T01:30:00-05:00,1,2,0.5,1.5\n"),
                                          "America/New_York")));
  const std::string unknown =
      error_of(in_zone(dir.write("u.csv", head), "Mars/Olympus_Mons"), kbt::ErrorCategory::config);
  EXPECT_NE(unknown.find("--timezone 'Mars/Olympus_Mons': not a time zone"), std::string::npos) << unknown;
}

TEST(DataTimeZones, TheCliTakesTimezone) {
  kbt::test::TempDir dir;
  const auto csv = dir.write("B.csv", "Datum;Open;High;Low;Close\n2024-01-02 09:00;1,5;2;1;1,75\n");
  const auto out = dir.file("b.h5");
  const auto r = kbt::test::run_kbt("data import -o " + out + " " + csv +
                                    " --timezone Europe/Berlin --decimal-comma --map time=datum");
  ASSERT_EQ(r.exit_code, 0) << r.output;
  const kbt::BarData b = kbt::load_bars_hdf5(out, {});
  EXPECT_EQ(b.timestamps, std::vector<std::int64_t>{kJan2 + 8 * kHour});  // CET, UTC+1
  EXPECT_EQ(b.columns.at("close"), std::vector<double>{1.75});
}

}  // namespace
