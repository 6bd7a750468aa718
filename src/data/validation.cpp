// validate_market_data and the checks the loaders share.

#include "data/validation.hpp"

#include "data/utf8.hpp"

#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/symbol_bars.hpp>

#include <algorithm>

#include <cstdio>
#include <map>

namespace kbt {
namespace detail {

void fail_dataset(const std::string& origin, const std::string& dataset, const std::string& problem) {
  throw Error(ErrorCategory::data_format, origin + ": dataset " + dataset + ": " + problem);
}

std::string describe_time(std::int64_t ns) {
  return std::to_string(ns) + " (" + format_iso8601_utc(ns) + ")";
}

void check_strictly_increasing(const std::vector<std::int64_t>& ts, const std::string& origin,
                               const std::string& dataset) {
  check_time_order(ts, 1, [&](std::size_t i, std::size_t previous) {
    const std::string what = ts[i] == ts[previous] ? "duplicate timestamp" : "timestamps not increasing";
    fail_dataset(origin, dataset,
                 what + " at index " + std::to_string(i) + ": " + describe_time(ts[i]) + " follows " +
                     describe_time(ts[previous]) + " at index " + std::to_string(previous) +
                     "; timestamps must be strictly increasing");
  });
}

bool is_price_column(const std::string& name) {
  const auto& prices = price_columns();
  return std::find(prices.begin(), prices.end(), name) != prices.end();
}

void check_prices(const std::string& column, const std::vector<double>& values,
                  const std::vector<std::string>& symbols, const std::vector<std::int64_t>& timestamps,
                  const std::string& origin) {
  const std::size_t n_bars = timestamps.size();
  for (std::size_t i = 0; i < values.size(); ++i) {
    const double v = values[i];
    if (v != v || (v > 0 && v - v == 0)) continue;  // NaN: no bar; finite and positive
    const std::size_t symbol = n_bars ? i / n_bars : 0, bar = n_bars ? i % n_bars : 0;
    char text[32];
    std::snprintf(text, sizeof text, "%.17g", v);
    fail_dataset(origin, "/bars/" + column,
                 "symbol '" + (symbol < symbols.size() ? symbols[symbol] : std::to_string(symbol)) + "', bar " +
                     std::to_string(bar) + (bar < n_bars ? " at " + format_iso8601_utc(timestamps[bar]) : "") +
                     ": price " + text + "; a price is a finite number > 0, or NaN where the symbol has no bar");
  }
}

void check_names(const std::vector<std::string>& names, const std::string& origin,
                 const std::string& dataset, const char* what) {
  std::map<std::string, std::size_t> seen;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (names[i].empty()) fail_dataset(origin, dataset, std::string(what) + " " + std::to_string(i) + " is empty");
    if (names[i].find('\0') != std::string::npos)
      fail_dataset(origin, dataset, std::string(what) + " " + std::to_string(i) + " has a NUL byte inside");
    if (!is_utf8(names[i]))
      fail_dataset(origin, dataset, std::string(what) + " " + std::to_string(i) + " is not valid UTF-8");
    auto [it, inserted] = seen.emplace(names[i], i);
    if (!inserted)
      fail_dataset(origin, dataset,
                   std::string("duplicate ") + what + " '" + names[i] + "' at index " +
                       std::to_string(it->second) + " and " + std::to_string(i));
  }
}

}  // namespace detail

void validate_market_data(const BarData& bars, const std::map<std::string, ExoSeries>& exo,
                          const std::string& origin) {
  using detail::fail_dataset;
  if (bars.timestamps.empty()) fail_dataset(origin, "/timestamps", "no bars (empty)");
  detail::check_strictly_increasing(bars.timestamps, origin, "/timestamps");
  if (bars.symbols.empty()) fail_dataset(origin, "/symbols", "no symbols (empty)");
  detail::check_names(bars.symbols, origin, "/symbols", "symbol");
  if (!bars.venues.empty() && bars.venues.size() != bars.symbols.size())
    fail_dataset(origin, "/venues",
                 std::to_string(bars.venues.size()) + " venues for " + std::to_string(bars.symbols.size()) +
                     " symbols");
  for (const auto& name : required_bar_columns())
    if (!bars.has_column(name)) fail_dataset(origin, "/bars/" + name, "missing required dataset");
  const std::size_t expected = bars.n_symbols() * bars.n_bars();
  for (const auto& [name, values] : bars.columns) {
    if (name.empty() || name.find('/') != std::string::npos)
      fail_dataset(origin, "/bars/" + name, "invalid column name");
    if (values.size() != expected)
      fail_dataset(origin, "/bars/" + name,
                   "expected " + std::to_string(expected) + " values ([" + std::to_string(bars.n_symbols()) +
                       "][" + std::to_string(bars.n_bars()) + "]), found " + std::to_string(values.size()));
    if (detail::is_price_column(name)) detail::check_prices(name, values, bars.symbols, bars.timestamps, origin);
  }
  for (const auto& [name, series] : exo) {
    const std::string base = "/exo/" + name;
    if (name.empty() || name.find('/') != std::string::npos) fail_dataset(origin, base, "invalid exo name");
    if (series.values.size() != series.timestamps.size())
      fail_dataset(origin, base + "/values",
                   "expected " + std::to_string(series.timestamps.size()) + " values (one per " + base +
                       "/timestamps), found " + std::to_string(series.values.size()));
    detail::check_strictly_increasing(series.timestamps, origin, base + "/timestamps");
  }
}

}  // namespace kbt
