#include <kbt/report/backtest_report.hpp>
#include <kbt/core/error.hpp>

#include <algorithm>
#include <cmath>
#include <limits>

namespace kbt {

DrawdownPath drawdown_path(double initial_capital, const std::vector<double>& equity) {
  DrawdownPath path;
  path.drawdown.reserve(equity.size());
  double peak = initial_capital;
  for (std::size_t k = 0; k < equity.size(); ++k) {
    peak = std::max(peak, equity[k]);
    const double dd = equity[k] / peak - 1.0;
    path.drawdown.push_back(dd);
    if (equity[k] < peak) {
      const bool continuing = !path.runs.empty() && path.runs.back().first + path.runs.back().bars == k;
      if (!continuing) path.runs.push_back({k, 0, 0.0});
      DrawdownRun& run = path.runs.back();
      ++run.bars;
      run.depth = std::min(run.depth, dd);
    }
  }
  return path;
}

BuyAndHold buy_and_hold(const BarData& bars, const ScoringWindow& window, double initial_capital) {
  const std::size_t n_sym = bars.n_symbols(), n = bars.n_bars();
  const std::vector<double>& close = bars.columns.at("close");
  const double share = initial_capital / static_cast<double>(n_sym);
  std::vector<double> units(n_sym, 0.0), last(n_sym, 0.0);
  BuyAndHold out;
  out.equity.reserve(window.end - window.begin);
  for (std::size_t t = window.begin; t < window.end; ++t) {
    double equity = 0;
    for (std::size_t s = 0; s < n_sym; ++s) {
      const double c = close[s * n + t];
      if (!std::isnan(c)) {
        if (units[s] == 0) units[s] = share / c;
        last[s] = c;
      }
      equity += units[s] == 0 ? share : units[s] * last[s];
    }
    out.equity.push_back(equity);
  }
  out.total_return = out.equity.empty() ? 0.0 : out.equity.back() / initial_capital - 1.0;
  return out;
}

namespace {

std::int64_t run_time_ns(const BarData& bars, const ScoringWindow& window, const DrawdownRun& run) {
  const std::size_t first = window.begin + run.first;
  const std::size_t until = std::min(first + run.bars, window.end - 1);  // the regaining bar, or the last
  return bars.timestamps[until] - bars.timestamps[first];
}

}  // namespace

BacktestReport backtest_report(const BarData& bars, const SimulationResult& result, double initial_capital) {
  const ScoringWindow& w = result.window;
  if (w.end <= w.begin || result.equity.size() != w.end - w.begin)
    throw Error(ErrorCategory::internal, "backtest report: the simulation kept no equity curve");
  BacktestReport r;
  r.start_ns = bars.timestamps[w.begin];
  r.end_ns = bars.timestamps[w.end - 1];
  r.bars = w.end - w.begin;
  r.equity_peak = std::max(initial_capital, *std::max_element(result.equity.begin(), result.equity.end()));
  r.hold = buy_and_hold(bars, w, initial_capital);

  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::size_t n_trades = result.trades.size();
  double pnl_sum = 0, trade_ns = 0;
  for (const Trade& t : result.trades) {
    pnl_sum += t.pnl;
    trade_ns += static_cast<double>(bars.timestamps[t.exit_bar] - bars.timestamps[t.entry_bar]);
  }
  r.expectancy = n_trades ? pnl_sum / static_cast<double>(n_trades) : nan;
  r.avg_trade_ns = n_trades ? static_cast<std::int64_t>(std::llround(trade_ns / static_cast<double>(n_trades))) : 0;
  r.sqn = nan;
  if (n_trades >= 2) {
    double ss = 0;
    for (const Trade& t : result.trades) ss += (t.pnl - r.expectancy) * (t.pnl - r.expectancy);
    const double sd = std::sqrt(ss / static_cast<double>(n_trades - 1));
    if (sd > 0) r.sqn = std::sqrt(static_cast<double>(n_trades)) * r.expectancy / sd;
  }

  r.drawdowns = drawdown_path(initial_capital, result.equity);
  const auto& runs = r.drawdowns.runs;
  if (!runs.empty()) {
    double depth = 0, length = 0, ns = 0;
    for (const DrawdownRun& run : runs) {
      depth += run.depth;
      length += static_cast<double>(run.bars);
      const std::int64_t t = run_time_ns(bars, w, run);
      ns += static_cast<double>(t);
      r.max_drawdown_ns = std::max(r.max_drawdown_ns, t);
    }
    const double k = static_cast<double>(runs.size());
    r.avg_drawdown = depth / k;
    r.avg_drawdown_bars = length / k;
    r.avg_drawdown_ns = static_cast<std::int64_t>(std::llround(ns / k));
  }
  return r;
}

}  // namespace kbt
