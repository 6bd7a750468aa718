"""`kbt.run` (docs/python.md) against the CLI: the same rows, by bits, as `kbt run`
writes and `kbt show --json` reads back; a DataFrame gives the bars that
`kbt data import` makes of the same CSV; errors carry the CLI's messages."""

import json
import math
import os
import subprocess

import numpy as np
import pandas as pd
import pytest

import kbt
from support import CLI, SOURCE, bars_frame, bits, cli_rows, expect_same_rows, imported, interrupt_at
from support import CONFIG_SMALL as CONFIG


@pytest.mark.parametrize("config", ["sma_cross.yaml", "multi_asset_funding.yaml", "breakout_sltp.yaml"])
def test_run_gives_the_cli_rows_by_bits(config, tmp_path):
    path = os.path.join(SOURCE, "configs", config)
    rows = cli_rows(path, tmp_path, ["--device", "reference"])
    results = kbt.run(path, device="reference")
    expect_same_rows(results, rows)
    assert results.device == "reference"
    # The params keep their integer type; the top rows are the CLI's top-K, best first.
    assert results.params.dtypes.map(lambda d: d.kind).isin(["i", "f"]).all()
    top = results.top(3)
    assert len(top) == 3
    assert list(top.columns[: len(results.params.columns)]) == list(results.params.columns)
    # The top-K with every metric, as `kbt show` lists it.
    shown = subprocess.run([CLI, "show", str(tmp_path / "cli.h5"), "--json", "--rows", "3"],
                           check=True, capture_output=True, text=True)
    for row, (combo, mine) in zip(json.loads(shown.stdout)["rows"], top.iterrows()):
        assert row["combo"] == combo
        for name, value in row["metrics"].items():
            assert (value is None and math.isnan(mine[name])) or bits(mine[name]) == bits(value), (combo, name)
    # Sorted by a metric: the CLI's order for that metric (ties by combo id).
    shown = subprocess.run([CLI, "show", str(tmp_path / "cli.h5"), "--json", "--sort", "total_return", "--rows", "5"],
                           check=True, capture_output=True, text=True)
    assert list(results.top(5, sort="total_return").index) == [r["combo"] for r in json.loads(shown.stdout)["rows"]]


def test_a_kernel_device_gives_the_reference_bits(tmp_path):
    path = os.path.join(SOURCE, "configs", "sma_cross.yaml")
    reference = kbt.run(path, device="reference")
    space = [d for d in kbt.devices() if d != "reference"][0]
    on_space = kbt.run(path, device=space)
    assert on_space.device == space
    for name in reference.metrics.columns:
        a, b = reference.metrics[name].to_numpy(), on_space.metrics[name].to_numpy()
        assert a.tobytes() == b.tobytes() or np.array_equal(a, b, equal_nan=True), name


def test_a_dataframe_gives_the_bars_kbt_data_import_makes(tmp_path):
    frame = bars_frame()
    h5 = imported(frame, tmp_path)
    from_frame = kbt.run(CONFIG, data={"ABC": frame}, device="reference")
    from_file = kbt.run(CONFIG, data=str(h5), device="reference")
    assert from_frame.metrics["n_trades"].sum() > 0
    pd.testing.assert_frame_equal(from_frame.metrics, from_file.metrics, check_exact=True)
    pd.testing.assert_frame_equal(from_frame.params, from_file.params, check_exact=True)
    # The CSV import's rules, one implementation (docs/data-format.md "One set
    # of rules"): a frame straight from pd.read_csv of a file with capitalised
    # headers and no volume column gives the bars `kbt data import` makes of
    # that file, by bits; rows out of order are refused both ways.
    csv = tmp_path / "GOOGish.csv"
    frame.drop(columns=["volume"]).rename(columns=str.capitalize).rename_axis("Date").to_csv(
        csv, float_format="%.17g", date_format="%Y-%m-%dT%H:%M:%SZ")
    # (pandas' default float parser is not correctly rounded: some values then
    # differ from the import's strtod in the last bit; round_trip is exact.)
    read = pd.read_csv(csv, index_col=0, parse_dates=True, float_precision="round_trip")
    assert list(read.columns) == ["Open", "High", "Low", "Close"]
    h5_csv = tmp_path / "googish.h5"
    subprocess.run([CLI, "data", "import", "-o", str(h5_csv), "--symbol", "ABC=" + str(csv)], check=True,
                   capture_output=True)
    as_read = kbt.run(CONFIG, data={"ABC": read}, device="reference")
    as_imported = kbt.run(CONFIG, data=str(h5_csv), device="reference")
    assert as_read.metrics["n_trades"].sum() > 0
    pd.testing.assert_frame_equal(as_read.metrics, as_imported.metrics, check_exact=True)
    shuffled = read.iloc[[0, 2, 1] + list(range(3, len(read)))]
    with pytest.raises(kbt.Error) as e:
        kbt.run(CONFIG, data={"ABC": shuffled})
    assert e.value.args[1] == "data_format" and "row 2" in e.value.args[0] and "increasing time order" in e.value.args[0]
    shuffled.rename_axis("Date").to_csv(tmp_path / "shuffled.csv", float_format="%.17g",
                                        date_format="%Y-%m-%dT%H:%M:%SZ")
    refused = subprocess.run([CLI, "data", "import", "-o", str(tmp_path / "s.h5"), "--symbol",
                              "ABC=" + str(tmp_path / "shuffled.csv")], capture_output=True, text=True)
    assert refused.returncode == 1 and "increasing time order" in refused.stderr
    # One DataFrame is one symbol; overrides change the config.
    single = kbt.run(CONFIG, data=frame, device="reference", sweep__top_k=2)
    assert len(single.top()) == 2
    pd.testing.assert_frame_equal(single.metrics, from_frame.metrics, check_exact=True)


def test_sorting_by_a_metric_the_sweep_did_not_compute_is_refused():
    results = kbt.run(CONFIG, data=bars_frame(), device="reference")
    assert results.metrics["ulcer_index"].isna().sum() > 0  # outside the run's metric set
    with pytest.raises(kbt.Error) as e:
        results.top(3, sort="ulcer_index")
    assert "ulcer_index" in e.value.args[0] and "sweep.metrics" in e.value.args[0]
    assert len(results.top(3, sort="sortino")) == 3


def test_errors_are_kbt_errors_with_the_cli_messages():
    bad = dict(CONFIG, strategy=dict(CONFIG["strategy"], position="where(f > s, 1, -1"))
    with pytest.raises(kbt.Error) as e:
        kbt.run(bad, data=bars_frame())
    assert e.value.args[1] == "language"
    assert e.value.args[0].startswith("<dict>:1:") and "where(f > s, 1, -1" in e.value.args[0]
    with pytest.raises(kbt.Error) as e:
        kbt.run(CONFIG, data=bars_frame().drop(columns=["low"]))
    assert e.value.args[1] == "data_format" and "has no column low" in e.value.args[0]
    frame = bars_frame()
    repeated = frame.iloc[[0, 1, 1, 2]]
    with pytest.raises(kbt.Error) as e:
        kbt.run(CONFIG, data={"ABC": repeated})
    assert e.value.args[1] == "data_format" and "ABC" in e.value.args[0] and "2022-01-01T01:00:00" in e.value.args[0]
    for bad_price in (float("inf"), -5.0, 0.0):
        priced = bars_frame()
        priced.iloc[7, priced.columns.get_loc("close")] = bad_price
        with pytest.raises(kbt.Error) as e:
            kbt.run(CONFIG, data={"ABC": priced})
        assert e.value.args[1] == "data_format", e.value.args
        assert "/bars/close" in e.value.args[0] and "symbol 'ABC', bar 7" in e.value.args[0], e.value.args[0]
    with pytest.raises(kbt.Error) as e:
        kbt.run(CONFIG, data=bars_frame(), device="no-such-device")
    assert "no-such-device" in e.value.args[0]


def test_a_dict_that_shares_sub_objects_is_a_limit_error_before_it_is_written_out():
    # 9 keys holding the same 9-element list, 7 levels deep: 9^7 leaves once
    # written out (before: 20 s and 2.8 GB, then `unknown key`).
    tree = list(range(9))
    for _ in range(6):
        tree = {"k%d" % i: tree for i in range(9)}
    bad = dict(CONFIG, bomb=tree)
    with pytest.raises(kbt.Error) as e:
        kbt.run(bad, data=bars_frame())
    assert e.value.args[1] == "limit" and "<dict>" in e.value.args[0] and "nodes" in e.value.args[0]
    with pytest.raises(kbt.Error) as e:
        kbt.run(CONFIG, data=bars_frame(), bomb=tree)
    assert e.value.args[1] == "limit" and "overrides" in e.value.args[0]
    # A cycle is no hang either.
    cyclic = dict(CONFIG)
    cyclic["loop"] = cyclic
    with pytest.raises(kbt.Error) as e:
        kbt.run(cyclic, data=bars_frame())
    assert e.value.args[1] == "limit"


def test_weekday_daily_bars_are_annualised_at_their_density_and_warned_about():
    # Business days only: 5/7 of 365 = 260.7 bars a year, not the 365 that
    # their one-day spacing claims (docs/metrics.md "Annualisation").
    frame = bars_frame(n=800)
    frame.index = pd.bdate_range("2019-01-01", periods=800, tz="UTC")
    with pytest.warns(RuntimeWarning, match="periods_per_year"):
        results = kbt.run(CONFIG, data=frame, device="reference")
    elapsed_days = (frame.index[-1] - frame.index[0]).days
    assert results.profile["periods_per_year"] == pytest.approx(799 * 365 / elapsed_days, rel=1e-12)
    assert abs(results.profile["periods_per_year"] - 365 * 5 / 7) < 1
    assert results.profile["periods_per_year_source"].startswith("inferred: 800 bars over")
    given = kbt.run(CONFIG, data=frame, device="reference", simulation={"fee_bps": 2, "periods_per_year": 252})
    assert given.profile["periods_per_year"] == 252
    assert given.profile["periods_per_year_source"] == "simulation.periods_per_year"


def test_eval_gives_the_cli_series_by_bits(tmp_path):
    frame = bars_frame()
    h5 = imported(frame, tmp_path)
    expr = "zscore(close - sma(close, n), 20)"
    shown = subprocess.run([CLI, "eval", "--data", str(h5), "--expr", expr, "--params", "n=15"], check=True,
                           capture_output=True, text=True).stdout.splitlines()
    cli = [float(line.split(",")[1]) for line in shown[1:]]  # %.17g: exact
    for device in kbt.devices():
        series = kbt.eval(expr, frame, device=device, n=15)
        assert len(series) == len(cli) == len(frame)
        assert series.index[0] == frame.index[0]
        finite = 0
        for mine, theirs in zip(series.to_numpy(), cli):
            assert (math.isnan(mine) and math.isnan(theirs)) or bits(mine) == bits(theirs)
            finite += not math.isnan(mine)
        assert finite > 500, "vacuous case: no values"
    # Several symbols: a column each; a param the expression lacks is a kbt.Error.
    both = kbt.eval("close / lag(close, 1) - 1", {"A": frame, "B": frame * 2})
    assert list(both.columns) == ["A", "B"]
    with pytest.raises(kbt.Error) as e:
        kbt.eval("sma(close, n)", frame)
    assert "n" in e.value.args[0]


def test_backtest_gives_the_cli_statistics_ledger_and_equity(tmp_path):
    import csv as csv_module

    path = os.path.join(SOURCE, "configs", "breakout_sltp.yaml")
    sweep = kbt.run(path, device="reference")
    best = sweep.top(1)
    params = {name: best.iloc[0][name].item() for name in sweep.params.columns}
    trades_csv, equity_csv = tmp_path / "trades.csv", tmp_path / "equity.csv"
    assigned = ",".join("%s=%r" % kv for kv in params.items())
    printed = subprocess.run([CLI, "backtest", path, "--params", assigned, "--trades", str(trades_csv),
                              "--equity", str(equity_csv)], check=True, capture_output=True, text=True).stdout
    b = kbt.backtest(path, **params)
    # The statistics: the CLI's rows, label and text.
    lines = printed.splitlines()[1:1 + len(b.stats_text)]
    assert [line[2:28].rstrip() for line in lines] == [label.split(" [")[0].lstrip("# ") for label in b.stats.index]
    assert [line[29:] for line in lines] == list(b.stats_text)
    assert b.stats["Return [%]"] == pytest.approx(100 * b.metrics["total_return"])
    # The metrics: the sweep's best row, all 21 (simulated again by the run), by bits.
    assert best[b.metrics.index].notna().all(axis=None)
    for name in b.metrics.index:
        assert bits(b.metrics[name]) == bits(best.iloc[0][name]), name
    # The ledger and the per-bar portfolio: the CLI's CSVs, every value by bits.
    with open(trades_csv) as f:
        rows = list(csv_module.DictReader(f))
    assert len(rows) == len(b.trades) > 0
    for row, (_, mine) in zip(rows, b.trades.iterrows()):
        assert row["symbol"] == mine["symbol"] and row["side"] == mine["side"] and row["exit_reason"] == mine["exit_reason"]
        assert pd.Timestamp(row["entry_time"]) == mine["entry_time"]
        for name in ("entry_price", "exit_price", "units", "pnl", "return", "fees", "funding", "borrow"):
            assert bits(float(row[name])) == bits(mine[name]), name
    with open(equity_csv) as f:
        rows = list(csv_module.DictReader(f))
    assert len(rows) == len(b.equity)
    for row, (time, mine) in zip(rows, b.equity.iterrows()):
        assert pd.Timestamp(row["timestamp"]) == time
        for name in b.equity.columns:
            assert bits(float(row[name])) == bits(mine[name]), name


def test_progress_is_reported_between_chunks_and_an_interrupt_stops_the_sweep():
    frame = bars_frame(2000)
    chunked = dict(CONFIG, sweep=dict(CONFIG["sweep"], checkpoint_combos=1))
    seen = []
    stages = set()

    def record(done, total, unit):
        stages.add(unit)
        if unit == "combos":
            seen.append((done, total))

    results = kbt.run(chunked, data=frame, device="reference", progress=record)
    n = len(results.metrics)
    assert stages == {"combos", "candidates"}  # the sweep, then the verification
    assert n >= 8 and seen[0] == (0, n) and seen[-1] == (n, n) and len(seen) == n + 1

    calls = []
    with pytest.raises(KeyboardInterrupt):
        kbt.run(chunked, data=frame, device="reference", progress=interrupt_at(3, calls))
    assert len(calls) == 3  # stopped at the next chunk, not at the end


def test_a_fallback_to_the_reference_engine_is_a_warning():
    frame = bars_frame(800)
    # A higher-timeframe series that depends on params otherwise than through
    # one window: the sweep kernel cannot run it (docs/sweep.md), `auto` falls back.
    strategy = dict(CONFIG["strategy"], signals={"f": 'htf(sma(close, fast) - sma(close, slow), "4h")'},
                    position="where(f > 0, 1, -1)")
    config = dict(CONFIG, strategy=strategy)
    with pytest.warns(RuntimeWarning, match="unsupported:param_dependent_expression_in_higher_timeframe"):
        results = kbt.run(config, data=frame, device="auto")
    assert results.device == "reference"
    assert results.fallback_reason == "unsupported:param_dependent_expression_in_higher_timeframe"
    assert results.metrics["n_trades"].sum() > 0
