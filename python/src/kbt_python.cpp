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
             const py::object& data, const std::string& device, int threads) {
  ensure_kokkos();
  const kbt::RunConfig config = kbt::parse_run_config(yaml_text, source_name, base_dir);
  kbt::BarData bars;
  if (data.is_none()) {
    py::gil_scoped_release no_gil;
    bars = kbt::load_run_data(config);
  } else {
    bars = bars_from(data.cast<py::dict>());
  }
  kbt::SweepRequest request;
  request.device = device == "auto" ? std::string() : device;
  request.threads = threads;
  request.quiet = true;  // warnings go through Python's warnings module
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
  std::vector<std::uint64_t> best(r.best.rows.begin(), r.best.rows.begin() + static_cast<long>(std::min(r.top_k, r.best.size())));
  out["top_rows"] = vector(std::move(best));
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
        py::arg("device"), py::arg("threads") = 0);
  m.def("eval", &eval, py::arg("expr"), py::arg("data"), py::arg("params"), py::arg("device"));
  m.def("devices", &devices, "The devices this build runs on: reference and the enabled Kokkos spaces");
  m.attr("version") = kbt::version_string;
}
