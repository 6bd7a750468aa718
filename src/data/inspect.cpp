// `kbt data inspect`: what a data file holds, after full validation.

#include <kbt/data/data_io.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace kbt {

DataSummary summarize_market_data(const MarketData& data) {
  const BarData& bars = data.bars;
  DataSummary s;
  s.symbols = bars.symbols;
  s.venues = bars.venues;
  s.n_bars = bars.n_bars();
  if (!bars.timestamps.empty()) {
    s.first_ns = bars.timestamps.front();
    s.last_ns = bars.timestamps.back();
  }
  if (bars.n_bars() >= 2) {
    std::vector<std::int64_t> gaps(bars.n_bars() - 1);
    for (std::size_t i = 1; i < bars.n_bars(); ++i) gaps[i - 1] = bars.timestamps[i] - bars.timestamps[i - 1];
    // Lower median: always an actual spacing of the data.
    auto mid = gaps.begin() + static_cast<std::ptrdiff_t>((gaps.size() - 1) / 2);
    std::nth_element(gaps.begin(), mid, gaps.end());
    s.median_spacing_ns = *mid;
  }
  for (const auto& name : required_bar_columns())
    if (bars.has_column(name)) s.columns.push_back(name);
  for (const auto& [name, values] : bars.columns)
    if (std::find(s.columns.begin(), s.columns.end(), name) == s.columns.end()) s.columns.push_back(name);
  for (const auto& name : s.columns) {
    std::vector<std::size_t> counts(bars.n_symbols(), 0);
    const auto& values = bars.columns.at(name);
    for (std::size_t sym = 0; sym < bars.n_symbols(); ++sym)
      for (std::size_t b = 0; b < bars.n_bars(); ++b)
        if (std::isnan(values[sym * bars.n_bars() + b])) ++counts[sym];
    s.nan_counts[name] = counts;
  }
  for (const auto& [name, series] : data.exo) {
    ExoCoverage c;
    c.name = name;
    c.points = series.timestamps.size();
    if (c.points) {
      c.first_ns = series.timestamps.front();
      c.last_ns = series.timestamps.back();
    }
    for (double v : asof_join(bars.timestamps, series))
      if (!std::isnan(v)) ++c.bars_covered;
    s.exo.push_back(c);
  }
  return s;
}

DataSummary inspect_bars(const std::string& path, ExternalData external) {
  DataSummary s = summarize_market_data(read_market_data_hdf5(path, {}, external));
  s.path = path;
  return s;
}

std::string format_summary(const DataSummary& s) {
  std::string out;
  char buf[256];
  auto line = [&out](const std::string& text) { out += text + "\n"; };
  if (!s.path.empty()) line("file:       " + s.path);
  std::string syms;
  for (std::size_t i = 0; i < s.symbols.size(); ++i) {
    syms += (i ? ", " : "") + s.symbols[i];
    if (!s.venues.empty()) syms += " (" + s.venues[i] + ")";
  }
  line("symbols:    " + std::to_string(s.symbols.size()) + ": " + syms);
  line("bars:       " + std::to_string(s.n_bars));
  line("range:      " + format_iso8601_utc(s.first_ns) + " .. " + format_iso8601_utc(s.last_ns));
  line("frequency:  " + (s.median_spacing_ns > 0 ? format_duration(s.median_spacing_ns) + " (median spacing)"
                                                  : std::string("n/a (one bar)")));
  std::string cols;
  for (const auto& c : s.columns) cols += (cols.empty() ? "" : ", ") + c;
  line("columns:    " + cols);
  line("NaN counts (per symbol):");
  std::snprintf(buf, sizeof buf, "  %-14s", "column");
  std::string header = buf;
  for (const auto& sym : s.symbols) {
    std::snprintf(buf, sizeof buf, " %12s", sym.c_str());
    header += buf;
  }
  line(header);
  for (const auto& c : s.columns) {
    std::snprintf(buf, sizeof buf, "  %-14s", c.c_str());
    std::string row = buf;
    for (std::size_t v : s.nan_counts.at(c)) {
      std::snprintf(buf, sizeof buf, " %12zu", v);
      row += buf;
    }
    line(row);
  }
  if (s.exo.empty()) {
    line("exo:        none");
  } else {
    line("exo:");
    for (const auto& e : s.exo) {
      std::string text = "  " + e.name + ": " + std::to_string(e.points) + " points";
      if (e.points)
        text += ", " + format_iso8601_utc(e.first_ns) + " .. " + format_iso8601_utc(e.last_ns);
      std::snprintf(buf, sizeof buf, "; covers %zu of %zu bars (%.2f%%)", e.bars_covered, s.n_bars,
                    s.n_bars ? 100.0 * static_cast<double>(e.bars_covered) / static_cast<double>(s.n_bars) : 0.0);
      line(text + buf);
    }
  }
  return out;
}

}  // namespace kbt
