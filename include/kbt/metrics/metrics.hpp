#pragma once
// The 21 performance metrics of docs/metrics.md, in their fixed, documented order.
// Every engine (reference, Kokkos kernels) fills all of them.

#include <array>
#include <cstddef>
#include <string>

namespace kbt {

enum class Metric : int {
  total_return,
  cagr,
  ann_volatility,
  sharpe,
  sortino,
  calmar,
  max_drawdown,
  max_drawdown_duration,
  ulcer_index,
  n_trades,
  win_rate,
  profit_factor,
  avg_trade_return,
  best_trade,
  worst_trade,
  avg_trade_duration,
  exposure,
  turnover,
  fees_paid,
  funding_paid,
  final_equity,
};

inline constexpr std::size_t n_metrics = 21;

// Stable names, index = static_cast<int>(Metric).
inline const std::array<const char*, n_metrics>& metric_names() {
  static const std::array<const char*, n_metrics> names{
      "total_return", "cagr", "ann_volatility", "sharpe", "sortino", "calmar",
      "max_drawdown", "max_drawdown_duration", "ulcer_index", "n_trades", "win_rate",
      "profit_factor", "avg_trade_return", "best_trade", "worst_trade",
      "avg_trade_duration", "exposure", "turnover", "fees_paid", "funding_paid",
      "final_equity"};
  return names;
}

// Index of a metric by name, or -1.
inline int metric_index(const std::string& name) {
  const auto& names = metric_names();
  for (std::size_t i = 0; i < n_metrics; ++i)
    if (name == names[i]) return static_cast<int>(i);
  return -1;
}

using MetricRow = std::array<double, n_metrics>;

// Whether a larger value of metric `index` is better (docs/metrics.md
// "Natural direction"): false for ann_volatility, max_drawdown_duration,
// ulcer_index, turnover, fees_paid and funding_paid. The direction a ranking
// takes when none is given (sweep.objective, show --sort, verify --objective).
bool metric_higher_is_better(int index);

// "max" or "min": the natural direction by name.
const char* natural_direction(int index);

// One line on what metric `index` measures, and its unit ("fraction",
// "bars", "count", "currency", "1" for a ratio): the description and unit
// attributes of the results file's metric datasets (docs/results.md).
const char* metric_description(int index);
const char* metric_unit(int index);

// Whether metric `index` counts something (n_trades, max_drawdown_duration):
// always a whole number, stored as int64 in results files.
bool metric_is_count(int index);

// "unknown metric 'x'; did you mean 'y'? (metrics: total_return, ...)".
std::string unknown_metric_message(const std::string& name);

}  // namespace kbt
