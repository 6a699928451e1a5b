"""The columnar reader (the ADBC SQLite driver, `agentprop[scale]`) gives the very frames
`pandas.read_sql_query` gives, and so the same numbers: a large workspace is read without
a Python object per value, and nothing else changes."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pandas as pd
import pytest
from typer.testing import CliRunner

from agentprop.analysis import numbers_manifest
from agentprop.cli import app
from agentprop.experiment._execute import load_analysis_input, stage_recorder
from agentprop.report import analyze
from agentprop.store import Workspace, _columns
from tests.store.test_stored_stages import _traces, _verdicts

pytest.importorskip("adbc_driver_sqlite", reason="the columnar reader: agentprop[scale]")

TABLES: dict[str, Callable[[Workspace], pd.DataFrame]] = {
    "stages": lambda ws: ws.stage_frame(stage_recorder(ws)[0]),
    "verdicts": Workspace.verdict_table,
    "members": Workspace.member_table,
    "units": Workspace.unit_table,
}


def _both(ws: Workspace, monkeypatch: pytest.MonkeyPatch) -> None:
    for name, read in TABLES.items():
        columnar = read(ws)
        with monkeypatch.context() as m:
            m.setattr(_columns, "columnar_reader", lambda: False)
            rows = read(ws)
        pd.testing.assert_frame_equal(rows, columnar, check_exact=True, obj=name)


def test_the_stores_tables_read_the_same_both_ways(tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    # unscored and missing verdicts, ensemble votes, a column NULL throughout
    with Workspace(tmp_path / "ws") as ws:
        ws.put_traces(_traces(), stages=stage_recorder(ws))
        ws.put_verdicts(_verdicts())
        assert _columns.columnar_reader()
        _both(ws, monkeypatch)
    with Workspace(tmp_path / "empty") as ws:  # no rows: object columns, as pandas reads
        _both(ws, monkeypatch)


def test_a_run_reads_the_same_and_gives_the_same_numbers(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    w = str(tmp_path / "ws")
    runner = CliRunner()
    res = runner.invoke(app, ["run", "-m", "sim/propagator", "-m", "sim/self-correcting",
                              "-c", "baseline", "-c", "p2:all", "-n", "8", "-w", w,
                              "--json"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["judge", "-w", w, "-j", "facts", "-j", "heuristic", "--json"])
    assert res.exit_code == 0, res.output
    with Workspace(w) as ws:
        _both(ws, monkeypatch)
        columnar = numbers_manifest(analyze(load_analysis_input(ws), n_resamples=50))
        monkeypatch.setattr(_columns, "columnar_reader", lambda: False)
        rows = numbers_manifest(analyze(load_analysis_input(ws), n_resamples=50))
    assert len(columnar) > 100
    assert json.dumps(columnar, sort_keys=True) == json.dumps(rows, sort_keys=True)
