#pragma once
// How the processes of one sweep share its chunks (docs/mpi.md): each claims
// the next chunk from a counter they share and simulates it; the root
// receives every other process's chunks, commits all of them in chunk order
// (its checkpoint, its rows) and ranks them. The interface has no MPI in it:
// kbt::make_mpi_exchange (kbt/mpi/mpi_exchange.hpp, with KBT_ENABLE_MPI)
// implements it over a communicator.

#include <kbt/core/error.hpp>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kbt {

class ChunkExchange {
 public:
  virtual ~ChunkExchange() = default;
  virtual int rank() const = 0;
  virtual int size() const = 0;
  bool is_root() const { return rank() == 0; }

  // Collective: the counter starts again at chunk 0 of a new sweep.
  virtual void start() = 0;
  // The next unclaimed chunk, or nothing when `n_chunks` are claimed.
  virtual std::optional<std::size_t> claim(std::size_t n_chunks) = 0;
  // A non-root process: the metrics of its finished `chunk` (or of any
  // numbered piece of work, e.g. a verified candidate) to the root
  // (asynchronously; `metrics` is taken over).
  virtual void send(std::size_t chunk, std::vector<double>&& metrics) = 0;
  // Collective: every send has been received.
  virtual void finish_sends() = 0;
  // The root: a chunk another process finished, with its metrics; with
  // `wait`, blocks until one arrives, else nothing when none is waiting.
  virtual std::optional<std::size_t> receive(bool wait, std::vector<double>& metrics) = 0;

  // Collective: the root's `value` (`values`) on every process.
  virtual std::uint64_t broadcast(std::uint64_t value) = 0;
  virtual void broadcast(std::vector<double>& values) = 0;
  // Collective: every process's `value`, on the root (empty elsewhere).
  virtual std::vector<double> gather(double value) = 0;
  // Collective: the failure of the lowest failing rank (its category and
  // message) on every process, or nothing when every `failure` is empty.
  struct Failure {
    int rank = 0;
    ErrorCategory category = ErrorCategory::internal;
    std::string message;
  };
  virtual std::optional<Failure> agree(const std::optional<Failure>& failure) = 0;
  // Stops every process at once (a failure past the last agreement point).
  [[noreturn]] virtual void abort(int exit_code) = 0;
};

// An error that every process of a shared run throws alike (collectively):
// the root reports it, and no process needs to stop the others.
class AgreedError : public Error {
 public:
  using Error::Error;
};

namespace detail {
[[noreturn]] void throw_agreed(const ChunkExchange::Failure& failure);
}

// The line a rank prints on stderr before it stops every rank over a failure
// the others cannot see ("kbt: rank 1 of 3 failed: ...", docs/mpi.md "Faults"):
// `kbt run` and the Python binding alike.
std::string rank_failure_line(int rank, int size, const std::string& message);

// Runs `step` on every process of `exchange` and agrees on the outcome: a
// kbt::Error on any process is thrown on all of them as an AgreedError (the
// lowest failing rank's, "rank N: " prefixed when it is not the root), so that no process
// waits for one that failed. Without an exchange, `step` runs as it is.
template <class Step>
void collectively(ChunkExchange* exchange, Step&& step) {
  if (!exchange) return step();
  std::optional<ChunkExchange::Failure> mine;
  try {
    step();
  } catch (const Error& e) {
    mine = ChunkExchange::Failure{exchange->rank(), e.category(), e.what()};
  }
  if (const auto agreed = exchange->agree(mine)) detail::throw_agreed(*agreed);
}

}  // namespace kbt
