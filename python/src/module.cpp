// The native part of `import kbt` (docs/python.md): configs and bars in,
// NumPy arrays out, wrapped in pandas by python/kbt/__init__.py. Kokkos is
// initialised once, on first use, and finalised at interpreter exit; the
// work runs without the GIL; kbt::Error becomes kbt.Error.

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbt/core/error.hpp>
#include <kbt/core/execution_spaces.hpp>
#include <kbt/core/version.hpp>
#include <kbt/metrics/metrics.hpp>

#include <string>
#include <vector>

#include "bindings.hpp"

namespace py = pybind11;

namespace {

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
  kbt::python::bind_run(m);
  kbt::python::bind_backtest(m);
  kbt::python::bind_jobs(m);
  m.def("devices", &devices, "The devices this build runs on: reference and the enabled Kokkos spaces");
  m.def("metric_names", [] { return std::vector<std::string>(kbt::metric_names().begin(), kbt::metric_names().end()); },
        "The 21 metrics, in the order of every metrics matrix");
  m.def("count_metrics", [] {
        std::vector<std::string> names;
        for (std::size_t m = 0; m < kbt::n_metrics; ++m)
          if (kbt::metric_is_count(static_cast<int>(m))) names.push_back(kbt::metric_names()[m]);
        return names;
      }, "The metrics that count something: whole numbers, int64 in results files");
  m.attr("version") = kbt::version_string;
  m.attr("mpi_compiled_in") = kbt::mpi_compiled_in;
}
