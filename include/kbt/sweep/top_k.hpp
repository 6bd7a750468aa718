#pragma once
// Selection of the best combos by an objective metric (docs/sweep.md "Top-K").
// Order is total and deterministic: objective value (best first), then combo id
// ascending; combos whose objective is NaN or that fail min_trades are never
// selected.

#include <kbt/config/run_config.hpp>
#include <kbt/core/detail/scalar_math.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/result_rows.hpp>

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

// The best k eligible rows among rows offered one at a time or a block at a
// time, in any order and any number (select_top_k's order), with everything
// about each: the chunk driver's merge, and every reader that ranks the rows
// of a results file. Holds at most k + max(k, 1024) rows.
class TopRows {
 public:
  TopRows(Objective objective, std::size_t k, std::size_t n_params);
  void offer(std::uint64_t row, std::uint64_t combo_id, const double* params, const double* metrics);
  // Rows [first, first + count): ids [count], params [count][n_params], metrics [count][n_metrics].
  void offer_block(std::uint64_t first, std::uint64_t count, const std::uint64_t* ids, const double* params,
                   const double* metrics);
  // The best k (or fewer) offered so far, best first.
  RowTable best() const;

 private:
  Objective objective_;
  std::size_t k_ = 0;
  int metric_ = -1;
  mutable RowTable kept_;
  void prune() const;
};

// The best k eligible rows of `rows` under `objective`, read a block at a time.
RowTable select_top_rows(const ResultRows& rows, const Objective& objective, std::size_t k);

}  // namespace kbt
