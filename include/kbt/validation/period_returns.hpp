#pragma once
// Per-period returns of a strategy's equity (docs/validation.md "Periods"):
// the bars of a scoring window grouped into UTC days, weeks or months, or runs
// of N bars, and each period's return from the equity at its last bar.

#include <kbt/data/bar_data.hpp>
#include <kbt/simulation/resolved_simulation.hpp>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace kbt {

struct PeriodGrid {
  std::vector<std::size_t> last_bar;     // [P] the last window bar of each period
  std::vector<std::int64_t> start_ns;    // [P] the timestamp of each period's first bar
  double periods_per_year = 0;           // P over the window's length in years (bars / bar periods per year)
  std::size_t size() const { return last_bar.size(); }
};

// `period`: "day", "week", "month", or "bars" with `period_bars` > 0.
PeriodGrid make_period_grid(const BarData& bars, const ScoringWindow& window, const std::string& period,
                            std::int64_t period_bars, double bar_periods_per_year);

// The returns of one equity curve ([window bars], equity at each close, the
// curve starting from `initial`) per period: E(last bar) / E(previous period's
// last bar) - 1.
std::vector<double> period_returns(const std::vector<double>& equity, double initial, const PeriodGrid& grid);

}  // namespace kbt
