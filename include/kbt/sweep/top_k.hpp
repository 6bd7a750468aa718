#pragma once
// Selection of the best combos by an objective metric (docs/sweep.md "Top-K").
// Order is total and deterministic: objective value (best first), then combo id
// ascending; combos whose objective is NaN or that fail min_trades are never
// selected.

#include <kbt/config/run_config.hpp>
#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/metrics/metrics.hpp>

#include <cstdint>
#include <vector>

namespace kbt {

// `metrics` is row-major [n_rows][n_metrics]; `combo_ids` [n_rows] breaks ties.
// Returns up to k row indices, best first.
std::vector<std::size_t> select_top_k(const std::vector<double>& metrics,
                                      const std::vector<std::uint64_t>& combo_ids,
                                      const Objective& objective, std::size_t k);

// The one rule of eligibility, on host and device: a combo can be selected
// when its objective value is not NaN and it made at least min_trades trades.
KOKKOS_INLINE_FUNCTION bool objective_eligible(double objective_value, double n_trades, double min_trades) {
  return !math::isnan(objective_value) && !(n_trades < min_trades);
}

// True when row `metrics_row` is eligible under the objective's constraints.
bool eligible(const double* metrics_row, const Objective& objective);

}  // namespace kbt
