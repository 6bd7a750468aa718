#pragma once
// The progress of a sweep, and its one-line rendering on a terminal
// (docs/sweep.md "Checkpoint chunks and the progress line").

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>

namespace kbt {

struct SweepProgress {
  std::uint64_t done = 0;     // combos finished, including those taken from a checkpoint
  std::uint64_t total = 0;    // combos of the run
  std::uint64_t resumed = 0;  // combos taken from the checkpoint (not simulated by this process)
  double seconds = 0;         // since this process started sweeping
  std::string unit = "combos";  // what is counted ("candidates" for verification)
};

// "1,024 / 10,000 combos (10.2%), 512 combos/s, ETA 17s" (the unit as given). The rate counts only
// the combos this process simulated; without any yet (or no elapsed time) the
// rate and ETA read "--". No newline, no carriage return.
std::string format_progress_line(const SweepProgress& progress);

// The (done, total) callback of the verification stage (VerifyRequest::
// progress) as SweepProgress for `report`: unit "candidates", seconds since
// this call.
std::function<void(std::size_t, std::size_t)> candidate_progress(std::function<void(const SweepProgress&)> report);

// "7s", "2m05s", "3h07m", "--" for a negative or non-finite duration.
std::string format_duration(double seconds);

}  // namespace kbt
