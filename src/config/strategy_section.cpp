// The `strategy` section: params (param_section.cpp), constraints, scans, signals,
// and exactly one output form: position, or entry/exit rules.

#include "config/loader.hpp"

#include <kbt/core/error.hpp>
#include <kbt/lang/parser.hpp>

#include <algorithm>

namespace kbt::detail {

namespace {

const std::vector<std::string> strategy_keys = {"params",   "constraints", "functions", "scans",      "signals",
                                                "position", "long_entry", "long_exit", "short_entry", "short_exit"};
const std::vector<std::string> entry_exit_keys = {"long_entry", "long_exit", "short_entry", "short_exit"};
const std::vector<std::string> scan_keys = {"inputs", "init", "update", "outputs"};

}  // namespace

void Loader::strategy(const YamlEntry& e) {
  const auto items = doc_.entries(e, "strategy", strategy_keys);
  StrategySpec& st = cfg_.strategy;
  params_entry_ = find_entry(items, "params");
  if (params_entry_) params(*params_entry_);
  if (const auto* c = find_entry(items, "constraints")) {
    if (c->value.IsScalar()) {
      st.constraints.push_back(expression(*c, "strategy.constraints"));
    } else if (c->value.IsSequence()) {
      for (const auto& item : c->value) st.constraints.push_back(expression(item, nullptr, "each constraint"));
    } else if (!c->value.IsNull()) {
      bad(*c, "strategy.constraints", "a list of boolean expressions");
    }
  }
  if (const auto* f = find_entry(items, "functions")) functions(*f);
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

// `name(a, b): body`. The header is checked here (its shape, repeated names);
// the body, and a name that is one of the language's functions, by the
// compiler.
void Loader::functions(const YamlEntry& e) {
  if (e.value.IsNull()) return;
  const std::string expected = "a header such as 'macd(x, fast, slow)': a name, then parameter names in parentheses";
  for (const auto& item : doc_.entries(e, "strategy.functions", {})) {
    FunctionSpec f;
    f.header = doc_.source_text(item.key);
    const std::string& h = item.name;
    const auto open = h.find('('), close = h.rfind(')');
    auto trimmed = [](const std::string& s) {
      const auto b = s.find_first_not_of(" \t");
      return b == std::string::npos ? std::string() : s.substr(b, s.find_last_not_of(" \t") - b + 1);
    };
    if (open == std::string::npos || close == std::string::npos || close < open || !trimmed(h.substr(close + 1)).empty())
      doc_.fail(ErrorCategory::config, item.key, "strategy.functions: '" + h + "' is not " + expected);
    f.name = trimmed(h.substr(0, open));
    if (!is_identifier(f.name))
      doc_.fail(ErrorCategory::config, item.key, "strategy.functions: '" + f.name + "' is not a valid function name; " +
                                                     "expected " + expected);
    const std::string list = h.substr(open + 1, close - open - 1);
    if (!trimmed(list).empty()) {
      std::size_t start = 0;
      while (start <= list.size()) {
        const std::size_t comma = std::min(list.find(',', start), list.size());
        const std::string formal = trimmed(list.substr(start, comma - start));
        if (!is_identifier(formal))
          doc_.fail(ErrorCategory::config, item.key, "strategy.functions." + f.name + ": parameter '" + formal +
                                                         "' is not a valid name; expected " + expected);
        if (std::find(f.params.begin(), f.params.end(), formal) != f.params.end())
          doc_.fail(ErrorCategory::config, item.key, "strategy.functions." + f.name + ": parameter '" + formal +
                                                         "' is given twice");
        f.params.push_back(formal);
        start = comma + 1;
      }
    }
    for (const auto& other : cfg_.strategy.functions)
      if (other.name == f.name)
        doc_.fail(ErrorCategory::config, item.key, "strategy.functions: '" + f.name + "' is defined twice (first at " +
                                                       other.header.where() + ")");
    f.body = expression(item, "strategy.functions." + f.name);
    cfg_.strategy.functions.push_back(std::move(f));
  }
}

void Loader::scans(const YamlEntry& e) {
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

}  // namespace kbt::detail
