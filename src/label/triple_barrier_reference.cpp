// Triple-barrier labels, the plain host way (docs/label.md): for every
// setting, symbol and event bar, walk forward bar by bar until a barrier is
// touched or the horizon ends.

#include <kbt/label/triple_barrier.hpp>
#include <kbt/core/error.hpp>

#include <cmath>
#include <limits>
#include <string>

namespace kbt {

void check_barrier_settings(const std::vector<BarrierSetting>& settings) {
  if (settings.empty()) throw Error(ErrorCategory::config, "triple-barrier labels: no barrier setting given");
  for (std::size_t i = 0; i < settings.size(); ++i) {
    const BarrierSetting& s = settings[i];
    const std::string which = "barrier setting " + std::to_string(i) + ": ";
    if (!(s.profit_take >= 0) || !std::isfinite(s.profit_take))
      throw Error(ErrorCategory::config, which + "profit_take must be a finite multiple >= 0 (0: no profit barrier)");
    if (!(s.stop >= 0) || !std::isfinite(s.stop))
      throw Error(ErrorCategory::config, which + "stop must be a finite multiple >= 0 (0: no stop barrier)");
    if (s.horizon < 1) throw Error(ErrorCategory::config, which + "horizon must be at least 1 bar");
  }
}

namespace {

struct Touch {
  std::int8_t barrier = detail::barrier_none;
  double price = 0;
};

// The first barrier a long (side +1) or short (-1) touches on one bar: a gap
// through the stop at the open, then a gap through the profit level, then the
// stop within the bar, then the profit level within the bar.
Touch touch_on_bar(double side, double o, double h, double l, double profit, double stop, bool has_profit,
                   bool has_stop) {
  if (side > 0) {
    if (has_stop && o <= stop) return {detail::barrier_stop, o};
    if (has_profit && o >= profit) return {detail::barrier_profit, o};
    if (has_stop && l <= stop) return {detail::barrier_stop, stop};
    if (has_profit && h >= profit) return {detail::barrier_profit, profit};
  } else {
    if (has_stop && o >= stop) return {detail::barrier_stop, o};
    if (has_profit && o <= profit) return {detail::barrier_profit, o};
    if (has_stop && h >= stop) return {detail::barrier_stop, stop};
    if (has_profit && l <= profit) return {detail::barrier_profit, profit};
  }
  return {};
}

}  // namespace

BarrierLabels triple_barrier_reference(const BarrierInputs& in, const std::vector<BarrierSetting>& settings) {
  check_barrier_settings(settings);
  const std::size_t n = in.n_bars, per_setting = in.n_symbols * n, total = settings.size() * per_setting;
  BarrierLabels out;
  out.label.assign(total, 0);
  out.touch_bar.assign(total, -1);
  out.ret.assign(total, std::numeric_limits<double>::quiet_NaN());
  out.barrier.assign(total, detail::barrier_none);
  for (std::size_t k = 0; k < settings.size(); ++k) {
    const BarrierSetting& b = settings[k];
    for (std::size_t s = 0; s < in.n_symbols; ++s) {
      const double* open = in.open + s * n;
      const double* high = in.high + s * n;
      const double* low = in.low + s * n;
      const double* close = in.close + s * n;
      for (std::size_t t0 = 0; t0 + 1 < n; ++t0) {
        const double side = in.side ? in.side[s * n + t0] : 1.0;
        const double entry = close[t0], width = in.volatility[s * n + t0];
        if ((side != 1.0 && side != -1.0) || std::isnan(entry) || !(width > 0) || std::isinf(width)) continue;
        const double profit = side > 0 ? entry * (1.0 + b.profit_take * width) : entry * (1.0 - b.profit_take * width);
        const double stop = side > 0 ? entry * (1.0 - b.stop * width) : entry * (1.0 + b.stop * width);
        const std::size_t end = std::min(t0 + static_cast<std::size_t>(b.horizon), n - 1);
        const std::size_t i = k * per_setting + s * n + t0;
        double mark = entry;  // the last close seen
        bool touched = false;
        for (std::size_t t = t0 + 1; t <= end && !touched; ++t) {
          if (std::isnan(close[t])) continue;  // no bar for this symbol
          const Touch touch =
              touch_on_bar(side, open[t], high[t], low[t], profit, stop, b.profit_take > 0, b.stop > 0);
          if (touch.barrier != detail::barrier_none) {
            out.label[i] = touch.barrier == detail::barrier_profit ? 1 : -1;
            out.barrier[i] = touch.barrier;
            out.touch_bar[i] = static_cast<std::int64_t>(t);
            out.ret[i] = side * (touch.price / entry - 1.0);
            touched = true;
          } else {
            mark = close[t];
          }
        }
        if (touched) continue;
        out.barrier[i] = detail::barrier_vertical;
        out.touch_bar[i] = static_cast<std::int64_t>(end);
        out.ret[i] = side * (mark / entry - 1.0);
      }
    }
  }
  return out;
}

}  // namespace kbt
