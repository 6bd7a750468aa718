// PBO over the sweep's configurations (src/validation/pbo_configurations.hpp).

#include "validation/pbo_configurations.hpp"

#include <kbt/config/param_grid.hpp>
#include <kbt/core/error.hpp>
#include <kbt/output/result_rows.hpp>
#include <kbt/validation/pbo.hpp>

#include "validation/candidate_scoring.hpp"

#include <algorithm>

namespace kbt::detail {

void pbo_over_configurations(const RunConfig& config, const PreparedSweep& prepared, const BarData& bars,
                             const SweepResults& sweep, const std::vector<std::size_t>& column, const PeriodGrid& grid,
                             const std::string& device, int threads, ChunkExchange* exchange, ValidationResults& v) {
  const ValidationSettings& settings = config.validation;
  const bool root = !exchange || exchange->is_root();
  const std::uint64_t rows = root ? sweep.n_rows() : 0;
  std::uint64_t n = std::min<std::uint64_t>(rows, static_cast<std::uint64_t>(settings.pbo_configs));
  if (exchange) n = exchange->broadcast(n);
  v.pbo_configurations = n;
  v.pbo_sample_seed = n < v.n_trials ? pbo_sample_seed : 0;
  const std::size_t p = grid.size(), blocks = static_cast<std::size_t>(settings.pbo_blocks);
  if (n < 2) {
    v.pbo_skipped = "fewer than 2 configurations";
    return;
  }
  if (p < 2 * blocks) {
    v.pbo_skipped = std::to_string(p) + " periods of " + v.period + " are too few for " + std::to_string(blocks) +
                    " blocks of at least 2 (validation.period, validation.pbo_blocks)";
    return;
  }
  std::vector<std::uint64_t> positions;
  if (root) positions = sample_positions(rows, n, pbo_sample_seed);  // every row when n == rows
  PboBlocks sums = pbo_blocks_for(p, blocks, static_cast<std::size_t>(n));
  // A chunk's [periods][chunk] returns within about 128 MB.
  const std::uint64_t chunk = std::max<std::uint64_t>(1, std::min<std::uint64_t>(n, (std::uint64_t(1) << 24) / p));
  const std::size_t n_params = prepared.n_params();
  for (std::uint64_t first = 0; first < n; first += chunk) {
    const std::size_t count = static_cast<std::size_t>(std::min(chunk, n - first));
    std::vector<double> params;
    if (root) {
      const RowTable table = read_rows(*sweep.rows, std::vector<std::uint64_t>(positions.begin() + static_cast<std::ptrdiff_t>(first),
                                                                             positions.begin() + static_cast<std::ptrdiff_t>(first + count)));
      params.reserve(count * n_params);
      for (std::size_t j = 0; j < count; ++j)
        for (const std::size_t c : column) params.push_back(table.params_of(j)[c]);
    }
    ValidationResults part;  // the train window's period returns only (no test window)
    part.train = v.train;
    score_candidates(prepared, bars, device, threads, std::move(params), count, grid.last_bar, exchange, part);
    if (root) add_pbo_returns(sums, part.period_returns.data(), count, static_cast<std::size_t>(first));
  }
  if (root) v.pbo = pbo_of_blocks(sums, device);
}

}  // namespace kbt::detail
