"""`pip install .` (docs/python.md "Installing"): from a fresh `git clone` in an
empty folder, into a fresh virtual environment; the installed package imports
and runs outside the tree. The install reuses this build's CMake directory
(KBT_BUILD_DIR), so that the test does not compile kbt a second time; the
clone's own first step, without any build folder, is checked on its own."""

import os
import subprocess
import sys

import pytest

from support import SOURCE


def fresh_clone(tmp_path):
    if not os.path.isdir(os.path.join(SOURCE, ".git")):
        pytest.skip("the source is not a git work tree: nothing to clone")
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", SOURCE, str(clone)], check=True)
    assert not any(name.startswith("build") for name in os.listdir(clone)), "the clone holds a build folder"
    return clone


def test_a_fresh_clone_gets_its_build_requirements_with_no_build_folder(tmp_path):
    # pip's first hook on a fresh clone (get_requires_for_build_wheel, which runs
    # egg_info) failed with "error in 'egg_base' option: '<clone>/build-pip' does
    # not exist or is not a directory". The next test runs pip itself.
    clone = fresh_clone(tmp_path)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "KBT_BUILD_DIR")}
    script = "from setuptools import build_meta\nprint(build_meta.get_requires_for_build_wheel())"
    subprocess.run([sys.executable, "-c", script], cwd=clone, env=env, check=True, capture_output=True, text=True)
    assert (clone / "build-pip" / "kbt.egg-info" / "PKG-INFO").is_file()


def test_pip_install_from_a_fresh_clone_gives_a_kbt_that_runs_outside_the_tree(tmp_path):
    clone = fresh_clone(tmp_path)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}  # not the build's package
    env["KBT_BUILD_DIR"] = os.environ["KBT_BUILD_DIR"]
    subprocess.run([python, "-m", "pip", "install", "--no-build-isolation", "--no-deps", "--no-index", "-q",
                    str(clone)], env=env, cwd=tmp_path, check=True)
    script = ("import sys, kbt\n"
              "r = kbt.run(sys.argv[1], device='reference')\n"
              "print(kbt.__file__)\n"
              "print(len(r.metrics), int(r.metrics['n_trades'].sum()))\n")
    out = subprocess.run([python, "-c", script, os.path.join(SOURCE, "configs", "sma_cross.yaml")], env=env,
                         cwd=tmp_path, check=True, capture_output=True, text=True).stdout.splitlines()
    assert out[0].startswith(str(venv)), out[0]
    combos, trades = map(int, out[1].split())
    assert combos > 100 and trades > 0
