// Per-period returns (include/kbt/validation/period_returns.hpp).

#include <kbt/validation/period_returns.hpp>

#include <kbt/core/error.hpp>
#include <kbt/data/time_format.hpp>

namespace kbt {

PeriodGrid make_period_grid(const BarData& bars, const ScoringWindow& window, const std::string& period,
                            std::int64_t period_bars, double bar_periods_per_year) {
  PeriodGrid g;
  const auto key = [&](std::size_t t) -> std::int64_t {
    if (period == "bars") return static_cast<std::int64_t>((t - window.begin) / static_cast<std::size_t>(period_bars));
    const CalendarPeriod p = period == "week" ? CalendarPeriod::week
                             : period == "month" ? CalendarPeriod::month
                                                 : CalendarPeriod::day;
    return calendar_period_of(bars.timestamps[t], p);
  };
  if (period == "bars" && period_bars < 1) throw Error(ErrorCategory::internal, "period grid: bars must be >= 1");
  for (std::size_t t = window.begin; t < window.end; ++t) {
    if (t == window.begin || key(t) != key(t - 1)) g.start_ns.push_back(bars.timestamps[t]);
    if (t + 1 == window.end || key(t + 1) != key(t)) g.last_bar.push_back(t);
  }
  const double years = static_cast<double>(window.end - window.begin) / bar_periods_per_year;
  g.periods_per_year = years > 0 ? static_cast<double>(g.size()) / years : 0.0;
  return g;
}

std::vector<double> period_returns(const std::vector<double>& equity, double initial, const PeriodGrid& grid) {
  std::vector<double> out;
  out.reserve(grid.size());
  if (grid.size() == 0) return out;
  double previous = initial;
  const std::size_t begin = grid.last_bar.back() + 1 - equity.size();  // the window's first bar
  for (const std::size_t t : grid.last_bar) {
    const double e = equity[t - begin];
    // After a ruin the equity stays 0 (docs/semantics.md "Ruin"): an empty
    // account's periods return 0, not 0 / 0.
    out.push_back(previous > 0.0 ? e / previous - 1.0 : 0.0);
    previous = e;
  }
  return out;
}

}  // namespace kbt
