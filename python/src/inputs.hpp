#pragma once
// What every entry point of the native module starts from: Kokkos
// initialised once, and a config with its bars — from the config's data file,
// another data file, or NumPy columns that the Python layer made from
// DataFrames (docs/python.md "Data").

#include <pybind11/pybind11.h>

#include <kbt/config/config_loader.hpp>
#include <kbt/config/run_config.hpp>
#include <kbt/data/bar_data.hpp>

#include <string>

namespace kbt::python {

namespace py = pybind11;

// Kokkos::initialize on first use; finalize registered with atexit.
void ensure_kokkos();

// Bars from {symbol: {"timestamps": int64 ns in row order, "columns": {name:
// float64 array, or None where the column is not numeric}}}, by the rules the
// CSV import follows (kbt/data/symbol_bars.hpp), checked as a data file's are.
BarData bars_from(const py::dict& symbols);

// Bars of a data file (a path) or of NumPy columns (a dict).
BarData bars_of(const py::object& data);

struct ConfigAndBars {
  RunConfig config;
  BarData bars;
  double seconds_load = 0;
};

// The config of job `job` from YAML text, and its bars: the config's data
// file (data None), another data file (a path: it becomes the config's
// data_path, which the profile names) or NumPy columns (a dict). With data
// given, the config may leave `data` out; `actions_given`: a simulate job's
// actions come from the caller (CallerInputs). Another job's config is a
// kbt::Error(config) naming the function that runs it.
ConfigAndBars config_and_bars(const std::string& yaml_text, const std::string& source_name,
                              const std::string& base_dir, const py::object& data, Job job,
                              bool actions_given = false);

}  // namespace kbt::python
