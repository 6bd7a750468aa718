"""Damaged files that `import kbt` reads back (docs/simulate.md "The simulate
job", docs/calibration.md "Which file applies"): seeded bit flips, truncation
and an actions shape larger than its file give a result or one kbt.Error
naming the file, never a crash of Python or an internal error, as under the CLI
(tests/unit/test_cli_damaged_actions.cpp, test_cli_damaged_calibration.cpp)."""

import os
import random
import struct

import h5py
import numpy as np
import pytest

import kbt
from support import SOURCE, config_file


def flipped(clean, rng, least, most):
    b = bytearray(clean)
    for _ in range(rng.randint(least, most)):
        b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
    return bytes(b)


def test_a_damaged_actions_file_is_a_result_or_an_error_naming_it(tmp_path):
    close = kbt.eval("close", os.path.join(SOURCE, "data", "sample.h5"))
    n_bars, n_symbols = close.shape
    with h5py.File(tmp_path / "clean.h5", "w") as f:
        f["actions"] = np.full((2, n_symbols, n_bars), 0.5)
    clean = (tmp_path / "clean.h5").read_bytes()
    damaged = tmp_path / "actions.h5"

    def from_file(tree):
        del tree["simulate"]["random"]
        tree["simulate"]["actions"] = str(damaged)

    config = config_file(tmp_path, "random_policy.yaml", from_file)
    rng = random.Random(20261208)
    variants = [flipped(clean, rng, 8, 64) for _ in range(12)]
    variants += [clean[: len(clean) // 2], clean[: len(clean) - 100]]
    shape = struct.pack("<3Q", 2, n_symbols, n_bars)
    assert shape in clean, "the dataspace message was not found"  # h5py writes the extents and the maximum
    variants.append(clean.replace(shape, struct.pack("<3Q", 2, n_symbols, 1 << 40)))
    refused = []
    for bytes_ in variants:
        damaged.write_bytes(bytes_)
        try:
            kbt.simulate(config=config, device="reference")
        except kbt.Error as e:
            message, category = e.args[0], e.args[1]
            assert message.startswith(str(damaged) + ": "), message
            # A flipped value that is not an action is the job's value error.
            assert category == "data_format" or (category == "config" and ": /actions: actions: trial " in message), e
            refused.append(message)
    assert len(refused) > 5, "the damage was too light to prove anything"
    assert f"dataset /actions declares {2 * n_symbols * 8 << 40} bytes" in refused[-1]


def test_a_damaged_calibration_file_is_an_error_naming_it(tmp_path, monkeypatch):
    # kbt.run(device="auto") reads the file that KBT_CALIBRATION names.
    bad = os.path.join(SOURCE, "tests", "bad_input", "calibration", "flipped_key.yaml")
    monkeypatch.setenv("KBT_CALIBRATION", bad)
    with pytest.raises(kbt.Error, match="unknown key 'per_instructioo'") as e:
        kbt.run(os.path.join(SOURCE, "configs", "sma_cross.yaml"), device="auto")
    assert e.value.args[1] == "data_format" and e.value.args[0].startswith(bad + ":21:")
    rng = random.Random(7)
    clean = open(os.path.join(SOURCE, "tests", "bad_input", "calibration", "flipped_format.yaml"), "rb").read()
    clean = clean.replace(b"format: 3", b"format: 1")
    damaged = tmp_path / "calibration.yaml"
    monkeypatch.setenv("KBT_CALIBRATION", str(damaged))
    refused = 0
    for variant in [flipped(clean, rng, 1, 8) for _ in range(8)] + [clean[: len(clean) // 2]]:
        damaged.write_bytes(variant)
        try:
            kbt.run(os.path.join(SOURCE, "configs", "sma_cross.yaml"), device="auto")
        except kbt.Error as e:
            assert e.args[1] == "data_format" and e.args[0].startswith(str(damaged) + ":"), e
            refused += 1
    assert refused > 2, "the damage was too light to prove anything"
