#include <kbt/lang/diagnostics.hpp>
#include <kbt/metrics/metrics.hpp>

#include <vector>

namespace kbt {

bool metric_higher_is_better(int index) {
  switch (static_cast<Metric>(index)) {
    case Metric::ann_volatility:
    case Metric::max_drawdown_duration:
    case Metric::ulcer_index:
    case Metric::turnover:
    case Metric::fees_paid:
    case Metric::funding_paid: return false;
    default: return true;  // max_drawdown is <= 0: nearer 0 is better
  }
}

const char* natural_direction(int index) { return metric_higher_is_better(index) ? "max" : "min"; }

std::string unknown_metric_message(const std::string& name) {
  const std::vector<std::string> names(metric_names().begin(), metric_names().end());
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  return "unknown metric '" + name + "'" + did_you_mean(name, names) + " (metrics: " + all + ")";
}

}  // namespace kbt
