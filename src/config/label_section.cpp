// The `label` section of a labelling job (docs/label.md "The label job"):
// the volatility, side and events expressions, the helpers they may use, and
// the barrier grid.

#include "config/loader.hpp"

#include <kbt/config/param_grid.hpp>
#include <kbt/core/error.hpp>

#include "config/number_text.hpp"

#include <cmath>

namespace kbt::detail {

namespace {

const std::vector<std::string> label_keys = {"functions", "signals",    "volatility", "side", "events",
                                             "profit_take", "stop", "horizon",    "device"};

}  // namespace

void Loader::label(const YamlEntry& e) {
  const auto items = doc_.entries(e, "label", label_keys);
  LabelSettings& l = cfg_.label;
  if (const auto* f = find_entry(items, "functions")) functions(*f);
  if (const auto* s = find_entry(items, "signals")) cfg_.strategy.signals = expression_map(*s, "label.signals");
  const YamlEntry* volatility = find_entry(items, "volatility");
  if (!volatility)
    doc_.fail(ErrorCategory::config, e.key,
              "label needs 'volatility': the barrier width per bar as a return fraction, e.g. "
              "rolling_std(log(close / lag(close, 1)), 50)");
  l.volatility = expression(*volatility, "label.volatility");
  if (const auto* s = find_entry(items, "side")) l.side = expression(*s, "label.side");
  if (const auto* s = find_entry(items, "events")) l.events = expression(*s, "label.events");
  const YamlEntry* horizon = find_entry(items, "horizon");
  if (!horizon) doc_.fail(ErrorCategory::config, e.key, "label needs 'horizon': the vertical barrier, in bars (>= 1)");
  l.profit_take.name = "profit_take";
  l.profit_take.values = {1.0};
  l.stop.name = "stop";
  l.stop.values = {1.0};
  if (const auto* p = find_entry(items, "profit_take")) l.profit_take = barrier_axis(*p, Bound::non_negative, false);
  if (const auto* p = find_entry(items, "stop")) l.stop = barrier_axis(*p, Bound::non_negative, false);
  l.horizon = barrier_axis(*horizon, Bound::positive, true);
  if (const auto* d = find_entry(items, "device")) {
    note(*d, "label.device");
    l.device = choice(*d, "label.device", {"auto", "reference", "serial", "openmp", "cuda"});
  }
  const std::vector<ParamSpec> axes = {l.profit_take, l.stop, l.horizon};
  const auto count = checked_combo_count(axes);
  if (!count || *count > cfg_.sweep.max_combos)
    doc_.fail(ErrorCategory::limit, e.key,
              "the barrier grid has more than " + format_count(cfg_.sweep.max_combos) + " settings");
}

// A barrier axis (the forms of a param: a number, a list, range/values/...),
// every value finite and within `b`, whole numbers when `integer`.
ParamSpec Loader::barrier_axis(const YamlEntry& e, Bound b, bool integer) {
  note(e, "label." + e.name);
  ParamSpec axis = param(e);
  const std::string what = "label." + e.name;
  for (const double v : axis.values) {
    const bool ok = std::isfinite(v) && (b != Bound::non_negative || v >= 0) && (b != Bound::positive || v >= 1) &&
                    (!integer || v == std::floor(v));
    if (!ok)
      doc_.fail(ErrorCategory::config, e.value,
                what + " has the value " + format_number(v) + "; it needs " +
                    (integer ? "whole numbers of bars >= 1" : "finite multiples >= 0 (0: no such barrier)"));
  }
  return axis;
}

}  // namespace kbt::detail
