#include <kbt/sweep/chunk_exchange.hpp>

namespace kbt::detail {

// Every process throws the same error; the CLI reports it on the root only.
void throw_agreed(const ChunkExchange::Failure& failure) {
  throw AgreedError(failure.category,
              failure.rank == 0 ? failure.message : "rank " + std::to_string(failure.rank) + ": " + failure.message);
}

}  // namespace kbt::detail
