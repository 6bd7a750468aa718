#include <kbt/sweep/shared_pieces.hpp>

#include <kbt/core/error.hpp>

namespace kbt {

std::vector<std::size_t> my_pieces(const ChunkExchange* exchange, std::size_t n) {
  const std::size_t stride = exchange ? static_cast<std::size_t>(exchange->size()) : 1;
  std::vector<std::size_t> mine;
  for (std::size_t i = exchange ? static_cast<std::size_t>(exchange->rank()) : 0; i < n; i += stride) mine.push_back(i);
  return mine;
}

void gather_pieces(ChunkExchange* exchange, std::size_t n,
                   const std::function<std::vector<double>(std::size_t)>& values_of,
                   const std::function<void(std::size_t, const std::vector<double>&)>& place) {
  if (!exchange) return;
  const std::vector<std::size_t> mine = my_pieces(exchange, n);
  if (!exchange->is_root()) {
    for (const std::size_t i : mine) exchange->send(i, values_of(i));
  } else {
    const auto stride = static_cast<std::size_t>(exchange->size());
    std::vector<double> values;
    for (std::size_t received = mine.size(); received < n; ++received) {
      const auto i = exchange->receive(true, values);
      if (!i || *i >= n || *i % stride == 0)
        throw Error(ErrorCategory::internal, "a shared piece of work arrived that no other process runs");
      place(*i, values);
    }
  }
  exchange->finish_sends();
}

}  // namespace kbt
