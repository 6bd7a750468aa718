#include "inputs.hpp"

#include <pybind11/stl.h>

#include <kbt/core/detail/thread_binding.hpp>
#include <kbt/core/error.hpp>
#include <kbt/data/data_io.hpp>
#include <kbt/data/symbol_bars.hpp>
#include <kbt/data/time_format.hpp>
#include <kbt/sweep/run_sweep.hpp>

#include <Kokkos_Core.hpp>

#include <chrono>
#include <map>
#include <cstdint>
#include <vector>

#include "arrays.hpp"

namespace kbt::python {

void ensure_kokkos() {
  if (Kokkos::is_initialized()) return;
  kbt::detail::leave_threads_unbound_unless_chosen();
  Kokkos::initialize();
  py::module_::import("atexit").attr("register")(py::cpp_function([] {
    if (Kokkos::is_initialized()) Kokkos::finalize();
  }));
}

BarData bars_from(const py::dict& symbols) {
  // The rules of docs/data-format.md "One set of rules", shared with the CSV
  // import (kbt/data/symbol_bars.hpp): names without regard to case, volume
  // optional, rows in strictly increasing time order, symbols on the union of
  // their times.
  std::vector<SymbolBars> per_symbol;
  for (const auto& item : symbols) {
    SymbolBars s;
    s.symbol = py::str(item.first);
    const std::string where = "data: symbol '" + s.symbol + "'";
    const py::dict given = py::reinterpret_borrow<py::dict>(item.second);
    s.times = to_vector<std::int64_t>(given["timestamps"], s.symbol + ": timestamps");
    check_time_order(s.times, 1, [&](std::size_t row, std::size_t previous) {
      throw Error(ErrorCategory::data_format,
                  where + ": row " + std::to_string(row) + " (" + format_iso8601_utc(s.times[row]) + ") " +
                      (s.times[row] == s.times[previous] ? "repeats the time of" : "is before") + " row " +
                      std::to_string(previous) + " (" + format_iso8601_utc(s.times[previous]) +
                      "); rows must be in strictly increasing time order (frame.sort_index(), and drop repeats)");
    });
    std::map<std::string, std::string> source_of;  // kbt's column -> the frame's name for it
    for (const auto& column : py::reinterpret_borrow<py::dict>(given["columns"])) {
      const std::string name = py::str(column.first);
      const std::string kbt_name = bar_column_named(name);
      if (kbt_name.empty()) continue;  // a column kbt does not use
      if (!source_of.emplace(kbt_name, name).second)
        throw Error(ErrorCategory::data_format, where + ": columns '" + source_of[kbt_name] + "' and '" + name +
                                                    "' both name " + kbt_name + " (names match without regard to case)");
      if (column.second.is_none())
        throw Error(ErrorCategory::data_format, where + ": column '" + name + "' is not numeric");
      std::vector<double> values = to_vector<double>(column.second, s.symbol + ": column '" + name + "'");
      if (values.size() != s.times.size())
        throw Error(ErrorCategory::data_format, where + ": column '" + name + "' has " + std::to_string(values.size()) +
                                                    " values for " + std::to_string(s.times.size()) + " rows");
      s.columns[kbt_name] = std::move(values);
    }
    std::string missing;
    for (const auto& name : price_columns())
      if (!s.columns.count(name)) missing += (missing.empty() ? "" : ", ") + name;
    if (!missing.empty()) {
      std::string found;
      for (const auto& column : py::reinterpret_borrow<py::dict>(given["columns"]))
        found += (found.empty() ? "" : ", ") + std::string(py::str(column.first));
      throw Error(ErrorCategory::data_format, where + " has no column " + missing + " (found: " + found +
                                                  "; names match without regard to case)");
    }
    per_symbol.push_back(std::move(s));
  }
  if (per_symbol.empty()) throw Error(ErrorCategory::data_format, "data: no symbols");
  BarData bars = merge_on_time_union(per_symbol);
  validate_market_data(bars, {}, "data");
  return bars;
}

BarData bars_of(const py::object& data) {
  return py::isinstance<py::dict>(data) ? bars_from(data.cast<py::dict>()) : load_bars(data.cast<std::string>());
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
