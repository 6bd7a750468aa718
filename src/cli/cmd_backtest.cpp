// `kbt backtest CONFIG --params k=v,...`: one combo with its trade ledger and equity curve.

#include <CLI/CLI.hpp>
#include <kbt/core/atomic_output.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/core/error.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <cstdio>
#include <fstream>

#include "cli/commands.hpp"

namespace kbt::cli {
namespace {

struct BacktestArgs {
  std::string config_path, params, trades_path, equity_path;
};

template <class WriteBody>
void write_csv(const std::string& path, WriteBody&& body) {
  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path());
    if (!f) throw Error(ErrorCategory::io, "cannot write '" + path + "'");
    f.precision(17);
    body(f);
    if (!f.flush()) throw Error(ErrorCategory::io, "cannot write '" + path + "'");
  }
  out.commit();
}

void backtest(const BacktestArgs& a) {
  const RunConfig config = load_run_config(a.config_path);
  const BarData bars = load_run_data(config);
  SimulationOptions options;
  options.keep_ledger = !a.trades_path.empty();
  options.keep_equity = !a.equity_path.empty();
  const SimulationResult r = run_backtest(config, bars, parse_param_assignments(a.params), options);

  std::printf("%s  %s  bars [%zu, %zu) of %zu, %zu symbol(s)\n", a.config_path.c_str(), a.params.c_str(),
              r.window.begin, r.window.end, bars.n_bars(), bars.n_symbols());
  for (std::size_t m = 0; m < n_metrics; ++m) std::printf("  %-22s %.10g\n", metric_names()[m], r.metrics[m]);

  if (options.keep_ledger) {
    write_csv(a.trades_path, [&](std::ofstream& f) {
      f << "symbol,side,entry_time,exit_time,entry_bar,exit_bar,entry_price,exit_price,units,pnl,return,fees,"
           "funding,borrow,exit_reason\n";
      for (const auto& t : r.trades) {
        f << bars.symbols[t.symbol] << ',' << (t.side > 0 ? "long" : "short") << ','
          << format_iso8601_utc(bars.timestamps[t.entry_bar]) << ',' << format_iso8601_utc(bars.timestamps[t.exit_bar])
          << ',' << t.entry_bar << ',' << t.exit_bar << ',' << t.entry_price << ',' << t.exit_price << ','
          << t.units << ',' << t.pnl << ',' << t.trade_return << ',' << t.fees << ',' << t.funding << ','
          << t.borrow << ',' << to_string(t.exit_reason) << '\n';
      }
    });
    std::printf("trades: %s (%zu)\n", a.trades_path.c_str(), r.trades.size());
  }
  if (options.keep_equity) {
    write_csv(a.equity_path, [&](std::ofstream& f) {
      f << "timestamp,equity\n";
      for (std::size_t i = 0; i < r.equity.size(); ++i)
        f << format_iso8601_utc(bars.timestamps[r.window.begin + i]) << ',' << r.equity[i] << '\n';
    });
    std::printf("equity: %s\n", a.equity_path.c_str());
  }
}

}  // namespace

void add_backtest_command(CLI::App& app) {
  static BacktestArgs args;
  auto* cmd = app.add_subcommand("backtest", "Simulate one combo of a config, with trade ledger and equity curve");
  cmd->add_option("config", args.config_path, "Run config (YAML)")->required();
  cmd->add_option("--params", args.params, "Parameter values, e.g. fast=10,slow=50")->required();
  cmd->add_option("--trades", args.trades_path, "Write the trade ledger to this CSV");
  cmd->add_option("--equity", args.equity_path, "Write the equity curve to this CSV");
  cmd->callback([] { backtest(args); });
}

}  // namespace kbt::cli
