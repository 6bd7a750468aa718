// `strategy.params`: each parameter axis from a number, a list or a range/values/
// linspace/logspace form, its values distinct, and the grid within sweep.max_combos.

#include "config/loader.hpp"

#include <kbt/config/param_grid.hpp>
#include <kbt/core/error.hpp>

#include "config/number_text.hpp"
#include "config/param_axes.hpp"

#include <algorithm>

namespace kbt::detail {

namespace {

const std::vector<std::string> param_forms = {"range", "values", "linspace", "logspace"};

const char* param_help =
    "a number, a list of numbers, or one of {range: [start, stop, step]}, {values: [v1, v2, ...]}, "
    "{linspace: [start, stop, n]}, {logspace: [start, stop, n]}";

}  // namespace

void Loader::params(const YamlEntry& e) {
  if (e.value.IsNull()) return;
  for (const auto& item : doc_.entries(e, "strategy.params", {})) {
    name_check(item, "parameter");
    cfg_.strategy.params.push_back(param(item));
  }
}

ParamSpec Loader::param(const YamlEntry& e) const {
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

std::vector<double> Loader::value_list(const YamlEntry& owner, const YAML::Node& list, const std::string& what) const {
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

void Loader::check_grid_size() const {
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

}  // namespace kbt::detail
