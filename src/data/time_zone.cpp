#include <kbt/data/time_zone.hpp>
#include <kbt/core/error.hpp>

#include <date/tz.h>

#include <chrono>

namespace kbt {

struct TimeZone::Impl {
  const date::time_zone* zone = nullptr;
};

TimeZone::TimeZone(const std::string& name, const std::string& option) : name_(name), impl_(std::make_unique<Impl>()) {
  try {
    impl_->zone = date::locate_zone(name);
  } catch (const std::exception& e) {
    throw Error(ErrorCategory::config, option + " '" + name +
                                           "': not a time zone of the IANA database (e.g. America/New_York, "
                                           "Europe/Berlin, Asia/Tokyo, UTC): " + e.what());
  }
}

TimeZone::~TimeZone() = default;
TimeZone::TimeZone(TimeZone&&) noexcept = default;
TimeZone& TimeZone::operator=(TimeZone&&) noexcept = default;

std::optional<std::int64_t> TimeZone::to_utc(std::int64_t local_ns, std::string& why) const {
  using ns = std::chrono::nanoseconds;
  const date::local_time<ns> local{ns{local_ns}};
  const date::local_info info = impl_->zone->get_info(date::floor<std::chrono::seconds>(local));
  switch (info.result) {
    case date::local_info::unique:
      return local_ns - std::chrono::duration_cast<ns>(info.first.offset).count();
    case date::local_info::nonexistent:
      why = "does not exist in " + name_ + " (clocks jumped forward: " + info.first.abbrev + " to " +
            info.second.abbrev + ")";
      return std::nullopt;
    default:
      why = "happens twice in " + name_ + " (clocks went back: " + info.first.abbrev + " and " + info.second.abbrev +
            "); write it with its offset";
      return std::nullopt;
  }
}

}  // namespace kbt
