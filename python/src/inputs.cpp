#include "inputs.hpp"

#include <pybind11/stl.h>

#include <kbt/core/error.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cstdint>
#include <vector>

#include "arrays.hpp"

namespace kbt::python {

void ensure_kokkos() {
  if (Kokkos::is_initialized()) return;
  Kokkos::initialize();
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  }));
}

BarData bars_from(const py::dict& symbols) {
  BarData bars;
  for (const auto& item : symbols) {
    const std::string symbol = py::str(item.first);
    const py::dict columns = py::reinterpret_borrow<py::dict>(item.second);
    const std::vector<std::int64_t> ts = to_vector<std::int64_t>(columns["timestamps"], symbol + ": timestamps");
    if (bars.symbols.empty()) {
      bars.timestamps = ts;
    } else if (ts != bars.timestamps) {
      throw Error(ErrorCategory::data_format,
                  "data: symbol '" + symbol + "' has other timestamps than '" + bars.symbols.front() + "'");
    }
    bars.symbols.push_back(symbol);
    for (const auto& column : columns) {
      const std::string name = py::str(column.first);
      if (name == "timestamps") continue;
      // Appended straight from the array (one copy: bars are kbt's own, symbol-major).
      const auto a = py::array_t<double, py::array::c_style | py::array::forcecast>::ensure(column.second);
      if (!a || a.ndim() != 1)
        throw Error(ErrorCategory::data_format, symbol + ": column '" + name + "': expected a one-dimensional array");
      if (static_cast<std::size_t>(a.size()) != ts.size())
        throw Error(ErrorCategory::data_format, "data: symbol '" + symbol + "': column '" + name + "' has " +
                                                    std::to_string(a.size()) + " values for " +
                                                    std::to_string(ts.size()) + " timestamps");
      auto& all = bars.columns[name];
      if (all.size() != (bars.symbols.size() - 1) * ts.size())
        throw Error(ErrorCategory::data_format,
                    "data: column '" + name + "' is missing for a symbol before '" + symbol + "'");
      all.insert(all.end(), a.data(), a.data() + a.size());
    }
  }
  for (const auto& [name, values] : bars.columns)
    if (values.size() != bars.symbols.size() * bars.n_bars())
      throw Error(ErrorCategory::data_format, "data: column '" + name + "' is missing for some symbols");
  validate_market_data(bars, {}, "data");
  return bars;
}

BarData bars_of(const py::object& data) {
  return py::isinstance<py::dict>(data) ? bars_from(data.cast<py::dict>()) : load_bars_hdf5(data.cast<std::string>());
}

namespace {

const char* function_of(Job job) {
  return job == Job::sweep ? "kbt.run" : job == Job::label ? "kbt.label" : "kbt.simulate";
}

const char* job_name(Job job) { return job == Job::sweep ? "a sweep" : job == Job::label ? "job: label" : "job: simulate"; }

}  // namespace

ConfigAndBars config_and_bars(const std::string& yaml_text, const std::string& source_name,
                              const std::string& base_dir, const py::object& data, Job job, bool actions_given) {
  const auto t0 = std::chrono::steady_clock::now();
  CallerInputs given;
  given.data = !data.is_none();
  given.actions = actions_given;
  ConfigAndBars out{parse_caller_job_config(yaml_text, source_name, base_dir, given), {}, 0};
  if (out.config.job != job)
    throw Error(ErrorCategory::config, source_name + ": the config is " + job_name(out.config.job) + "; " +
                                           function_of(job) + " runs " + job_name(job) + " (use " +
                                           function_of(out.config.job) + ")");
  if (py::isinstance<py::dict>(data)) {
    out.bars = bars_from(data.cast<py::dict>());
  } else {
    if (!data.is_none()) out.config.data_path = data.cast<std::string>();
    out.bars = load_run_data(out.config);
  }
  out.seconds_load = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

}  // namespace kbt::python
