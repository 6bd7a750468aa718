// One combo's equity beside buy-and-hold, its trades on the price, and its drawdown.

#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "plot/gnuplot_runner.hpp"
#include "plot/plots.hpp"

namespace kbt::plot {
namespace {

// Seconds since the epoch: gnuplot's time axis.
double seconds(const BarData& bars, std::size_t bar) { return static_cast<double>(bars.timestamps[bar]) / 1e9; }

}  // namespace

void write_equity_png(const BarData& bars, const SimulationResult& result, const BacktestReport& report,
                      const std::string& out_path, const std::string& title) {
  const std::size_t n = result.equity.size();
  const ScoringWindow& w = result.window;
  if (n == 0 || report.hold.equity.size() != n || report.drawdowns.drawdown.size() != n)
    throw Error(ErrorCategory::internal, "equity plot: the simulation kept no equity curve");
  if (w.begin + n > bars.n_bars()) throw Error(ErrorCategory::internal, "equity plot: equity curve longer than the data");
  const std::size_t n_sym = bars.n_symbols(), n_bars = bars.n_bars();
  const std::vector<double>& close = bars.columns.at("close");
  // One symbol: its price; several: each relative to its first close in the window.
  std::vector<double> base(n_sym, 1.0);
  if (n_sym > 1)
    for (std::size_t s = 0; s < n_sym; ++s)
      for (std::size_t t = w.begin; t < w.end; ++t)
        if (!std::isnan(close[s * n_bars + t])) {
          base[s] = close[s * n_bars + t];
          break;
        }

  detail::ScratchDirectory scratch;
  const std::string curve_path = scratch.file("equity.dat"), price_path = scratch.file("price.dat");
  {
    std::ofstream f = detail::open_data(curve_path);
    for (std::size_t i = 0; i < n; ++i)
      f << seconds(bars, w.begin + i) << ' ' << result.equity[i] << ' ' << report.hold.equity[i] << ' '
        << 100.0 * report.drawdowns.drawdown[i] << '\n';
    detail::finish_data(f, curve_path);
  }
  std::size_t price_blocks = 0;  // one per symbol with a close in the window (gnuplot merges empty blocks)
  {
    std::ofstream f = detail::open_data(price_path);
    for (std::size_t s = 0; s < n_sym; ++s) {
      bool any = false;
      for (std::size_t t = w.begin; t < w.end; ++t)
        if (!std::isnan(close[s * n_bars + t])) {
          f << seconds(bars, t) << ' ' << close[s * n_bars + t] / base[s] << '\n';
          any = true;
        }
      if (any) f << "\n\n", ++price_blocks;
    }
    detail::finish_data(f, price_path);
  }
  // Long entries, short entries and exits, each its own file: a marker kind
  // without trades is then an empty file, which gnuplot skips with a warning.
  const char* const marker_names[3] = {"long_entries.dat", "short_entries.dat", "exits.dat"};
  std::string markers[3];
  for (int kind = 0; kind < 3; ++kind) {
    const std::string path = scratch.file(marker_names[kind]);
    std::ofstream f = detail::open_data(path);
    for (const Trade& t : result.trades) {
      if (kind == 0 && t.side > 0) f << seconds(bars, t.entry_bar) << ' ' << t.entry_price / base[t.symbol] << '\n';
      if (kind == 1 && t.side < 0) f << seconds(bars, t.entry_bar) << ' ' << t.entry_price / base[t.symbol] << '\n';
      if (kind == 2) f << seconds(bars, t.exit_bar) << ' ' << t.exit_price / base[t.symbol] << '\n';
    }
    detail::finish_data(f, path);
    markers[kind] = detail::quote(path);
  }
  const std::string curve = detail::quote(curve_path), price = detail::quote(price_path);
  std::string s;
  s += "set multiplot title " + detail::quote(title) + " noenhanced\n";
  s += "set xdata time\nset timefmt '%s'\nset format x '%Y-%m-%d'\nset grid\n";
  s += "set lmargin 12\nset rmargin 4\nset autoscale xfix\nset key top left noenhanced\n";
  s += "set origin 0,0.60\nset size 1,0.36\nset format x ''\nset ylabel 'equity'\n";
  s += "plot " + curve + " using 1:2 with lines lw 1.5 lc rgb '#1f77b4' title 'strategy', " + curve +
       " using 1:3 with lines lw 1 dt 2 lc rgb '#7f7f7f' title 'buy and hold'\n";
  s += "set origin 0,0.28\nset size 1,0.34\n";
  s += std::string("set ylabel '") + (n_sym > 1 ? "close / first close" : "price") + "'\n";
  s += "plot " + (price_blocks ? price + " index 0:" + std::to_string(price_blocks - 1) +
                                      " using 1:2 with lines lc rgb '#555555' notitle, "
                                : std::string()) +
       markers[0] + " using 1:2 with points pt 9 ps 1.2 lc rgb '#2ca02c' title 'long entry', " + markers[1] +
       " using 1:2 with points pt 11 ps 1.2 lc rgb '#d62728' title 'short entry', " + markers[2] +
       " using 1:2 with points pt 2 ps 1 lc rgb '#000000' title 'exit'\n";
  s += "set origin 0,0\nset size 1,0.30\nset format x '%Y-%m-%d'\nset ylabel 'drawdown (%)'\nset xlabel 'time (UTC)'\n";
  s += "set key off\n";
  s += "plot " + curve + " using 1:4 with filledcurves y=0 fs transparent solid 0.5 lc rgb '#d62728' notitle, " + curve +
       " using 1:4 with lines lc rgb '#d62728' notitle\n";
  s += "unset multiplot\n";
  detail::run_gnuplot(s, out_path, scratch);
}

}  // namespace kbt::plot
