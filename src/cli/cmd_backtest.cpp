// `kbt backtest CONFIG|RESULTS.h5 (--params k=v,... | --combo N)`: one combo
// with its statistics, trade ledger, per-bar portfolio and picture
// (docs/cli.md "kbt backtest").

#include <CLI/CLI.hpp>
#include <kbt/core/atomic_output.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/config/config_loader.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/core/error.hpp>
#include <kbt/report/backtest_report.hpp>
#include <kbt/report/backtest_stats.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/verify/verify.hpp>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>

#include "cli/combo_params.hpp"
#include "cli/commands.hpp"
#include "config/number_text.hpp"
#include "plot/plots.hpp"

namespace kbt::cli {
namespace {

struct BacktestArgs {
  std::string source, trades_path, equity_path, plot_path;
  std::vector<std::string> params;  // --params / --param, each a comma list
  std::uint64_t combo = 0;
};

template <class WriteBody>
void write_csv(const std::string& path, WriteBody&& body) {
  AtomicOutput out(path);
  {
    std::ofstream f(out.temp_path());
    if (!f) throw Error(ErrorCategory::io, "cannot write '" + path + "'");
    body(f);
    if (!f.flush()) throw Error(ErrorCategory::io, "cannot write '" + path + "'");
  }
  out.commit();
}

bool starts_with_hdf5_signature(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  char head[8] = {};
  f.read(head, sizeof head);
  return f.gcount() == 8 && std::string(head, 8) == std::string("\x89HDF\r\n\x1a\n", 8);
}

struct Loaded {
  RunConfig config;
  BarData bars;
  ComboParams combo;
  std::optional<std::uint64_t> combo_id;
};

Loaded load(const BacktestArgs& a, bool by_combo) {
  Loaded l;
  if (starts_with_hdf5_signature(a.source)) {
    if (!by_combo)
      throw Error(ErrorCategory::config, a.source + " is a results file: choose its combo with --combo N "
                                                    "(or backtest the config with --params)");
    ResultsRerun rerun = open_results_for_rerun(a.source);
    l.combo = combo_params(rerun, a.combo);
    l.config = std::move(rerun.config);
    l.bars = std::move(rerun.bars);
  } else {
    l.config = load_run_config(a.source);
    l.bars = load_run_data(l.config);
    if (by_combo) {
      l.combo = combo_params(l.config, a.combo);
    } else {
      l.combo.params = parse_param_assignments(a.params, "--params");
      std::vector<std::string> names;
      std::vector<double> values;
      for (const auto& [name, value] : l.combo.params) names.push_back(name), values.push_back(value);
      l.combo.described = describe_params(names, values);
    }
  }
  if (by_combo) l.combo_id = a.combo;
  return l;
}

void print_report(const Loaded& l, const SimulationResult& r, const BacktestReport& rep) {
  for (const BacktestStat& stat : backtest_stats(r, rep, l.config.simulation.initial_capital))
    std::printf("  %-26s %s\n", stat.label.c_str(), stat.text.c_str());
}

void write_equity_csv(const std::string& path, const BarData& bars, const SimulationResult& r,
                      const BacktestReport& rep) {
  const std::size_t n_sym = bars.n_symbols();
  write_csv(path, [&](std::ofstream& f) {
    f << "timestamp,bar,equity,cash,drawdown,buy_and_hold";
    for (const auto& s : bars.symbols) f << ",units_" << s;
    f << '\n';
    for (std::size_t i = 0; i < r.equity.size(); ++i) {
      f << format_iso8601_utc(bars.timestamps[r.window.begin + i]) << ',' << r.window.begin + i << ','
        << detail::format_number(r.equity[i]) << ',' << detail::format_number(r.cash[i]) << ','
        << detail::format_number(rep.drawdowns.drawdown[i]) << ',' << detail::format_number(rep.hold.equity[i]);
      for (std::size_t s = 0; s < n_sym; ++s) f << ',' << detail::format_number(r.units[i * n_sym + s]);
      f << '\n';
    }
  });
}

void write_trades_csv(const std::string& path, const BarData& bars, const SimulationResult& r) {
  write_csv(path, [&](std::ofstream& f) {
    f << "symbol,side,entry_time,exit_time,entry_bar,exit_bar,entry_price,exit_price,units,pnl,return,fees,"
         "funding,borrow,exit_reason\n";
    for (const auto& t : r.trades) {
      f << bars.symbols[t.symbol] << ',' << (t.side > 0 ? "long" : "short") << ','
        << format_iso8601_utc(bars.timestamps[t.entry_bar]) << ',' << format_iso8601_utc(bars.timestamps[t.exit_bar])
        << ',' << t.entry_bar << ',' << t.exit_bar;
      for (double v : {t.entry_price, t.exit_price, t.units, t.pnl, t.trade_return, t.fees, t.funding, t.borrow})
        f << ',' << detail::format_number(v);
      f << ',' << to_string(t.exit_reason) << '\n';
    }
  });
}

void backtest(const BacktestArgs& a, bool by_combo) {
  const Loaded l = load(a, by_combo);
  SimulationOptions options;
  options.keep_ledger = true;  // the statistics need both
  options.keep_equity = true;
  const SimulationResult r = run_backtest(l.config, l.bars, l.combo.params, options);
  const BacktestReport rep = backtest_report(l.bars, r, l.config.simulation.initial_capital);

  std::string combo = l.combo_id ? "  combo " + std::to_string(*l.combo_id) : std::string();
  std::printf("%s  %s%s  bars [%zu, %zu) of %zu, %zu symbol(s)\n", a.source.c_str(), l.combo.described.c_str(),
              combo.c_str(), r.window.begin, r.window.end, l.bars.n_bars(), l.bars.n_symbols());
  if (r.ruin_bar)  // docs/semantics.md "Ruin"
    std::printf("ruined at %s (bar %zu): equity %s at the close, floored to 0; no trading after it, metrics up to it\n",
                format_iso8601_utc(l.bars.timestamps[*r.ruin_bar]).c_str(), *r.ruin_bar,
                detail::format_number(r.ruin_equity).c_str());
  print_report(l, r, rep);
  std::printf("metrics (annualised at %.6g periods per year, %s):\n", r.periods_per_year,
              r.periods_per_year_source.c_str());
  for (std::size_t m = 0; m < n_metrics; ++m) std::printf("  %-22s %.10g\n", metric_names()[m], r.metrics[m]);

  if (!a.trades_path.empty()) {
    write_trades_csv(a.trades_path, l.bars, r);
    std::printf("trades: %s (%zu)\n", a.trades_path.c_str(), r.trades.size());
  }
  if (!a.equity_path.empty()) {
    write_equity_csv(a.equity_path, l.bars, r, rep);
    std::printf("equity: %s\n", a.equity_path.c_str());
  }
  if (!a.plot_path.empty()) {
    const std::string title = a.source + ": " + l.combo.described + combo + "\nreturn " +
                              percent_text(r.metrics[static_cast<int>(Metric::total_return)]) + " (buy and hold " +
                              percent_text(rep.hold.total_return) + "), sharpe " +
                              number_text(r.metrics[static_cast<int>(Metric::sharpe)]) + ", max drawdown " +
                              percent_text(r.metrics[static_cast<int>(Metric::max_drawdown)]);
    plot::write_equity_png(l.bars, r, rep, a.plot_path, title);
    std::printf("plot: %s\n", a.plot_path.c_str());
  }
}

}  // namespace

void add_backtest_command(CLI::App& app) {
  static BacktestArgs args;
  auto* cmd = app.add_subcommand(
      "backtest", "Simulate one combo of a config or a results file: statistics, trades, equity and a picture");
  cmd->add_option("source", args.source, "Run config (YAML), or a results file with --combo")->required();
  auto* params = cmd->add_option("--params,--param", args.params,
                                 "Parameter values: name=value, comma lists and repeated flags alike (fast=10,slow=50)")
                     ->allow_extra_args(false);
  auto* combo = cmd->add_option("--combo", args.combo,
                                "Combo id of the config's grid or of the results file (as `kbt show` lists them)");
  params->excludes(combo);
  cmd->add_option("--trades", args.trades_path, "Write the trade ledger to this CSV");
  cmd->add_option("--equity", args.equity_path,
                  "Write per-bar equity, cash, drawdown, buy-and-hold and units held per symbol to this CSV");
  cmd->add_option("--plot", args.plot_path, "Draw equity, buy-and-hold, trades on the price and drawdown (PNG)");
  cmd->footer("\nExamples:\n  kbt backtest configs/sma_cross.yaml --params fast=10,slow=50 --trades trades.csv"
              "\n  kbt backtest configs/sma_cross.yaml --param fast=10 --param slow=50 --equity equity.csv"
              "\n  kbt backtest results/sma_cross.h5 --combo 42 --plot combo42.png");
  cmd->callback([params, combo] {
    if (params->count() == 0 && combo->count() == 0)
      throw Error(ErrorCategory::config, "backtest: give the combo as --params name=value,... or --combo N");
    backtest(args, combo->count() > 0);
  });
}

}  // namespace kbt::cli
