"""kbt.simulate and kbt.label (docs/python.md "Action simulations", "Labels")
against the files `kbt run` writes for the same jobs (read with h5py), by
bits; actions are read where they are when they can be."""

import os

import h5py
import numpy as np
import pytest

import kbt
from support import SOURCE, cli, config_file, same_bits

PER_BAR = ("equity", "open_pnl", "drawdown", "reward")


def random_policy(tmp_path, edit=lambda t: None):
    return config_file(tmp_path, "random_policy.yaml", edit)


def check_simulation(sim, path):
    with h5py.File(path, "r") as f:
        for name in kbt.metric_names():
            assert same_bits(sim.metrics[name].to_numpy(dtype=float), f["metrics"][name][:].astype(float)), name
        for name in PER_BAR:
            assert same_bits(getattr(sim, name).to_numpy().T, f["per_bar"][name][:]), name
        assert same_bits(sim.units, f["per_bar"]["units"][:])
    assert sim.metrics["n_trades"].sum() > 0, "vacuous: no trades"


def test_a_random_policy_config_gives_the_cli_file(tmp_path):
    config = random_policy(tmp_path)
    cli("run", config, "-o", tmp_path / "cli.h5", "--device", "reference")
    sim = kbt.simulate(config=config, device="reference")
    assert len(sim.metrics) == 64 and sim.device == "reference"
    check_simulation(sim, tmp_path / "cli.h5")
    on_space = kbt.simulate(config=config, device=[d for d in kbt.devices() if d != "reference"][0])
    assert same_bits(on_space.arrays["metrics"], sim.arrays["metrics"])


def test_numpy_actions_give_the_cli_run_of_the_same_actions_file(tmp_path):
    close = kbt.eval("close", os.path.join(SOURCE, "data", "sample.h5"))
    n_bars, n_symbols = close.shape
    actions = np.random.default_rng(5).choice([-1, -0.5, 0, 0.5, 1], size=(3, n_symbols, n_bars))
    with h5py.File(tmp_path / "actions.h5", "w") as f:
        f["actions"] = actions

    def from_file(tree):
        del tree["simulate"]["random"]
        tree["simulate"]["actions"] = str(tmp_path / "actions.h5")

    config = random_policy(tmp_path, from_file)
    cli("run", config, "-o", tmp_path / "cli.h5", "--device", "reference")
    sim = kbt.simulate(actions, config=config, device="reference")
    assert not sim.actions_copied  # float64, C order: read where it is
    check_simulation(sim, tmp_path / "cli.h5")
    # Another type or order: converted once, the same results.
    for other in (actions.astype(np.float32), np.asfortranarray(actions)):
        again = kbt.simulate(other, config=config, device="reference")
        assert again.actions_copied and same_bits(again.arrays["metrics"], sim.arrays["metrics"])


def test_bad_actions_and_wrong_jobs_are_errors(tmp_path):
    config = random_policy(tmp_path)
    with pytest.raises(kbt.Error, match="actions: .*do not match the data's") as e:
        kbt.simulate(np.zeros((2, 3, 10)), config=config, device="reference")
    assert e.value.args[1] == "config"
    with pytest.raises(kbt.Error, match="NaN is not an action"):
        close = kbt.eval("close", os.path.join(SOURCE, "data", "sample.h5"))
        kbt.simulate(np.full((1, close.shape[1], close.shape[0]), np.nan), config=config, device="reference")
    with pytest.raises(kbt.Error, match="use kbt.label"):
        kbt.run(os.path.join(SOURCE, "configs", "triple_barrier.yaml"))
    with pytest.raises(kbt.Error, match="use kbt.run"):
        kbt.simulate(config=os.path.join(SOURCE, "configs", "sma_cross.yaml"))


def test_labels_equal_the_cli_labels_file(tmp_path):
    config = config_file(tmp_path, "triple_barrier.yaml", lambda t: None)
    cli("run", config, "-o", tmp_path / "cli.h5", "--device", "reference")
    labels = kbt.label(config, device="reference")
    assert len(labels.settings) == 12 and len(labels.events) > 0
    with h5py.File(tmp_path / "cli.h5", "r") as f:
        for name in ("label", "touch_bar", "barrier"):
            assert np.array_equal(labels.arrays[name], f["labels"][name][:]), name
        assert same_bits(labels.arrays["ret"], f["labels"]["ret"][:])
    # The events table: the labels CSV's rows (every bar with a barrier, per setting).
    events = labels.events
    assert (events["barrier"] != "none").all()
    assert list(labels.settings["events"]) == list(events.groupby("setting").size().reindex(range(12), fill_value=0))
    on_space = kbt.label(config, device=[d for d in kbt.devices() if d != "reference"][0])
    assert same_bits(on_space.arrays["ret"], labels.arrays["ret"])
