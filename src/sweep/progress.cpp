// The progress line of `kbt run` (include/kbt/sweep/progress.hpp).

#include <kbt/sweep/progress.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>

#include "config/number_text.hpp"

namespace kbt {
namespace {

std::string rate_text(double rate) {
  if (rate >= 100) return detail::format_count(static_cast<std::uint64_t>(std::llround(rate)));
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.3g", rate);
  return buf;
}

}  // namespace

std::string format_duration(double seconds) {
  if (!std::isfinite(seconds) || seconds < 0) return "--";
  const auto s = static_cast<long long>(std::llround(seconds));
  char buf[48];
  if (s < 60)
    std::snprintf(buf, sizeof buf, "%llds", s);
  else if (s < 3600)
    std::snprintf(buf, sizeof buf, "%lldm%02llds", s / 60, s % 60);
  else
    std::snprintf(buf, sizeof buf, "%lldh%02lldm", s / 3600, (s % 3600) / 60);
  return buf;
}

std::string format_progress_line(const SweepProgress& p) {
  std::string line = detail::format_count(p.done) + " / " + detail::format_count(p.total) + " " + p.unit;
  char pct[32];
  const double fraction = p.total > 0 ? static_cast<double>(p.done) / static_cast<double>(p.total) : 1.0;
  std::snprintf(pct, sizeof pct, " (%.1f%%)", 100.0 * fraction);
  line += pct;
  const std::uint64_t simulated = p.done > p.resumed ? p.done - p.resumed : 0;
  if (simulated > 0 && p.seconds > 0 && std::isfinite(p.seconds)) {
    const double rate = static_cast<double>(simulated) / p.seconds;
    line += ", " + rate_text(rate) + " " + p.unit + "/s, ETA " +
            format_duration(static_cast<double>(p.total - std::min(p.done, p.total)) / rate);
  } else {
    line += ", -- " + p.unit + "/s, ETA --";
  }
  return line;
}

std::function<void(std::size_t, std::size_t)> candidate_progress(std::function<void(const SweepProgress&)> report) {
  const auto started = std::chrono::steady_clock::now();
  return [report = std::move(report), started](std::size_t done, std::size_t total) {
    SweepProgress p;
    p.done = done;
    p.total = total;
    p.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    p.unit = "candidates";
    report(p);
  };
}

}  // namespace kbt
