#pragma once
// Bar data from Kokkos Views a host code already holds (docs/api.md). The
// values are copied to the host: the sweep plan (hoisting, the reference
// checks) reads them there, and the sweep uploads what its kernel needs.

#include <kbt/data/bar_data.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <Kokkos_Core.hpp>

#include <map>
#include <string>
#include <vector>

namespace kbt {

// `timestamps`: rank-1 [n_bars] int64 ns since the epoch, strictly increasing.
// `columns`: rank-2 [n_symbols][n_bars] per column name ("open", "high",
// "low", "close", "volume", optionally "funding_rate"), any layout and memory
// space. Validated like an HDF5 input; errors name `origin`.
template <class TimestampView, class ColumnView>
BarData bars_from_views(const TimestampView& timestamps, const std::vector<std::string>& symbols,
                        const std::map<std::string, ColumnView>& columns, const std::string& origin = "<views>") {
  static_assert(TimestampView::rank == 1, "timestamps: a rank-1 View");
  static_assert(ColumnView::rank == 2, "columns: rank-2 Views [n_symbols][n_bars]");
  BarData bars;
  bars.symbols = symbols;
  const auto ts = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), timestamps);
  bars.timestamps.assign(ts.data(), ts.data() + ts.extent(0));
  const std::size_t n_bars = bars.timestamps.size(), n_sym = symbols.size();
  for (const auto& [name, view] : columns) {
    if (view.extent(0) != n_sym || view.extent(1) != n_bars)
      throw Error(ErrorCategory::data_format, origin + ": column '" + name + "' is " +
                                                  std::to_string(view.extent(0)) + " x " +
                                                  std::to_string(view.extent(1)) + ", expected " +
                                                  std::to_string(n_sym) + " symbols x " + std::to_string(n_bars) +
                                                  " bars");
    const auto host = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), view);
    std::vector<double>& col = bars.columns[name];
    col.resize(n_sym * n_bars);
    for (std::size_t s = 0; s < n_sym; ++s)
      for (std::size_t b = 0; b < n_bars; ++b) col[s * n_bars + b] = static_cast<double>(host(s, b));
  }
  validate_market_data(bars, {}, origin);
  return bars;
}

}  // namespace kbt
