// kbt.run (docs/python.md "Sweeps"): the sweep job of `kbt run` — with an
// output path its lock, checkpoint, resume and atomic write — and what the
// Results object reads of it: the rows (views of the memory they live in, not
// copies), the top-K, the verification and validation tables, a heatmap grid,
// and a results file written on request.

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <kbt/core/error.hpp>
#include <kbt/core/version.hpp>
#include <kbt/job/sweep_job.hpp>
#include <kbt/metrics/metric_set.hpp>
#include <kbt/metrics/metrics.hpp>
#include <kbt/output/result_rows.hpp>
#include <kbt/output/results.hpp>
#include <kbt/report/heatmap_grid.hpp>
#include <kbt/sweep/chunk_exchange.hpp>
#include <kbt/validation/validation.hpp>
#include <kbt/verify/verify.hpp>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#if KBT_HAVE_MPI
#include <kbt/mpi/mpi_exchange.hpp>
#endif

#include "arrays.hpp"
#include "bindings.hpp"
#include "inputs.hpp"

namespace kbt::python {
namespace {

// A finished sweep job; the arrays of its rows keep it alive. Under MPI only
// the root's holds the outputs.
struct RunHandle {
  RunConfig config;
  SweepJobResult job;
  std::vector<std::string> warnings;
  bool root = true;
  const SweepResults& results() const { return job.sweep.results; }
};

template <class T>
py::array_t<T> copy_matrix(const std::vector<T>& v, std::size_t rows, std::size_t cols) {
  return matrix(std::vector<T>(v), rows, cols);
}
template <class T>
py::array_t<T> copy_vector(const std::vector<T>& v) {
  return vector(std::vector<T>(v));
}

py::dict profile_dict(const RunProfile& p) {
  py::dict out;
  for (const auto& [k, v] : p.text) out[py::str(k)] = v;
  for (const auto& [k, v] : p.numbers) out[py::str(k)] = v;
  return out;
}

// Every row: views of the memory the sweep left them in, or (rows in a
// results file) read once into arrays NumPy owns.
py::dict rows_of(const py::object& self) {
  const RunHandle& h = self.cast<const RunHandle&>();
  const SweepResults& r = h.results();
  const std::size_t n = r.n_rows(), np = r.param_names.size();
  py::dict out;
  if (const auto* memory = dynamic_cast<const MemoryRows*>(r.rows.get())) {
    out["combo_ids"] = read_only_view(memory->combo_ids().data(), n, 1, self).attr("reshape")(-1);
    out["params"] = read_only_view(memory->params().data(), n, np, self);
    out["metrics"] = read_only_view(memory->metrics().data(), n, n_metrics, self);
    out["copied"] = false;
    return out;
  }
  std::vector<std::uint64_t> ids(n);
  std::vector<double> params(n * np), metrics(n * n_metrics);
  if (n > 0) {
    py::gil_scoped_release no_gil;
    r.rows->read(0, n, ids.data(), params.data(), metrics.data());
  }
  out["combo_ids"] = vector(std::move(ids));
  out["params"] = matrix(std::move(params), n, np);
  out["metrics"] = matrix(std::move(metrics), n, n_metrics);
  out["copied"] = true;
  return out;
}

py::dict summary_of(const RunHandle& h) {
  const SweepResults& r = h.results();
  py::dict out;
  out["param_names"] = r.param_names;
  std::vector<bool> integer(r.param_names.size(), false);
  for (std::size_t p = 0; p < r.integer_params.size() && p < integer.size(); ++p) integer[p] = r.integer_params[p];
  out["integer_params"] = integer;
  out["metric_names"] = metric_names();
  std::vector<bool> higher(n_metrics), computed(n_metrics);
  for (std::size_t m = 0; m < n_metrics; ++m) {
    higher[m] = metric_higher_is_better(static_cast<int>(m));
    computed[m] = r.rows && has_metric(r.rows->metric_mask(), static_cast<int>(m));  // for every row
  }
  out["higher_is_better"] = higher;
  out["computed"] = computed;
  // The top-K with every metric (the best rows were simulated again when the
  // sweep's metric set was smaller; docs/metrics.md "Metric sets").
  const RowTable top = r.top_k_rows();
  out["top_rows"] = copy_vector(top.rows);
  out["top_metrics"] = copy_matrix(top.metrics, top.size(), n_metrics);
  out["objective"] = r.objective_metric;
  out["maximize"] = r.maximize;
  out["device"] = h.job.sweep.device_used;
  const auto& fallback = h.job.sweep.fallback_reason;
  out["fallback_reason"] = fallback ? py::object(py::str(*fallback)) : py::object(py::none());
  py::dict profile = profile_dict(h.job.sweep.profile);
  if (!h.job.out.empty()) profile["seconds_write"] = h.job.seconds_write;
  out["profile"] = profile;
  out["warnings"] = h.warnings;
  out["out"] = h.job.out;
  out["csv"] = h.job.csv;
  return out;
}

py::object verify_of(const RunHandle& h) {
  if (!h.job.verification) return py::none();
  const VerificationResults& v = *h.job.verification;
  py::dict out;
  out["combo_ids"] = copy_vector(v.combo_ids);
  out["param_names"] = v.param_names;
  out["params"] = copy_matrix(v.params, v.n(), v.param_names.size());
  out["rank_before"] = copy_vector(v.rank_before);
  out["rank_after"] = copy_vector(v.rank_after);
  out["mismatch"] = copy_vector(v.mismatch);
  out["rank_moved"] = copy_vector(v.rank_moved);
  out["metrics"] = copy_matrix(v.metrics, v.n(), n_metrics);
  out["sweep_metrics"] = copy_matrix(v.sweep_metrics, v.n(), n_metrics);
  out["selection"] = v.selection;
  out["window"] = v.window;
  out["window_bars"] = py::make_tuple(v.window_begin, v.window_end);
  out["same_window"] = v.same_window;
  out["objective"] = v.objective.metric;
  out["sweep_precision"] = v.sweep_precision;
  out["mismatch_checked"] = v.mismatch_checked;
  out["rank_checked"] = v.rank_checked;
  out["rank_threshold"] = v.rank_threshold;
  out["text"] = format_verification_summary(v, v.n());
  return out;
}

py::dict walk_forward_of(const WalkForwardResults& w, std::size_t n_params) {
  py::list folds;
  for (const WalkForwardFold& f : w.folds) {
    py::dict d;
    d["train_bars"] = py::make_tuple(f.train.begin, f.train.end);
    d["test_bars"] = py::make_tuple(f.test.begin, f.test.end);
    d["combo_ids"] = copy_vector(f.best.combo_ids);
    d["params"] = copy_matrix(f.best.params, f.best.size(), n_params);
    d["train_metrics"] = copy_matrix(f.best.metrics, f.best.size(), n_metrics);
    d["test_metrics"] = copy_matrix(f.test_metrics, f.best.size(), n_metrics);
    d["rank_out_of_sample"] = copy_vector(f.rank_out_of_sample);
    d["rank_correlation"] = f.rank_correlation;
    folds.append(d);
  }
  py::dict out;
  out["folds"] = folds;
  out["stitched_bars"] = py::make_tuple(w.stitched.begin, w.stitched.end);
  out["stitched_metrics"] = copy_vector(w.stitched_metrics);
  out["stitched_equity"] = copy_vector(w.stitched_equity);
  out["efficiency"] = w.efficiency;
  out["param_drift"] = w.param_drift;
  out["stability"] = w.stability;
  out["distinct_choices"] = w.distinct_choices;
  return out;
}

py::object validation_of(const RunHandle& h) {
  if (!h.job.validation) return py::none();
  const ValidationResults& v = *h.job.validation;
  const std::size_t k = v.n();
  py::dict out;
  out["objective"] = v.objective.metric;
  out["train"] = v.train_text;
  out["test"] = v.test ? py::object(py::str(v.test_text)) : py::object(py::none());
  out["period"] = v.period;
  out["periods_per_year"] = v.periods_per_year;
  out["combo_ids"] = copy_vector(v.combo_ids);
  out["param_names"] = v.param_names;
  out["params"] = copy_matrix(v.params, k, v.param_names.size());
  out["metrics"] = copy_matrix(v.metrics, k, n_metrics);
  out["period_start_ns"] = copy_vector(v.period_start_ns);
  out["period_returns"] = copy_matrix(v.period_returns, v.n_periods(), k);
  for (const auto& [name, values] : {std::pair<const char*, const std::vector<double>*>{"sharpe", &v.sharpe},
                                     {"skewness", &v.skewness}, {"kurtosis", &v.kurtosis}, {"psr", &v.psr},
                                     {"dsr", &v.dsr}, {"min_trl", &v.min_trl}})
    out[name] = copy_vector(*values);
  out["n_trials"] = v.n_trials;
  out["mean_correlation"] = v.mean_correlation;
  out["effective_trials"] = v.effective_trials;
  out["effective_rank"] = v.effective_rank;
  out["sharpe_variance"] = v.sharpe_variance;
  out["sharpe_variance_from"] = v.sharpe_variance_from;
  out["expected_max_sharpe"] = v.expected_max_sharpe;
  if (v.pbo) {
    py::dict p;
    p["pbo"] = v.pbo->pbo;
    p["prob_oos_loss"] = v.pbo->prob_oos_loss;
    p["degradation_slope"] = v.pbo->degradation_slope;
    p["degradation_intercept"] = v.pbo->degradation_intercept;
    p["blocks"] = v.pbo->blocks;
    p["splits"] = v.pbo->splits;
    p["candidates"] = v.pbo->candidates;
    p["periods_used"] = v.pbo->periods_used;
    p["logits"] = copy_vector(v.pbo->logits);
    p["is_sharpe"] = copy_vector(v.pbo->is_sharpe);
    p["oos_sharpe"] = copy_vector(v.pbo->oos_sharpe);
    out["pbo"] = p;
  } else {
    out["pbo"] = py::none();
  }
  out["pbo_skipped"] = v.pbo_skipped;
  if (v.test) {
    out["test_metrics"] = copy_matrix(v.test_metrics, k, n_metrics);
    out["rank_in_sample"] = copy_vector(v.rank_in_sample);
    out["rank_out_of_sample"] = copy_vector(v.rank_out_of_sample);
    out["rank_correlation"] = v.rank_correlation;
  }
  out["walk_forward"] =
      v.walk_forward ? py::object(walk_forward_of(*v.walk_forward, v.param_names.size())) : py::object(py::none());
  out["seconds"] = v.seconds;
  out["text"] = format_validation_summary(v, k);
  return out;
}

py::dict heatmap_of(const RunHandle& h, const std::string& x, const std::string& y, const std::string& metric,
                    const std::string& agg) {
  HeatmapRequest request;
  request.x = x;
  request.y = y;
  request.metric = metric;
  request.agg = agg;
  request.min_trades = h.config.sweep.objective.min_trades;
  HeatmapGrid g;
  {
    py::gil_scoped_release no_gil;
    g = heatmap_grid(h.results(), request);
  }
  py::dict out;
  out["x"] = g.x;
  out["y"] = g.y;
  out["xs"] = copy_vector(g.xs);
  out["ys"] = copy_vector(g.ys);
  out["z"] = copy_matrix(g.z, g.ys.size(), g.xs.size());
  out["excluded"] = copy_matrix(g.excluded, g.ys.size(), g.xs.size());
  out["metric"] = g.metric;
  out["agg"] = g.agg;
  out["objective"] = g.objective;
  out["min_trades"] = g.min_trades;
  if (g.best_row) {
    out["best"] = py::make_tuple(g.best_ix, g.best_iy, g.best_combo, g.best_value);
  } else {
    out["best"] = py::none();
  }
  out["fixed"] = g.fixed;
  return out;
}

void to_hdf5(const RunHandle& h, const std::string& path) {
  py::gil_scoped_release no_gil;
  const auto& job = h.job;
  write_results_hdf5(path, job.sweep.results, h.config.source_yaml, job.sweep.profile,
                     job.verification ? &*job.verification : nullptr, job.validation ? &*job.validation : nullptr);
}

#if KBT_HAVE_MPI
// The communicator behind a Fortran handle (mpi4py's Comm.py2f()), duplicated
// by the exchange; MPI must be initialised by the caller (mpi4py does so on
// import).
std::unique_ptr<ChunkExchange> exchange_for(const py::object& comm) {
  int initialised = 0, finalised = 0;
  MPI_Initialized(&initialised);
  MPI_Finalized(&finalised);
  if (!initialised || finalised)
    throw Error(ErrorCategory::unsupported, "kbt.run(comm=...): MPI is not initialised; import mpi4py first "
                                      "(from mpi4py import MPI) and pass MPI.COMM_WORLD or a communicator made from it");
  const MPI_Comm c = MPI_Comm_f2c(static_cast<MPI_Fint>(comm.cast<long long>()));
  return std::make_unique<MpiExchange>(c);
}
#endif

// Under MPI, a failure the other ranks cannot see (this rank's own, after the
// last agreement point) would leave them waiting: as `mpirun kbt run`, the
// rank names itself and stops the communicator.
[[noreturn]] void abort_shared_run(ChunkExchange& exchange, const std::string& what) {
  std::fprintf(stderr, "%s\n", rank_failure_line(exchange.rank(), exchange.size(), what).c_str());
  std::fflush(stderr);
  exchange.abort(1);
  std::abort();  // not reached: abort() stops every rank
}

// run(yaml_text, source_name, base_dir, data, device, threads, progress, out,
// resume, comm) -> RunHandle. `progress(done, total, unit)` is called between
// chunks on this thread, where Ctrl-C also stops the run (the pending
// KeyboardInterrupt propagates; with `out`, the checkpoint stays resumable).
// `comm`: None, or the Fortran handle of an MPI communicator whose ranks all
// call run() alike (docs/python.md "Under MPI").
std::shared_ptr<RunHandle> run(const std::string& yaml_text, const std::string& source_name,
                               const std::string& base_dir, const py::object& data, const std::string& device,
                               int threads, const py::object& progress, const std::string& out, bool resume,
                               const py::object& comm) {
  ensure_kokkos();
  std::unique_ptr<ChunkExchange> exchange;
  if (!comm.is_none()) {
#if KBT_HAVE_MPI
    exchange = exchange_for(comm);
#else
    throw Error(ErrorCategory::unsupported, "kbt.run(comm=...): this kbt was built without MPI (-DKBT_ENABLE_MPI=ON, docs/mpi.md)");
#endif
  }
  // Under MPI every rank loads alike; a rank that cannot (a file missing on its
  // node) fails them all, as kbt run does, instead of leaving them waiting.
  ConfigAndBars loaded;
  collectively(exchange.get(), [&] { loaded = config_and_bars(yaml_text, source_name, base_dir, data, Job::sweep); });
  auto handle = std::make_shared<RunHandle>();
  handle->config = std::move(loaded.config);
  SweepJobOptions o;
  o.seconds_load = loaded.seconds_load;
  o.device = device == "auto" ? std::string() : device;
  o.threads = threads;
  o.quiet = true;  // warnings go to Python's warnings module
  o.warn = [h = handle.get()](const std::string& w) { h->warnings.push_back(w); };
  o.progress = [&progress](const SweepProgress& p) {
    py::gil_scoped_acquire gil;
    if (PyErr_CheckSignals() != 0) throw py::error_already_set();
    if (!progress.is_none()) progress(p.done, p.total, p.unit);
  };
  o.out = out;
  o.resume = resume;
  o.resume_command = "kbt.run(" + source_name + ", out=\"" + out + "\", resume=True)";
  o.resume_option = "resume=True";
  o.exchange = exchange.get();
  handle->root = !exchange || exchange->is_root();
  try {
    py::gil_scoped_release no_gil;
    handle->job = run_sweep_job(handle->config, loaded.bars, o);
  } catch (const AgreedError&) {
    throw;  // every rank raises it alike
  } catch (const std::exception& e) {  // kbt::Error, a KeyboardInterrupt from progress (py::error_already_set)
    if (!exchange) throw;
    abort_shared_run(*exchange, e.what());
  }
  // As `kbt run`: the results are written for diagnosis, the run still fails.
  if (handle->job.verification)
    check_no_mismatch(*handle->job.verification, out.empty() ? source_name : out);
  return handle;
}

}  // namespace

void bind_run(py::module_& m) {
  py::class_<RunHandle, std::shared_ptr<RunHandle>>(m, "RunHandle", "A finished sweep job (kbt.Results wraps it)")
      .def_readonly("root", &RunHandle::root)
      .def("rows", &rows_of)
      .def("summary", &summary_of)
      .def("verify", &verify_of)
      .def("validation", &validation_of)
      .def("heatmap", &heatmap_of, py::arg("x"), py::arg("y"), py::arg("metric") = "", py::arg("agg") = "best")
      .def("to_hdf5", &to_hdf5, py::arg("path"));
  m.def("run", &run, py::arg("yaml_text"), py::arg("source_name"), py::arg("base_dir"), py::arg("data"),
        py::arg("device"), py::arg("threads") = 0, py::arg("progress") = py::none(), py::arg("out") = "",
        py::arg("resume") = false, py::arg("comm") = py::none());
}

}  // namespace kbt::python
