#pragma once
// Progress on stderr for the long stages of `kbt run` (docs/cli.md "Progress"):
// on a terminal one line rewritten in place; elsewhere (batch and HPC logs) a
// whole line at most every `log_interval_seconds` (10, or $KBT_PROGRESS_SECONDS),
// and the last one when the stage ends after any was printed. Nothing with --quiet.

#include <chrono>
#include <cstddef>
#include <functional>
#include <string>

#include <kbt/sweep/progress.hpp>

namespace kbt::cli {

class ProgressPrinter {
 public:
  static constexpr double default_log_interval_seconds = 10;
  static constexpr double terminal_interval_seconds = 0.1;

  explicit ProgressPrinter(bool quiet);
  ProgressPrinter(const ProgressPrinter&) = delete;
  ProgressPrinter& operator=(const ProgressPrinter&) = delete;
  ~ProgressPrinter();  // ends a line left open on the terminal

  bool enabled() const { return enabled_; }
  // `line` without the "kbt: " prefix; `last`: the stage's final state.
  void update(const std::string& line, bool last);
  // Ends the line on a terminal (before other output or an error).
  void end_line();

 private:
  using Clock = std::chrono::steady_clock;
  bool enabled_ = false, terminal_ = false, open_line_ = false, printed_ = false;
  double log_interval_seconds_ = default_log_interval_seconds;
  Clock::time_point last_;
};

// The progress line of a stage: the sweep's, or "verification: ..." for
// candidates.
std::string stage_progress_line(const SweepProgress& progress);

// The progress callback of the verification (kbt run, kbt verify):
// "verification: <done>/<total> candidates ...", timed from this call. Empty
// when `printer` is not enabled.
std::function<void(std::size_t done, std::size_t total)> verification_progress(ProgressPrinter& printer);

}  // namespace kbt::cli
