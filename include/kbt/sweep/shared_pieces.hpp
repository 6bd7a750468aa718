#pragma once
// Small pieces of work after a sweep (verification candidates, validation
// candidates, walk-forward folds) shared among the processes of a
// ChunkExchange (docs/mpi.md "How the work is shared"): piece i runs on rank
// i % size, and the root gathers the others' values. Without an exchange
// every piece is this process's.
//
//   for (std::size_t i : my_pieces(exchange, n)) values[i] = run(i);
//   gather_pieces(exchange, n, [&](std::size_t i) { return values[i]; },
//                 [&](std::size_t i, const std::vector<double>& v) { values[i] = v; });

#include <kbt/sweep/chunk_exchange.hpp>

#include <cstddef>
#include <functional>
#include <vector>

namespace kbt {

// The pieces of 0..n-1 this process runs: every size-th from its rank.
std::vector<std::size_t> my_pieces(const ChunkExchange* exchange, std::size_t n);

// Collective. Another process sends values_of(i) for each of its pieces; the
// root calls place(i, values) for every piece the others ran, as they
// arrive (place checks their shape). Nothing to do without an exchange.
void gather_pieces(ChunkExchange* exchange, std::size_t n,
                   const std::function<std::vector<double>(std::size_t)>& values_of,
                   const std::function<void(std::size_t, const std::vector<double>&)>& place);

}  // namespace kbt
