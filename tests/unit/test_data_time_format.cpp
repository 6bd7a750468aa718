// ISO-8601 / epoch / duration parsing against hand-computed epoch values
// (checked with Python's calendar.timegm).

#include <gtest/gtest.h>
#include <kbt/data/time_format.hpp>

namespace {

constexpr std::int64_t kSec = 1000000000LL;
constexpr std::int64_t k2021 = 1609459200LL * kSec;

TEST(DataTimeFormat, IsoDatesAndTimes) {
  EXPECT_EQ(kbt::parse_iso8601_ns("1970-01-01"), 0);
  EXPECT_EQ(kbt::parse_iso8601_ns("2021-01-01"), k2021);
  EXPECT_EQ(kbt::parse_iso8601_ns("2021-01-01 00:00:00"), k2021);
  EXPECT_EQ(kbt::parse_iso8601_ns("20210101"), k2021);  // basic format
  EXPECT_FALSE(kbt::parse_iso8601_ns("20211301"));
  EXPECT_EQ(kbt::parse_iso8601_ns("2021-01-01T00:00"), k2021);
  EXPECT_EQ(kbt::parse_iso8601_ns("2000-02-29T12:34:56"), 951827696LL * kSec);  // leap day
  EXPECT_EQ(kbt::parse_iso8601_ns("1900-03-01"), -2203891200LL * kSec);
  EXPECT_EQ(kbt::parse_iso8601_ns("1969-12-31T23:59:59Z"), -kSec);
}

TEST(DataTimeFormat, IsoFractionsAndOffsets) {
  EXPECT_EQ(kbt::parse_iso8601_ns("2021-01-01T00:00:00.5Z"), k2021 + 500000000);
  EXPECT_EQ(kbt::parse_iso8601_ns("2021-01-01T00:00:00.123456789"), k2021 + 123456789);
  // Finer than 1 ns is refused, not cut; trailing zeros past 9 digits are exact.
  EXPECT_FALSE(kbt::parse_iso8601_ns("2021-01-01T00:00:00.1234567891"));
  EXPECT_EQ(kbt::parse_iso8601_ns("2021-01-01T00:00:00.1234567890"), k2021 + 123456789);
  EXPECT_EQ(kbt::parse_iso8601_ns("2021-01-01T02:00:00+02:00"), k2021);
  EXPECT_EQ(kbt::parse_iso8601_ns("2020-12-31T19:00:00-05:00"), k2021);
  EXPECT_EQ(kbt::parse_iso8601_ns("2020-12-31T18:30:00-0530"), k2021);
  EXPECT_EQ(kbt::parse_iso8601_ns("2021-01-01T09:00:00+09"), k2021);
  EXPECT_FALSE(kbt::parse_iso8601_ns("2021-01-01T09:00:00+9"));
  EXPECT_FALSE(kbt::parse_iso8601_ns("2021-01-01T09:00:00+09:"));
}

TEST(DataTimeFormat, IsoRejectsMalformed) {
  for (const char* bad : {"2021-02-29", "2021-13-01", "2021-00-10", "2021-01-32", "2021-01-01T24:00:00",
                          "2021-01-01T12:60", "2021-1-1", "2021/01/01", "2021-01-01T", "2021-01-01 12",
                          "2021-01-01T00:00:00.", "2021-01-01T00:00:00Zjunk", "abc", ""})
    EXPECT_FALSE(kbt::parse_iso8601_ns(bad)) << bad;
}

TEST(DataTimeFormat, EpochUnitByMagnitude) {
  EXPECT_EQ(kbt::parse_epoch_ns("1609459200"), k2021);                 // seconds
  EXPECT_EQ(kbt::parse_epoch_ns("1609459200000"), k2021);              // ms
  EXPECT_EQ(kbt::parse_epoch_ns("1609459200000000"), k2021);           // us
  EXPECT_EQ(kbt::parse_epoch_ns("1609459200000000000"), k2021);        // ns
  EXPECT_EQ(kbt::parse_epoch_ns("1609459200.25"), k2021 + 250000000);  // fractional seconds
  EXPECT_EQ(kbt::parse_epoch_ns("1609459200000.5"), k2021 + 500000);   // fractional ms
  EXPECT_EQ(kbt::parse_epoch_ns("1609459200.123456789"), k2021 + 123456789);
  EXPECT_FALSE(kbt::parse_epoch_ns("1609459200.1234567891"));  // finer than 1 ns: refused
  EXPECT_EQ(kbt::parse_epoch_ns("1609459200000000000.000"), k2021);
  EXPECT_EQ(kbt::parse_epoch_ns("9000000000"), 9000000000LL * kSec);  // 2255, as seconds
  EXPECT_FALSE(kbt::parse_epoch_ns("99999999999"));  // seconds, but past int64 ns (year 2262)
  EXPECT_EQ(kbt::parse_epoch_ns("100000000000"), 100000000000LL * 1000000);  // first read as ms
  EXPECT_EQ(kbt::parse_epoch_ns("-86400"), -86400 * kSec);
  EXPECT_EQ(kbt::parse_epoch_ns("0"), 0);
  for (const char* bad : {"", "-", ".", "12abc", "1e9", "99999999999999999999", "0x10"})
    EXPECT_FALSE(kbt::parse_epoch_ns(bad)) << bad;
}

TEST(DataTimeFormat, TimestampTriesIsoThenEpoch) {
  EXPECT_EQ(kbt::parse_timestamp_ns("2021-01-01"), k2021);
  EXPECT_EQ(kbt::parse_timestamp_ns("1609459200"), k2021);
  EXPECT_EQ(kbt::parse_timestamp_ns("20000229"), 951782400LL * kSec);  // a date, not 20000229 s
  EXPECT_EQ(kbt::parse_timestamp_ns("99999999"), 99999999LL * kSec);   // no such date: epoch seconds
  EXPECT_FALSE(kbt::parse_timestamp_ns("yesterday"));
}

TEST(DataTimeFormat, FormatsIsoUtc) {
  EXPECT_EQ(kbt::format_iso8601_utc(k2021), "2021-01-01T00:00:00Z");
  EXPECT_EQ(kbt::format_iso8601_utc(k2021 + 500000000), "2021-01-01T00:00:00.5Z");
  EXPECT_EQ(kbt::format_iso8601_utc(951827696LL * kSec + 123), "2000-02-29T12:34:56.000000123Z");
  EXPECT_EQ(kbt::format_iso8601_utc(-1), "1969-12-31T23:59:59.999999999Z");
  EXPECT_EQ(kbt::format_iso8601_utc(-2203891200LL * kSec), "1900-03-01T00:00:00Z");
}

TEST(DataTimeFormat, Durations) {
  EXPECT_EQ(kbt::parse_duration_ns("1m"), 60 * kSec);  // minute, not month
  EXPECT_EQ(kbt::parse_duration_ns("15min"), 900 * kSec);
  EXPECT_EQ(kbt::parse_duration_ns("4h"), 4 * 3600 * kSec);
  EXPECT_EQ(kbt::parse_duration_ns("1d"), 86400 * kSec);
  EXPECT_EQ(kbt::parse_duration_ns("1w"), 7 * 86400 * kSec);
  EXPECT_EQ(kbt::parse_duration_ns("250ms"), 250000000);
  for (const char* bad : {"", "h", "0h", "1y", "1.5h", "-1h", "1 h"})
    EXPECT_FALSE(kbt::parse_duration_ns(bad)) << bad;
  EXPECT_EQ(kbt::format_duration(3600 * kSec), "1h");
  EXPECT_EQ(kbt::format_duration(90 * kSec), "90s");
  EXPECT_EQ(kbt::format_duration(15 * 60 * kSec), "15m");
  EXPECT_EQ(kbt::format_duration(14 * 86400 * kSec), "2w");
  EXPECT_EQ(kbt::format_duration(1500000000), "1500ms");
}

}  // namespace

// Spans of time for walk-forward windows: durations, and calendar months and
// years that keep the day of the month (clamped) and the time of day.
TEST(DataTimeFormat, CalendarSpansAdvanceByMonthsAndDurations) {
  const auto at = [](const char* iso) { return *kbt::parse_iso8601_ns(iso); };
  const auto advance = [&](const char* span, const char* from) {
    return kbt::format_iso8601_utc(kbt::parse_calendar_span(span)->advance(at(from)));
  };
  EXPECT_EQ(advance("1mo", "2021-01-31T12:00:00Z"), "2021-02-28T12:00:00Z");
  EXPECT_EQ(advance("1mo", "2024-01-31"), "2024-02-29T00:00:00Z");  // a leap year
  EXPECT_EQ(advance("6mo", "2021-08-15T01:02:03Z"), "2022-02-15T01:02:03Z");
  EXPECT_EQ(advance("2y", "2020-02-29"), "2022-02-28T00:00:00Z");
  EXPECT_EQ(advance("90d", "2021-01-01"), "2021-04-01T00:00:00Z");
  EXPECT_EQ(advance("12h", "2021-01-01"), "2021-01-01T12:00:00Z");
  for (const char* bad : {"", "mo", "0mo", "6m0", "2years", "1.5y"}) EXPECT_FALSE(kbt::parse_calendar_span(bad)) << bad;
  // Calendar periods: a Sunday and the Monday after are in different weeks.
  EXPECT_NE(kbt::calendar_period_of(at("2021-01-03"), kbt::CalendarPeriod::week),
            kbt::calendar_period_of(at("2021-01-04"), kbt::CalendarPeriod::week));
  EXPECT_EQ(kbt::calendar_period_of(at("2021-01-04"), kbt::CalendarPeriod::week),
            kbt::calendar_period_of(at("2021-01-10T23:59:59Z"), kbt::CalendarPeriod::week));
  EXPECT_EQ(kbt::calendar_period_of(at("2021-02-01"), kbt::CalendarPeriod::month) -
                kbt::calendar_period_of(at("2020-02-29"), kbt::CalendarPeriod::month),
            12);
}
