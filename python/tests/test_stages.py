"""`kbt.run`'s whole job (docs/python.md "Sweeps"): the verification and
validation stages equal, by bits, what `kbt run` writes in its results file
(read with h5py); a run with `out` is `kbt run --out`: an interrupt leaves a
checkpoint that resumes to the CLI's rows; `to_hdf5` writes the CLI's file;
the metrics are views of kbt's memory; the heatmap grid equals a pivot of the
rows."""

import os

import h5py
import numpy as np
import pandas as pd
import pytest

import kbt
from support import CONFIG_SMALL, bars_frame, cli, cli_rows, config_file, expect_same_rows, interrupt_at, same_bits


def with_validation(validation):
    def edit(tree):
        tree["validation"] = validation
        tree["output"] = {"path": "unused.h5"}

    return edit


def check_verify(frame, group):
    assert len(frame) > 0, "vacuous: no verified candidates"
    assert list(frame.index) == list(group["combo_id"][:])
    for name in ("rank_before", "rank_after"):
        assert list(frame[name]) == list(group[name][:]), name
    assert list(frame["mismatch"]) == [bool(x) for x in group["mismatch"][:]]
    assert not frame["mismatch"].any()
    for name in kbt.metric_names():
        assert same_bits(frame[name].to_numpy(dtype=float), group["metrics"][name][:].astype(float)), name


def test_holdout_validation_and_verify_equal_the_cli_file(tmp_path):
    config = config_file(tmp_path, "sma_cross.yaml", with_validation({"holdout": 0.3, "top_k": 20, "pbo_blocks": 8}))
    cli("run", config, "-o", tmp_path / "cli.h5", "--device", "reference", "--quiet")
    r = kbt.run(config, device="reference")
    with h5py.File(tmp_path / "cli.h5", "r") as f:
        check_verify(r.verify, f["verify"])
        g = f["validation"]
        v = r.validation
        assert len(v.candidates) == 20 and list(v.candidates.index) == list(g["combo_id"][:])
        for name in ("sharpe", "skewness", "kurtosis", "psr", "dsr", "min_trl"):
            assert same_bits(v.candidates[name], g[name][:]), name
        assert same_bits(v.period_returns.to_numpy(), g["period_returns"][:])
        assert list(v.period_returns.index.asi8) == list(g["period_start_ns"][:])
        for name in kbt.metric_names():
            assert same_bits(v.test_metrics[name].to_numpy(dtype=float), g["test_metrics"][name][:].astype(float)), name
            assert same_bits(v.train_metrics[name].to_numpy(dtype=float), g["metrics"][name][:].astype(float)), name
        assert list(v.candidates["rank_out_of_sample"]) == list(g["rank_out_of_sample"][:])
        assert v.pbo is not None and len(v.pbo["logits"]) > 0
        assert same_bits(v.pbo["logits"], g["pbo_logits"][:])
        assert same_bits([v.pbo["pbo"]], [g.attrs["pbo"]])
        assert same_bits([v.summary["effective_trials"]], [g.attrs["effective_trials"]])
    assert "PBO" in v.text and v.walk_forward is None


def test_walk_forward_equals_the_cli_file(tmp_path):
    config = config_file(tmp_path, "sma_cross.yaml",
                         with_validation({"walk_forward": {"train": "180d", "test": "60d"}, "top_k": 5}))
    cli("run", config, "-o", tmp_path / "cli.h5", "--device", "reference", "--quiet", "--no-verify")
    r = kbt.run(config, device="reference", verify={"top_n": 0})
    w = r.validation.walk_forward
    with h5py.File(tmp_path / "cli.h5", "r") as f:
        g = f["validation"]["walk_forward"]
        assert len(w.folds) == len(g["chosen_combo_id"][:]) >= 3
        assert list(w.folds["combo"]) == list(g["chosen_combo_id"][:])
        assert list(w.folds["test_begin"]) == list(g["test_begin"][:])
        assert same_bits(w.stitched_equity, g["stitched_equity"][:])
        for name in kbt.metric_names():
            assert same_bits([w.stitched_metrics[name]], g["stitched_metrics"][name][:].astype(float)), name
        assert same_bits([w.summary["efficiency"]], [g.attrs["efficiency"]])


def test_an_interrupted_run_resumes_from_its_checkpoint_to_the_cli_rows(tmp_path):
    config = config_file(tmp_path, "sma_cross.yaml", lambda t: t["sweep"].update(checkpoint_combos=16))
    rows = cli_rows(config, tmp_path, ["--device", "reference"])
    out = tmp_path / "py.h5"
    checkpoint = tmp_path / "py.h5.partial.h5"
    with pytest.raises(KeyboardInterrupt):
        kbt.run(config, device="reference", out=out, progress=interrupt_at(4, []))
    assert checkpoint.exists() and not out.exists()
    with pytest.raises(kbt.Error, match="continue it with resume=True") as e:
        kbt.run(config, device="reference", out=out)
    assert e.value.args[1] == "config"
    resumed = kbt.run(config, device="reference", out=out, resume=True)
    assert out.exists() and not checkpoint.exists() and resumed.path == str(out)
    assert 0 < resumed.profile["resumed_combos"] < len(rows)
    expect_same_rows(resumed, rows)
    # The file it wrote is a results file the CLI reads, with the same rows.
    shown = cli("show", out, "--json", "--rows", "3").stdout
    assert '"combo"' in shown
    with pytest.raises(kbt.Error, match="resume=True: nothing to resume"):
        kbt.run(config, device="reference", out=out, resume=True)


def test_to_hdf5_writes_the_cli_results_file(tmp_path):
    config = config_file(tmp_path, "sma_cross.yaml", lambda t: None)
    rows = cli_rows(config, tmp_path, ["--device", "reference"])
    r = kbt.run(config, device="reference")
    assert r.path is None
    r.to_hdf5(tmp_path / "mem.h5")
    import json

    shown = json.loads(cli("show", tmp_path / "mem.h5", "--json", "--sort", "total_return", "--rows", "100000").stdout)
    assert {row["combo"]: row for row in shown["rows"]} == rows
    with h5py.File(tmp_path / "mem.h5", "r") as f, h5py.File(tmp_path / "cli.h5", "r") as g:
        assert list(f["topk"]["combo_id"][:]) == list(g["topk"]["combo_id"][:])
    with h5py.File(tmp_path / "mem.h5", "r") as f:
        check_verify(r.verify, f["verify"])


def test_metrics_are_views_of_kbts_memory():
    r = kbt.run(CONFIG_SMALL, data=bars_frame(), device="reference")
    raw = r._handle.rows()["metrics"]  # a new view of the same memory
    assert not r.metrics_copied and not raw.flags.writeable
    floats = [n for n in r.metrics.columns if r.metrics[n].dtype == np.float64]
    assert len(floats) >= 19
    for name in floats:
        assert np.shares_memory(r.metrics[name].to_numpy(), raw), name
    assert r.metrics["n_trades"].dtype == np.int64 and r.metrics["n_trades"].sum() > 0
    with pytest.raises(ValueError):
        r.metrics["sharpe"].to_numpy()[0] = 1.0  # read-only: the results file is written from it


def test_the_heatmap_grid_equals_a_pivot_of_the_eligible_rows(tmp_path):
    config = config_file(tmp_path, "sma_cross.yaml", lambda t: None)
    r = kbt.run(config, device="reference")
    grid = r.heatmap_grid("fast", "slow")
    table = pd.concat([r.params, r.metrics], axis=1)
    eligible = table[table["sharpe"].notna() & (table["n_trades"] >= 10)]  # the config's min_trades
    pivot = eligible.pivot(index="slow", columns="fast", values="sharpe").reindex(
        index=sorted(table["slow"].unique()), columns=sorted(table["fast"].unique()))
    assert pivot.notna().sum().sum() > 10
    assert same_bits(grid.to_numpy(), pivot.to_numpy())
    best = r.top(1)
    assert grid.attrs["best"]["combo"] == best.index[0]
    excluded = grid.attrs["excluded"]
    with_combos = table.groupby(["slow", "fast"]).size()
    for (slow, fast), _ in with_combos.items():
        expected = not ((eligible["slow"] == slow) & (eligible["fast"] == fast)).any()
        assert bool(excluded.at[slow, fast]) == expected
    with pytest.raises(kbt.Error, match="unknown parameter 'fats'"):
        r.heatmap_grid("fats", "slow")
