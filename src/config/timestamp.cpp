#include <kbt/config_loader.hpp>

#include <cctype>

namespace kbt {

namespace {

// Days from 1970-01-01 to y-m-d in the proleptic Gregorian calendar
// (H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
  y -= m <= 2;
  const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

bool leap(std::int64_t y) { return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0; }

class Cursor {
 public:
  explicit Cursor(const std::string& s) : s_(s) {}
  bool done() const { return i_ == s_.size(); }
  bool peek(char c) const { return i_ < s_.size() && s_[i_] == c; }
  bool eat(char c) {
    if (!peek(c)) return false;
    ++i_;
    return true;
  }
  // Exactly `n` digits.
  bool digits(int n, int& out) {
    out = 0;
    for (int k = 0; k < n; ++k) {
      if (i_ >= s_.size() || !std::isdigit(static_cast<unsigned char>(s_[i_]))) return false;
      out = out * 10 + (s_[i_++] - '0');
    }
    return true;
  }
  // 1..9 fraction digits as nanoseconds.
  bool fraction(std::int64_t& ns) {
    int n = 0;
    ns = 0;
    while (i_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[i_]))) {
      if (++n > 9) return false;
      ns = ns * 10 + (s_[i_++] - '0');
    }
    for (int k = n; k < 9; ++k) ns *= 10;
    return n > 0;
  }

 private:
  const std::string& s_;
  std::size_t i_ = 0;
};

}  // namespace

std::optional<std::int64_t> parse_utc_timestamp_ns(const std::string& text) {
  Cursor c(text);
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
  std::int64_t nanos = 0, offset_minutes = 0;
  if (!c.digits(4, year) || !c.eat('-') || !c.digits(2, month) || !c.eat('-') || !c.digits(2, day))
    return std::nullopt;
  static const int month_days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  if (month < 1 || month > 12) return std::nullopt;
  const int days_in_month = month_days[month - 1] + (month == 2 && leap(year) ? 1 : 0);
  if (day < 1 || day > days_in_month) return std::nullopt;
  if (!c.done()) {
    if (!c.eat('T') && !c.eat(' ')) return std::nullopt;
    if (!c.digits(2, hour) || !c.eat(':') || !c.digits(2, minute)) return std::nullopt;
    if (c.eat(':')) {
      if (!c.digits(2, second)) return std::nullopt;
      if (c.eat('.') && !c.fraction(nanos)) return std::nullopt;
    }
    if (hour > 23 || minute > 59 || second > 59) return std::nullopt;
    if (c.eat('Z')) {
    } else if (c.peek('+') || c.peek('-')) {
      const bool negative = c.peek('-');
      c.eat(negative ? '-' : '+');
      int oh = 0, om = 0;
      if (!c.digits(2, oh)) return std::nullopt;
      c.eat(':');
      if (!c.digits(2, om) || oh > 23 || om > 59) return std::nullopt;
      offset_minutes = (negative ? -1 : 1) * (oh * 60 + om);
    }
    if (!c.done()) return std::nullopt;
  }
  // int64 ns covers 1677-09-21 .. 2262-04-11.
  const std::int64_t days = days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day));
  const std::int64_t seconds = days * 86400 + hour * 3600 + minute * 60 + second - offset_minutes * 60;
  const std::int64_t max_seconds = 9223372035;  // floor(INT64_MAX / 1e9) - 1: leaves room for the fraction
  if (seconds > max_seconds || seconds < -max_seconds) return std::nullopt;
  return seconds * 1000000000LL + nanos;
}

}  // namespace kbt
