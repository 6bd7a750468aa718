// The `simulation` section: capital, fills, costs, stops and weighting.

#include "config/loader.hpp"
#include "config/number_text.hpp"
#include "config/suggest.hpp"

namespace kbt::detail {

namespace {

const std::vector<std::string> simulation_keys = {
    "initial_capital", "fill",          "fee_bps",       "slippage_bps",       "borrow_rate",
    "stop_loss",       "take_profit",   "trailing_stop", "sltp_priority",      "max_gross_leverage",
    "weighting",       "score_start",   "score_end",        "periods_per_year"};

}  // namespace

void Loader::simulation(const YamlEntry& e) {
  if (e.value.IsNull()) return;
  SimulationSettings& s = cfg_.simulation;
  for (const auto& item : doc_.entries(e, "simulation", simulation_keys)) {
    const std::string what = "simulation." + item.name;
    note(item, what);
    const std::string& k = item.name;
    if (k == "initial_capital") s.initial_capital = number(item, what, Bound::positive);
    else if (k == "fill") s.fill = choice(item, what, {"close", "next_open"}) == "close" ? SimulationSettings::Fill::close
                                                                                       : SimulationSettings::Fill::next_open;
    else if (k == "fee_bps") {
      if (!swept_setting(item, what, Bound::non_negative, s.swept.fee_bps)) fee_bps(item);
    } else if (k == "slippage_bps") {
      if (!swept_setting(item, what, Bound::non_negative, s.swept.slippage_bps))
        s.slippage_bps = number(item, what, Bound::non_negative);
    } else if (k == "borrow_rate") s.borrow_rate = number(item, what, Bound::non_negative);
    else if (k == "stop_loss") {
      if (!swept_setting(item, what, Bound::positive, s.swept.stop_loss))
        s.stop_loss = optional_number(item, what, Bound::positive);
    } else if (k == "take_profit") {
      if (!swept_setting(item, what, Bound::positive, s.swept.take_profit))
        s.take_profit = optional_number(item, what, Bound::positive);
    } else if (k == "trailing_stop") {
      if (!swept_setting(item, what, Bound::positive, s.swept.trailing_stop))
        s.trailing_stop = optional_number(item, what, Bound::positive);
    }
    else if (k == "sltp_priority")
      s.sltp_priority = choice(item, what, {"stop_first", "target_first"}) == "stop_first"
                            ? SimulationSettings::SltpPriority::stop_first
                            : SimulationSettings::SltpPriority::target_first;
    else if (k == "max_gross_leverage") {
      if (!swept_setting(item, what, Bound::positive, s.swept.max_gross_leverage))
        s.max_gross_leverage = number(item, what, Bound::positive);
    }
    else if (k == "weighting")
      s.weighting = choice(item, what, {"raw", "equal"}) == "raw" ? SimulationSettings::Weighting::raw
                                                                 : SimulationSettings::Weighting::equal;
    else if (k == "score_start") time_point(item, what, s.score_start_bar, s.score_start_time_ns);
    else if (k == "score_end") time_point(item, what, s.score_end_bar, s.score_end_time_ns);
    else if (k == "periods_per_year") s.periods_per_year = optional_number(item, what, Bound::positive);
  }
}

bool Loader::swept_setting(const YamlEntry& e, const std::string& what, Bound b, std::string& param) const {
  if (!e.value.IsScalar() || as_number(e.value)) return false;  // a number, null or a mapping
  const std::string& name = e.value.Scalar();
  std::vector<std::string> names;
  const ParamSpec* spec = nullptr;
  for (const auto& p : cfg_.strategy.params) {
    names.push_back(p.name);
    if (p.name == name) spec = &p;
  }
  if (!spec) {
    const std::string guess = closest_match(name, names);
    doc_.fail(ErrorCategory::config, e.value,
              what + " must be a number or a strategy param (a grid axis); '" + name + "' is neither" +
                  (!guess.empty()   ? "; did you mean '" + guess + "'?"
                   : names.empty() ? std::string("; the strategy has no params")
                                   : "; params: " + join(names)));
  }
  for (const double v : spec->values)
    if (!(v - v == 0.0) || (b == Bound::positive && !(v > 0)) || (b == Bound::non_negative && !(v >= 0)))
      doc_.fail(ErrorCategory::config, e.value,
                what + " takes param '" + name + "', whose value " + format_number(v) + " is not " +
                    (b == Bound::positive ? "> 0" : ">= 0"));
  param = name;
  return true;
}

void Loader::fee_bps(const YamlEntry& e) {
  SimulationSettings& s = cfg_.simulation;
  if (!e.value.IsMap()) {
    if (!as_number(e.value)) bad(e, "simulation.fee_bps", "a number >= 0 or a mapping {venue: bps}");
    s.fee_bps = number(e, "simulation.fee_bps", Bound::non_negative);
    return;
  }
  const auto venues = doc_.entries(e, "simulation.fee_bps", {});
  if (venues.empty()) bad(e, "simulation.fee_bps", "a number >= 0 or a non-empty mapping {venue: bps}");
  for (const auto& v : venues) s.fee_bps_by_venue[v.name] = number(v, "simulation.fee_bps." + v.name, Bound::non_negative);
}

}  // namespace kbt::detail
