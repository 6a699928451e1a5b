"""Label CSV import is all-or-nothing; export round-trips."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.labels import LabelImportError, export_labels, import_labels
from agentprop.store import Workspace
from agentprop.testing import workspace_with
from tests.judges.conftest import MEDICAL, WEATHER, make_trace


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    t = make_trace("t2", MEDICAL, "high")
    t.meta["session_id"] = "S-99"
    return workspace_with(tmp_path / "w", [make_trace("t1", WEATHER, "14 C"), t])


def _csv(tmp_path: Path, text: str) -> Path:
    p = tmp_path / "labels.csv"
    p.write_text(text, encoding="utf-8")
    return p


def test_import_valid(tmp_path: Path, ws: Workspace) -> None:
    p = _csv(tmp_path, "trace_id,annotator,label,note,time\n"
                       "t1,ann,YES,fine,2025-06-16T10:00:00Z\n"
                       "t2,ann,no,,\n"
                       "t1,bob,Unsure,,\n")
    assert import_labels(p, ws) == 3
    got = {(x.trace_id, x.annotator): x.label for x in ws.labels()}
    assert got == {("t1", "ann"): "correct", ("t2", "ann"): "incorrect",
                   ("t1", "bob"): "unsure"}


def test_session_id_column(tmp_path: Path, ws: Workspace) -> None:
    p = _csv(tmp_path, "session_id,annotator,label\nS-99,ann,correct\n")
    assert import_labels(p, ws) == 1 and ws.labels()[0].trace_id == "t2"


def test_bad_rows_rejected_atomically(tmp_path: Path, ws: Workspace) -> None:
    p = _csv(tmp_path, "trace_id,annotator,label,time\n"
                       "t1,ann,YES,\n"            # line 2: fine
                       "nope,ann,YES,\n"          # line 3: unknown id
                       "t2,ann,maybe,\n"          # line 4: invalid label
                       "t2,,NO,\n"                # line 5: no annotator
                       "t2,bob,NO,yesterday\n"    # line 6: bad time
                       "t1,ann,NO,\n")            # line 7: duplicate of line 2
    with pytest.raises(LabelImportError) as e:
        import_labels(p, ws)
    msg = str(e.value)
    for line in ("line 3", "line 4", "line 5", "line 6", "line 7"):
        assert line in msg
    assert "line 2" not in msg.replace("duplicate of line 2", "")
    assert "nothing written" in msg and ws.labels() == []


@pytest.mark.parametrize("text", ["", "foo,bar\n1,2\n", "trace_id,label\nt1,YES\n",
                                  "trace_id,annotator,label\n"])
def test_malformed_files(tmp_path: Path, ws: Workspace, text: str) -> None:
    with pytest.raises(LabelImportError):
        import_labels(_csv(tmp_path, text), ws)
    assert ws.labels() == []


def test_export_roundtrip_and_cli(tmp_path: Path, ws: Workspace) -> None:
    import_labels(_csv(tmp_path, "trace_id,annotator,label,note\nt1,ann,YES,\"a, b\"\n"
                                 "t2,ann,NO,\n"), ws)
    out = tmp_path / "out.csv"
    assert export_labels(ws, out) == 2
    other = Workspace(tmp_path / "w2")
    other.put_traces([make_trace("t1", WEATHER, "x"), make_trace("t2", MEDICAL, "y")])
    assert import_labels(out, other) == 2
    assert {(x.trace_id, x.label, x.note) for x in other.labels()} == {
        ("t1", "correct", "a, b"), ("t2", "incorrect", "")}
    runner = CliRunner()
    bad = _csv(tmp_path, "trace_id,annotator,label\nzzz,ann,YES\n")
    r = runner.invoke(app, ["label", "import", str(bad), "-w", str(tmp_path / "w2")])
    assert r.exit_code == 2 and "line 2" in r.output and "Traceback" not in r.output
    r = runner.invoke(app, ["label", "export", "-w", str(tmp_path / "w2"), "--out",
                            str(tmp_path / "x.csv")])
    assert r.exit_code == 0 and (tmp_path / "x.csv").read_text().count("\n") == 3
