#pragma once
// Metric sets (docs/metrics.md "Metric sets"): which of the 21 metrics a
// sweep pass accumulates. The accumulator's state falls into groups, each
// feeding some metrics; a set is the groups a run needs. The sweep kernel is
// compiled for a handful of sets and runs the smallest one that holds every
// metric the run needs (the objective, n_trades, the heatmap metric,
// sweep.metrics); the best rows are simulated again with every metric.

#include <kbt/metrics/metrics.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbt {

namespace metric_group {
// Always accumulated, at no per-bar cost beyond the equity: total_return,
// cagr, n_trades, final_equity.
inline constexpr unsigned returns = 1;   // Welford moments of bar returns: ann_volatility, sharpe, sortino
inline constexpr unsigned drawdown = 2;  // running peak: calmar, max_drawdown, max_drawdown_duration, ulcer_index
inline constexpr unsigned trades = 4;    // closed trades: win_rate, profit_factor, avg_trade_return, best/worst_trade, avg_trade_duration
inline constexpr unsigned activity = 8;  // exposure, turnover, fees_paid, funding_paid
inline constexpr unsigned all = 15;
}  // namespace metric_group

// The metrics as a bit mask (bit i: Metric i).
using MetricMask = std::uint32_t;
inline constexpr MetricMask all_metrics_mask = (MetricMask(1) << n_metrics) - 1;

// The groups a metric needs (0: always accumulated).
unsigned metric_groups_of(Metric m);
// The metrics a set of groups yields.
MetricMask metrics_of_groups(unsigned groups);

// The sets the sweep kernel is compiled for, smallest first.
inline constexpr unsigned compiled_metric_sets[] = {0, metric_group::returns,
                                                    metric_group::returns | metric_group::drawdown,
                                                    metric_group::all};

// The smallest compiled set that yields every metric of `needed`.
unsigned compiled_set_for(MetricMask needed);

// Names <-> masks ("sharpe,n_trades" order: kbt::Metric order).
MetricMask metric_mask_of(const std::vector<std::string>& names);
std::vector<std::string> metric_names_of(MetricMask mask);
inline bool has_metric(MetricMask mask, int metric) { return metric >= 0 && ((mask >> metric) & 1u) != 0; }

}  // namespace kbt
