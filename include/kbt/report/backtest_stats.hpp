#pragma once
// The statistics of one backtest as `kbt backtest` prints them and Python's
// `kbt.backtest(...).stats` holds them (docs/cli.md "kbt backtest"): one list,
// so that both show the same rows, values and texts.

#include <kbt/reference/simulator.hpp>
#include <kbt/report/backtest_report.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace kbt {

struct BacktestStat {
  std::string label;  // "Return"
  // "time" (ns: UTC), "duration" (ns), "%" (value in percent), "currency",
  // "count", "x mean equity", or "" (a plain number).
  std::string unit;
  double value = 0;       // in `unit`; NaN where the statistic is undefined
  std::int64_t ns = 0;    // time and duration rows: the exact nanoseconds
  std::string text;       // as printed: "521.67 %", "833 days 07:00:00 (20000 bars)"
};

std::vector<BacktestStat> backtest_stats(const SimulationResult& result, const BacktestReport& report,
                                         double initial_capital);

// The texts of those rows: "12.34 %" for a fraction, "%.4f" (or `format`) for a
// number; "nan" for NaN.
std::string percent_text(double fraction);
std::string number_text(double value, const char* format = "%.4f");

}  // namespace kbt
