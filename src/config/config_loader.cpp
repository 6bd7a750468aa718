// Run-config loader: YAML text -> kbt::RunConfig, with file:line:col on every error.
// Key reference: docs/config.md.

#include <kbt/config/config_loader.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/core/error.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/config/param_grid.hpp>

#include "config/number_text.hpp"
#include "config/param_axes.hpp"
#include "config/suggest.hpp"
#include "config/yaml_document.hpp"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace kbt {

namespace {

using detail::describe_value;
using detail::find_entry;
using detail::YamlDocument;
using detail::YamlEntry;

std::string join(const std::vector<std::string>& items, const char* separator = ", ") {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? separator : "") + items[i];
  return s;
}

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

enum class Bound { any, non_negative, positive };

const char* bound_text(Bound b) {
  switch (b) {
    case Bound::any: return "a number";
    case Bound::non_negative: return "a number >= 0";
    case Bound::positive: return "a number > 0";
  }
  return "a number";
}

const std::vector<std::string> root_keys = {"data", "symbols", "strategy", "simulation", "sweep", "verify", "output"};
const std::vector<std::string> strategy_keys = {"params",   "constraints", "scans",      "signals",   "position",
                                                "long_entry", "long_exit", "short_entry", "short_exit"};
const std::vector<std::string> entry_exit_keys = {"long_entry", "long_exit", "short_entry", "short_exit"};
const std::vector<std::string> scan_keys = {"inputs", "init", "update", "outputs"};
const std::vector<std::string> simulation_keys = {
    "initial_capital", "fill",          "fee_bps",       "slippage_bps",       "borrow_rate",
    "stop_loss",       "take_profit",   "trailing_stop", "sltp_priority",      "max_gross_leverage",
    "weighting",       "score_start",   "periods_per_year"};
const std::vector<std::string> sweep_keys = {"device", "precision", "objective", "top_k", "memory_budget_mb",
                                             "max_combos", "checkpoint_combos"};
const std::vector<std::string> objective_keys = {"metric", "direction", "min_trades"};
const std::vector<std::string> verify_keys = {"top_n", "threads", "score_start", "score_end"};
const std::vector<std::string> output_keys = {"path", "csv", "heatmap"};
const std::vector<std::string> param_forms = {"range", "values", "linspace", "logspace"};

const char* param_help =
    "a number, a list of numbers, or one of {range: [start, stop, step]}, {values: [v1, v2, ...]}, "
    "{linspace: [start, stop, n]}, {logspace: [start, stop, n]}";

class Loader {
 public:
  Loader(const YamlDocument& doc, RunConfig& config) : doc_(doc), cfg_(config) {}

  void load(const std::string& base_dir) {
    const YAML::Node& root = doc_.root();
    if (!root.IsDefined() || root.IsNull())
      throw Error(ErrorCategory::config, doc_.source_name() + ":1:1: the config is empty; it needs at least "
                                                              "'data' and 'strategy'");
    const auto top = doc_.entries(root, "the run config", root_keys);
    // sweep first: its limits bound the work of expanding the parameter axes.
    if (const auto* e = find_entry(top, "sweep")) sweep(*e);
    const YamlEntry* data_entry = find_entry(top, "data");
    if (!data_entry)
      doc_.fail(ErrorCategory::config, root, "missing required key 'data' (the HDF5 or CSV market data file)");
    data(*data_entry, base_dir);
    if (const auto* e = find_entry(top, "symbols")) symbols(*e);
    const YamlEntry* strategy_entry = find_entry(top, "strategy");
    if (!strategy_entry)
      doc_.fail(ErrorCategory::config, root, "missing required key 'strategy' (params, signals and position rules)");
    strategy(*strategy_entry);
    if (const auto* e = find_entry(top, "simulation")) simulation(*e);
    if (const auto* e = find_entry(top, "verify")) verify(*e);
    if (const auto* e = find_entry(top, "output")) output(*e);
  }

 private:
  const YamlDocument& doc_;
  RunConfig& cfg_;
  const YamlEntry* params_entry_ = nullptr;

  void note(const YamlEntry& e, const std::string& key) { cfg_.key_origins[key] = doc_.value_origin(e); }

  [[noreturn]] void bad(const YamlEntry& e, const std::string& what, const std::string& expected) const {
    doc_.fail(ErrorCategory::config, e, what + " must be " + expected + " (got " + describe_value(e.value) + ")");
  }
  [[noreturn]] void bad(const YAML::Node& n, const std::string& what, const std::string& expected) const {
    doc_.fail(ErrorCategory::config, n, what + " must be " + expected + " (got " + describe_value(n) + ")");
  }

  // ---- scalar values ----
  std::optional<double> as_number(const YAML::Node& n) const {
    if (!n.IsScalar()) return std::nullopt;
    return detail::parse_number(n.Scalar());
  }

  double number_node(const YAML::Node& n, const std::string& what, Bound b) const {
    const auto v = as_number(n);
    if (!v || (b == Bound::positive && !(*v > 0)) || (b == Bound::non_negative && !(*v >= 0)))
      bad(n, what, bound_text(b));
    return *v;
  }

  double number(const YamlEntry& e, const std::string& what, Bound b) const {
    if (e.value.IsNull()) bad(e, what, bound_text(b));
    return number_node(e.value, what, b);
  }

  std::optional<double> optional_number(const YamlEntry& e, const std::string& what, Bound b) const {
    if (e.value.IsNull()) return std::nullopt;
    const auto v = as_number(e.value);
    if (!v || (b == Bound::positive && !(*v > 0)) || (b == Bound::non_negative && !(*v >= 0)))
      bad(e, what, std::string(bound_text(b)) + " or null");
    return *v;
  }

  std::int64_t integer(const YamlEntry& e, const std::string& what, std::int64_t min) const {
    const std::string expected = "an integer >= " + std::to_string(min);
    if (!e.value.IsScalar()) bad(e, what, expected);
    const auto v = detail::parse_integer(e.value.Scalar());
    if (!v || *v < min) bad(e, what, expected);
    return *v;
  }

  bool boolean(const YamlEntry& e, const std::string& what) const {
    if (e.value.IsScalar()) {
      const std::string& s = e.value.Scalar();
      if (s == "true" || s == "True" || s == "TRUE" || s == "yes") return true;
      if (s == "false" || s == "False" || s == "FALSE" || s == "no") return false;
    }
    bad(e, what, "true or false");
  }

  std::string choice(const YamlEntry& e, const std::string& what, const std::vector<std::string>& accepted) const {
    if (e.value.IsScalar())
      for (const auto& a : accepted)
        if (e.value.Scalar() == a) return a;
    bad(e, what, "one of " + join(accepted, ", "));
  }

  std::string text(const YamlEntry& e, const std::string& what, const std::string& expected) const {
    if (!e.value.IsScalar() || e.value.Scalar().empty()) bad(e, what, expected);
    return e.value.Scalar();
  }

  SourceText expression(const YAML::Node& n, const YamlEntry* owner, const std::string& what) const {
    if (!n.IsScalar()) {
      if (owner) bad(*owner, what, "an expression");
      bad(n, what, "an expression");
    }
    SourceText st = doc_.source_text(n);
    if (st.text.find_first_not_of(" \t\r\n") == std::string::npos) bad(n, what, "a non-empty expression");
    return st;
  }

  SourceText expression(const YamlEntry& e, const std::string& what) const {
    if (e.value.IsNull()) bad(e, what, "an expression");
    return expression(e.value, &e, what);
  }

  void name_check(const YamlEntry& e, const std::string& what) const {
    if (!is_identifier(e.name))
      doc_.fail(ErrorCategory::config, e.key,
                what + " name '" + e.name + "' is not a valid name (letters, digits and _, not starting with a digit)");
  }

  // Ordered `name: expression` mapping (signals, scan sections).
  std::vector<std::pair<std::string, SourceText>> expression_map(const YamlEntry& e, const std::string& context) const {
    std::vector<std::pair<std::string, SourceText>> out;
    if (e.value.IsNull()) return out;
    for (const auto& item : doc_.entries(e, context, {})) {
      name_check(item, context);
      out.emplace_back(item.name, expression(item, context + "." + item.name));
    }
    return out;
  }

  // A scoring-window point: bar index (integer >= 0) or ISO-8601 UTC timestamp.
  void time_point(const YamlEntry& e, const std::string& what, std::optional<std::int64_t>& bar,
                  std::optional<std::int64_t>& time_ns) const {
    bar.reset();
    time_ns.reset();
    if (e.value.IsNull()) return;
    const std::string expected =
        "a bar index (integer >= 0), an ISO-8601 UTC timestamp such as '2021-06-01' or "
        "'2021-06-01T12:00:00Z', or null";
    if (!e.value.IsScalar()) bad(e, what, expected);
    const std::string& s = e.value.Scalar();
    if (const auto i = detail::parse_integer(s)) {
      if (*i < 0) bad(e, what, expected);
      bar = *i;
      return;
    }
    const auto t = parse_iso8601_ns(s);  // the same ISO-8601 rules as the data files
    if (!t) bad(e, what, expected);
    time_ns = *t;
  }

  // ---- sections ----
  void data(const YamlEntry& e, const std::string& base_dir) {
    const std::string path = text(e, "data", "a file path (HDF5, or CSV to import on the fly)");
    note(e, "data");
    cfg_.data_origin = doc_.source_text(e.value);
    std::filesystem::path p(path);
    if (p.is_relative() && !base_dir.empty()) p = (std::filesystem::path(base_dir) / p).lexically_normal();
    cfg_.data_path = p.string();
  }

  void symbols(const YamlEntry& e) {
    note(e, "symbols");
    if (e.value.IsNull()) return;
    if (e.value.IsScalar()) {
      cfg_.symbols.push_back(text(e, "symbols", "a list of symbol names"));
      return;
    }
    if (!e.value.IsSequence()) bad(e, "symbols", "a list of symbol names");
    for (const auto& s : e.value) {
      if (!s.IsScalar() || s.Scalar().empty()) bad(s, "each of symbols", "a symbol name");
      for (const auto& prev : cfg_.symbols)
        if (prev == s.Scalar()) doc_.fail(ErrorCategory::config, s, "symbol '" + prev + "' is listed twice in symbols");
      cfg_.symbols.push_back(s.Scalar());
    }
  }

  void strategy(const YamlEntry& e) {
    const auto items = doc_.entries(e, "strategy", strategy_keys);
    StrategySpec& st = cfg_.strategy;
    if ((params_entry_ = find_entry(items, "params"))) params(*params_entry_);
    if (const auto* c = find_entry(items, "constraints")) {
      if (c->value.IsScalar()) {
        st.constraints.push_back(expression(*c, "strategy.constraints"));
      } else if (c->value.IsSequence()) {
        for (const auto& item : c->value) st.constraints.push_back(expression(item, nullptr, "each constraint"));
      } else if (!c->value.IsNull()) {
        bad(*c, "strategy.constraints", "a list of boolean expressions");
      }
    }
    if (const auto* s = find_entry(items, "scans")) scans(*s);
    if (const auto* s = find_entry(items, "signals")) st.signals = expression_map(*s, "strategy.signals");

    // Exactly one form: position, or entry/exit rules.
    const YamlEntry* position = find_entry(items, "position");
    const YamlEntry* first_rule = nullptr;
    for (const auto& item : items)
      if (std::find(entry_exit_keys.begin(), entry_exit_keys.end(), item.name) != entry_exit_keys.end()) {
        first_rule = &item;
        break;
      }
    if (position && first_rule) {
      const YamlEntry& later = position->key.Mark().pos > first_rule->key.Mark().pos ? *position : *first_rule;
      doc_.fail(ErrorCategory::config, later.key,
                "strategy gives both 'position' and '" + first_rule->name +
                    "'; use either position or entry/exit rules, not both");
    }
    if (!position && !first_rule)
      doc_.fail(ErrorCategory::config, e.key,
                "strategy needs 'position' (a target exposure) or entry/exit rules (" + join(entry_exit_keys) + ")");
    if (position) st.position = expression(*position, "strategy.position");
    std::optional<SourceText>* rules[] = {&st.long_entry, &st.long_exit, &st.short_entry, &st.short_exit};
    for (std::size_t i = 0; i < entry_exit_keys.size(); ++i)
      if (const auto* r = find_entry(items, entry_exit_keys[i])) *rules[i] = expression(*r, "strategy." + r->name);
    if (st.long_exit && !st.long_entry)
      doc_.fail(ErrorCategory::config, find_entry(items, "long_exit")->key,
                "strategy gives 'long_exit' without 'long_entry'");
    if (st.short_exit && !st.short_entry)
      doc_.fail(ErrorCategory::config, find_entry(items, "short_exit")->key,
                "strategy gives 'short_exit' without 'short_entry'");

    check_grid_size();
  }

  void params(const YamlEntry& e) {
    if (e.value.IsNull()) return;
    for (const auto& item : doc_.entries(e, "strategy.params", {})) {
      name_check(item, "parameter");
      cfg_.strategy.params.push_back(param(item));
    }
  }

  ParamSpec param(const YamlEntry& e) const {
    const std::string what = "parameter '" + e.name + "'";
    ParamSpec p;
    p.name = e.name;
    p.origin = doc_.source_text(e.key);
    const YAML::Node& v = e.value;
    if (v.IsScalar()) {  // a constant: one-value axis
      p.kind = ParamSpec::Kind::values;
      const auto value = as_number(v);
      if (!value) bad(e, what, param_help);
      p.values.push_back(*value);
    } else if (v.IsSequence()) {  // shorthand for {values: [...]}
      p.kind = ParamSpec::Kind::values;
      p.values = value_list(e, e.value, what);
    } else if (v.IsMap()) {
      const auto forms = doc_.entries(e, what, param_forms);
      if (forms.size() != 1)
        doc_.fail(ErrorCategory::config, e.key,
                  what + " needs exactly one of range, values, linspace, logspace (got " +
                      (forms.empty() ? std::string("none") : std::to_string(forms.size())) + ")");
      const YamlEntry& f = forms[0];
      const std::string fwhat = what + " " + f.name;
      if (f.name == "values") {
        p.kind = ParamSpec::Kind::values;
        p.values = value_list(f, f.value, fwhat);
      } else {
        const char* shape = f.name == "range" ? "a list [start, stop, step]" : "a list [start, stop, n]";
        if (!f.value.IsSequence() || f.value.size() != 3) bad(f, fwhat, shape);
        detail::NumberArg args[3];
        for (std::size_t i = 0; i < 3; ++i) {
          const YAML::Node a = f.value[i];
          args[i].value = number_node(a, fwhat + (i == 0 ? " start" : i == 1 ? " stop" : f.name == "range" ? " step" : " n"),
                                      Bound::any);
          args[i].text = a.Scalar();
        }
        try {
          if (f.name == "range") {
            p.kind = ParamSpec::Kind::range;
            p.values = detail::expand_range(args[0], args[1], args[2], cfg_.sweep.max_combos);
          } else {
            const auto n = detail::parse_integer(args[2].text);
            if (!n) bad(f.value[2], fwhat + " n", "an integer >= 1");
            p.kind = f.name == "linspace" ? ParamSpec::Kind::linspace : ParamSpec::Kind::logspace;
            p.values = f.name == "linspace"
                           ? detail::expand_linspace(args[0].value, args[1].value, *n, cfg_.sweep.max_combos)
                           : detail::expand_logspace(args[0].value, args[1].value, *n, cfg_.sweep.max_combos);
          }
        } catch (const detail::AxisError& err) {
          const YAML::Node at = err.argument >= 0 ? f.value[static_cast<std::size_t>(err.argument)] : f.value;
          doc_.fail(err.category(), at, fwhat + ": " + err.what());
        }
      }
    } else {
      bad(e, what, param_help);
    }
    // Distinct values (ranges are strictly increasing by construction).
    if (p.kind != ParamSpec::Kind::range) {
      std::vector<std::pair<double, std::size_t>> sorted;
      for (std::size_t i = 0; i < p.values.size(); ++i) sorted.emplace_back(p.values[i], i);
      std::sort(sorted.begin(), sorted.end());
      for (std::size_t i = 1; i < sorted.size(); ++i)
        if (sorted[i].first == sorted[i - 1].first)
          doc_.fail(ErrorCategory::grid, e.key,
                    what + " has the value " + detail::format_number(sorted[i].first) + " twice (positions " +
                        std::to_string(sorted[i - 1].second + 1) + " and " + std::to_string(sorted[i].second + 1) +
                        "); every value of an axis must be distinct");
    }
    p.is_integer = detail::all_integral(p.values);
    return p;
  }

  std::vector<double> value_list(const YamlEntry& owner, const YAML::Node& list, const std::string& what) const {
    if (!list.IsSequence()) bad(owner, what, "a list of numbers");
    if (list.size() == 0) doc_.fail(ErrorCategory::grid, list, what + " is empty; an axis needs at least one value");
    if (list.size() > cfg_.sweep.max_combos)
      doc_.fail(ErrorCategory::limit, list,
                what + " has " + detail::format_count(list.size()) + " values, more than sweep.max_combos = " +
                    detail::format_count(cfg_.sweep.max_combos));
    std::vector<double> values;
    for (const auto& item : list) values.push_back(number_node(item, "each value of " + what, Bound::any));
    return values;
  }

  void check_grid_size() const {
    const auto& params = cfg_.strategy.params;
    if (params.empty()) return;
    std::string sizes;
    for (const auto& p : params) sizes += (sizes.empty() ? "" : " x ") + p.name + " " + std::to_string(p.values.size());
    const auto count = checked_combo_count(params);
    if (!count)
      doc_.fail(ErrorCategory::limit, params_entry_->key,
                "the parameter grid (" + sizes + ") has more than 2^64 combos; sweep.max_combos = " +
                    detail::format_count(cfg_.sweep.max_combos));
    if (*count > cfg_.sweep.max_combos)
      doc_.fail(ErrorCategory::limit, params_entry_->key,
                "the parameter grid has " + detail::format_count(*count) + " combos (" + sizes +
                    "), more than sweep.max_combos = " + detail::format_count(cfg_.sweep.max_combos) +
                    "; narrow the axes or raise sweep.max_combos");
  }

  void scans(const YamlEntry& e) {
    if (e.value.IsNull()) return;
    for (const auto& item : doc_.entries(e, "strategy.scans", {})) {
      name_check(item, "scan");
      const std::string context = "strategy.scans." + item.name;
      ScanSpec scan;
      scan.name = item.name;
      scan.origin = doc_.source_text(item.key);
      const auto parts = doc_.entries(item, context, scan_keys);
      if (const auto* p = find_entry(parts, "inputs")) scan.inputs = expression_map(*p, context + ".inputs");
      if (const auto* p = find_entry(parts, "init")) scan.init = expression_map(*p, context + ".init");
      const auto* update = find_entry(parts, "update");
      if (!update) doc_.fail(ErrorCategory::config, item.key, context + " needs 'update' (the per-bar recurrence)");
      scan.update = expression_map(*update, context + ".update");
      if (scan.update.empty()) bad(*update, context + ".update", "a non-empty mapping of state: expression");
      const auto* outputs = find_entry(parts, "outputs");
      if (!outputs) doc_.fail(ErrorCategory::config, item.key, context + " needs 'outputs' (name: state or expression)");
      scan.outputs = expression_map(*outputs, context + ".outputs");
      if (scan.outputs.empty()) bad(*outputs, context + ".outputs", "a non-empty mapping of name: expression");
      cfg_.strategy.scans.push_back(std::move(scan));
    }
  }

  void simulation(const YamlEntry& e) {
    if (e.value.IsNull()) return;
    SimulationSettings& s = cfg_.simulation;
    for (const auto& item : doc_.entries(e, "simulation", simulation_keys)) {
      const std::string what = "simulation." + item.name;
      note(item, what);
      const std::string& k = item.name;
      if (k == "initial_capital") s.initial_capital = number(item, what, Bound::positive);
      else if (k == "fill") s.fill = choice(item, what, {"close", "next_open"}) == "close" ? SimulationSettings::Fill::close
                                                                                         : SimulationSettings::Fill::next_open;
      else if (k == "fee_bps") fee_bps(item);
      else if (k == "slippage_bps") s.slippage_bps = number(item, what, Bound::non_negative);
      else if (k == "borrow_rate") s.borrow_rate = number(item, what, Bound::non_negative);
      else if (k == "stop_loss") s.stop_loss = optional_number(item, what, Bound::positive);
      else if (k == "take_profit") s.take_profit = optional_number(item, what, Bound::positive);
      else if (k == "trailing_stop") s.trailing_stop = optional_number(item, what, Bound::positive);
      else if (k == "sltp_priority")
        s.sltp_priority = choice(item, what, {"stop_first", "target_first"}) == "stop_first"
                              ? SimulationSettings::SltpPriority::stop_first
                              : SimulationSettings::SltpPriority::target_first;
      else if (k == "max_gross_leverage") s.max_gross_leverage = number(item, what, Bound::positive);
      else if (k == "weighting")
        s.weighting = choice(item, what, {"raw", "equal"}) == "raw" ? SimulationSettings::Weighting::raw
                                                                   : SimulationSettings::Weighting::equal;
      else if (k == "score_start") time_point(item, what, s.score_start_bar, s.score_start_time_ns);
      else if (k == "periods_per_year") s.periods_per_year = optional_number(item, what, Bound::positive);
    }
  }

  void fee_bps(const YamlEntry& e) {
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

  void sweep(const YamlEntry& e) {
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

  void objective(const YamlEntry& e) {
    Objective& o = cfg_.sweep.objective;
    std::vector<std::string> metrics(metric_names().begin(), metric_names().end());
    if (e.value.IsScalar()) {  // shorthand: `objective: sharpe`
      o.metric = choice(e, "sweep.objective", metrics);
      return;
    }
    for (const auto& item : doc_.entries(e, "sweep.objective", objective_keys)) {
      const std::string what = "sweep.objective." + item.name;
      note(item, what);
      if (item.name == "metric") o.metric = choice(item, what, metrics);
      else if (item.name == "direction") o.maximize = choice(item, what, {"max", "min"}) == "max";
      else if (item.name == "min_trades") o.min_trades = number(item, what, Bound::non_negative);
    }
  }

  void verify(const YamlEntry& e) {
    if (e.value.IsNull()) return;
    VerifySettings& v = cfg_.verify;
    const YamlEntry* start = nullptr;
    const YamlEntry* end = nullptr;
    // Named: `start`/`end` point into it after the loop.
    const auto items = doc_.entries(e, "verify", verify_keys);
    for (const auto& item : items) {
      const std::string what = "verify." + item.name;
      note(item, what);
      if (item.name == "top_n") v.top_n = integer(item, what, 0);
      else if (item.name == "threads") v.threads = static_cast<int>(integer(item, what, 0));
      else if (item.name == "score_start") time_point(item, what, v.score_start_bar, v.score_start_time_ns), start = &item;
      else if (item.name == "score_end") time_point(item, what, v.score_end_bar, v.score_end_time_ns), end = &item;
    }
    if (start && end) {
      const bool bars = v.score_start_bar && v.score_end_bar, times = v.score_start_time_ns && v.score_end_time_ns;
      if ((bars && *v.score_end_bar <= *v.score_start_bar) || (times && *v.score_end_time_ns <= *v.score_start_time_ns))
        doc_.fail(ErrorCategory::config, *end, "verify.score_end must come after verify.score_start");
    }
  }

  void output(const YamlEntry& e) {
    if (e.value.IsNull()) return;
    OutputSettings& o = cfg_.output;
    for (const auto& item : doc_.entries(e, "output", output_keys)) {
      const std::string what = "output." + item.name;
      note(item, what);
      if (item.name == "path") o.path = text(item, what, "a file path");
      else if (item.name == "csv") o.csv = boolean(item, what);
      else if (item.name == "heatmap") heatmap(item);
    }
  }

  void heatmap(const YamlEntry& e) {
    const std::string expected = "a list of two parameter names, e.g. [fast, slow], or null";
    if (e.value.IsNull() || (e.value.IsSequence() && e.value.size() == 0)) return;
    if (!e.value.IsSequence() || e.value.size() != 2) bad(e, "output.heatmap", expected);
    std::vector<std::string> names;
    for (const auto& param : cfg_.strategy.params) names.push_back(param.name);
    for (const auto& n : e.value) {
      if (!n.IsScalar()) bad(n, "each of output.heatmap", "a parameter name");
      if (std::find(names.begin(), names.end(), n.Scalar()) == names.end()) {
        const std::string guess = detail::closest_match(n.Scalar(), names);
        doc_.fail(ErrorCategory::config, n,
                  "output.heatmap names '" + n.Scalar() + "', which is not a parameter" +
                      (!guess.empty()   ? "; did you mean '" + guess + "'?"
                       : names.empty() ? std::string("; the strategy has no parameters")
                                       : "; parameters: " + join(names)));
      }
      cfg_.output.heatmap.push_back(n.Scalar());
    }
    if (cfg_.output.heatmap[0] == cfg_.output.heatmap[1])
      doc_.fail(ErrorCategory::config, e.value[1], "output.heatmap needs two different parameters");
  }
};

}  // namespace

RunConfig parse_run_config(const std::string& yaml_text, const std::string& source_name,
                           const std::string& base_dir) {
  YamlDocument doc(yaml_text, source_name);
  RunConfig config;
  config.source_path = source_name;
  config.source_yaml = yaml_text;
  Loader(doc, config).load(base_dir);
  return config;
}

RunConfig load_run_config(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw Error(ErrorCategory::io, path + ": cannot read the config file: " +
                                       (std::filesystem::exists(path, ec) ? "not a regular file" : "no such file"));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw Error(ErrorCategory::io, path + ": cannot read the config file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) throw Error(ErrorCategory::io, path + ": error while reading the config file");
  return parse_run_config(text.str(), path, std::filesystem::path(path).parent_path().string());
}

}  // namespace kbt
