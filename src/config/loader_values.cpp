// The loader's value readers: numbers, integers, booleans, choices, text,
// expressions and time points from YAML entries, each error at file:line:col.

#include "config/loader.hpp"

#include <kbt/core/error.hpp>
#include <kbt/data/time_format.hpp>

#include "config/number_text.hpp"

#include <cctype>

namespace kbt::detail {

namespace {

bool is_identifier(const std::string& s) {
  if (s.empty() || !(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  return true;
}

const char* bound_text(Bound b) {
  switch (b) {
    case Bound::any: return "a number";
    case Bound::non_negative: return "a number >= 0";
    case Bound::positive: return "a number > 0";
  }
  return "a number";
}

}  // namespace

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string s;
  for (std::size_t i = 0; i < items.size(); ++i) s += (i ? separator : "") + items[i];
  return s;
}

void Loader::note(const YamlEntry& e, const std::string& key) { cfg_.key_origins[key] = doc_.value_origin(e); }

void Loader::bad(const YamlEntry& e, const std::string& what, const std::string& expected) const {
  doc_.fail(ErrorCategory::config, e, what + " must be " + expected + " (got " + describe_value(e.value) + ")");
}
void Loader::bad(const YAML::Node& n, const std::string& what, const std::string& expected) const {
  doc_.fail(ErrorCategory::config, n, what + " must be " + expected + " (got " + describe_value(n) + ")");
}

std::optional<double> Loader::as_number(const YAML::Node& n) const {
  if (!n.IsScalar()) return std::nullopt;
  return detail::parse_number(n.Scalar());
}

double Loader::number_node(const YAML::Node& n, const std::string& what, Bound b) const {
  const auto v = as_number(n);
  if (!v || (b == Bound::positive && !(*v > 0)) || (b == Bound::non_negative && !(*v >= 0)))
    bad(n, what, bound_text(b));
  return *v;
}

double Loader::number(const YamlEntry& e, const std::string& what, Bound b) const {
  if (e.value.IsNull()) bad(e, what, bound_text(b));
  return number_node(e.value, what, b);
}

std::optional<double> Loader::optional_number(const YamlEntry& e, const std::string& what, Bound b) const {
  if (e.value.IsNull()) return std::nullopt;
  const auto v = as_number(e.value);
  if (!v || (b == Bound::positive && !(*v > 0)) || (b == Bound::non_negative && !(*v >= 0)))
    bad(e, what, std::string(bound_text(b)) + " or null");
  return *v;
}

std::int64_t Loader::integer(const YamlEntry& e, const std::string& what, std::int64_t min) const {
  const std::string expected = "an integer >= " + std::to_string(min);
  if (!e.value.IsScalar()) bad(e, what, expected);
  const auto v = detail::parse_integer(e.value.Scalar());
  if (!v || *v < min) bad(e, what, expected);
  return *v;
}

bool Loader::boolean(const YamlEntry& e, const std::string& what) const {
  if (e.value.IsScalar()) {
    const std::string& s = e.value.Scalar();
    if (s == "true" || s == "True" || s == "TRUE" || s == "yes") return true;
    if (s == "false" || s == "False" || s == "FALSE" || s == "no") return false;
  }
  bad(e, what, "true or false");
}

std::string Loader::choice(const YamlEntry& e, const std::string& what, const std::vector<std::string>& accepted) const {
  if (e.value.IsScalar())
    for (const auto& a : accepted)
      if (e.value.Scalar() == a) return a;
  bad(e, what, "one of " + join(accepted, ", "));
}

std::string Loader::text(const YamlEntry& e, const std::string& what, const std::string& expected) const {
  if (!e.value.IsScalar() || e.value.Scalar().empty()) bad(e, what, expected);
  return e.value.Scalar();
}


SourceText Loader::expression(const YAML::Node& n, const YamlEntry* owner, const std::string& what) const {
  if (!n.IsScalar()) {
    if (owner) bad(*owner, what, "an expression");
    bad(n, what, "an expression");
  }
  SourceText st = doc_.source_text(n);
  if (st.text.find_first_not_of(" \t\r\n") == std::string::npos) bad(n, what, "a non-empty expression");
  return st;
}

SourceText Loader::expression(const YamlEntry& e, const std::string& what) const {
  if (e.value.IsNull()) bad(e, what, "an expression");
  return expression(e.value, &e, what);
}

void Loader::name_check(const YamlEntry& e, const std::string& what) const {
  if (!is_identifier(e.name))
    doc_.fail(ErrorCategory::config, e.key,
              what + " name '" + e.name + "' is not a valid name (letters, digits and _, not starting with a digit)");
}

std::vector<std::pair<std::string, SourceText>> Loader::expression_map(const YamlEntry& e, const std::string& context) const {
  std::vector<std::pair<std::string, SourceText>> out;
  if (e.value.IsNull()) return out;
  for (const auto& item : doc_.entries(e, context, {})) {
    name_check(item, context);
    out.emplace_back(item.name, expression(item, context + "." + item.name));
  }
  return out;
}

void Loader::time_point(const YamlEntry& e, const std::string& what, std::optional<std::int64_t>& bar,
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

}  // namespace kbt::detail
