"""Action simulations and labels in pandas (docs/python.md "Action
simulations", "Labels")."""

import numpy as np
import pandas as pd

from . import _frames


class Simulation:
    """Trials of actions simulated (docs/simulate.md): `.metrics` (a DataFrame,
    one row per trial, the 21 metrics) and, with simulate.per_bar, per trial
    and window bar: `.equity`, `.open_pnl`, `.drawdown`, `.reward` (DataFrames
    indexed by time, one column per trial) and `.units` (an array [trials]
    [window bars][symbols]); `.arrays` holds every output as the NumPy array
    kbt made (not copied); `.device`, `.actions_copied`, `.profile`."""

    def __init__(self, raw):
        self.arrays = {k: raw[k] for k in ("metrics", "equity", "units", "open_pnl", "drawdown", "reward") if k in raw}
        trials = pd.RangeIndex(raw["metrics"].shape[0], name="trial")
        self.metrics, _ = _frames.metrics_frame(raw["metrics"], raw["metric_names"], trials)
        self.times = pd.DatetimeIndex(pd.to_datetime(np.asarray(raw["times"]), utc=True), name="time")
        self.symbols = list(raw["symbols"])
        for name in ("equity", "open_pnl", "drawdown", "reward"):
            value = None
            if name in raw:
                value = pd.DataFrame(raw[name].T, index=self.times, columns=trials, copy=False)
            setattr(self, name, value)
        self.units = raw.get("units")
        self.device = raw["device"]
        self.actions_copied = bool(raw["actions_copied"])
        self.profile = {k: raw[k] for k in ("seconds_load", "seconds_actions", "seconds_simulate")}

    def __repr__(self):
        return "<kbt.Simulation %d trials x %d window bars on %s>" % (len(self.metrics), len(self.times), self.device)


class Labels:
    """Triple-barrier labels (docs/label.md): `.settings` (a DataFrame per
    barrier setting: profit_take, stop, horizon, events), `.events` (one row per
    labelled bar and setting, the columns of the labels CSV), `.volatility` and
    `.side` (DataFrames indexed by time, one column per symbol) and `.arrays`
    ([setting][symbol][bar] label, touch_bar, ret, barrier as kbt made them)."""

    def __init__(self, raw):
        self.arrays = {k: raw[k] for k in ("label", "touch_bar", "ret", "barrier")}
        self.symbols = list(raw["symbols"])
        times = pd.to_datetime(np.asarray(raw["times"]), utc=True)
        self.times = pd.DatetimeIndex(times, name="time")
        self.settings = pd.DataFrame({
            "profit_take": raw["profit_take"], "stop": raw["stop"], "horizon": raw["horizon"],
            "events": np.asarray(raw["events"]).astype(np.int64),
        }).rename_axis("setting")
        self.volatility = pd.DataFrame(raw["volatility"].T, index=self.times, columns=self.symbols)
        self.side = pd.DataFrame(raw["side"].T, index=self.times, columns=self.symbols)
        barrier = raw["barrier"]
        setting, symbol, bar = np.nonzero(barrier != raw["barrier_none"])  # as the labels CSV, events only
        touch = raw["touch_bar"][setting, symbol, bar]
        names = np.asarray(raw["barrier_names"], dtype=object)
        self.events = pd.DataFrame({
            "setting": setting.astype(np.int64),
            "profit_take": self.settings["profit_take"].to_numpy()[setting],
            "stop": self.settings["stop"].to_numpy()[setting],
            "horizon": self.settings["horizon"].to_numpy()[setting],
            "symbol": np.asarray(self.symbols, dtype=object)[symbol],
            "time": times[bar],
            "side": raw["side"][symbol, bar],
            "volatility": raw["volatility"][symbol, bar],
            "label": raw["label"][setting, symbol, bar].astype(np.int64),
            "barrier": names[barrier[setting, symbol, bar]],
            "touch_time": times[touch],
            "touch_bar": touch.astype(np.int64),
            "ret": raw["ret"][setting, symbol, bar],
        })
        self.device = raw["device"]
        self.profile = {k: raw[k] for k in ("seconds_load", "seconds_expressions", "seconds_labels")}

    def __repr__(self):
        return "<kbt.Labels %d settings, %d events on %s>" % (len(self.settings), len(self.events), self.device)
