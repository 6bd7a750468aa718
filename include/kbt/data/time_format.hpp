#pragma once
// Timestamps and bar spacings as text: ISO-8601 and epoch numbers in, ISO-8601
// UTC out, and "1h"-style durations. All times are int64 nanoseconds since
// 1970-01-01T00:00:00Z (the bar-grid unit, docs/data-format.md).

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace kbt {

// Parses an ISO-8601 date or date-time into ns since epoch (UTC). Accepted:
//   2021-03-04                     (midnight UTC)
//   20210304                       (basic format, date only: 8 digits)
//   2021-03-04 05:06:07  / 2021-03-04T05:06:07
//   2021-03-04T05:06               (seconds omitted)
//   ...07.123456789                (1 to 9 fractional digits)
//   ...Z / ...+02:00 / ...-0530 / ...+09  (offset; the result is converted to UTC)
// A time without an offset is taken as UTC. Returns nullopt when `text` is
// not of this form or names an impossible date/time.
std::optional<std::int64_t> parse_iso8601_ns(std::string_view text);

// Parses an epoch number (optional sign, digits, optional fraction) and picks
// its unit from the magnitude of the integer part:
//   |v| < 1e11 -> seconds, < 1e14 -> milliseconds, < 1e17 -> microseconds,
//   otherwise nanoseconds.
// (1e11 ms is 1973-03-03 and 1e11 s lies beyond what int64 ns can hold, the
// year 2262, so any time from 1973 to 2262 is read correctly whatever its
// unit.) A fraction with non-zero digits below 1 ns is refused (nullopt), as
// it is in the ISO form. Returns nullopt when `text` is not a number or
// overflows int64 ns.
std::optional<std::int64_t> parse_epoch_ns(std::string_view text);

// ISO-8601 form first, then an epoch number. So 8 digits that form a valid
// date (20210304) are a date, not epoch seconds of 1970-1973.
std::optional<std::int64_t> parse_timestamp_ns(std::string_view text);

// parse_timestamp_ns that also says whether the time is a wall-clock time
// (an ISO form without Z or an offset), which a time zone may then place
// (kbt::TimeZone); epoch numbers and zoned ISO times are UTC.
struct ParsedTimestamp {
  std::int64_t ns = 0;  // UTC, or for a wall-clock time that time read as UTC
  bool wall_clock = false;
};
std::optional<ParsedTimestamp> parse_timestamp(std::string_view text);

// "2021-03-04T05:06:07Z"; fractional seconds are printed only when non-zero
// (".5", ".000123" ... up to 9 digits, trailing zeros dropped).
std::string format_iso8601_utc(std::int64_t ns);

// Bar spacing: a positive integer followed by a unit: ns, us, ms, s, m (or
// min), h, d, w. "1m" is one MINUTE. Returns nullopt on anything else.
std::optional<std::int64_t> parse_duration_ns(std::string_view text);

// The shortest exact form of a duration from parse_duration_ns's units
// ("1h", "15m", "1d", "90s", "1500ms"); "0s" for zero.
std::string format_duration(std::int64_t ns);

// UTC calendar periods (validation's per-period returns): the period holding
// `ns` as a number that grows by one per period: days since 1970-01-01, weeks
// (Monday to Sunday) since the week of 1970-01-01, or months (12 * year + month - 1).
enum class CalendarPeriod { day, week, month };
std::int64_t calendar_period_of(std::int64_t ns, CalendarPeriod period);

// A span of time that a window can last (validation.walk_forward): a
// parse_duration_ns duration ("90d", "4w", "12h"), or calendar months ("6mo")
// or years ("2y", twelve months). `advance` moves `ns` forward by it; months
// keep the day of the month (clamped to the month's length) and the time of day.
struct CalendarSpan {
  std::int64_t ns = 0;      // a fixed duration, or 0
  std::int64_t months = 0;  // calendar months, or 0
  std::int64_t advance(std::int64_t from_ns) const;
};
std::optional<CalendarSpan> parse_calendar_span(std::string_view text);

}  // namespace kbt
