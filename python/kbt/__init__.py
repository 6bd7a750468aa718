"""kbt from Python: parameter sweeps on Kokkos with pandas in and out (docs/python.md).

    import kbt
    results = kbt.run("configs/sma_cross.yaml", device="auto")
    results.top(10)

The work runs in kbt's C++ core (the `_kbt` extension), without the GIL.
"""

import os
import warnings

from . import _inputs, _kbt
from .backtest import Backtest
from .jobs import Labels, Simulation
from .results import Results, Validation, WalkForward

Error = _kbt.Error
version = _kbt.version
mpi_compiled_in = _kbt.mpi_compiled_in  # kbt.run(comm=...) works (docs/python.md "Under MPI")

__all__ = ["run", "backtest", "eval", "simulate", "label", "Results", "Validation", "WalkForward", "Backtest",
           "Simulation", "Labels", "Error", "devices", "metric_names", "version",
           "mpi_compiled_in"]


def devices():
    """The devices this build runs on: 'reference' and the enabled Kokkos spaces."""
    return list(_kbt.devices())


def metric_names():
    """The 21 metrics (docs/metrics.md), in the order of every metrics table."""
    return list(_kbt.metric_names())


def _data_argument(data):
    path, bars = _inputs.bars(data)
    return bars if path is None else path


def run(config, data=None, device="auto", threads=0, progress=None, out=None, resume=False, comm=None, **overrides):
    """Runs the sweep job of `config` (a YAML path, YAML text or a dict) on
    `data` (None: the config's data file; a path; a DataFrame with a
    DatetimeIndex and open/high/low/close/volume columns; or {symbol:
    DataFrame}) on `device` ("auto", "reference" or a Kokkos space): the
    sweep, then the verification and validation stages the config asks for.

    `out`: a results file path. Without it nothing is written and an
    interrupted run starts over; with it the run is `kbt run --out`: every
    chunk is committed to the checkpoint <out>.partial.h5, a KeyboardInterrupt
    (Ctrl-C) leaves it resumable, and `resume=True` continues it.
    `progress`: a callable(done, total, unit) called between chunks, or True
    for a progress bar (tqdm when installed). Keyword overrides change the
    config: `sweep={"top_k": 5}` or `sweep__top_k=5`. Returns Results;
    warnings (a device fallback, a calibration that prefers another device)
    go through Python's warnings module. Errors raise kbt.Error(message,
    category).

    `comm`: an MPI communicator (mpi4py's, e.g. MPI.COMM_WORLD) whose ranks
    all call run() with the same arguments: they share the sweep as `mpirun
    kbt run` does (docs/mpi.md), rank 0 returns the Results (and writes
    `out`), every other rank returns None."""
    text, source, base = _inputs.config_text(config, overrides)
    handle_of_comm = None
    if comm is not None:
        handle_of_comm = int(comm.py2f()) if hasattr(comm, "py2f") else int(comm)
    callback, close = _inputs.progress_callback(progress)
    target = "" if out is None else os.path.abspath(os.fspath(out))
    try:
        handle = _kbt.run(text, source, base, _data_argument(data), device, threads, callback, target, bool(resume),
                          handle_of_comm)
    finally:
        if close is not None:
            close()
    if not handle.root:
        return None
    results = Results(handle)
    for message in results.warnings:
        warnings.warn("kbt: " + message, RuntimeWarning, stacklevel=2)
    return results


def eval(expr, data, device="reference", **params):  # noqa: A001 (kbt.eval, as `kbt eval`)
    """The series of expression `expr` (docs/language.md) on `data` (a path to a kbt
    HDF5 data file, a DataFrame or {symbol: DataFrame}, as for run()) with `params`
    as values (`kbt.eval("sma(close, n)", bars, n=20)`): a Series indexed by time
    for one symbol, a DataFrame with a column per symbol for several. On
    "reference" or a Kokkos space (the sweep kernel's evaluator; the same bits)."""
    import pandas as pd

    raw = _kbt.eval(expr, _data_argument(data), {k: float(v) for k, v in params.items()}, device)
    index = pd.to_datetime(raw["timestamps"], utc=True)
    index.name = "time"
    if len(raw["symbols"]) == 1:
        return pd.Series(raw["values"][0], index=index, name=expr)
    return pd.DataFrame(raw["values"].T, index=index, columns=list(raw["symbols"]))


def backtest(config, data=None, **params):
    """One combo of `config` (a YAML path, YAML text or a dict) with `params` as its
    values (`kbt.backtest("configs/sma_cross.yaml", fast=20, slow=40)`), on `data`
    (None: the config's; a path, a DataFrame or {symbol: DataFrame}), on the
    reference engine: `kbt backtest`'s statistics, trade ledger and per-bar equity."""
    text, source, base = _inputs.config_text(config, {})
    raw = _kbt.backtest(text, source, base, _data_argument(data), {k: float(v) for k, v in params.items()})
    bt = Backtest(raw)
    bt.title = "%s: %s" % (source, ", ".join("%s=%g" % (k, float(v)) for k, v in params.items()))
    return bt


def _job_config(config, job, overrides):
    """A job's config: None is {"job": job}; a dict without `job` gets it."""
    if config is None:
        config = {"job": job}
    elif isinstance(config, dict) and "job" not in config:
        config = dict(config, job=job)
    return _inputs.config_text(config, overrides)


def simulate(actions=None, data=None, config=None, device="auto", **overrides):
    """Simulates trials of `actions` (docs/simulate.md): an array [trials]
    [symbols][bars] (or [trials][bars] for one symbol) of target exposures in
    [-1, 1] (or 0/1/2 with simulate={"kind": "discrete"}), with the data's
    symbols and all its bars. A float64 C-contiguous array is read where it is
    (no copy); another is converted once (`.actions_copied`). None: the
    config's simulate.actions or random policy. `config`: a `job: simulate`
    config (path, YAML text or dict; None: the defaults) for the simulation
    and simulate settings; `data` as for run(). Overrides as for run():
    `simulate__per_bar=True`, `simulation={"fee_bps": 2}`. Returns a Simulation."""
    text, source, base = _job_config(config, "simulate", overrides)
    raw = _kbt.simulate(text, source, base, _data_argument(data), actions, device)
    return Simulation(raw)


def label(config, data=None, device="auto", **overrides):
    """Triple-barrier labels of a `job: label` config (docs/label.md) on `data`
    (as for run()): every setting of its barrier grid, on `device`. Returns
    Labels."""
    text, source, base = _job_config(config, "label", overrides)
    raw = _kbt.label(text, source, base, _data_argument(data), device)
    return Labels(raw)
