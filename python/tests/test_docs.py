"""docs/python.md's examples run as written: every ```python block, in order,
in one namespace, with the walk-through's CSV made from the sample data and
the repository's relative paths made absolute."""

import os
import re

import pandas as pd

import kbt
from support import SOURCE


def sample_csv(path):
    """One symbol of data/sample.h5 as the CSV the walk-through reads."""
    data = os.path.join(SOURCE, "data", "sample.h5")
    columns = {c: kbt.eval(c, data) for c in ("open", "high", "low", "close", "volume")}
    symbol = columns["close"].columns[0]
    frame = pd.DataFrame({c: v[symbol] for c, v in columns.items()})
    frame.index = frame.index.tz_localize(None)
    frame.rename_axis("time").to_csv(path, float_format="%.17g")


def test_the_python_guide_runs(tmp_path, monkeypatch):
    with open(os.path.join(SOURCE, "docs", "python.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) >= 3
    sample_csv(tmp_path / "btc_1h.csv")
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks:
        code = re.sub(r'"((?:configs|data)/[^"]+)"', lambda m: repr(os.path.join(SOURCE, m.group(1))), block)
        exec(compile(code, "docs/python.md", "exec"), namespace)
    results = namespace["results"]
    assert results.validation is not None and len(results.verify) > 0
    assert (tmp_path / "btc_sma.h5").exists()
    assert namespace["sim"].metrics["n_trades"].sum() > 0
