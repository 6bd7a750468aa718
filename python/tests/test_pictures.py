"""Pictures with matplotlib (docs/python.md "Pictures"): Results.heatmap draws
its grid, Backtest.plot the backtest's equity, trades and drawdown."""

import numpy as np
import kbt
from support import config_file, same_bits


def test_heatmap_draws_the_grid_and_circles_the_best_combo(tmp_path):
    from matplotlib.figure import Figure

    r = kbt.run(config_file(tmp_path, "sma_cross.yaml", lambda t: None), device="reference")
    grid = r.heatmap_grid("fast", "slow")
    figure = r.heatmap("fast", "slow")
    assert isinstance(figure, Figure)
    ax = figure.axes[0]
    drawn = np.ma.filled(ax.images[0].get_array().astype(float), np.nan)
    assert same_bits(drawn, grid.to_numpy()) and np.isfinite(drawn).sum() > 10
    best = grid.attrs["best"]
    circle = ax.lines[0]
    assert (circle.get_xdata()[0], circle.get_ydata()[0]) == (best["ix"], best["iy"])
    assert [t.get_text() for t in ax.get_xticklabels()][0] == "%g" % grid.columns[0]
    figure.savefig(tmp_path / "heatmap.png")
    assert (tmp_path / "heatmap.png").stat().st_size > 1000
    median = r.heatmap("fast", "slow", metric="total_return", agg="median")
    assert "median" in median.axes[0].get_title()


def test_backtest_plot_draws_equity_trades_and_drawdown(tmp_path):
    bt = kbt.backtest(config_file(tmp_path, "sma_cross.yaml", lambda t: None), fast=10, slow=50)
    assert len(bt.trades) > 0, "vacuous: no trades"
    figure = bt.plot()
    top, middle, bottom = figure.axes
    assert same_bits(top.lines[0].get_ydata(), bt.equity["equity"].to_numpy())
    assert same_bits(top.lines[1].get_ydata(), bt.equity["buy_and_hold"].to_numpy())
    assert same_bits(middle.lines[0].get_ydata(), bt.close.iloc[:, 0].to_numpy())  # one symbol: the price itself
    longs, shorts, exits = middle.collections
    assert len(longs.get_offsets()) == (bt.trades["side"] == "long").sum()
    assert len(shorts.get_offsets()) == (bt.trades["side"] == "short").sum()
    assert len(exits.get_offsets()) == len(bt.trades)
    assert same_bits(exits.get_offsets()[:, 1], bt.trades["exit_price"].to_numpy())
    assert same_bits(bottom.lines[0].get_ydata(), 100.0 * bt.equity["drawdown"].to_numpy())
    figure.savefig(tmp_path / "backtest.png")
    assert (tmp_path / "backtest.png").stat().st_size > 1000


def test_several_symbols_are_drawn_over_their_first_close(tmp_path):
    bt = kbt.backtest(config_file(tmp_path, "multi_asset_funding.yaml", lambda t: None), w=48)
    middle = bt.plot().axes[1]
    assert len(middle.lines) == bt.close.shape[1] > 1
    for line, symbol in zip(middle.lines, bt.close.columns):
        first = bt.close[symbol].dropna().iloc[0]
        assert same_bits(line.get_ydata(), (bt.close[symbol] / first).to_numpy())
