#pragma once
// The validation stage's re-simulation of chosen combos (docs/validation.md),
// shared among processes: used for the candidates and for PBO's
// configurations.

#include <kbt/data/bar_data.hpp>
#include <kbt/sweep/chunk_exchange.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/validation/validation.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace kbt::detail {

// The candidates' period returns on the train window ([p][k]) and metrics on
// the test window ([k][n_metrics]) into `v`, on the validation engine of
// `device`. Shared among processes: the root's `params` ([k][n_params]) go to
// every process, candidate j runs on rank j % size, the root gathers them.
void score_candidates(const PreparedSweep& prepared, const BarData& bars, const std::string& device, int threads,
                      std::vector<double> params, std::size_t k, const std::vector<std::size_t>& period_last,
                      ChunkExchange* exchange, ValidationResults& v);

}  // namespace kbt::detail
