#pragma once
// Wall-clock times of a named time zone to UTC, for CSV files whose times
// carry no offset (`kbt data import --timezone America/New_York`). Built on
// Howard Hinnant's date/tz library and the system's IANA database
// (/usr/share/zoneinfo); rules in docs/data-format.md "Time zones".

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace kbt {

class TimeZone {
 public:
  // An IANA name ("America/New_York", "Europe/Berlin", "UTC"); throws
  // kbt::Error(config) naming `option` for a name the database does not have.
  TimeZone(const std::string& name, const std::string& option);
  ~TimeZone();
  TimeZone(TimeZone&&) noexcept;
  TimeZone& operator=(TimeZone&&) noexcept;

  const std::string& name() const { return name_; }

  // The UTC time of wall-clock time `local_ns` (ns since 1970-01-01 read as
  // if UTC). nullopt with `why` set when the zone skips that time (the
  // spring-forward gap) or has it twice (the fall-back hour): kbt does not
  // guess which instant a file meant.
  std::optional<std::int64_t> to_utc(std::int64_t local_ns, std::string& why) const;

 private:
  struct Impl;
  std::string name_;
  std::unique_ptr<Impl> impl_;
};

}  // namespace kbt
