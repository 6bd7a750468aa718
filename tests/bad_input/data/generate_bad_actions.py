"""Generates the damaged actions files of tests/bad_input/data/ (simulate.actions,
docs/simulate.md); run once, the outputs are committed. Not part of the build.
To regenerate: (cd tests/bad_input/data && /usr/bin/python3 generate_bad_actions.py)
(Debian's python3-h5py).

Each starts as a valid actions file, float64 [2 trials][2 symbols][6 bars],
and has one kind of damage, named after it."""

import os
import struct

import h5py
import numpy as np


def clean(path):
    with h5py.File(path, "w", track_order=False) as f:
        f.create_dataset("actions", data=np.full((2, 2, 6), 0.5), track_times=False)
    with open(path, "rb") as f:
        return f.read()


def write(name, data):
    with open(name, "wb") as f:
        f.write(data)


good = clean("actions_clean.tmp")
shape = struct.pack("<3Q", 2, 2, 6)
assert shape in good
# The dataspace declares 2^40 bars (the extent and its maximum): 32 TiB of float64.
write("actions_declares_32tib.h5", good.replace(shape, struct.pack("<3Q", 2, 2, 1 << 40)))
# Cut short inside the data: the superblock's end-of-file is past the end.
write("actions_truncated.h5", good[: len(good) - 40])
os.remove("actions_clean.tmp")
