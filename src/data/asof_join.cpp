// ASOF join of an exogenous series onto the bar grid (docs/data-format.md): a merge walk,
// O(grid + series).

#include <kbt/data/data_io.hpp>

#include <limits>

namespace kbt {

std::vector<double> asof_join(const std::vector<std::int64_t>& grid, const ExoSeries& series) {
  std::vector<double> out(grid.size(), std::numeric_limits<double>::quiet_NaN());
  const std::size_t m = series.timestamps.size();
  std::size_t next = 0;  // first series point not yet at or before the current bar
  for (std::size_t b = 0; b < grid.size(); ++b) {
    while (next < m && series.timestamps[next] <= grid[b]) ++next;
    if (next > 0) out[b] = series.values[next - 1];
  }
  return out;
}

}  // namespace kbt
