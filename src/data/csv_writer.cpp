// One symbol's bars as CSV (the inverse of import for a single file).

#include <kbt/core/atomic_output.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/core/error.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "config/number_text.hpp"

namespace kbt {

void write_bars_csv(const BarData& bars, const std::string& symbol, const std::string& path) {
  const long s = bars.symbol_index(symbol);
  if (s < 0) throw Error(ErrorCategory::config, "write csv: no symbol '" + symbol + "'");
  std::vector<std::string> cols = required_bar_columns();
  if (bars.has_column("funding_rate")) cols.push_back("funding_rate");
  for (const auto& c : cols)
    if (!bars.has_column(c)) throw Error(ErrorCategory::data_format, "write csv: no column '" + c + "'");
  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path(), std::ios::binary);
    if (!f) throw Error(ErrorCategory::io, "cannot create '" + path + "'");
    f << "timestamp";
    for (const auto& c : cols) f << ',' << c;
    f << '\n';
    for (std::size_t b = 0; b < bars.n_bars(); ++b) {
      f << format_iso8601_utc(bars.timestamps[b]);
      for (const auto& c : cols) f << ',' << detail::format_number(bars.series(c, static_cast<std::size_t>(s))[b]);
      f << '\n';
    }
    f.close();
    if (!f) throw Error(ErrorCategory::io, "writing '" + path + "' failed");
  }
  out.commit();
}

}  // namespace kbt
