"""Exports round-trip, are atomic, and `traces show` never interprets model text as markup."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import (
    FinalEvent,
    Message,
    ModelCallEvent,
    ModelOutput,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
    Usage,
)
from agentprop.store import CSV_COLUMNS, ExportError, TraceWriter, Workspace, export_traces
from agentprop.testing import workspace_with


def _trace(i: int, answer: str = "15 C") -> Trace:
    call = ToolCall(id="c0", name="lookup", arguments={"city": "Paris"})
    return Trace(
        id=f"t{i:03d}", run_id="r", model="sim/balanced" if i % 2 else "openai/x",
        task_id=f"task-{i}", domain="weather", split="test", difficulty="easy",
        condition="baseline", seed=0, simulated=bool(i % 2),
        messages=[Message(role="user", content="How warm?"),
                  Message(role="assistant", tool_calls=[call]),
                  Message(role="tool", content='{"temp_c": 15}', tool_call_id="c0"),
                  Message(role="assistant", content=answer)],
        events=[
            ModelCallEvent(step=0, request_hash="h0", output=ModelOutput(
                tool_calls=[call], usage=Usage(input_tokens=100, output_tokens=7), cost=0.5)),
            ToolCallEvent(step=0, call=call),
            ToolResultEvent(step=0, call_id="c0", name="lookup", arguments=call.arguments,
                            observation={"temp_c": 15}, counterfactual={"temp_c": 16}),
            ModelCallEvent(step=1, request_hash="h1", output=ModelOutput(
                text=answer, usage=Usage(input_tokens=150, output_tokens=5), cost=0.25)),
            FinalEvent(step=1, answer=answer, abstained=i == 3),
        ],
    )


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    return workspace_with(tmp_path / "ws",
                          [_trace(i) for i in range(5)] + [_trace(9, "[bold red]x[/] {a} [link]")])


def test_jsonl_round_trip(ws: Workspace, tmp_path: Path) -> None:
    out = tmp_path / "t.jsonl"
    assert export_traces(ws, "jsonl", out) == 6
    lines = out.read_text().splitlines()
    back = [Trace.model_validate_json(ln) for ln in lines]
    assert back == list(ws.iter_traces())
    assert export_traces(ws, "jsonl", out, model="openai/x") == 3
    assert not list(tmp_path.glob(".*tmp"))


def test_csv_flat_columns(ws: Workspace, tmp_path: Path) -> None:
    out = tmp_path / "t.csv"
    export_traces(ws, "csv", out)
    rows = list(csv.DictReader(out.open()))
    assert list(rows[0]) == CSV_COLUMNS and len(rows) == 6
    r3 = next(r for r in rows if r["id"] == "t003")
    assert (r3["final_answer"], r3["abstained"], r3["n_tool_calls"], r3["input_tokens"],
            r3["output_tokens"], float(r3["cost"])) == ("15 C", "True", "1", "250", "12", 0.75)
    assert rows[-1]["final_answer"] == "[bold red]x[/] {a} [link]"


def test_parquet(ws: Workspace, tmp_path: Path) -> None:
    pd = pytest.importorskip("pandas")
    pytest.importorskip("pyarrow")
    out = tmp_path / "t.parquet"
    export_traces(ws, "parquet", out)
    df = pd.read_parquet(out)
    assert len(df) == 6 and df["n_tool_calls"].tolist() == [1] * 6
    assert Trace.model_validate_json(df["data"][0]) == ws.get_trace("t000")


def test_export_errors_leave_nothing(ws: Workspace, tmp_path: Path,
                                     monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ExportError, match="format"):
        export_traces(ws, "xml", tmp_path / "t.xml")
    with pytest.raises(ExportError, match="does not exist"):
        export_traces(ws, "csv", tmp_path / "missing" / "t.csv")
    import builtins

    real_import = builtins.__import__

    def no_pyarrow(name: str, *a: object, **k: object) -> object:
        if name.startswith("pyarrow"):
            raise ImportError(name)
        return real_import(name, *a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(builtins, "__import__", no_pyarrow)
    with pytest.raises(ExportError, match="pyarrow"):
        export_traces(ws, "parquet", tmp_path / "t.parquet")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"]


def test_writer_batches_and_flushes_on_close(tmp_path: Path) -> None:
    ws = Workspace(tmp_path / "ws")
    with TraceWriter(ws.path, batch_size=4, interval_s=60) as w:
        for i in range(10):
            w.put(_trace(i))
    assert ws.count_traces() == 10
    with TraceWriter(ws.path) as w:
        w.put(_trace(0))  # already stored: ignored, never duplicated
    assert ws.count_traces() == 10


def test_cli_traces_show_list_export(ws: Workspace, tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(app, ["traces", "show", "t009", "-w", str(ws.path)],
                        env={"COLUMNS": "200"})
    assert res.exit_code == 0, res.output
    assert "[bold red]x[/] {a} [link]" in res.stdout
    assert "counterfactual" in res.stdout and "lookup" in res.stdout
    res = runner.invoke(app, ["traces", "list", "-w", str(ws.path), "--json", "-n", "2"])
    assert [r["id"] for r in json.loads(res.stdout)] == ["t004", "t009"]
    res = runner.invoke(app, ["traces", "show", "t00", "-w", str(ws.path)])
    assert res.exit_code == 2 and "ambiguous" in res.stderr
    res = runner.invoke(app, ["traces", "show", "zzz", "-w", str(ws.path)])
    assert res.exit_code == 2 and "no trace" in res.stderr
    out = tmp_path / "x.csv"
    res = runner.invoke(app, ["traces", "export", "-w", str(ws.path), "--format", "csv",
                              "--out", str(out)])
    assert res.exit_code == 0 and len(out.read_text().splitlines()) == 7
    res = runner.invoke(app, ["traces", "list", "-w", str(tmp_path / "nope")])
    assert res.exit_code == 2 and "no workspace" in res.stderr
