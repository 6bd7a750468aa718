// ISO-8601 / epoch / duration text <-> int64 ns. Hand-written (no strptime,
// no time zone database) so that parsing is identical on every platform.

#include <kbt/data/time_format.hpp>

#include <cstdint>
#include <cstdio>
#include <string>

namespace kbt {
namespace {

constexpr std::int64_t kNsPerSec = 1000000000LL;

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

void civil_from_days(std::int64_t z, std::int64_t& y, unsigned& m, unsigned& d) {
  z += 719468;
  const std::int64_t era = (z >= 0 ? z : z - 146096) / 146097;
  const unsigned doe = static_cast<unsigned>(z - era * 146097);
  const unsigned yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  y = static_cast<std::int64_t>(yoe) + era * 400;
  const unsigned doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const unsigned mp = (5 * doy + 2) / 153;
  d = doy - (153 * mp + 2) / 5 + 1;
  m = mp < 10 ? mp + 3 : mp - 9;
  y += m <= 2;
}

bool is_leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

unsigned days_in_month(std::int64_t y, unsigned m) {
  static const unsigned days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return m == 2 && is_leap(y) ? 29 : days[m - 1];
}

bool is_digit(char c) { return c >= '0' && c <= '9'; }

// Reads exactly `n` digits at `pos`.
bool read_digits(std::string_view s, std::size_t& pos, int n, int& out) {
  if (pos + static_cast<std::size_t>(n) > s.size()) return false;
  int v = 0;
  for (int i = 0; i < n; ++i) {
    const char c = s[pos + static_cast<std::size_t>(i)];
    if (!is_digit(c)) return false;
    v = v * 10 + (c - '0');
  }
  pos += static_cast<std::size_t>(n);
  out = v;
  return true;
}

bool mul_add_overflows(std::int64_t a, std::int64_t mul, std::int64_t add, std::int64_t& out) {
  return __builtin_mul_overflow(a, mul, &out) || __builtin_add_overflow(out, add, &out);
}

// The ISO-8601 grammar of parse_iso8601_ns; `zoned` tells whether the text
// carried Z or an offset.
std::optional<std::int64_t> parse_iso8601(std::string_view s, bool& zoned) {
  zoned = false;
  std::size_t pos = 0;
  int year = 0, month = 0, day = 0;
  if (s.size() == 8) {  // basic format date: YYYYMMDD
    if (!read_digits(s, pos, 4, year) || !read_digits(s, pos, 2, month) || !read_digits(s, pos, 2, day))
      return std::nullopt;
    if (month < 1 || month > 12 || day < 1 || static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month)))
      return std::nullopt;
    // Years before 1677 or after 2262 are outside the int64 ns range.
    std::int64_t ns = 0;
    if (mul_add_overflows(days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)),
                          86400 * kNsPerSec, 0, ns))
      return std::nullopt;
    return ns;
  }
  if (!read_digits(s, pos, 4, year) || pos >= s.size() || s[pos++] != '-') return std::nullopt;
  if (!read_digits(s, pos, 2, month) || pos >= s.size() || s[pos++] != '-') return std::nullopt;
  if (!read_digits(s, pos, 2, day)) return std::nullopt;
  if (month < 1 || month > 12) return std::nullopt;
  if (day < 1 || static_cast<unsigned>(day) > days_in_month(year, static_cast<unsigned>(month)))
    return std::nullopt;
  int hour = 0, minute = 0, second = 0;
  std::int64_t frac_ns = 0;
  std::int64_t offset_sec = 0;
  if (pos < s.size()) {
    if (s[pos] != 'T' && s[pos] != 't' && s[pos] != ' ') return std::nullopt;
    ++pos;
    if (!read_digits(s, pos, 2, hour) || pos >= s.size() || s[pos++] != ':') return std::nullopt;
    if (!read_digits(s, pos, 2, minute)) return std::nullopt;
    if (pos < s.size() && s[pos] == ':') {
      ++pos;
      if (!read_digits(s, pos, 2, second)) return std::nullopt;
      if (pos < s.size() && (s[pos] == '.' || s[pos] == ',')) {
        ++pos;
        int ndig = 0;
        while (pos < s.size() && is_digit(s[pos])) {
          if (ndig < 9) frac_ns = frac_ns * 10 + (s[pos] - '0');
          else if (s[pos] != '0') return std::nullopt;  // finer than 1 ns: not silently cut
          ++ndig;
          ++pos;
        }
        if (ndig == 0) return std::nullopt;
        for (int i = ndig; i < 9; ++i) frac_ns *= 10;
      }
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    if (pos < s.size()) {
      const char c = s[pos];
      if (c == 'Z' || c == 'z') {
        ++pos;
        zoned = true;
      } else if (c == '+' || c == '-') {
        ++pos;
        zoned = true;
        int oh = 0, om = 0;
        if (!read_digits(s, pos, 2, oh)) return std::nullopt;
        if (pos < s.size()) {  // +hh alone, or +hh:mm / +hhmm
          if (s[pos] == ':') ++pos;
          if (!read_digits(s, pos, 2, om)) return std::nullopt;
        }
        if (oh > 23 || om > 59) return std::nullopt;
        offset_sec = (oh * 3600 + om * 60) * (c == '+' ? 1 : -1);
      }
    }
  }
  if (pos != s.size()) return std::nullopt;
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  // Local time minus its offset is UTC.
  const std::int64_t secs = days * 86400 + hour * 3600 + minute * 60 + second - offset_sec;
  std::int64_t ns = 0;
  if (mul_add_overflows(secs, kNsPerSec, frac_ns, ns)) return std::nullopt;
  return ns;
}

}  // namespace

std::optional<std::int64_t> parse_iso8601_ns(std::string_view s) {
  bool zoned = false;
  return parse_iso8601(s, zoned);
}

std::optional<ParsedTimestamp> parse_timestamp(std::string_view text) {
  bool zoned = false;
  if (auto v = parse_iso8601(text, zoned)) return ParsedTimestamp{*v, !zoned};
  if (auto v = parse_epoch_ns(text)) return ParsedTimestamp{*v, false};
  return std::nullopt;
}

std::optional<std::int64_t> parse_epoch_ns(std::string_view s) {
  std::size_t pos = 0;
  bool negative = false;
  if (pos < s.size() && (s[pos] == '+' || s[pos] == '-')) negative = s[pos++] == '-';
  const std::size_t int_begin = pos;
  // The integer part, capped: anything with more than 19 digits overflows ns.
  std::int64_t int_part = 0;
  while (pos < s.size() && is_digit(s[pos])) {
    if (mul_add_overflows(int_part, 10, s[pos] - '0', int_part)) return std::nullopt;
    ++pos;
  }
  const std::size_t int_digits = pos - int_begin;
  std::string_view frac;
  if (pos < s.size() && s[pos] == '.') {
    ++pos;
    const std::size_t frac_begin = pos;
    while (pos < s.size() && is_digit(s[pos])) ++pos;
    frac = s.substr(frac_begin, pos - frac_begin);
  }
  if (pos != s.size() || (int_digits == 0 && frac.empty())) return std::nullopt;

  // Unit by magnitude of the integer part (documented in the header).
  int unit_exp;  // ns per unit = 10^unit_exp
  if (int_part < 100000000000LL) unit_exp = 9;                 // seconds
  else if (int_part < 100000000000000LL) unit_exp = 6;         // milliseconds
  else if (int_part < 100000000000000000LL) unit_exp = 3;      // microseconds
  else unit_exp = 0;                                           // nanoseconds
  std::int64_t scale = 1;
  for (int i = 0; i < unit_exp; ++i) scale *= 10;
  std::int64_t frac_ns = 0;
  std::int64_t place = scale / 10;
  for (char c : frac) {
    if (place == 0) {  // below 1 ns: refused (zeros are exact), never cut silently
      if (c != '0') return std::nullopt;
      continue;
    }
    frac_ns += (c - '0') * place;
    place /= 10;
  }
  std::int64_t ns = 0;
  if (mul_add_overflows(int_part, scale, frac_ns, ns)) return std::nullopt;
  return negative ? -ns : ns;
}

std::optional<std::int64_t> parse_timestamp_ns(std::string_view text) {
  if (auto v = parse_iso8601_ns(text)) return v;
  return parse_epoch_ns(text);
}

std::string format_iso8601_utc(std::int64_t ns) {
  std::int64_t secs = ns / kNsPerSec;
  std::int64_t frac = ns % kNsPerSec;
  if (frac < 0) {
    frac += kNsPerSec;
    --secs;
  }
  std::int64_t days = secs / 86400;
  std::int64_t sod = secs % 86400;
  if (sod < 0) {
    sod += 86400;
    --days;
  }
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  char buf[64];
  int n = std::snprintf(buf, sizeof buf, "%04lld-%02u-%02uT%02d:%02d:%02d",
                        static_cast<long long>(y), m, d, static_cast<int>(sod / 3600),
                        static_cast<int>(sod / 60 % 60), static_cast<int>(sod % 60));
  std::string out(buf, static_cast<std::size_t>(n));
  if (frac != 0) {
    std::snprintf(buf, sizeof buf, ".%09lld", static_cast<long long>(frac));
    std::string f(buf);
    while (f.back() == '0') f.pop_back();
    out += f;
  }
  out += 'Z';
  return out;
}

namespace {
struct DurationUnit {
  const char* name;
  std::int64_t ns;
};
// Largest first, for format_duration.
const DurationUnit kUnits[] = {
    {"w", 7 * 86400 * kNsPerSec}, {"d", 86400 * kNsPerSec}, {"h", 3600 * kNsPerSec},
    {"m", 60 * kNsPerSec},        {"s", kNsPerSec},         {"ms", 1000000},
    {"us", 1000},                 {"ns", 1},
};
}  // namespace

std::optional<std::int64_t> parse_duration_ns(std::string_view s) {
  std::size_t pos = 0;
  std::int64_t count = 0;
  while (pos < s.size() && is_digit(s[pos])) {
    if (pos >= 18) return std::nullopt;
    count = count * 10 + (s[pos] - '0');
    ++pos;
  }
  if (pos == 0 || count <= 0) return std::nullopt;
  std::string_view unit = s.substr(pos);
  if (unit == "min") unit = "m";
  for (const auto& u : kUnits) {
    if (unit == u.name) {
      std::int64_t ns = 0;
      if (__builtin_mul_overflow(count, u.ns, &ns)) return std::nullopt;
      return ns;
    }
  }
  return std::nullopt;
}

std::string format_duration(std::int64_t ns) {
  if (ns == 0) return "0s";
  const std::string sign = ns < 0 ? "-" : "";
  const std::int64_t a = ns < 0 ? -ns : ns;
  for (const auto& u : kUnits) {
    if (a % u.ns == 0) return sign + std::to_string(a / u.ns) + u.name;
  }
  return sign + std::to_string(a) + "ns";
}

std::int64_t calendar_period_of(std::int64_t ns, CalendarPeriod period) {
  std::int64_t days = ns / (86400 * kNsPerSec);
  if (ns % (86400 * kNsPerSec) < 0) --days;  // floor
  switch (period) {
    case CalendarPeriod::day: return days;
    case CalendarPeriod::week: {
      const std::int64_t from_monday = days + 3;  // 1970-01-01 was a Thursday
      return from_monday >= 0 ? from_monday / 7 : (from_monday - 6) / 7;
    }
    case CalendarPeriod::month: {
      std::int64_t y;
      unsigned m, d;
      civil_from_days(days, y, m, d);
      return 12 * y + static_cast<std::int64_t>(m) - 1;
    }
  }
  return days;
}

std::optional<CalendarSpan> parse_calendar_span(std::string_view text) {
  const auto calendar = [&](std::string_view unit, std::int64_t per) -> std::optional<CalendarSpan> {
    if (text.size() <= unit.size() || text.substr(text.size() - unit.size()) != unit) return std::nullopt;
    const std::string_view digits = text.substr(0, text.size() - unit.size());
    std::int64_t count = 0;
    for (const char c : digits) {
      if (!is_digit(c) || count > 100000) return std::nullopt;
      count = count * 10 + (c - '0');
    }
    if (count <= 0) return std::nullopt;
    return CalendarSpan{0, count * per};
  };
  if (auto months = calendar("mo", 1)) return months;
  if (auto years = calendar("y", 12)) return years;
  if (const auto ns = parse_duration_ns(text)) return CalendarSpan{*ns, 0};
  return std::nullopt;
}

std::int64_t CalendarSpan::advance(std::int64_t from_ns) const {
  if (months == 0) return from_ns + ns;
  const std::int64_t day_ns = 86400 * kNsPerSec;
  std::int64_t days = from_ns / day_ns, in_day = from_ns % day_ns;
  if (in_day < 0) in_day += day_ns, --days;
  std::int64_t y;
  unsigned m, d;
  civil_from_days(days, y, m, d);
  const std::int64_t month_index = 12 * y + (m - 1) + months;
  const std::int64_t ny = month_index >= 0 ? month_index / 12 : (month_index - 11) / 12;
  const auto nm = static_cast<unsigned>(month_index - 12 * ny + 1);
  // The last day of the target month: the day before the first of the next.
  const std::int64_t next_first = nm == 12 ? days_from_civil(ny + 1, 1, 1) : days_from_civil(ny, nm + 1, 1);
  const auto last = static_cast<unsigned>(next_first - days_from_civil(ny, nm, 1));
  return days_from_civil(ny, nm, d < last ? d : last) * day_ns + in_day;
}

}  // namespace kbt
