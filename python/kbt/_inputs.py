"""What the public functions share: a config as YAML text (overrides merged),
data as the native module takes it, and a progress callback."""

import json
import os

from . import _kbt

Error = _kbt.Error

# The most nodes (mappings, lists and scalars) a config given as a dict may
# expand to. A dict may share sub-objects, which JSON writes out once per use:
# 9 keys each holding the same 9-element list 7 levels deep is 9^7 leaves.
# Counted before anything is written out (docs/python.md "Configs").
MAX_CONFIG_NODES = 1_000_000


def check_config_size(tree, source):
    """kbt.Error(limit) when `tree` expands to more than MAX_CONFIG_NODES nodes
    (shared sub-objects counted at each use; a cycle counts without end)."""
    count, stack = 0, [tree]
    while stack:
        node = stack.pop()
        count += 1
        if count > MAX_CONFIG_NODES:
            raise Error("%s: the config expands to more than %d nodes (mappings, lists and values, a shared "
                        "sub-object counted at each use); a run config is far smaller" % (source, MAX_CONFIG_NODES),
                        "limit")
        if isinstance(node, dict):
            stack.extend(node.values())
        elif isinstance(node, (list, tuple)):
            stack.extend(node)


def config_text(config, overrides):
    """(yaml_text, source_name, base_dir) of a path, YAML text or dict, with overrides merged."""
    if isinstance(config, dict):
        text, source, base = None, "<dict>", os.getcwd()
        tree = config
        check_config_size(tree, source)
    elif isinstance(config, (str, os.PathLike)) and os.path.isfile(config):
        path = os.fspath(config)
        with open(path, encoding="utf-8") as f:
            text = f.read()
        source, base, tree = path, os.path.dirname(os.path.abspath(path)), None
    elif isinstance(config, str):
        text, source, base, tree = config, "<text>", os.getcwd(), None
    else:
        raise TypeError("config: a YAML path, YAML text or a dict, not %s" % type(config).__name__)
    if overrides:
        check_config_size(overrides, source + " overrides")
    if not overrides:
        return (text if tree is None else json.dumps(tree, default=str)), source, base
    if tree is None:
        import yaml  # only to merge overrides into YAML text

        tree = yaml.safe_load(text)
        if not isinstance(tree, dict):
            raise Error("%s: the config is not a mapping" % source, "config")
    tree = merged(tree, overrides)
    # JSON is YAML: the merged tree goes to kbt's config loader as one document
    # (its messages then give lines and columns of that JSON text).
    if tree is not config:
        source += " with overrides, as JSON"
    return json.dumps(tree, default=str), source, base


def merged(tree, overrides):
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
            node[last] = merged(node[last], value)
        else:
            node[last] = value
    return out


def bars(data):
    """None, a path (str), a DataFrame (one symbol) or {symbol: DataFrame} as what
    the native module takes: (path or None, {symbol: {column: ndarray}} or None)."""
    if data is None:
        return None, None
    if isinstance(data, (str, os.PathLike)):
        return os.path.abspath(os.fspath(data)), None
    import numpy as np
    import pandas as pd

    frames = {"data": data} if isinstance(data, pd.DataFrame) else dict(data)
    out = {}
    for symbol, frame in frames.items():
        if not isinstance(frame, pd.DataFrame) or not isinstance(frame.index, pd.DatetimeIndex):
            raise Error("data: symbol '%s': a DataFrame with a DatetimeIndex is expected" % symbol, "data_format")
        index = frame.index
        if index.tz is not None:
            index = index.tz_convert("UTC").tz_localize(None)
        # The frame as it is: which columns count, their order in time and the
        # union of the symbols' times are kbt's rules, the CSV import's
        # (docs/data-format.md "One set of rules").
        columns = {}
        for name in frame.columns:
            try:
                columns[str(name)] = np.ascontiguousarray(frame[name].to_numpy(dtype=np.float64, na_value=np.nan))
            except (TypeError, ValueError):
                columns[str(name)] = None
        out[str(symbol)] = {"timestamps": np.ascontiguousarray(index.asi8, dtype=np.int64), "columns": columns}
    return None, out


def progress_callback(progress):
    """(callback(done, total, unit), closer) for the native module: None for no
    progress; a callable as given (called with done, total and unit: "combos"
    for the sweep, "candidates" for the verification); True: a tqdm bar per
    stage when tqdm is installed, else a line on stderr."""
    if progress is None or progress is False:
        return None, None
    if callable(progress):
        return progress, None
    try:
        from tqdm import tqdm
    except ImportError:
        import sys

        def line(done, total, unit):
            sys.stderr.write("\rkbt: %d / %d %s" % (done, total, unit) + ("\n" if done >= total else ""))
            sys.stderr.flush()

        return line, None
    bars = {}

    def update(done, total, unit):
        bar = bars.get(unit)
        if bar is None:
            bar = bars[unit] = tqdm(unit=unit[:-1] if unit.endswith("s") else unit, total=total)
        bar.total = total
        bar.n = done
        bar.refresh()

    def close():
        for bar in bars.values():
            bar.close()

    return update, close
