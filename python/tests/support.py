"""What the pytest files share: the CLI to compare with, bits of a float, bars."""

import json
import math
import os
import struct
import subprocess

import numpy as np
import pandas as pd

CLI = os.environ["KBT_CLI"]
SOURCE = os.environ["KBT_SOURCE_DIR"]


def bits(x):
    return struct.pack("<d", float(x))


def cli_rows(config, tmp_path, extra=()):
    """Every row of a `kbt run` of `config`, by combo id, read back by `kbt show --json`."""
    out = tmp_path / "cli.h5"
    subprocess.run([CLI, "run", config, "-o", str(out), "--quiet", "--no-verify", *extra], check=True)
    shown = subprocess.run([CLI, "show", str(out), "--json", "--sort", "total_return", "--rows", "100000"],
                           check=True, capture_output=True, text=True)
    return {row["combo"]: row for row in json.loads(shown.stdout)["rows"]}


def expect_same_rows(results, rows):
    assert len(results.metrics) == len(rows) > 0
    traded = 0
    for combo, row in rows.items():
        for name, value in row["params"].items():
            assert results.params.at[combo, name] == value, (combo, name)
        for name, value in row["metrics"].items():
            mine = results.metrics.at[combo, name]
            if value is None:
                assert math.isnan(mine), (combo, name)
            else:
                assert bits(mine) == bits(value), (combo, name, mine, value)
        traded += row["metrics"]["n_trades"]
    assert traded > 0, "vacuous case: no trades"


def bars_frame(n=600, seed=3):
    rng = np.random.default_rng(seed)
    close = 100 * np.exp(np.cumsum(rng.normal(0, 0.01, n)))
    index = pd.date_range("2022-01-01", periods=n, freq="h", tz="UTC")
    frame = pd.DataFrame({"open": close * (1 + rng.normal(0, 0.001, n)), "close": close}, index=index)
    frame["high"] = frame[["open", "close"]].max(axis=1) * 1.002
    frame["low"] = frame[["open", "close"]].min(axis=1) * 0.998
    frame["volume"] = rng.uniform(1, 10, n)
    return frame[["open", "high", "low", "close", "volume"]]


def imported(frame, tmp_path):
    """`frame` written as a CSV (every digit) and made a data file by `kbt data import`, symbol ABC."""
    csv = tmp_path / "ABC.csv"
    frame.rename_axis("time").to_csv(csv, float_format="%.17g", date_format="%Y-%m-%dT%H:%M:%SZ")
    h5 = tmp_path / "abc.h5"
    subprocess.run([CLI, "data", "import", "-o", str(h5), "--symbol", "ABC=" + str(csv)], check=True,
                   capture_output=True)
    return h5


def same_bits(a, b):
    """Two float arrays equal bit for bit (NaN payloads included)."""
    a, b = np.ascontiguousarray(a, dtype=np.float64), np.ascontiguousarray(b, dtype=np.float64)
    return a.shape == b.shape and a.tobytes() == b.tobytes()


def config_file(tmp_path, name, edit):
    """configs/<name> with `edit(tree)` applied, written to tmp_path with its data path made absolute."""
    import yaml

    with open(os.path.join(SOURCE, "configs", name), encoding="utf-8") as f:
        tree = yaml.safe_load(f)
    tree["data"] = os.path.join(SOURCE, "configs", tree["data"])
    edit(tree)
    path = tmp_path / name
    path.write_text(yaml.safe_dump(tree, sort_keys=False))
    return str(path)


def cli(*args):
    return subprocess.run([CLI, *map(str, args)], check=True, capture_output=True, text=True)


# A small sweep for DataFrame bars (bars_frame): 10 combos.
CONFIG_SMALL = {
    "strategy": {
        "params": {"fast": {"range": [3, 15, 3]}, "slow": {"values": [20, 30]}},
        "signals": {"f": "sma(close, fast)", "s": "sma(close, slow)"},
        "position": "where(f > s, 1, -1)",
    },
    "simulation": {"fee_bps": 2},
    "sweep": {"objective": {"metric": "sharpe"}, "top_k": 3},
}


def interrupt_at(n, calls):
    """A progress callback that records each call in `calls` and, at the n-th,
    raises KeyboardInterrupt in the main thread, as Ctrl-C would."""
    import _thread

    def progress(done, total, unit):
        calls.append(done)
        if len(calls) == n:
            _thread.interrupt_main()

    return progress
