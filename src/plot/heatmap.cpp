// A heatmap grid (include/kbt/report/heatmap_grid.hpp) drawn by gnuplot.

#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>

#include "plot/gnuplot_runner.hpp"
#include "plot/plots.hpp"

namespace kbt::plot {
namespace {

std::string number_text(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.6g", v);
  return buf;
}

// gnuplot tic labels at cell indices, at most ~16 of them.
std::string tics(const std::vector<double>& values) {
  const std::size_t step = std::max<std::size_t>(1, (values.size() + 15) / 16);
  std::string out = "(";
  for (std::size_t i = 0; i < values.size(); i += step)
    out += (i == 0 ? "" : ", ") + detail::quote(number_text(values[i])) + " " + std::to_string(i);
  return out + ")";
}

}  // namespace

void write_heatmap_png(const HeatmapGrid& g, const std::string& out_path,
                       const std::string& title) {
  const std::size_t nx = g.xs.size(), ny = g.ys.size();
  if (std::none_of(g.z.begin(), g.z.end(), [](double v) { return !std::isnan(v); }))
    throw Error(ErrorCategory::config, "no combo has a finite " + g.metric + " to plot");
  detail::ScratchDirectory scratch;
  const std::string data_path = scratch.file("cells.dat");
  {
    std::ofstream data(data_path);
    data.precision(17);
    for (std::size_t iy = 0; iy < ny; ++iy)
      for (std::size_t ix = 0; ix < nx; ++ix) {
        const double v = g.z[iy * nx + ix];
        data << ix << ' ' << iy << ' ';
        if (std::isnan(v)) data << "NaN\n";
        else data << v << '\n';
      }
    if (!data.flush()) throw Error(ErrorCategory::io, "cannot write '" + data_path + "'");
  }
  // Cells whose combos are all not eligible: grey, with the reason in the key.
  const std::size_t n_excluded =
      static_cast<std::size_t>(std::count(g.excluded.begin(), g.excluded.end(), std::uint8_t{1}));
  const std::string excluded_path = scratch.file("excluded.dat");
  if (n_excluded > 0) {
    std::ofstream data(excluded_path);
    for (std::size_t cell = 0; cell < g.excluded.size(); ++cell)
      if (g.excluded[cell]) data << cell % nx << ' ' << cell / nx << '\n';
    if (!data.flush()) throw Error(ErrorCategory::io, "cannot write '" + excluded_path + "'");
  }
  std::string subtitle = g.agg == "best"   ? (g.fixed.empty() ? std::string("every combo; blank: not simulated or NaN")
                                                               : "other parameters at the best combo's: " + g.fixed)
                         : g.agg == "max" ? "max over the other parameters"
                                           : "median over the other parameters";
  std::string s;
  s += "set title " + detail::quote(title + "\n" + subtitle) + " noenhanced\n";
  s += "set xlabel " + detail::quote(g.x) + " noenhanced\nset ylabel " + detail::quote(g.y) + " noenhanced\n";
  s += "set xrange [-0.5:" + std::to_string(nx) + "-0.5]\nset yrange [-0.5:" + std::to_string(ny) + "-0.5]\n";
  s += "set xtics " + tics(g.xs) + " out nomirror\nset ytics " + tics(g.ys) + " out nomirror\n";
  s += "set cblabel " + detail::quote(g.metric + (g.agg == "best" ? "" : " (" + g.agg + ")")) + " noenhanced\n";
  s += "set palette defined (0 '#440154', 1 '#3b528b', 2 '#21918c', 3 '#5ec962', 4 '#fde725')\n";
  s += "set style textbox opaque noborder\nset tics front\n";
  std::string best_plot;
  if (g.best_row) {
    const double v = g.best_value;
    const bool right_half = g.best_ix * 2 >= nx;
    std::string text = "best combo " + std::to_string(g.best_combo) + ": " + g.metric + " " +
                       (std::isnan(v) ? std::string("nan") : number_text(v)) + " (" + g.x +
                       "=" + number_text(g.xs[g.best_ix]) + ", " + g.y + "=" + number_text(g.ys[g.best_iy]) + ")";
    s += "set label 1 " + detail::quote(text) + " at " + std::to_string(g.best_ix) + "," +
         std::to_string(g.best_iy) + (right_half ? " right offset -1.6,1.2" : " left offset 1.6,1.2") +
         " front boxed noenhanced\n";
    best_plot = ", '-' using 1:2 with points pt 6 ps 3 lw 2.5 lc rgb 'red' notitle";
  }
  std::string excluded_plot;
  if (n_excluded > 0) {
    const std::string why = "grey: no eligible combo (" + g.objective + " NaN" +
                            (g.min_trades > 0 ? ", or fewer than " + number_text(g.min_trades) + " trades: min_trades" : "") +
                            ")";
    s += "set key below noenhanced\n";
    excluded_plot = ", " + detail::quote(excluded_path) +
                    " using 1:2:(0.5):(0.5) with boxxyerror fs solid 1.0 noborder fc rgb '#bdbdbd' title " +
                    detail::quote(why);
  }
  s += "plot " + detail::quote(data_path) + " using 1:2:(0.5):(0.5):3 with boxxyerror fs solid 1.0 noborder fc palette notitle" +
       excluded_plot + best_plot + "\n";
  if (g.best_row) s += std::to_string(g.best_ix) + " " + std::to_string(g.best_iy) + "\ne\n";
  detail::run_gnuplot(s, out_path, scratch);
}

}  // namespace kbt::plot
