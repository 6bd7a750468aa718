#pragma once
// Small builders for the hand-worked reference simulator scenarios.

#include <kbt/data/bar_data.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/lang/strategy_outputs.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace kbt::test {

inline constexpr double NaN = std::numeric_limits<double>::quiet_NaN();
inline constexpr std::int64_t day_ns = 86400LL * 1000000000LL;

struct Bar {
  double o, h, l, c;
};

// A bar that opens, trades and closes at one price.
inline Bar flat(double price) { return {price, price, price, price}; }

inline std::vector<Bar> flat_bars(const std::vector<double>& closes) {
  std::vector<Bar> bars;
  for (double c : closes) bars.push_back(flat(c));
  return bars;
}

// Daily bars from 2024-01-01, one vector of bars per symbol (all the same length).
inline BarData make_data(const std::vector<std::vector<Bar>>& per_symbol,
                         std::vector<std::string> venues = {}) {
  BarData data;
  const std::size_t n = per_symbol.at(0).size();
  for (std::size_t b = 0; b < n; ++b) data.timestamps.push_back(1704067200LL * 1000000000LL + b * day_ns);
  for (std::size_t s = 0; s < per_symbol.size(); ++s) data.symbols.push_back("S" + std::to_string(s));
  data.venues = std::move(venues);
  for (const char* name : {"open", "high", "low", "close", "volume"})
    data.columns[name].assign(per_symbol.size() * n, 0.0);
  for (std::size_t s = 0; s < per_symbol.size(); ++s)
    for (std::size_t b = 0; b < n; ++b) {
      const Bar& bar = per_symbol[s].at(b);
      data.columns["open"][s * n + b] = bar.o;
      data.columns["high"][s * n + b] = bar.h;
      data.columns["low"][s * n + b] = bar.l;
      data.columns["close"][s * n + b] = bar.c;
      data.columns["volume"][s * n + b] = 1.0;
    }
  return data;
}

inline void set_funding(BarData& data, const std::vector<std::vector<double>>& rates) {
  const std::size_t n = data.n_bars();
  auto& col = data.columns["funding_rate"];
  col.assign(data.n_symbols() * n, NaN);
  for (std::size_t s = 0; s < rates.size(); ++s)
    for (std::size_t b = 0; b < n; ++b) col[s * n + b] = rates[s].at(b);
}

inline StrategyOutputs targets(const std::vector<std::vector<double>>& per_symbol) {
  StrategyOutputs out;
  out.form = StrategyOutputs::Form::position;
  out.n_symbols = per_symbol.size();
  out.n_bars = per_symbol.at(0).size();
  for (const auto& row : per_symbol) out.target.insert(out.target.end(), row.begin(), row.end());
  return out;
}

// Entries/exits for one symbol; an empty vector is an absent signal.
inline StrategyOutputs entries(std::size_t n_bars, std::vector<double> long_entry,
                               std::vector<double> long_exit, std::vector<double> short_entry,
                               std::vector<double> short_exit) {
  StrategyOutputs out;
  out.form = StrategyOutputs::Form::entries_exits;
  out.n_symbols = 1;
  out.n_bars = n_bars;
  out.long_entry = std::move(long_entry);
  out.long_exit = std::move(long_exit);
  out.short_entry = std::move(short_entry);
  out.short_exit = std::move(short_exit);
  return out;
}

// Capital 1000, 365 bars a year, no costs.
inline SimulationSettings base_settings() {
  SimulationSettings sim;
  sim.initial_capital = 1000.0;
  sim.periods_per_year = 365.0;
  return sim;
}

inline double metric(const MetricRow& row, Metric m) { return row[static_cast<int>(m)]; }

// Hand-worked decimals are not exact binary fractions: compare to 1e-12 relative.
inline void expect_close(double actual, double expected, const char* what = "") {
  EXPECT_NEAR(actual, expected, 1e-12 * std::fmax(1.0, std::fabs(expected))) << what;
}

}  // namespace kbt::test
