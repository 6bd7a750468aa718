"""matplotlib pictures of kbt's results: the heatmap of `kbt plot heatmap` and
the equity panels of `kbt backtest --plot` (docs/python.md "Pictures").
matplotlib is imported here only, when a picture is asked for."""

import numpy as np

from ._inputs import Error


def _pyplot():
    try:
        import matplotlib

        if not _interactive():
            matplotlib.use("Agg", force=False)
        import matplotlib.pyplot as plt
    except ImportError as e:
        raise Error("pictures need matplotlib (pip install matplotlib, or apt install python3-matplotlib): %s" % e,
                    "unsupported") from None
    return plt


def _interactive():
    import sys

    return "IPython" in sys.modules or hasattr(sys, "ps1")


def _new_axes(ax, figsize):
    if ax is not None:
        return ax.figure, ax
    from matplotlib.figure import Figure

    _pyplot()
    figure = Figure(figsize=figsize)
    return figure, figure.add_subplot(1, 1, 1)


def heatmap_figure(grid, ax=None, figsize=(8, 6)):
    """A Figure of a heatmap grid (Results.heatmap_grid): viridis cells, grey
    where only ineligible combos fall, the best combo circled in red."""
    figure, ax = _new_axes(ax, figsize)
    z = grid.to_numpy(dtype=float)
    if not np.isfinite(z).any():
        raise Error("no combo has a finite %s to plot" % grid.attrs["metric"], "config")
    excluded = grid.attrs["excluded"].to_numpy()
    image = ax.imshow(np.ma.masked_invalid(z), origin="lower", aspect="auto", cmap="viridis", interpolation="nearest")
    if excluded.any():
        grey = np.where(excluded, 1.0, np.nan)
        ax.imshow(np.ma.masked_invalid(grey), origin="lower", aspect="auto", cmap="Greys", vmin=0, vmax=4,
                  interpolation="nearest")
    step_x = max(1, (len(grid.columns) + 15) // 16)
    step_y = max(1, (len(grid.index) + 15) // 16)
    ax.set_xticks(range(0, len(grid.columns), step_x))
    ax.set_xticklabels(["%g" % v for v in grid.columns[::step_x]])
    ax.set_yticks(range(0, len(grid.index), step_y))
    ax.set_yticklabels(["%g" % v for v in grid.index[::step_y]])
    ax.set_xlabel(grid.columns.name)
    ax.set_ylabel(grid.index.name)
    a = grid.attrs
    figure.colorbar(image, ax=ax, label=a["metric"] + ("" if a["agg"] == "best" else " (%s)" % a["agg"]))
    best = a["best"]
    if best is not None:
        ax.plot([best["ix"]], [best["iy"]], "o", markersize=14, markerfacecolor="none", markeredgecolor="red",
                markeredgewidth=2.5, label="best combo %d: %s %.6g" % (best["combo"], a["metric"], best["value"]))
        ax.legend(loc="upper left", fontsize="small")
    subtitle = {"best": "other parameters at the best combo's: " + a["fixed"] if a["fixed"] else "every combo",
                "max": "max over the other parameters", "median": "median over the other parameters"}[a["agg"]]
    ax.set_title("%s over %s x %s\n%s" % (a["metric"], grid.columns.name, grid.index.name, subtitle), fontsize="medium")
    return figure


def backtest_figure(bt, figsize=(11, 8)):
    """A Figure in three panels sharing the time axis: the equity beside
    buy-and-hold; the close (several symbols: each over its first close in
    the window) with long entries, short entries and exits; the drawdown."""
    _pyplot()
    from matplotlib.figure import Figure

    figure = Figure(figsize=figsize)
    top, middle, bottom = figure.subplots(3, 1, sharex=True, gridspec_kw={"height_ratios": [3, 3, 2]})
    e = bt.equity
    top.plot(e.index, e["equity"], color="#1f77b4", linewidth=1.5, label="strategy")
    top.plot(e.index, e["buy_and_hold"], color="#7f7f7f", linewidth=1, linestyle="--", label="buy and hold")
    top.set_ylabel("equity")
    top.legend(loc="upper left")
    close = bt.close
    several = close.shape[1] > 1
    base = {s: (close[s].dropna().iloc[0] if several and close[s].notna().any() else 1.0) for s in close.columns}
    for s in close.columns:
        middle.plot(close.index, close[s] / base[s], color="#555555", linewidth=0.8)
    t = bt.trades
    scale_entry = t["entry_price"] / t["symbol"].map(base) if len(t) else t["entry_price"]
    scale_exit = t["exit_price"] / t["symbol"].map(base) if len(t) else t["exit_price"]
    longs, shorts = t["side"] == "long", t["side"] == "short"
    middle.scatter(t["entry_time"][longs], scale_entry[longs], marker="^", color="#2ca02c", label="long entry", zorder=3)
    middle.scatter(t["entry_time"][shorts], scale_entry[shorts], marker="v", color="#d62728", label="short entry",
                   zorder=3)
    middle.scatter(t["exit_time"], scale_exit, marker="x", color="#000000", label="exit", zorder=3)
    middle.set_ylabel("close / first close" if several else "price")
    middle.legend(loc="upper left", fontsize="small")
    drawdown = 100.0 * e["drawdown"]
    bottom.fill_between(e.index, drawdown, 0, color="#d62728", alpha=0.5)
    bottom.plot(e.index, drawdown, color="#d62728", linewidth=0.8)
    bottom.set_ylabel("drawdown (%)")
    bottom.set_xlabel("time (UTC)")
    for ax in (top, middle, bottom):
        ax.grid(True, alpha=0.3)
    if bt.title:
        figure.suptitle(bt.title)
    figure.tight_layout()
    return figure
