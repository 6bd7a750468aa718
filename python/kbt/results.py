"""A sweep's results in pandas (docs/python.md "Sweeps")."""

import numpy as np
import pandas as pd

from . import _frames
from ._inputs import Error


class Results:
    """A sweep job's results: `.params` and `.metrics` (DataFrames indexed by
    combo id; `.metrics` views kbt's memory and is read-only), `.top(k,
    sort=...)`, `.verify` (a DataFrame, or None without a verification
    stage), `.validation` (a Validation, or None), `.heatmap(x, y)`,
    `.to_hdf5(path)`, `.profile`, `.device`, `.fallback_reason`, `.warnings`,
    `.ruined` (a boolean Series by combo id: its equity reached 0,
    docs/semantics.md "Ruin"; final_equity is 0 exactly then),
    and `.path`: the results file the run wrote (None when it wrote none)."""

    def __init__(self, handle):
        self._handle = handle
        s = handle.summary()
        rows = handle.rows()
        ids = pd.Index(np.asarray(rows["combo_ids"]).astype(np.int64, copy=False), name="combo")
        params = pd.DataFrame(np.array(rows["params"]), columns=list(s["param_names"]), index=ids)
        for name, integer in zip(s["param_names"], s["integer_params"]):
            if integer:
                params[name] = params[name].astype("int64")
        self.params = params
        self.metrics, self.metrics_copied = _frames.metrics_frame(rows["metrics"], s["metric_names"], ids)
        # How the rows came: views of kbt's memory, or read from the results file.
        self.metrics_copied = self.metrics_copied or bool(rows["copied"])
        # final_equity is in every metric set, and 0 exactly when ruined (docs/metrics.md "Ruined combos").
        self.ruined = pd.Series(self.metrics["final_equity"].to_numpy() == 0.0, index=ids, name="ruined")
        self.objective = s["objective"]
        self.maximize = bool(s["maximize"])
        self.device = s["device"]
        self.fallback_reason = s["fallback_reason"]
        self.profile = dict(s["profile"])
        self.warnings = list(s["warnings"])
        self.path = s["out"] or None
        self.csv_path = s["csv"] or None
        self._top_rows = list(s["top_rows"])
        self._top_metrics = s["top_metrics"]
        self._higher_is_better = dict(zip(s["metric_names"], s["higher_is_better"]))
        self._computed = dict(zip(s["metric_names"], s["computed"]))
        self.verify = _verify_frame(handle.verify())
        raw = handle.validation()
        self.validation = Validation(raw) if raw is not None else None

    def top(self, k=10, sort=None):
        """The best k combos, params and metrics side by side: by the sweep's
        objective and eligibility rule (its top-K with all 21 metrics, as `kbt
        show` lists it), or sorted by the metric `sort` in its natural direction
        (metrics outside the run's set are NaN there, as in `.metrics`)."""
        if sort is None:
            rows = self._top_rows[:k]
            metrics = _frames.table(self._top_metrics[: len(rows)], self.metrics.columns, self.metrics.index[rows])
            return pd.concat([self.params.iloc[rows], metrics], axis=1)
        if sort not in self.metrics.columns:
            raise Error("sort: unknown metric '%s'" % sort, "config")
        if not self._computed[sort]:
            raise Error("sort: '%s' was not computed for every combo of this run (the top-K rows have all 21): "
                        "add it to sweep.metrics, or set sweep.metrics: all, and run again" % sort, "config")
        ascending = not self._higher_is_better[sort]
        order = self.metrics[sort].sort_values(ascending=ascending, kind="stable").index[:k]
        return pd.concat([self.params.loc[order], self.metrics.loc[order]], axis=1)

    def heatmap_grid(self, x, y, metric=None, agg="best"):
        """The cells `kbt plot heatmap` draws, as a DataFrame (rows: y values,
        columns: x values; NaN where no eligible combo falls). `agg`: best (the
        other params at the best combo's values), max or median over them.
        Its .attrs hold the best combo, the fixed params and the cells with
        only ineligible combos (`excluded`, a boolean DataFrame)."""
        g = self._handle.heatmap(x, y, metric or "", agg)
        frame = pd.DataFrame(g["z"], index=pd.Index(g["ys"], name=g["y"]), columns=pd.Index(g["xs"], name=g["x"]))
        frame.attrs = {
            "metric": g["metric"], "agg": g["agg"], "objective": g["objective"], "min_trades": g["min_trades"],
            "fixed": g["fixed"],
            "excluded": pd.DataFrame(g["excluded"].astype(bool), index=frame.index, columns=frame.columns),
            "best": None if g["best"] is None else dict(zip(("ix", "iy", "combo", "value"), g["best"])),
        }
        return frame

    def heatmap(self, x, y, metric=None, agg="best", ax=None):
        """A matplotlib Figure of `metric` (default: the objective) over params
        x and y: heatmap_grid's cells, ineligible cells grey, the best combo
        circled. Needs matplotlib."""
        from . import plots

        return plots.heatmap_figure(self.heatmap_grid(x, y, metric, agg), ax=ax)

    def to_hdf5(self, path):
        """Writes the results file `kbt run` writes (every row, the top-K, the
        config, the profile, /verify, /validation), atomically."""
        import os

        self._handle.to_hdf5(os.fspath(path))

    def __repr__(self):
        return "<kbt.Results %d combos on %s, objective %s>" % (len(self.metrics), self.device, self.objective)


def _verify_frame(raw):
    """The verification stage's table (docs/verify.md) indexed by combo id:
    params, the ranks before and after, mismatch and rank_moved flags, and the
    verified metrics; the stage's facts in .attrs."""
    if raw is None:
        return None
    index = pd.Index(np.asarray(raw["combo_ids"]).astype(np.int64), name="combo")
    params = pd.DataFrame(np.array(raw["params"]), columns=list(raw["param_names"]), index=index)
    flags = pd.DataFrame({
        "rank_before": np.asarray(raw["rank_before"]).astype(np.int64),
        "rank_after": np.asarray(raw["rank_after"]).astype(np.int64),
        "mismatch": np.asarray(raw["mismatch"]).astype(bool),
        "rank_moved": np.asarray(raw["rank_moved"]).astype(bool),
    }, index=index)
    names = _metric_names()
    metrics = _frames.table(raw["metrics"], names, index)
    frame = pd.concat([params, flags, metrics], axis=1)
    frame.attrs = {k: raw[k] for k in ("selection", "window", "window_bars", "same_window", "objective",
                                       "sweep_precision", "mismatch_checked", "rank_checked", "rank_threshold",
                                       "text")}
    frame.attrs["sweep_metrics"] = _frames.table(raw["sweep_metrics"], names, index)
    return frame


def _metric_names():
    from . import _kbt

    return list(_kbt.metric_names())


class Validation:
    """The validation stage (docs/validation.md): `.candidates` (a DataFrame
    per candidate: params, per-period Sharpe, skewness, kurtosis, PSR, DSR,
    MinTRL and, with a holdout, the ranks in and out of sample),
    `.train_metrics` and `.test_metrics` (DataFrames of the 21 metrics),
    `.period_returns` (periods x candidates), `.pbo` (a dict, or None:
    `.pbo_skipped` says why), `.walk_forward` (a WalkForward, or None),
    `.summary` (the trials' facts) and `.text` (`kbt run`'s summary)."""

    def __init__(self, raw):
        names = _metric_names()
        index = pd.Index(np.asarray(raw["combo_ids"]).astype(np.int64), name="combo")
        candidates = pd.DataFrame(np.array(raw["params"]), columns=list(raw["param_names"]), index=index)
        for name in ("sharpe", "skewness", "kurtosis", "psr", "dsr", "min_trl"):
            candidates[name] = np.asarray(raw[name])
        self.train_metrics = _frames.table(raw["metrics"], names, index)
        self.test_metrics = None
        if "test_metrics" in raw:
            candidates["rank_in_sample"] = np.asarray(raw["rank_in_sample"]).astype(np.int64)
            candidates["rank_out_of_sample"] = np.asarray(raw["rank_out_of_sample"]).astype(np.int64)
            self.test_metrics = _frames.table(raw["test_metrics"], names, index)
        self.candidates = candidates
        periods = pd.to_datetime(np.asarray(raw["period_start_ns"]), utc=True)
        self.period_returns = pd.DataFrame(np.array(raw["period_returns"]), index=pd.Index(periods, name="period"),
                                           columns=index)
        self.pbo = None if raw["pbo"] is None else dict(raw["pbo"])
        self.pbo_skipped = raw["pbo_skipped"] or None
        self.walk_forward = None if raw["walk_forward"] is None else WalkForward(raw["walk_forward"], raw["param_names"])
        self.summary = {k: raw[k] for k in ("objective", "train", "test", "period", "periods_per_year", "n_trials",
                                            "mean_correlation", "effective_trials", "effective_rank",
                                            "sharpe_variance", "sharpe_variance_from", "expected_max_sharpe",
                                            "seconds")}
        if "rank_correlation" in raw:
            self.summary["rank_correlation"] = raw["rank_correlation"]
        self.text = raw["text"]

    def __repr__(self):
        return "<kbt.Validation %d candidates, PBO %s>" % (
            len(self.candidates), "n/a" if self.pbo is None else "%.3f" % self.pbo["pbo"])


class WalkForward:
    """validation.walk_forward: `.folds` (a DataFrame per fold: its train and
    test bars, its choice's combo id and params, train and test objective,
    rank correlation), `.choices` (per fold, its top-K on the train window
    with train and test metrics), `.stitched_metrics` (a Series),
    `.stitched_equity` (an array over the stitched bars) and `.summary`."""

    def __init__(self, raw, param_names):
        names = _metric_names()
        rows = []
        self.choices = []
        for i, f in enumerate(raw["folds"]):
            index = pd.Index(np.asarray(f["combo_ids"]).astype(np.int64), name="combo")
            top = pd.DataFrame(np.array(f["params"]), columns=list(param_names), index=index)
            train = _frames.table(f["train_metrics"], names, index)
            test = _frames.table(f["test_metrics"], names, index)
            top["rank_out_of_sample"] = np.asarray(f["rank_out_of_sample"]).astype(np.int64)
            self.choices.append({"top": top, "train_metrics": train, "test_metrics": test})
            row = {"train_begin": f["train_bars"][0], "train_end": f["train_bars"][1],
                   "test_begin": f["test_bars"][0], "test_end": f["test_bars"][1],
                   "combo": int(index[0]) if len(index) else -1, "rank_correlation": f["rank_correlation"]}
            if len(index):
                row.update({p: top.iloc[0][p] for p in param_names})
            rows.append(row)
        self.folds = pd.DataFrame(rows).rename_axis("fold")
        self.stitched_metrics = pd.Series(np.asarray(raw["stitched_metrics"]), index=names, name="stitched")
        self.stitched_equity = np.asarray(raw["stitched_equity"])
        self.summary = {"stitched_bars": tuple(raw["stitched_bars"]), "efficiency": raw["efficiency"],
                        "param_drift": dict(zip(param_names, raw["param_drift"])), "stability": raw["stability"],
                        "distinct_choices": raw["distinct_choices"]}
