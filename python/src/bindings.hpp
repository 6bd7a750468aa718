#pragma once
// The parts of the native module `_kbt`, each adding its functions.

#include <pybind11/pybind11.h>

namespace kbt::python {

void bind_run(pybind11::module_& m);       // run_binding.cpp: kbt.run and Results
void bind_backtest(pybind11::module_& m);  // backtest_binding.cpp: kbt.backtest, kbt.eval
void bind_jobs(pybind11::module_& m);      // simulate_label_binding.cpp: kbt.simulate, kbt.label

}  // namespace kbt::python
