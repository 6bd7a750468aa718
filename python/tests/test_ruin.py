"""Ruin through `import kbt` (docs/semantics.md "Ruin"): a sweep's levered
combos lose everything; `Results.ruined` flags exactly them, their metrics are
the documented ones, the run warns; a backtest says where the combo was ruined."""

import math
import os

import numpy as np
import pandas as pd
import pytest

import kbt
from support import SOURCE

# The SMA cross on the sample's AAA at 1x and at 1000x (the cap, 1e6, far above).
CONFIG = {
    "data": os.path.join(SOURCE, "data", "sample.h5"),
    "symbols": ["AAA"],
    "strategy": {
        "params": {"fast": {"values": [5, 10]}, "slow": {"values": [20, 50]}, "lev": {"values": [1, 1000]}},
        "signals": {"f": "sma(close, fast)", "s": "sma(close, slow)"},
        "position": "where(f > s, lev, -lev)",
    },
    "simulation": {"initial_capital": 10000, "fee_bps": 5, "max_gross_leverage": 1e6},
    "sweep": {"objective": {"metric": "sharpe"}, "metrics": "all"},
}


@pytest.mark.parametrize("device", ["reference", "serial"])
def test_results_flag_the_ruined_combos(device):
    if device not in kbt.devices():
        pytest.skip("no %s space" % device)
    with pytest.warns(RuntimeWarning, match=r"4 of 8 combos were ruined \(equity reached 0 at a close"):
        results = kbt.run(CONFIG, device=device)
    levered = results.params["lev"] == 1000
    assert results.ruined.dtype == bool
    assert list(results.ruined.index) == list(results.metrics.index)
    assert (results.ruined == levered).all()
    ruined = results.metrics[results.ruined]
    assert (ruined["final_equity"] == 0).all()
    assert (ruined["total_return"] == -1).all() and (ruined["cagr"] == -1).all()
    assert (ruined["max_drawdown"] == -1).all()
    assert np.isfinite(ruined[["sharpe", "sortino", "ann_volatility", "exposure", "turnover"]].to_numpy()).all()
    assert (results.metrics.loc[~results.ruined, "final_equity"] > 0).all()
    assert results.profile["ruined_combos"] == 4


def test_a_backtest_says_where_it_was_ruined():
    bt = kbt.backtest(CONFIG, fast=5, slow=20, lev=1000)
    assert bt.ruined
    assert isinstance(bt.ruin_time, pd.Timestamp) and bt.ruin_equity <= 0
    assert bt.equity.index[bt.ruin_bar] == bt.ruin_time  # the window starts at bar 0
    assert (bt.equity["equity"].iloc[bt.ruin_bar:] == 0).all() and (bt.equity["equity"] >= 0).all()
    assert bt.trades["exit_reason"].iloc[-1] == "ruin"
    assert bt.metrics["final_equity"] == 0 and bt.metrics["total_return"] == -1
    assert "ruined at" in repr(bt)
    calm = kbt.backtest(CONFIG, fast=5, slow=20, lev=1)
    assert not calm.ruined and calm.ruin_bar is None and calm.ruin_time is None and calm.ruin_equity is None
    assert math.isfinite(calm.metrics["final_equity"]) and calm.metrics["final_equity"] > 0
