"""One combo's backtest in pandas (docs/python.md "Backtests")."""

import pandas as pd


class Backtest:
    """One combo's backtest (`kbt backtest`): `.stats` (a Series: `kbt backtest`'s
    rows, labelled with their units), `.metrics` (the 21 metrics), `.trades`,
    `.equity` (per window bar: equity, cash, drawdown, buy_and_hold, units per
    symbol) and `.close` (each symbol's close over the window), `.ruined`
    (whether its equity reached 0, docs/semantics.md "Ruin") with `.ruin_bar`,
    `.ruin_time` and `.ruin_equity` (the equity before the floor to 0; None
    when not ruined), and `.plot()`."""

    def __init__(self, raw):
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
        self.close = pd.DataFrame(raw["close"].T, index=index, columns=list(raw["symbols"]))
        self.title = ""
        self.ruin_bar = raw["ruin_bar"]
        self.ruined = self.ruin_bar is not None
        self.ruin_time = None if raw["ruin_time_ns"] is None else pd.Timestamp(raw["ruin_time_ns"], unit="ns", tz="UTC")
        self.ruin_equity = raw["ruin_equity"]

    def plot(self, figsize=(11, 8)):
        """A matplotlib Figure in the three panels of `kbt backtest --plot`:
        equity beside buy-and-hold, each symbol's close with the trades'
        entries and exits, and the drawdown. Needs matplotlib."""
        from . import plots

        return plots.backtest_figure(self, figsize=figsize)

    def __repr__(self):
        ruin = ", ruined at %s (bar %d)" % (self.ruin_time.isoformat(), self.ruin_bar) if self.ruined else ""
        return "<kbt.Backtest %d trades, return %s%s>" % (len(self.trades), self.stats_text.get("Return [%]", "?"), ruin)
