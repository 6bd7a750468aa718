#pragma once
// PBO over the sweep's configurations (docs/validation.md "PBO").

#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>
#include <kbt/output/results.hpp>
#include <kbt/sweep/chunk_exchange.hpp>
#include <kbt/sweep/prepared_sweep.hpp>
#include <kbt/validation/period_returns.hpp>
#include <kbt/validation/validation.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbt::detail {

// The seed of the uniform sample past validation.pbo_configs (documented).
inline constexpr std::uint64_t pbo_sample_seed = 1;

// CSCV over every row of `sweep` up to validation.pbo_configs, else over a
// uniform sample of that many rows (sample_positions with pbo_sample_seed):
// each is simulated again on the train window with its returns per period of
// `grid`, a chunk at a time, and only its S x 2 block sums are kept. `column`:
// each of `prepared`'s params' column in the results. Sets v.pbo or
// v.pbo_skipped, v.pbo_configurations and v.pbo_sample_seed. Shared among
// processes like the candidates (every process calls it; the root's `v`
// holds the result).
void pbo_over_configurations(const RunConfig& config, const PreparedSweep& prepared, const BarData& bars,
                             const SweepResults& sweep, const std::vector<std::size_t>& column, const PeriodGrid& grid,
                             const std::string& device, int threads, ChunkExchange* exchange, ValidationResults& v);

}  // namespace kbt::detail
