"""`pip install .` (docs/python.md "Installing"): into a fresh virtual
environment, from this source tree, reusing this build's CMake directory; the
installed package imports and runs outside the tree."""

import os
import subprocess
import sys

from support import SOURCE


def test_pip_install_gives_a_kbt_that_runs_outside_the_tree(tmp_path):
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # not the build's package
    env["KBT_BUILD_DIR"] = os.environ["KBT_BUILD_DIR"]
    subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "-q", SOURCE],
                   env=env, cwd=tmp_path, check=True)
    script = ("import sys, kbt\n"
              "r = kbt.run(sys.argv[1], device='reference')\n"
              "print(kbt.__file__)\n"
              "print(len(r.metrics), int(r.metrics['n_trades'].sum()))\n")
    out = subprocess.run([python, "-c", script, os.path.join(SOURCE, "configs", "sma_cross.yaml")], env=env,
                         cwd=tmp_path, check=True, capture_output=True, text=True).stdout.splitlines()
    assert out[0].startswith(str(venv)), out[0]
    combos, trades = map(int, out[1].split())
    assert combos > 100 and trades > 0
