// The native part of `import kbt` (docs/python.md): a sweep from YAML text and
// bars handed over as NumPy arrays or loaded from the config's data file,
// returned as NumPy arrays that the Python layer (python/kbt/__init__.py)
// wraps in pandas. Kokkos is initialised once, on first use, and finalised at
// interpreter exit; sweeps run without the GIL; kbt::Error becomes kbt.Error.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbt/config/config_loader.hpp>
#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/core/version.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/result_rows.hpp>
#include <kbt/reference/evaluator.hpp>
#include <kbt/report/backtest_report.hpp>
#include <kbt/report/backtest_stats.hpp>
#include <kbt/sweep/backtest.hpp>
#include <kbt/sweep/run_sweep.hpp>
#include <kbt/sweep/sweep_kernel.hpp>
#include <kbt/sweep/sweep_plan.hpp>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace py = pybind11;

namespace {

void ensure_kokkos() {
  if (Kokkos::is_initialized()) return;
  Kokkos::initialize();
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  }));
}

// A contiguous float64 or int64 copy of `array` (NumPy converts when needed).
template <class T>
std::vector<T> to_vector(const py::handle& array, const std::string& what) {
  const auto a = py::array_t<T, py::array::c_style | py::array::forcecast>::ensure(array);
  if (!a || a.ndim() != 1)
    throw kbt::Error(kbt::ErrorCategory::data_format, what + ": expected a one-dimensional array");
  return std::vector<T>(a.data(), a.data() + a.size());
}

// Bars from {symbol: {"timestamps": int64 ns, "open": ..., ...}}: every symbol on
// the same timestamps (the Python layer aligns DataFrames), checked as a data
// file's bars are.
kbt::BarData bars_from(const py::dict& symbols) {
  kbt::BarData bars;
  for (const auto& item : symbols) {
    const std::string symbol = py::str(item.first);
    const py::dict columns = py::reinterpret_borrow<py::dict>(item.second);
    const std::vector<std::int64_t> ts = to_vector<std::int64_t>(columns["timestamps"], symbol + ": timestamps");
    if (bars.symbols.empty()) {
      bars.timestamps = ts;
    } else if (ts != bars.timestamps) {
      throw kbt::Error(kbt::ErrorCategory::data_format,
                       "data: symbol '" + symbol + "' has other timestamps than '" + bars.symbols.front() + "'");
    }
    bars.symbols.push_back(symbol);
    for (const auto& column : columns) {
      const std::string name = py::str(column.first);
      if (name == "timestamps") continue;
      std::vector<double> values = to_vector<double>(column.second, symbol + ": column '" + name + "'");
      if (values.size() != ts.size())
        throw kbt::Error(kbt::ErrorCategory::data_format,
                         "data: symbol '" + symbol + "': column '" + name + "' has " + std::to_string(values.size()) +
                             " values for " + std::to_string(ts.size()) + " timestamps");
      auto& all = bars.columns[name];
      if (all.size() != (bars.symbols.size() - 1) * ts.size())
        throw kbt::Error(kbt::ErrorCategory::data_format,
                         "data: column '" + name + "' is missing for a symbol before '" + symbol + "'");
      all.insert(all.end(), values.begin(), values.end());
    }
  }
  for (const auto& [name, values] : bars.columns)
    if (values.size() != bars.symbols.size() * bars.n_bars())
      throw kbt::Error(kbt::ErrorCategory::data_format, "data: column '" + name + "' is missing for some symbols");
  kbt::validate_market_data(bars, {}, "data");
  return bars;
}

// The config and its bars: the config's data file (data None), another data
// file (a path, which becomes the config's data_path: the run profile names
// it), or bars from NumPy columns (a dict).
struct ConfigAndBars {
  kbt::RunConfig config;
  kbt::BarData bars;
};
ConfigAndBars config_and_bars(const std::string& yaml_text, const std::string& source_name,
                              const std::string& base_dir, const py::object& data) {
  ConfigAndBars out{kbt::parse_run_config(yaml_text, source_name, base_dir), {}};
  if (py::isinstance<py::dict>(data)) {
    out.bars = bars_from(data.cast<py::dict>());
    return out;
  }
  if (!data.is_none()) out.config.data_path = data.cast<std::string>();
  out.bars = kbt::load_run_data(out.config);
  return out;
}

template <class T>
py::array_t<T> matrix(std::vector<T>&& values, std::size_t rows, std::size_t cols) {
  auto* owner = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({rows, cols}, {cols * sizeof(T), sizeof(T)}, owner->data(), free_when_done);
}

template <class T>
py::array_t<T> vector(std::vector<T>&& values) {
  const std::size_t n = values.size();
  auto* owner = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owner, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>({n}, {sizeof(T)}, owner->data(), free_when_done);
}

// run(yaml_text, source_name, base_dir, data, device, threads) -> dict of the
// sweep's rows (every combo), its best rows, profile and device.
py::dict run(const std::string& yaml_text, const std::string& source_name, const std::string& base_dir,
             const py::object& data, const std::string& device, int threads, const py::object& progress) {
  ensure_kokkos();
  const ConfigAndBars loaded = config_and_bars(yaml_text, source_name, base_dir, data);
  const kbt::RunConfig& config = loaded.config;
  const kbt::BarData& bars = loaded.bars;
  kbt::SweepRequest request;
  request.device = device == "auto" ? std::string() : device;
  request.threads = threads;
  request.quiet = true;  // warnings go through Python's warnings module
  // Between chunks (on this thread): Ctrl-C stops the sweep there (the
  // pending KeyboardInterrupt propagates), and `progress(done, total)` is told.
  request.progress = [&progress](const kbt::SweepProgress& p) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(p.done, p.total);
  };
  kbt::SweepOutcome outcome;
  {
    py::gil_scoped_release no_gil;
    outcome = kbt::run_sweep(config, bars, request);
  }
  const kbt::SweepResults& r = outcome.results;
  const std::size_t n = r.n_rows(), np = r.param_names.size();
  std::vector<std::uint64_t> ids(n);
  std::vector<double> params(n * np), metrics(n * kbt::n_metrics);
  if (n > 0) r.rows->read(0, n, ids.data(), params.data(), metrics.data());
  py::dict out;
  out["param_names"] = r.param_names;
  out["integer_params"] = r.integer_params;
  out["metric_names"] = kbt::metric_names();
  std::vector<bool> higher(kbt::n_metrics);
  for (std::size_t m = 0; m < kbt::n_metrics; ++m) higher[m] = kbt::metric_higher_is_better(static_cast<int>(m));
  out["higher_is_better"] = higher;
  std::vector<bool> computed(kbt::n_metrics, false);  // for every row (the run's metric set)
  for (std::size_t m = 0; m < kbt::n_metrics; ++m)
    computed[m] = r.rows && kbt::has_metric(r.rows->metric_mask(), static_cast<int>(m));
  out["computed"] = computed;
  out["combo_ids"] = vector(std::move(ids));
  out["params"] = matrix(std::move(params), n, np);
  out["metrics"] = matrix(std::move(metrics), n, kbt::n_metrics);
  // The top-K with every metric (the best rows were simulated again when the
  // sweep's metric set was smaller; docs/metrics.md "Metric sets").
  const kbt::RowTable top = r.top_k_rows();
  out["top_rows"] = vector(std::vector<std::uint64_t>(top.rows));
  out["top_metrics"] = matrix(std::vector<double>(top.metrics), top.size(), kbt::n_metrics);
  out["objective"] = r.objective_metric;
  out["maximize"] = r.maximize;
  out["device"] = outcome.device_used;
  out["fallback_reason"] = outcome.fallback_reason ? py::object(py::str(*outcome.fallback_reason)) : py::object(py::none());
  py::dict profile;
  for (const auto& [k, v] : outcome.profile.text) profile[py::str(k)] = v;
  for (const auto& [k, v] : outcome.profile.numbers) profile[py::str(k)] = v;
  out["profile"] = profile;
  return out;
}

// eval(expr, data, params, device) -> {"timestamps", "symbols", "values" [symbol][bar]}:
// an expression on bars from a data file (a path) or NumPy columns, as
// `kbt eval --expr` computes it (the reference evaluator or the sweep kernel's).
py::dict eval(const std::string& expr, const py::object& data, const std::map<std::string, double>& params,
              const std::string& device) {
  ensure_kokkos();
  kbt::BarData bars = py::isinstance<py::dict>(data) ? bars_from(data.cast<py::dict>())
                                                      : kbt::load_bars_hdf5(data.cast<std::string>());
  const kbt::OneExpression one =
      kbt::compile_one_expression(kbt::SourceText{expr, "expr", 1, 1}, kbt::schema_of(bars), params, "params");
  std::vector<double> values;
  {
    py::gil_scoped_release no_gil;
    values = device == "reference"
                 ? kbt::evaluate_expression_reference(one.program, bars, one.values.data())
                 : kbt::evaluate_register_kernel_on(device, false, one.program, kbt::make_sweep_plan(one.program, bars),
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
  const ConfigAndBars loaded = config_and_bars(yaml_text, source_name, base_dir, data);
  const kbt::RunConfig& config = loaded.config;
  const kbt::BarData& bars = loaded.bars;
  kbt::SimulationOptions options;
  options.keep_ledger = true;
  options.keep_equity = true;
  kbt::SimulationResult r;
  kbt::BacktestReport report;
  {
    py::gil_scoped_release no_gil;
    r = kbt::run_backtest(config, bars, params, options);
    report = kbt::backtest_report(bars, r, config.simulation.initial_capital);
  }
  py::list stats;
  for (const kbt::BacktestStat& s : kbt::backtest_stats(r, report, config.simulation.initial_capital))
    stats.append(py::make_tuple(s.label, s.unit, s.value, s.ns, s.text));
  py::dict trades;
  std::vector<std::string> symbol, side, reason;
  std::vector<std::int64_t> entry_time, exit_time;
  std::vector<double> entry_price, exit_price, units, pnl, ret, fees, funding, borrow;
  for (const kbt::Trade& t : r.trades) {
    symbol.push_back(bars.symbols[t.symbol]);
    side.push_back(t.side > 0 ? "long" : "short");
    entry_time.push_back(bars.timestamps[t.entry_bar]);
    exit_time.push_back(bars.timestamps[t.exit_bar]);
    entry_price.push_back(t.entry_price), exit_price.push_back(t.exit_price), units.push_back(t.units);
    pnl.push_back(t.pnl), ret.push_back(t.trade_return), fees.push_back(t.fees);
    funding.push_back(t.funding), borrow.push_back(t.borrow);
    reason.push_back(kbt::to_string(t.exit_reason));
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
  out["metric_names"] = kbt::metric_names();
  out["metrics"] = vector(std::vector<double>(r.metrics.begin(), r.metrics.end()));
  out["trades"] = trades;
  out["symbols"] = bars.symbols;
  out["times"] = vector(std::move(times));
  out["equity"] = vector(std::move(r.equity));
  out["cash"] = vector(std::move(r.cash));
  out["drawdown"] = vector(std::vector<double>(report.drawdowns.drawdown));
  out["buy_and_hold"] = vector(std::vector<double>(report.hold.equity));
  out["units"] = matrix(std::move(r.units), n, bars.n_symbols());
  return out;
}

std::vector<std::string> devices() {
  std::vector<std::string> names{"reference"};
  for (const auto& s : kbt::enabled_execution_spaces()) names.push_back(s.name);
  return names;
}

}  // namespace

PYBIND11_MODULE(_kbt, m) {
  m.doc() = "kbt's native module: use the `kbt` package (docs/python.md)";
  // kbt.Error(message, category): a ValueError whose second argument is the
  // stable category name ("config", "data_format", ...).
  static py::exception<kbt::Error> error(m, "Error", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const kbt::Error& e) {
      PyErr_SetObject(error.ptr(), py::make_tuple(py::str(e.what()), py::str(kbt::to_string(e.category()))).ptr());
    }
  });
  m.def("run", &run, py::arg("yaml_text"), py::arg("source_name"), py::arg("base_dir"), py::arg("data"),
        py::arg("device"), py::arg("threads") = 0, py::arg("progress") = py::none());
  m.def("backtest", &backtest, py::arg("yaml_text"), py::arg("source_name"), py::arg("base_dir"), py::arg("data"),
        py::arg("params"));
  m.def("eval", &eval, py::arg("expr"), py::arg("data"), py::arg("params"), py::arg("device"));
  m.def("devices", &devices, "The devices this build runs on: reference and the enabled Kokkos spaces");
  m.attr("version") = kbt::version_string;
}
