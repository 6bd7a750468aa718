// Pictures of the validation stage (docs/validation.md "Pictures"): in-sample
// vs out-of-sample objective, the PBO logit histogram, and the walk-forward's
// stitched out-of-sample equity with its fold boundaries.

#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>

#include "plot/gnuplot_runner.hpp"
#include "plot/plots.hpp"

namespace kbt::plot {
namespace {

std::string header(const std::string& title) {
  return "set title " + detail::quote(title) + " noenhanced\nset grid\nset key top left noenhanced\n";
}

}  // namespace

std::size_t write_is_oos_png(const ValidationResults& v, const std::string& out_path, const std::string& title) {
  const int m = metric_index(v.objective.metric);
  if (m < 0) throw Error(ErrorCategory::internal, "is-oos plot: unknown objective " + v.objective.metric);
  detail::ScratchDirectory scratch;
  const std::string data_path = scratch.file("is_oos.dat");
  std::size_t points = 0;
  std::string what;
  {
    std::ofstream f = detail::open_data(data_path);
    const auto point = [&](double is, double oos) {
      if (std::isfinite(is) && std::isfinite(oos)) f << is << ' ' << oos << '\n', ++points;
    };
    if (v.test) {
      what = "held out";
      for (std::size_t i = 0; i < v.n(); ++i) point(v.metrics[i * n_metrics + m], v.test_metrics[i * n_metrics + m]);
    } else if (v.walk_forward) {
      what = "on the test windows";
      for (const auto& fold : v.walk_forward->folds)
        if (fold.best.size() > 0) point(fold.best.metrics_of(0)[m], fold.test_metrics[m]);
    } else {
      throw Error(ErrorCategory::config, "the run has no out-of-sample window (validation.holdout or walk_forward)");
    }
    detail::finish_data(f, data_path);
  }
  if (points == 0) throw Error(ErrorCategory::config, "no candidate has a finite " + v.objective.metric + " on both windows");
  const std::string data = detail::quote(data_path);
  std::string s = header(title);
  s += "set xlabel '" + v.objective.metric + " in sample'\nset ylabel '" + v.objective.metric + " " + what + "'\n";
  s += "set xzeroaxis lt -1\nset yzeroaxis lt -1\n";
  s += "plot " + data + " using 1:2 with points pt 7 ps 1 lc rgb '#1f77b4' title 'candidates (" +
       std::to_string(points) + ")', x with lines dt 2 lc rgb '#7f7f7f' title 'out of sample = in sample'\n";
  detail::run_gnuplot(s, out_path, scratch);
  return points;
}

std::size_t write_pbo_logits_png(const ValidationResults& v, const std::string& out_path, const std::string& title) {
  if (!v.pbo) throw Error(ErrorCategory::config, "the run has no PBO (" + v.pbo_skipped + ")");
  const std::vector<double>& logits = v.pbo->logits;
  std::vector<double> finite;
  for (double x : logits)
    if (std::isfinite(x)) finite.push_back(x);
  if (finite.empty()) throw Error(ErrorCategory::config, "the PBO has no finite logit to draw");
  const auto [lo_it, hi_it] = std::minmax_element(finite.begin(), finite.end());
  // 30 bins over the range, one edge on 0 so that no bin straddles it.
  double lo = std::min(*lo_it, 0.0), hi = std::max(*hi_it, 0.0);
  if (hi - lo < 1e-9) lo -= 1, hi += 1;
  const double width = (hi - lo) / 30;
  const double origin = std::floor(lo / width) * width;
  const std::size_t bins = static_cast<std::size_t>(std::ceil((hi - origin) / width)) + 1;
  std::vector<std::size_t> count(bins, 0);
  for (double x : finite) ++count[std::min(bins - 1, static_cast<std::size_t>(std::floor((x - origin) / width)))];
  detail::ScratchDirectory scratch;
  const std::string over_path = scratch.file("over.dat"), under_path = scratch.file("under.dat");
  {
    std::ofstream over = detail::open_data(over_path), under = detail::open_data(under_path);
    for (std::size_t b = 0; b < bins; ++b) {
      const double centre = origin + (static_cast<double>(b) + 0.5) * width;
      (centre <= 0 ? over : under) << centre << ' ' << count[b] << '\n';
    }
    detail::finish_data(over, over_path);
    detail::finish_data(under, under_path);
  }
  std::string s = header(title);
  s += "set xlabel 'logit of the in-sample best''s out-of-sample relative rank'\nset ylabel 'splits'\n";
  s += "set style fill solid 0.7 border -1\nset boxwidth " + std::to_string(width * 0.95) + "\nset yrange [0:*]\n";
  s += "set arrow from 0, graph 0 to 0, graph 1 nohead dt 2 lc rgb '#000000'\n";
  s += "plot " + detail::quote(over_path) + " using 1:2 with boxes lc rgb '#d62728' title 'logit <= 0: overfit', " +
       detail::quote(under_path) + " using 1:2 with boxes lc rgb '#1f77b4' title 'logit > 0'\n";
  detail::run_gnuplot(s, out_path, scratch);
  return finite.size();
}

std::size_t write_walk_forward_png(const ValidationResults& v, const BarData& bars, const std::string& out_path,
                                   const std::string& title) {
  if (!v.walk_forward) throw Error(ErrorCategory::config, "the run has no walk-forward (validation.walk_forward)");
  const WalkForwardResults& wf = *v.walk_forward;
  const std::size_t n = wf.stitched_equity.size();
  if (n == 0 || wf.stitched.begin + n > bars.n_bars())
    throw Error(ErrorCategory::data_format, "the walk-forward's stitched equity does not fit the run's data");
  detail::ScratchDirectory scratch;
  const std::string data_path = scratch.file("stitched.dat");
  {
    std::ofstream f = detail::open_data(data_path);
    for (std::size_t i = 0; i < n; ++i)
      f << static_cast<double>(bars.timestamps[wf.stitched.begin + i]) / 1e9 << ' ' << wf.stitched_equity[i] << '\n';
    detail::finish_data(f, data_path);
  }
  std::string s = header(title);
  s += "set xdata time\nset timefmt '%s'\nset format x '%Y-%m-%d'\nset xlabel 'time (UTC)'\n";
  s += "set ylabel 'out-of-sample equity'\nset autoscale xfix\n";
  // A dashed line where each fold's test window starts.
  for (const auto& fold : wf.folds)
    if (fold.test.begin < bars.n_bars())
      s += "set arrow from " + std::to_string(static_cast<double>(bars.timestamps[fold.test.begin]) / 1e9) +
           ", graph 0 to " + std::to_string(static_cast<double>(bars.timestamps[fold.test.begin]) / 1e9) +
           ", graph 1 nohead dt 3 lc rgb '#7f7f7f'\n";
  s += "plot " + detail::quote(data_path) + " using 1:2 with lines lw 1.5 lc rgb '#1f77b4' title 'stitched test windows (" +
       std::to_string(wf.folds.size()) + " folds, dashed: fold starts)'\n";
  detail::run_gnuplot(s, out_path, scratch);
  return wf.folds.size();
}

}  // namespace kbt::plot
