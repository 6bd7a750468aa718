#pragma once
// Ctrl-C during `kbt run` (docs/cli.md "Interrupts"): the first SIGINT asks
// the sweep to stop between chunks, so that the checkpoint holds whole chunks
// and says how to resume; a second SIGINT stops the process at once.

#include <string>

namespace kbt::cli {

constexpr int exit_interrupted = 130;  // 128 + SIGINT, as a shell reports it

// Thrown between chunks once SIGINT came; `message` is what the CLI prints
// (main.cpp) before it exits with exit_interrupted.
struct Interrupted {
  std::string message;
};

// While alive, the first SIGINT sets requested() and prints one line; the
// handler is then the default again (a second Ctrl-C ends the process). The
// previous handler comes back with the destructor.
class InterruptBetweenChunks {
 public:
  InterruptBetweenChunks();
  ~InterruptBetweenChunks();
  InterruptBetweenChunks(const InterruptBetweenChunks&) = delete;
  InterruptBetweenChunks& operator=(const InterruptBetweenChunks&) = delete;
  bool requested() const;
};

}  // namespace kbt::cli
