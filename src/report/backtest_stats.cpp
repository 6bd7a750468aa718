// The statistics of one backtest (include/kbt/report/backtest_stats.hpp).

#include <kbt/report/backtest_stats.hpp>

#include <kbt/data/time_format.hpp>
#include <kbt/metrics/metrics.hpp>

#include <cmath>
#include <cstdio>
#include <limits>

namespace kbt {
namespace {

// "364 days 23:00:00" (pandas' Timedelta text), "0:15:00" under a day.
std::string span_text(std::int64_t ns) {
  const std::int64_t secs = ns / 1000000000, days = secs / 86400, rest = secs % 86400;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%02lld:%02lld:%02lld", static_cast<long long>(rest / 3600),
                static_cast<long long>(rest % 3600 / 60), static_cast<long long>(rest % 60));
  if (days == 0) return buf;
  return std::to_string(days) + (days == 1 ? " day " : " days ") + buf;
}

std::string bars_text(double bars) {
  char buf[48];
  std::snprintf(buf, sizeof buf, bars == std::floor(bars) ? "%.0f bars" : "%.1f bars", bars);
  return buf;
}

}  // namespace

std::string percent_text(double fraction) {
  if (std::isnan(fraction)) return "nan";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f %%", 100.0 * fraction);
  return buf;
}

std::string number_text(double value, const char* format) {
  if (std::isnan(value)) return "nan";
  char buf[48];
  std::snprintf(buf, sizeof buf, format, value);
  return buf;
}

std::vector<BacktestStat> backtest_stats(const SimulationResult& r, const BacktestReport& rep,
                                         double initial_capital) {
  const auto m = [&](Metric k) { return r.metrics[static_cast<int>(k)]; };
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<BacktestStat> s;
  const auto time = [&](const char* label, std::int64_t ns) {
    s.push_back({label, "time", static_cast<double>(ns), ns, format_iso8601_utc(ns)});
  };
  const auto duration = [&](const char* label, std::int64_t ns, double bars) {
    s.push_back({label, "duration", static_cast<double>(ns), ns, span_text(ns) + " (" + bars_text(bars) + ")"});
  };
  const auto percent = [&](const char* label, double fraction) {
    s.push_back({label, "%", 100.0 * fraction, 0, percent_text(fraction)});
  };
  const auto number = [&](const char* label, double v, const char* unit = "", const char* format = "%.4f") {
    s.push_back({label, unit, v, 0, number_text(v, format)});
  };
  time("Start", rep.start_ns);
  time("End", rep.end_ns);
  duration("Duration", rep.end_ns - rep.start_ns, static_cast<double>(rep.bars));
  percent("Exposure time", m(Metric::exposure));
  number("Equity start", initial_capital, "currency", "%.2f");
  number("Equity final", m(Metric::final_equity), "currency", "%.2f");
  number("Equity peak", rep.equity_peak, "currency", "%.2f");
  percent("Return", m(Metric::total_return));
  percent("Buy & hold return", rep.hold.total_return);
  percent("Return (ann.)", m(Metric::cagr));
  percent("Volatility (ann.)", m(Metric::ann_volatility));
  number("Sharpe ratio", m(Metric::sharpe));
  number("Sortino ratio", m(Metric::sortino));
  number("Calmar ratio", m(Metric::calmar));
  percent("Max. drawdown", m(Metric::max_drawdown));
  percent("Avg. drawdown", rep.avg_drawdown);
  duration("Max. drawdown duration", rep.max_drawdown_ns, m(Metric::max_drawdown_duration));
  duration("Avg. drawdown duration", rep.avg_drawdown_ns, rep.avg_drawdown_bars);
  s.push_back({"Drawdowns", "count", static_cast<double>(rep.drawdowns.runs.size()), 0,
               std::to_string(rep.drawdowns.runs.size())});
  number("Ulcer index", m(Metric::ulcer_index));
  number("Trades", m(Metric::n_trades), "count", "%.0f");
  percent("Win rate", m(Metric::win_rate));
  percent("Best trade", m(Metric::best_trade));
  percent("Worst trade", m(Metric::worst_trade));
  percent("Avg. trade", m(Metric::avg_trade_return));
  if (std::isnan(m(Metric::avg_trade_duration))) {
    s.push_back({"Avg. trade duration", "duration", nan, 0, "nan"});
  } else {
    duration("Avg. trade duration", rep.avg_trade_ns, m(Metric::avg_trade_duration));
  }
  number("Profit factor", m(Metric::profit_factor));
  number("Expectancy (per trade)", rep.expectancy, "currency", "%.2f");
  number("SQN", rep.sqn);
  s.push_back({"Turnover", "x mean equity", m(Metric::turnover), 0, number_text(m(Metric::turnover)) + " x mean equity"});
  number("Fees paid", m(Metric::fees_paid), "currency", "%.2f");
  number("Funding paid", m(Metric::funding_paid), "currency", "%.2f");
  return s;
}

}  // namespace kbt
