// Progress on stderr: in place on a terminal, throttled whole lines in logs.

#include "cli/progress_printer.hpp"

#include <kbt/sweep/progress.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <unistd.h>

namespace kbt::cli {

ProgressPrinter::ProgressPrinter(bool quiet)
    : enabled_(!quiet), terminal_(::isatty(STDERR_FILENO) != 0), last_(Clock::now()) {
  // KBT_PROGRESS_SECONDS: the log interval (a number >= 0; anything else keeps 10 s).
  if (const char* text = std::getenv("KBT_PROGRESS_SECONDS")) {
    char* end = nullptr;
    const double seconds = std::strtod(text, &end);
    if (end != text && *end == '\0' && std::isfinite(seconds) && seconds >= 0) log_interval_seconds_ = seconds;
  }
}

ProgressPrinter::~ProgressPrinter() { end_line(); }

void ProgressPrinter::update(const std::string& line, bool last) {
  if (!enabled_) return;
  const auto now = Clock::now();
  const double since = std::chrono::duration<double>(now - last_).count();
  if (terminal_) {
    if (!last && open_line_ && since < terminal_interval_seconds) return;
    std::fprintf(stderr, "\rkbt: %s\033[K", line.c_str());
    open_line_ = true;
  } else {
    // A log gets a line every interval, and the final state only after any
    // earlier line (a short stage leaves the log alone).
    if (last ? !printed_ : since < log_interval_seconds_) return;
    std::fprintf(stderr, "kbt: %s\n", line.c_str());
  }
  std::fflush(stderr);
  printed_ = true;
  last_ = now;
}

void ProgressPrinter::end_line() {
  if (!open_line_) return;
  std::fputc('\n', stderr);
  std::fflush(stderr);
  open_line_ = false;
}

std::string stage_progress_line(const SweepProgress& p) {
  return (p.unit == "candidates" ? "verification: " : "") + format_progress_line(p);
}

std::function<void(std::size_t, std::size_t)> verification_progress(ProgressPrinter& printer) {
  if (!printer.enabled()) return {};
  return candidate_progress(
      [&printer](const SweepProgress& p) { printer.update(stage_progress_line(p), p.done >= p.total); });
}

}  // namespace kbt::cli
