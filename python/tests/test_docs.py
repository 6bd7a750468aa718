"""docs/python.md's examples run as written: every ```python block, in order,
in one namespace, with the repository's relative paths made absolute (each
block also runs alone in a scratch clone: kbt.docs.examples)."""

import os
import re

from support import SOURCE


def test_the_python_guide_runs(tmp_path, monkeypatch):
    with open(os.path.join(SOURCE, "docs", "python.md"), encoding="utf-8") as f:
        blocks = re.findall(r"```python\n(.*?)```", f.read(), re.S)
    assert len(blocks) >= 3
    monkeypatch.chdir(tmp_path)
    namespace = {}
    for block in blocks:
        code = re.sub(r'"((?:configs|data)/[^"]+)"', lambda m: repr(os.path.join(SOURCE, m.group(1))), block)
        exec(compile(code, "docs/python.md", "exec"), namespace)
    results = namespace["results"]
    assert results.validation is not None and len(results.verify) > 0
    assert (tmp_path / "btc_sma.h5").exists()
    assert namespace["sim"].metrics["n_trades"].sum() > 0
