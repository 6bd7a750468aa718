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
#include "config/number_text.hpp"

namespace kbt::cli {
namespace {

struct BacktestArgs {
  std::string config_path, trades_path, equity_path;
  std::vector<std::string> params;  // --params / --param, each a comma list
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
  const auto params = parse_param_assignments(a.params, "--params");
  const SimulationResult r = run_backtest(config, bars, params, options);

  std::string described;
  for (const auto& [name, value] : params) described += (described.empty() ? "" : ",") + name + "=" + detail::format_number(value);
  std::printf("%s  %s  bars [%zu, %zu) of %zu, %zu symbol(s)\n", a.config_path.c_str(), described.c_str(),
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
  cmd->add_option("--params,--param", args.params,
                  "Parameter values: name=value, comma lists and repeated flags alike (fast=10,slow=50)")
      ->required()
      ->allow_extra_args(false);
  cmd->add_option("--trades", args.trades_path, "Write the trade ledger to this CSV");
  cmd->add_option("--equity", args.equity_path, "Write the equity curve to this CSV");
  cmd->footer("\nExamples:\n  kbt backtest configs/sma_cross.yaml --params fast=10,slow=50 --trades trades.csv"
              "\n  kbt backtest configs/sma_cross.yaml --param fast=10 --param slow=50");
  cmd->callback([] { backtest(args); });
}

}  // namespace kbt::cli
