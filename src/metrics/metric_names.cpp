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

namespace {

struct MetricText {
  const char* description;
  const char* unit;
};

// Metric order (docs/metrics.md "Definitions").
const MetricText metric_texts[n_metrics] = {
    {"final equity over initial capital, minus 1", "fraction"},
    {"compound annual growth rate", "fraction per year"},
    {"annualised sample standard deviation of the bar returns", "fraction"},
    {"annualised mean over standard deviation of the bar returns, risk-free rate 0", "1"},
    {"annualised mean over downside deviation of the bar returns", "1"},
    {"cagr over minus max_drawdown", "1"},
    {"deepest equity over its running peak, minus 1 (<= 0)", "fraction"},
    {"longest run of bars with equity under its running peak", "bars"},
    {"root mean square of the drawdowns", "fraction"},
    {"closed round trips (the position open at the end counts)", "count"},
    {"share of trades with a return > 0", "fraction"},
    {"sum of positive over minus sum of negative trade returns", "1"},
    {"mean trade return", "fraction"},
    {"largest trade return", "fraction"},
    {"smallest trade return", "fraction"},
    {"mean bars from a trade's entry to its exit", "bars"},
    {"share of bars during which a position was held", "fraction"},
    {"notional traded over the mean equity (not annualised)", "multiple of mean equity"},
    {"fees paid", "currency"},
    {"funding paid (negative: received)", "currency"},
    {"equity at the close of the last window bar", "currency"},
};

}  // namespace

const char* metric_description(int index) { return metric_texts[index].description; }
const char* metric_unit(int index) { return metric_texts[index].unit; }

bool metric_is_count(int index) {
  return index == static_cast<int>(Metric::n_trades) || index == static_cast<int>(Metric::max_drawdown_duration);
}

std::string unknown_metric_message(const std::string& name) {
  const std::vector<std::string> names(metric_names().begin(), metric_names().end());
  std::string all;
  for (const auto& n : names) all += (all.empty() ? "" : ", ") + n;
  return "unknown metric '" + name + "'" + did_you_mean(name, names) + " (metrics: " + all + ")";
}

}  // namespace kbt
