// The `sweep` section: device, precision, objective, top_k and the limits.

#include "config/loader.hpp"

#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>

#include "config/number_text.hpp"
#include "config/suggest.hpp"

#include <algorithm>

namespace kbt::detail {

namespace {

const std::vector<std::string> sweep_keys = {"device",           "precision",  "objective",        "top_k",
                                             "metrics",          "max_combos", "memory_budget_mb", "checkpoint_combos"};
const std::vector<std::string> objective_keys = {"metric", "direction", "min_trades"};

}  // namespace

void Loader::sweep(const YamlEntry& e) {
  if (e.value.IsNull()) return;
  SweepSettings& s = cfg_.sweep;
  for (const auto& item : doc_.entries(e, "sweep", sweep_keys)) {
    const std::string what = "sweep." + item.name;
    note(item, what);
    const std::string& k = item.name;
    if (k == "device") s.device = choice(item, what, {"auto", "reference", "serial", "openmp", "cuda"});
    else if (k == "precision") s.precision = choice(item, what, {"fp64", "fp32"});
    else if (k == "objective") objective(item);
    else if (k == "top_k") s.top_k = integer(item, what, 1);
    else if (k == "metrics") sweep_metrics(item);
    else if (k == "memory_budget_mb") s.memory_budget_mb = optional_number(item, what, Bound::positive);
    else if (k == "max_combos") s.max_combos = static_cast<std::uint64_t>(integer(item, what, 1));
    else if (k == "checkpoint_combos") {
      if (item.value.IsScalar() && item.value.Scalar() == "auto") {
        s.checkpoint_combos = 0;
      } else {
        const auto v = item.value.IsScalar() ? detail::parse_integer(item.value.Scalar()) : std::nullopt;
        if (!v || *v < 1) bad(item, what, "auto or an integer >= 1");
        s.checkpoint_combos = static_cast<std::uint64_t>(*v);
      }
    }
  }
}

// `metrics: all`, or a list of metric names.
void Loader::sweep_metrics(const YamlEntry& e) {
  SweepSettings& s = cfg_.sweep;
  if (e.value.IsScalar() && e.value.Scalar() == "all") {
    s.all_metrics = true;
    return;
  }
  if (e.value.IsNull()) return;
  if (!e.value.IsSequence()) bad(e, "sweep.metrics", "all, or a list of metric names such as [sharpe, max_drawdown]");
  const std::vector<std::string> names(metric_names().begin(), metric_names().end());
  for (const auto& n : e.value) {
    if (!n.IsScalar()) bad(n, "each of sweep.metrics", "a metric name");
    if (std::find(names.begin(), names.end(), n.Scalar()) == names.end()) {
      const std::string guess = detail::closest_match(n.Scalar(), names);
      doc_.fail(ErrorCategory::config, n,
                "sweep.metrics: unknown metric '" + n.Scalar() + "'" +
                    (guess.empty() ? "" : "; did you mean '" + guess + "'?") + " (metrics: " + join(names) + ")");
    }
    s.metrics.push_back(n.Scalar());
  }
}

void Loader::objective(const YamlEntry& e) {
  Objective& o = cfg_.sweep.objective;
  std::vector<std::string> metrics(metric_names().begin(), metric_names().end());
  // Without a direction, the metric's natural one (docs/metrics.md).
  if (e.value.IsScalar()) {  // shorthand: `objective: sharpe`
    o.metric = choice(e, "sweep.objective", metrics);
    o.maximize = metric_higher_is_better(metric_index(o.metric));
    return;
  }
  bool directed = false;
  for (const auto& item : doc_.entries(e, "sweep.objective", objective_keys)) {
    const std::string what = "sweep.objective." + item.name;
    note(item, what);
    if (item.name == "metric") o.metric = choice(item, what, metrics);
    else if (item.name == "direction") {
      o.maximize = choice(item, what, {"max", "min"}) == "max";
      directed = true;
    }
    else if (item.name == "min_trades") o.min_trades = number(item, what, Bound::non_negative);
  }
  if (!directed) o.maximize = metric_higher_is_better(metric_index(o.metric));
}

}  // namespace kbt::detail
