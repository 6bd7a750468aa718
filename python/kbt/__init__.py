"""kbt from Python: parameter sweeps on Kokkos with pandas in and out (docs/python.md).

    import kbt
    results = kbt.run("configs/sma_cross.yaml", device="auto")
    results.top(10)

The sweep itself runs in kbt's C++ core (the `_kbt` extension), without the GIL.
"""

import json
import os
import warnings

from . import _kbt

Error = _kbt.Error
version = _kbt.version

__all__ = ["run", "backtest", "eval", "Results", "Backtest", "Error", "devices", "version"]


def devices():
    """The devices this build runs on: 'reference' and the enabled Kokkos spaces."""
    return list(_kbt.devices())


def _config_text(config, overrides):
    """(yaml_text, source_name, base_dir) of a path, YAML text or dict, with overrides merged."""
    if isinstance(config, dict):
        text, source, base = None, "<dict>", os.getcwd()
        tree = config
    elif isinstance(config, (str, os.PathLike)) and os.path.isfile(config):
        path = os.fspath(config)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        source, base, tree = path, os.path.dirname(os.path.abspath(path)), None
    elif isinstance(config, str):
        text, source, base, tree = config, "<text>", os.getcwd(), None
    else:
        raise TypeError("config: a YAML path, YAML text or a dict, not %s" % type(config).__name__)
    if not overrides:
        return (text if tree is None else json.dumps(tree, default=str)), source, base
    if tree is None:
        import yaml  # only to merge overrides into YAML text

        tree = yaml.safe_load(text)
        if not isinstance(tree, dict):
            raise Error("%s: the config is not a mapping" % source, "config")
    merged = _merged(tree, overrides)
    # JSON is YAML: the merged tree goes to kbt's config loader as one document
    # (its messages then give lines and columns of that JSON text).
    if tree is not config:
        source += " with overrides, as JSON"
    return json.dumps(merged, default=str), source, base


def _merged(tree, overrides):
    """`tree` with each override applied: `sweep={"top_k": 5}` merges into the
    section, `sweep__top_k=5` sets one key (double underscores separate levels)."""
    out = json.loads(json.dumps(tree, default=str))
    for key, value in overrides.items():
        path = key.split("__")
        node = out
        for part in path[:-1]:
            node = node.setdefault(part, {})
            if not isinstance(node, dict):
                raise Error("override %s: %s is not a section" % (key, part), "config")
        last = path[-1]
        if isinstance(value, dict) and isinstance(node.get(last), dict):
            node[last] = _merged(node[last], value)
        else:
            node[last] = value
    return out


def _bars(data):
    """None, a path (str), a DataFrame (one symbol) or {symbol: DataFrame} as what
    the native module takes: (path or None, {symbol: {column: ndarray}} or None)."""
    if data is None:
        return None, None
    if isinstance(data, (str, os.PathLike)):
        return os.path.abspath(os.fspath(data)), None
    import numpy as np
    import pandas as pd

    frames = {"data": data} if isinstance(data, pd.DataFrame) else dict(data)
    if not frames:
        raise Error("data: no symbols", "data_format")
    index = None
    for symbol, frame in frames.items():
        if not isinstance(frame, pd.DataFrame) or not isinstance(frame.index, pd.DatetimeIndex):
            raise Error("data: symbol '%s': a DataFrame with a DatetimeIndex is expected" % symbol, "data_format")
        if frame.index.has_duplicates:
            first = frame.index[frame.index.duplicated()][0]
            raise Error("data: symbol '%s': timestamp %s appears more than once" % (symbol, first.isoformat()),
                        "data_format")
        index = frame.index if index is None else index.union(frame.index)
    index = index.sort_values()  # rows in time order
    if index.tz is not None:
        index = index.tz_convert("UTC").tz_localize(None)
    out = {}
    for symbol, frame in frames.items():
        f = frame
        if f.index.tz is not None:
            f = f.tz_convert("UTC").tz_localize(None)
        missing = [c for c in ("open", "high", "low", "close", "volume") if c not in f.columns]
        if missing:
            raise Error("data: symbol '%s' has no column %s" % (symbol, ", ".join(missing)), "data_format")
        f = f.reindex(index)  # bars a symbol lacks are NaN (docs/data-format.md)
        columns = {"timestamps": np.ascontiguousarray(index.asi8, dtype=np.int64)}
        for c in f.columns:
            if c in ("open", "high", "low", "close", "volume", "funding_rate"):
                columns[c] = np.ascontiguousarray(f[c].to_numpy(dtype=np.float64, na_value=np.nan))
        out[str(symbol)] = columns
    return None, out


class Results:
    """A sweep's rows: `.params` and `.metrics` (DataFrames indexed by combo id),
    `.top(k, sort=...)`, `.profile`, `.device`, `.fallback_reason`."""

    def __init__(self, raw):
        import pandas as pd

        ids = pd.Index(raw["combo_ids"], name="combo")
        params = pd.DataFrame(raw["params"], columns=raw["param_names"], index=ids)
        for name, integer in zip(raw["param_names"], raw["integer_params"]):
            if integer:
                params[name] = params[name].astype("int64")
        metrics = pd.DataFrame(raw["metrics"], columns=list(raw["metric_names"]), index=ids, copy=False)
        metrics["n_trades"] = metrics["n_trades"].astype("int64")
        self.params = params
        self.metrics = metrics
        self.objective = raw["objective"]
        self.maximize = bool(raw["maximize"])
        self.device = raw["device"]
        self.fallback_reason = raw["fallback_reason"]
        self.profile = dict(raw["profile"])
        self._top_rows = list(raw["top_rows"])
        self._top_metrics = raw["top_metrics"]
        self._higher_is_better = dict(zip(raw["metric_names"], raw["higher_is_better"]))
        self._computed = dict(zip(raw["metric_names"], raw["computed"]))

    def top(self, k=10, sort=None):
        """The best k combos, params and metrics side by side: by the sweep's
        objective and eligibility rule (its top-K with all 21 metrics, as `kbt
        show` lists it), or sorted by the metric `sort` in its natural direction
        (metrics outside the run's set are NaN there, as in `.metrics`)."""
        import pandas as pd

        if sort is None:
            rows = self._top_rows[:k]
            metrics = pd.DataFrame(self._top_metrics[: len(rows)], columns=self.metrics.columns,
                                   index=self.metrics.index[rows])
            metrics["n_trades"] = metrics["n_trades"].astype("int64")
            return pd.concat([self.params.iloc[rows], metrics], axis=1)
        table = pd.concat([self.params, self.metrics], axis=1)
        if sort not in self.metrics.columns:
            raise Error("sort: unknown metric '%s'" % sort, "config")
        if not self._computed[sort]:
            raise Error("sort: '%s' was not computed for every combo of this run (the top-K rows have all 21): "
                        "add it to sweep.metrics, or set sweep.metrics: all, and run again" % sort, "config")
        ascending = not self._higher_is_better[sort]
        return table.sort_values([sort], ascending=ascending, kind="stable").head(k)

    def __repr__(self):
        return "<kbt.Results %d combos on %s, objective %s>" % (len(self.metrics), self.device, self.objective)



def _progress_callback(progress):
    """None for no progress; a callable as given; True: a tqdm bar when tqdm is
    installed, else a line on stderr."""
    if progress is None or progress is False:
        return None, None
    if callable(progress):
        return progress, None
    try:
        from tqdm import tqdm
    except ImportError:
        import sys

        def line(done, total):
            sys.stderr.write("\rkbt: %d / %d combos" % (done, total) + ("\n" if done >= total else ""))
            sys.stderr.flush()

        return line, None
    bar = tqdm(unit="combos")

    def update(done, total):
        bar.total = total
        bar.n = done
        bar.refresh()

    return update, bar


def run(config, data=None, device="auto", threads=0, progress=None, **overrides):
    """Runs the sweep of `config` (a YAML path, YAML text or a dict) on `data`
    (None: the config's data file; a path; a DataFrame with a DatetimeIndex and
    open/high/low/close/volume columns; or {symbol: DataFrame}) on `device`
    ("auto", "reference" or a Kokkos space). `progress`: a callable(done, total)
    called between chunks of combos, or True for a progress bar (tqdm when
    installed). Ctrl-C stops the sweep at the next chunk with KeyboardInterrupt.
    Keyword overrides change the config:
    `sweep={"top_k": 5}` or `sweep__top_k=5`. Returns Results; a device fallback
    is a warning. Errors raise kbt.Error(message, category)."""
    path, bars = _bars(data)
    text, source, base = _config_text(config, overrides)
    callback, bar = _progress_callback(progress)
    try:
        raw = _kbt.run(text, source, base, bars if path is None else path, device, threads, callback)
    finally:
        if bar is not None:
            bar.close()
    results = Results(raw)
    if results.fallback_reason:
        warnings.warn("kbt: ran on %s: %s" % (results.device, results.fallback_reason), RuntimeWarning, stacklevel=2)
    return results


def eval(expr, data, device="reference", **params):  # noqa: A001 (kbt.eval, as `kbt eval`)
    """The series of expression `expr` (docs/language.md) on `data` (a path to a kbt
    HDF5 data file, a DataFrame or {symbol: DataFrame}, as for run()) with `params`
    as values (`kbt.eval("sma(close, n)", bars, n=20)`): a Series indexed by time
    for one symbol, a DataFrame with a column per symbol for several. On
    "reference" or a Kokkos space (the sweep kernel's evaluator; the same bits)."""
    import pandas as pd

    path, bars = _bars(data)
    raw = _kbt.eval(expr, bars if path is None else path, {k: float(v) for k, v in params.items()}, device)
    index = pd.to_datetime(raw["timestamps"], utc=True)
    index.name = "time"
    if len(raw["symbols"]) == 1:
        return pd.Series(raw["values"][0], index=index, name=expr)
    return pd.DataFrame(raw["values"].T, index=index, columns=list(raw["symbols"]))


class Backtest:
    """One combo's backtest (`kbt backtest`): `.stats` (a Series: `kbt backtest`'s
    rows, labelled with their units), `.metrics` (the 21 metrics), `.trades` and
    `.equity` (DataFrames)."""

    def __init__(self, raw):
        import pandas as pd

        labels, values = [], []
        for label, unit, value, ns, _text in raw["stats"]:
            if unit == "time":
                labels.append(label)
                values.append(pd.Timestamp(ns, unit="ns", tz="UTC"))
            elif unit == "duration":
                labels.append(label)
                values.append(pd.NaT if value != value else pd.Timedelta(ns, unit="ns"))
            elif unit == "count":
                labels.append("# " + label)
                values.append(int(value))
            else:
                labels.append(label + (" [%s]" % unit if unit else ""))
                values.append(value)
        self.stats = pd.Series(values, index=labels, dtype=object, name="stats")
        self.stats_text = pd.Series([row[4] for row in raw["stats"]], index=labels, name="text")
        self.metrics = pd.Series(raw["metrics"], index=list(raw["metric_names"]), name="metrics")
        t = raw["trades"]
        self.trades = pd.DataFrame({
            "symbol": t["symbol"], "side": t["side"],
            "entry_time": pd.to_datetime(t["entry_time"], utc=True), "exit_time": pd.to_datetime(t["exit_time"], utc=True),
            **{k: t[k] for k in ("entry_price", "exit_price", "units", "pnl", "return", "fees", "funding", "borrow")},
            "exit_reason": t["exit_reason"],
        })
        index = pd.to_datetime(raw["times"], utc=True)
        index.name = "time"
        equity = pd.DataFrame({k: raw[k] for k in ("equity", "cash", "drawdown", "buy_and_hold")}, index=index)
        for s, symbol in enumerate(raw["symbols"]):
            equity["units_" + symbol] = raw["units"][:, s]
        self.equity = equity

    def __repr__(self):
        return "<kbt.Backtest %d trades, return %s>" % (len(self.trades), self.stats_text.get("Return [%]", "?"))


def backtest(config, data=None, **params):
    """One combo of `config` (a YAML path, YAML text or a dict) with `params` as its
    values (`kbt.backtest("configs/sma_cross.yaml", fast=20, slow=40)`), on `data`
    (None: the config's; a path, a DataFrame or {symbol: DataFrame}), on the
    reference engine: `kbt backtest`'s statistics, trade ledger and per-bar equity."""
    path, bars = _bars(data)
    text, source, base = _config_text(config, {})
    raw = _kbt.backtest(text, source, base, bars if path is None else path, {k: float(v) for k, v in params.items()})
    return Backtest(raw)
