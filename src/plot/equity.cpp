// Equity curve and drawdown of one simulated combo.

#include <kbt/core/error.hpp>

#include <algorithm>
#include <fstream>

#include "plot/gnuplot_runner.hpp"
#include "plot/plots.hpp"

namespace kbt::plot {

void write_equity_png(const BarData& bars, const SimulationResult& result, const std::string& out_path,
                      const std::string& title) {
  const std::size_t n = result.equity.size();
  if (n == 0) throw Error(ErrorCategory::internal, "equity plot: the simulation kept no equity curve");
  if (result.window.begin + n > bars.n_bars())
    throw Error(ErrorCategory::internal, "equity plot: equity curve longer than the data");
  detail::ScratchDirectory scratch;
  const std::string data_path = scratch.file("equity.dat");
  {
    std::ofstream data(data_path);
    data.precision(17);
    double peak = result.equity.front();
    for (std::size_t i = 0; i < n; ++i) {
      const double e = result.equity[i];
      peak = std::max(peak, e);
      // Seconds since the epoch (gnuplot's time axis); drawdown in percent.
      const double seconds = static_cast<double>(bars.timestamps[result.window.begin + i]) / 1e9;
      data << seconds << ' ' << e << ' ' << (peak > 0 ? 100.0 * (e / peak - 1.0) : 0.0) << '\n';
    }
    if (!data.flush()) throw Error(ErrorCategory::io, "cannot write '" + data_path + "'");
  }
  const std::string data = detail::quote(data_path);
  std::string s;
  s += "set multiplot title " + detail::quote(title) + " noenhanced\n";
  s += "set xdata time\nset timefmt '%s'\nset format x '%Y-%m-%d'\nset grid\n";
  s += "set lmargin 12\nset rmargin 4\nset autoscale xfix\n";
  s += "set origin 0,0.33\nset size 1,0.62\nset format x ''\nset ylabel 'equity'\n";
  s += "plot " + data + " using 1:2 with lines lw 1.5 lc rgb '#1f77b4' notitle\n";
  s += "set origin 0,0\nset size 1,0.35\nset format x '%Y-%m-%d'\nset ylabel 'drawdown (%)'\nset xlabel 'time (UTC)'\n";
  s += "plot " + data + " using 1:3 with filledcurves y=0 fs transparent solid 0.5 lc rgb '#d62728' notitle, " + data +
       " using 1:3 with lines lc rgb '#d62728' notitle\n";
  s += "unset multiplot\n";
  detail::run_gnuplot(s, out_path, scratch);
}

}  // namespace kbt::plot
