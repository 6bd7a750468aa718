"""DataFrames over kbt's arrays: the metrics matrix viewed, not copied."""

import numpy as np
import pandas as pd


def _counts():
    from . import _kbt

    return set(_kbt.count_metrics())


def _whole(column):
    return bool(np.isfinite(column).all())


def metrics_frame(matrix, names, index):
    """The [rows][21] float64 metrics as a DataFrame, the counts (n_trades,
    max_drawdown_duration) as int64 when every row has them.

    The float columns are views of `matrix` (it may be a read-only view of
    kbt's own memory), one block per run of neighbouring float columns; only
    the count columns are copied. Returns (frame, copied); where this pandas
    cannot hold such blocks, the frame is an ordinary copy and `copied` says
    so."""
    names = list(names)
    counts = _counts()
    integer = [j for j, name in enumerate(names) if name in counts and _whole(matrix[:, j])]
    try:
        from pandas.core.internals import BlockManager
        from pandas.core.internals.api import make_block

        blocks, start = [], 0
        for j in integer + [len(names)]:
            if j > start:
                blocks.append(make_block(matrix[:, start:j].T, placement=slice(start, j)))
            if j < len(names):
                blocks.append(make_block(matrix[:, j].astype(np.int64)[None, :], placement=slice(j, j + 1)))
            start = j + 1
        manager = BlockManager(blocks, [pd.Index(names), index])
        frame = pd.DataFrame._from_mgr(manager, manager.axes) if hasattr(pd.DataFrame, "_from_mgr") else pd.DataFrame(manager)
        floats = [name for j, name in enumerate(names) if j not in integer]
        if len(frame) == 0 or not floats or np.shares_memory(frame[floats[0]].to_numpy(), matrix):
            return frame, False
    except (ImportError, TypeError, ValueError, AttributeError):
        pass
    return table(matrix, names, index), True


def table(matrix, names, index):
    """A DataFrame copy of a small metrics matrix, the counts as int64 when
    every row has them."""
    frame = pd.DataFrame(np.array(matrix), columns=list(names), index=index)
    for name in _counts():
        if name in frame and _whole(frame[name].to_numpy()):
            frame[name] = frame[name].astype(np.int64)
    return frame
