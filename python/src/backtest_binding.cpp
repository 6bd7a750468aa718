// kbt.backtest and kbt.eval (docs/python.md "Backtests", "Expressions"): one
// combo on the reference engine with `kbt backtest`'s statistics, ledger and
// per-bar portfolio; an expression's series as `kbt eval --expr` computes it.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbt/metrics/metrics.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/reference/simulator.hpp>
#include <kbt/report/backtest_report.hpp>
#include <kbt/report/backtest_stats.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/sweep_kernel.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "inputs.hpp"

namespace kbt::python {
namespace {

// eval(expr, data, params, device) -> {"timestamps", "symbols", "values" [symbol][bar]}:
// an expression on bars from a data file (a path) or NumPy columns, as
// `kbt eval --expr` computes it (the reference evaluator or the sweep kernel's).
py::dict eval(const std::string& expr, const py::object& data, const std::map<std::string, double>& params,
              const std::string& device) {
  ensure_kokkos();
  BarData bars = bars_of(data);
  const OneExpression one =
      compile_one_expression(SourceText{expr, "expr", 1, 1}, schema_of(bars), params, "params");
  std::vector<double> values;
  {
    py::gil_scoped_release no_gil;
    values = device == "reference"
                 ? evaluate_expression_reference(one.program, bars, one.values.data())
                 : evaluate_register_kernel_on(device, false, one.program, make_sweep_plan(one.program, bars),
                                                    bars, one.values, one.program.expression);
  }
  py::dict out;
  out["symbols"] = bars.symbols;
  out["values"] = matrix(std::move(values), bars.n_symbols(), bars.n_bars());
  out["timestamps"] = vector(std::move(bars.timestamps));
  return out;
}

// backtest(yaml_text, source_name, base_dir, data, params) -> dict: one combo
// on the reference engine with `kbt backtest`'s statistics, ledger and
// per-bar portfolio.
py::dict backtest(const std::string& yaml_text, const std::string& source_name, const std::string& base_dir,
                  const py::object& data, const std::map<std::string, double>& params) {
  ensure_kokkos();
  const ConfigAndBars loaded = config_and_bars(yaml_text, source_name, base_dir, data, Job::sweep);
  const RunConfig& config = loaded.config;
  const BarData& bars = loaded.bars;
  SimulationOptions options;
  options.keep_ledger = true;
  options.keep_equity = true;
  SimulationResult r;
  BacktestReport report;
  {
    py::gil_scoped_release no_gil;
    r = run_backtest(config, bars, params, options);
    report = backtest_report(bars, r, config.simulation.initial_capital);
  }
  py::list stats;
  for (const BacktestStat& s : backtest_stats(r, report, config.simulation.initial_capital))
    stats.append(py::make_tuple(s.label, s.unit, s.value, s.ns, s.text));
  py::dict trades;
  std::vector<std::string> symbol, side, reason;
  std::vector<std::int64_t> entry_time, exit_time;
  std::vector<double> entry_price, exit_price, units, pnl, ret, fees, funding, borrow;
  for (const Trade& t : r.trades) {
    symbol.push_back(bars.symbols[t.symbol]);
    side.push_back(t.side > 0 ? "long" : "short");
    entry_time.push_back(bars.timestamps[t.entry_bar]);
    exit_time.push_back(bars.timestamps[t.exit_bar]);
    entry_price.push_back(t.entry_price), exit_price.push_back(t.exit_price), units.push_back(t.units);
    pnl.push_back(t.pnl), ret.push_back(t.trade_return), fees.push_back(t.fees);
    funding.push_back(t.funding), borrow.push_back(t.borrow);
    reason.push_back(to_string(t.exit_reason));
  }
  trades["symbol"] = symbol, trades["side"] = side, trades["entry_time"] = vector(std::move(entry_time));
  trades["exit_time"] = vector(std::move(exit_time)), trades["entry_price"] = vector(std::move(entry_price));
  trades["exit_price"] = vector(std::move(exit_price)), trades["units"] = vector(std::move(units));
  trades["pnl"] = vector(std::move(pnl)), trades["return"] = vector(std::move(ret));
  trades["fees"] = vector(std::move(fees)), trades["funding"] = vector(std::move(funding));
  trades["borrow"] = vector(std::move(borrow)), trades["exit_reason"] = reason;
  const std::size_t n = r.equity.size();
  std::vector<std::int64_t> times(bars.timestamps.begin() + static_cast<long>(r.window.begin),
                                  bars.timestamps.begin() + static_cast<long>(r.window.end));
  py::dict out;
  out["stats"] = stats;
  out["metric_names"] = metric_names();
  out["metrics"] = vector(std::vector<double>(r.metrics.begin(), r.metrics.end()));
  out["trades"] = trades;
  out["symbols"] = bars.symbols;
  out["times"] = vector(std::move(times));
  out["equity"] = vector(std::move(r.equity));
  out["cash"] = vector(std::move(r.cash));
  out["drawdown"] = vector(std::vector<double>(report.drawdowns.drawdown));
  out["buy_and_hold"] = vector(std::vector<double>(report.hold.equity));
  out["units"] = matrix(std::move(r.units), n, bars.n_symbols());
  // Each symbol's close over the window, for Backtest.plot().
  const std::vector<double>& close = bars.columns.at("close");
  std::vector<double> window_close;
  for (std::size_t y = 0; y < bars.n_symbols(); ++y)
    window_close.insert(window_close.end(), close.begin() + static_cast<long>(y * bars.n_bars() + r.window.begin),
                        close.begin() + static_cast<long>(y * bars.n_bars() + r.window.end));
  out["close"] = matrix(std::move(window_close), bars.n_symbols(), n);
  // docs/semantics.md "Ruin": the bar (an index of the data), its time and
  // the equity before the floor; None when the combo was not ruined.
  out["ruin_bar"] = r.ruin_bar ? py::object(py::int_(*r.ruin_bar)) : py::object(py::none());
  out["ruin_time_ns"] = r.ruin_bar ? py::object(py::int_(bars.timestamps[*r.ruin_bar])) : py::object(py::none());
  out["ruin_equity"] = r.ruin_bar ? py::object(py::float_(r.ruin_equity)) : py::object(py::none());
  return out;
}

}  // namespace

void bind_backtest(py::module_& m) {
  m.def("backtest", &backtest, py::arg("yaml_text"), py::arg("source_name"), py::arg("base_dir"), py::arg("data"),
        py::arg("params"));
  m.def("eval", &eval, py::arg("expr"), py::arg("data"), py::arg("params"), py::arg("device"));
}

}  // namespace kbt::python
