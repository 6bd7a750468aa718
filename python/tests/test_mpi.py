"""kbt.run(comm=...) (docs/python.md "Under MPI"): the ranks of an mpi4py
communicator share one sweep as `mpirun kbt run` does; rank 0's results file
equals one process's by bits, every other rank gets None."""

import json
import os
import subprocess
import sys

import h5py
import numpy as np
import pytest

import kbt
from support import SOURCE

CONFIG = os.path.join(SOURCE, "configs", "sma_cross.yaml")

SHARED = """
import json, sys
from mpi4py import MPI
import kbt
comm = MPI.COMM_WORLD
# The reference engine on one thread: slow enough that both ranks take chunks
# (a fast sweep may all go to whichever rank starts first).
r = kbt.run(sys.argv[2], device="reference", threads=1, out=sys.argv[3], comm=comm, sweep__checkpoint_combos=8)
line = {"rank": comm.rank, "none": r is None}
if r is not None:
    line["rows"] = len(r.metrics)
    line["ranks"] = r.profile["mpi_ranks"]
    line["rank_combos"] = [int(n) for n in r.profile["mpi_rank_combos"].split(",")]
with open(sys.argv[1] + ".rank%d.json" % comm.rank, "w") as f:
    json.dump(line, f)
"""


def on_two_ranks(tmp_path, script, *args, timeout):
    """Runs `script` on 2 ranks under mpiexec (argv: the report prefix, then
    `args`) and returns what each rank wrote to <prefix>.rank<N>.json (a file
    per rank: mpiexec may join the ranks' stdout lines)."""
    mpiexec = os.environ.get("KBT_MPIEXEC", "").split()
    assert mpiexec, "ctest sets KBT_MPIEXEC in an MPI build"
    path, report = tmp_path / "script.py", tmp_path / "report"
    path.write_text(script)
    env = dict(os.environ, OMPI_MCA_btl_vader_single_copy_mechanism="none", OMP_PROC_BIND="false")
    done = subprocess.run([*mpiexec, "-n", "2", sys.executable, str(path), str(report), *map(str, args)],
                          env=env, capture_output=True, text=True, timeout=timeout)
    assert done.returncode == 0, done.stderr
    lines = []
    for rank in range(2):
        with open(f"{report}.rank{rank}.json", encoding="utf-8") as f:
            lines.append(json.load(f))
    assert [x["rank"] for x in lines] == [0, 1]
    return lines


def datasets(path):
    """Every dataset of the rows and the top-K, by path."""
    out = {}
    with h5py.File(path, "r") as f:
        for top in ("combo_id", "params", "metrics", "topk"):
            if isinstance(f[top], h5py.Dataset):
                out[top] = f[top][()]
                continue
            f[top].visititems(lambda name, d, top=top: out.__setitem__(top + "/" + name, d[()])
                              if isinstance(d, h5py.Dataset) else None)
    return out


def test_the_ranks_of_a_communicator_share_one_sweep(tmp_path):
    if not kbt.mpi_compiled_in:
        with pytest.raises(kbt.Error, match="without MPI"):
            kbt.run(CONFIG, comm=0)
        return
    lines = on_two_ranks(tmp_path, SHARED, CONFIG, tmp_path / "shared.h5", timeout=300)
    assert lines[1]["none"] and not lines[0]["none"]
    assert lines[0]["ranks"] == 2
    assert min(lines[0]["rank_combos"]) > 0, "both ranks simulated chunks"

    alone = kbt.run(CONFIG, device="reference", threads=1, out=tmp_path / "alone.h5", sweep__checkpoint_combos=8)
    assert lines[0]["rows"] == len(alone.metrics) > 0
    shared, single = datasets(tmp_path / "shared.h5"), datasets(tmp_path / "alone.h5")
    assert sorted(shared) == sorted(single) and "metrics/sharpe" in shared
    for name, values in single.items():
        assert shared[name].dtype == values.dtype, name
        assert shared[name].tobytes() == values.tobytes(), name
    assert np.count_nonzero(single["metrics/n_trades"]) > 0


ONE_RANK_FAILS = """
import json, sys
from mpi4py import MPI
import kbt
comm = MPI.COMM_WORLD
data = sys.argv[3] if comm.rank == 0 else sys.argv[3] + ".missing"
try:
    kbt.run(sys.argv[2], data=data, device="serial", comm=comm)
    line = {"rank": comm.rank, "error": None}
except kbt.Error as e:
    line = {"rank": comm.rank, "error": str(e.args[0]), "category": e.args[1]}
with open(sys.argv[1] + ".rank%d.json" % comm.rank, "w") as f:
    json.dump(line, f)
"""


def test_input_only_one_rank_cannot_read_fails_every_rank_alike(tmp_path):
    if not kbt.mpi_compiled_in:
        return  # without MPI, comm= is refused: the test above
    data = os.path.join(SOURCE, "data", "sample.h5")
    # Unagreed, the ranks would wait for each other: the timeout fails the test.
    lines = on_two_ranks(tmp_path, ONE_RANK_FAILS, CONFIG, data, timeout=120)
    for line in lines:
        assert line["error"] is not None and line["error"].startswith("rank 1: "), line
        assert ".missing" in line["error"] and line["category"] == "io", line
