// Metric sets (include/kbt/metrics/metric_set.hpp, docs/metrics.md "Metric sets").

#include <kbt/metrics/metric_set.hpp>

#include <kbt/core/error.hpp>

namespace kbt {

unsigned metric_groups_of(Metric m) {
  switch (m) {
    case Metric::total_return:
    case Metric::cagr:
    case Metric::n_trades:
    case Metric::final_equity: return 0;
    case Metric::ann_volatility:
    case Metric::sharpe:
    case Metric::sortino: return metric_group::returns;
    case Metric::calmar:
    case Metric::max_drawdown:
    case Metric::max_drawdown_duration:
    case Metric::ulcer_index: return metric_group::drawdown;
    case Metric::win_rate:
    case Metric::profit_factor:
    case Metric::avg_trade_return:
    case Metric::best_trade:
    case Metric::worst_trade:
    case Metric::avg_trade_duration: return metric_group::trades;
    case Metric::exposure:
    case Metric::turnover:
    case Metric::fees_paid:
    case Metric::funding_paid: return metric_group::activity;
  }
  return metric_group::all;
}

MetricMask metrics_of_groups(unsigned groups) {
  MetricMask mask = 0;
  for (std::size_t i = 0; i < n_metrics; ++i) {
    const unsigned need = metric_groups_of(static_cast<Metric>(i));
    if ((need & groups) == need) mask |= MetricMask(1) << i;
  }
  return mask;
}

unsigned compiled_set_for(MetricMask needed) {
  for (const unsigned set : compiled_metric_sets)
    if ((metrics_of_groups(set) & needed) == needed) return set;
  return metric_group::all;
}

MetricMask metric_mask_of(const std::vector<std::string>& names) {
  MetricMask mask = 0;
  for (const auto& name : names) {
    const int m = metric_index(name);
    if (m < 0) throw Error(ErrorCategory::config, unknown_metric_message(name));
    mask |= MetricMask(1) << m;
  }
  return mask;
}

std::vector<std::string> metric_names_of(MetricMask mask) {
  std::vector<std::string> names;
  for (std::size_t i = 0; i < n_metrics; ++i)
    if (has_metric(mask, static_cast<int>(i))) names.emplace_back(metric_names()[i]);
  return names;
}

}  // namespace kbt
