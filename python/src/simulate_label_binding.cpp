// kbt.simulate and kbt.label (docs/python.md "Action simulations", "Labels"):
// the simulate and label jobs of `kbt run`, with the actions handed over as
// a NumPy array — read where they are when they are float64 and C-contiguous
// — and the outputs returned as arrays that own the job's vectors (moved, not
// copied).

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbt/core/error.hpp>
#include <kbt/label/detail/triple_barrier_kernel.hpp>
#include <kbt/label/label_job.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/labels.hpp>
#include <kbt/simulate/simulate_job.hpp>

#include <optional>
#include <string>
#include <vector>

#include "arrays.hpp"
#include "bindings.hpp"
#include "inputs.hpp"

namespace kbt::python {
namespace {

using Actions = py::array_t<double, py::array::c_style>;

// `actions` as float64 [trials][symbols][bars] (or [trials][bars]), C order:
// the array itself when it is one already, else one converted copy.
Actions action_array(const py::object& actions, bool& copied) {
  const py::array given = py::array::ensure(actions);
  if (!given) throw Error(ErrorCategory::config, "actions: a NumPy array (or array-like) of numbers is expected");
  copied = !Actions::check_(given);
  Actions a = Actions::ensure(given);
  if (!a) throw Error(ErrorCategory::config, "actions: cannot be read as float64 numbers");
  if (a.ndim() != 2 && a.ndim() != 3)
    throw Error(ErrorCategory::config, "actions: expected [trials][symbols][bars] (or [trials][bars] for one symbol), "
                                       "got " + std::to_string(a.ndim()) + " dimensions");
  return a;
}

py::dict simulate(const std::string& yaml_text, const std::string& source_name, const std::string& base_dir,
                  const py::object& data, const py::object& actions, const std::string& device) {
  ensure_kokkos();
  const bool given = !actions.is_none();
  ConfigAndBars loaded = config_and_bars(yaml_text, source_name, base_dir, data, Job::simulate, given);
  bool copied = false;
  std::optional<Actions> array;
  ActionMatrix view;
  if (given) {
    array = action_array(actions, copied);
    view.data = array->data();
    view.n_trials = static_cast<std::size_t>(array->shape(0));
    view.n_symbols = array->ndim() == 3 ? static_cast<std::size_t>(array->shape(1)) : 1;
    view.n_bars = static_cast<std::size_t>(array->shape(array->ndim() - 1));
  }
  SimulateJobResult r;
  {
    py::gil_scoped_release no_gil;
    r = run_simulate_job(loaded.config, loaded.bars, device == "auto" ? std::string() : device,
                         given ? &view : nullptr);
  }
  const ActionSimulationResult& t = r.trials;
  const std::size_t nt = t.n_trials, nb = t.n_window_bars, ns = t.n_symbols;
  const BarData& bars = loaded.bars;
  py::dict out;
  out["metric_names"] = metric_names();
  out["metrics"] = matrix(std::vector<double>(t.metrics), nt, n_metrics);
  out["symbols"] = bars.symbols;
  out["times"] = vector(std::vector<std::int64_t>(bars.timestamps.end() - static_cast<long>(nb), bars.timestamps.end()));
  if (!t.equity.empty()) {
    out["equity"] = matrix(std::move(r.trials.equity), nt, nb);
    out["units"] = matrix(std::move(r.trials.units), nt, nb * ns).attr("reshape")(nt, nb, ns);
    out["open_pnl"] = matrix(std::move(r.trials.open_pnl), nt, nb);
    out["drawdown"] = matrix(std::move(r.trials.drawdown), nt, nb);
    out["reward"] = matrix(std::move(r.trials.reward), nt, nb);
  }
  out["device"] = r.device;
  out["actions_copied"] = copied;
  out["seconds_load"] = loaded.seconds_load;
  out["seconds_actions"] = r.seconds_actions;
  out["seconds_simulate"] = r.seconds_simulate;
  return out;
}

py::dict label(const std::string& yaml_text, const std::string& source_name, const std::string& base_dir,
               const py::object& data, const std::string& device) {
  ensure_kokkos();
  ConfigAndBars loaded = config_and_bars(yaml_text, source_name, base_dir, data, Job::label);
  LabelJobResult r;
  {
    py::gil_scoped_release no_gil;
    r = run_label_job(loaded.config, loaded.bars, device == "auto" ? std::string() : device);
  }
  const BarData& bars = loaded.bars;
  const std::size_t ns = r.settings.size(), ny = bars.n_symbols(), nb = bars.n_bars();
  std::vector<double> profit_take, stop;
  std::vector<std::int64_t> horizon;
  for (const BarrierSetting& s : r.settings) {
    profit_take.push_back(s.profit_take);
    stop.push_back(s.stop);
    horizon.push_back(s.horizon);
  }
  const auto cube = [&](auto&& values) {
    using T = typename std::decay_t<decltype(values)>::value_type;
    return matrix<T>(std::move(values), ns, ny * nb).attr("reshape")(ns, ny, nb);
  };
  py::dict out;
  out["profit_take"] = vector(std::move(profit_take));
  out["stop"] = vector(std::move(stop));
  out["horizon"] = vector(std::move(horizon));
  out["events"] = vector(std::move(r.events));
  out["label"] = cube(std::move(r.labels.label));
  out["touch_bar"] = cube(std::move(r.labels.touch_bar));
  out["ret"] = cube(std::move(r.labels.ret));
  out["barrier"] = cube(std::move(r.labels.barrier));
  std::vector<std::string> barrier_names;
  for (std::int8_t b = 0; b < 4; ++b) barrier_names.push_back(barrier_name(b));
  out["barrier_names"] = barrier_names;
  out["barrier_none"] = static_cast<int>(detail::barrier_none);  // a bar that is not an event
  out["volatility"] = matrix(std::move(r.volatility), ny, nb);
  out["side"] = matrix(std::move(r.side), ny, nb);
  out["symbols"] = bars.symbols;
  out["times"] = vector(std::vector<std::int64_t>(bars.timestamps));
  out["device"] = r.device;
  out["seconds_load"] = loaded.seconds_load;
  out["seconds_expressions"] = r.seconds_expressions;
  out["seconds_labels"] = r.seconds_labels;
  return out;
}

}  // namespace

void bind_jobs(py::module_& m) {
  m.def("simulate", &simulate, py::arg("yaml_text"), py::arg("source_name"), py::arg("base_dir"), py::arg("data"),
        py::arg("actions"), py::arg("device"));
  m.def("label", &label, py::arg("yaml_text"), py::arg("source_name"), py::arg("base_dir"), py::arg("data"),
        py::arg("device"));
}

}  // namespace kbt::python
