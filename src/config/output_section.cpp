// The `output` section: the results path, CSV, and the heatmap's two parameters.

#include "config/loader.hpp"

#include <kbt/core/error.hpp>

#include "config/suggest.hpp"

#include <algorithm>

namespace kbt::detail {

namespace {

const std::vector<std::string> output_keys = {"path", "csv", "heatmap"};

}  // namespace

void Loader::output(const YamlEntry& e) {
  if (e.value.IsNull()) return;
  OutputSettings& o = cfg_.output;
  for (const auto& item : doc_.entries(e, "output", output_keys)) {
    const std::string what = "output." + item.name;
    note(item, what);
    if (item.name == "path") o.path = text(item, what, "a file path");
    else if (item.name == "csv") o.csv = boolean(item, what);
    else if (item.name == "heatmap" && cfg_.job != Job::sweep)
      doc_.fail(ErrorCategory::config, item.key, "output.heatmap belongs to sweeps; only a sweep has params");
    else if (item.name == "heatmap") heatmap(item);
  }
}

void Loader::heatmap(const YamlEntry& e) {
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

}  // namespace kbt::detail
