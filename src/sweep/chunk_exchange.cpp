#include <kbt/sweep/chunk_exchange.hpp>

namespace kbt {

std::string rank_failure_line(int rank, int size, const std::string& message) {
  return "kbt: rank " + std::to_string(rank) + " of " + std::to_string(size) + " failed: " + message;
}

namespace detail {

// Every process throws the same error; the CLI reports it on the root only.
void throw_agreed(const ChunkExchange::Failure& failure) {
  throw AgreedError(failure.category,
              failure.rank == 0 ? failure.message : "rank " + std::to_string(failure.rank) + ": " + failure.message);
}

}  // namespace detail
}  // namespace kbt
