#include "cli/interrupt.hpp"

#include <csignal>
#include <cstring>

#include <unistd.h>

namespace kbt::cli {
namespace {

volatile std::sig_atomic_t interrupt_seen = 0;
struct sigaction previous_action;

extern "C" void on_interrupt(int) {
  interrupt_seen = 1;
  // write(2) is async-signal-safe; stdio is not. The line starts on its own
  // line, past a progress line that a terminal may be showing.
  static const char line[] = "\nkbt: interrupted: stopping after the current chunk (Ctrl-C again stops at once)\n";
  const ssize_t ignored = ::write(STDERR_FILENO, line, sizeof line - 1);
  (void)ignored;
}

}  // namespace

InterruptBetweenChunks::InterruptBetweenChunks() {
  interrupt_seen = 0;
  struct sigaction action;
  std::memset(&action, 0, sizeof action);
  action.sa_handler = on_interrupt;
  sigemptyset(&action.sa_mask);
  action.sa_flags = SA_RESETHAND | SA_RESTART;  // one-shot: the next SIGINT is the default's
  ::sigaction(SIGINT, &action, &previous_action);
}

InterruptBetweenChunks::~InterruptBetweenChunks() { ::sigaction(SIGINT, &previous_action, nullptr); }

bool InterruptBetweenChunks::requested() const { return interrupt_seen != 0; }

}  // namespace kbt::cli
