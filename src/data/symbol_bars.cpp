#include <kbt/data/symbol_bars.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <set>

namespace kbt {

const std::vector<std::string>& price_columns() {
  static const std::vector<std::string> names{"open", "high", "low", "close"};
  return names;
}

std::string bar_column_named(const std::string& source_name) {
  std::string lowered = source_name;
  for (char& c : lowered) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const auto& names = required_bar_columns();
  if (std::find(names.begin(), names.end(), lowered) != names.end() || lowered == "funding_rate") return lowered;
  return {};
}

void check_time_order(const std::vector<std::int64_t>& times, std::size_t from,
                      const std::function<void(std::size_t row, std::size_t previous)>& fail) {
  for (std::size_t i = std::max<std::size_t>(from, 1); i < times.size(); ++i)
    if (!(times[i] > times[i - 1])) fail(i, i - 1);
}

BarData merge_on_time_union(const std::vector<SymbolBars>& per_symbol) {
  BarData bars;
  for (const auto& s : per_symbol) bars.timestamps.insert(bars.timestamps.end(), s.times.begin(), s.times.end());
  std::sort(bars.timestamps.begin(), bars.timestamps.end());
  bars.timestamps.erase(std::unique(bars.timestamps.begin(), bars.timestamps.end()), bars.timestamps.end());
  std::set<std::string> names(required_bar_columns().begin(), required_bar_columns().end());
  for (const auto& s : per_symbol)
    for (const auto& [name, values] : s.columns) names.insert(name);
  const std::size_t n = bars.timestamps.size();
  for (const auto& name : names) bars.columns[name].assign(per_symbol.size() * n, std::numeric_limits<double>::quiet_NaN());
  for (std::size_t s = 0; s < per_symbol.size(); ++s) {
    bars.symbols.push_back(per_symbol[s].symbol);
    std::size_t g = 0;
    for (std::size_t i = 0; i < per_symbol[s].times.size(); ++i) {
      while (bars.timestamps[g] < per_symbol[s].times[i]) ++g;
      for (const auto& [name, values] : per_symbol[s].columns) bars.columns[name][s * n + g] = values[i];
    }
  }
  return bars;
}

}  // namespace kbt
