"""The stored stage table: written with each trace, back-filled for older workspaces, and
read into the same stage table the events give (docs/architecture.md, steps 4 and 6)."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from agentprop.analysis.frames import members_frame, verdict_frame
from agentprop.analysis.invariants import TraceChecks
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    ModelCallEvent,
    ModelOutput,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
    Verdict,
)
from agentprop.experiment._execute import load_analysis_input, stage_recorder
from agentprop.store import Workspace
from agentprop.store._workspace import STAGE_ROW_COLUMNS


def _traces() -> list[Trace]:
    out = []
    for k in range(12):
        task = f"weather_{k:04d}"
        cond = "baseline" if k % 3 == 0 else "p2:semantic_wrong"
        ev: list = [ToolCallEvent(step=0, call=ToolCall(id="c1", name="lookup",
                                                        arguments={"q": task}))]
        if cond != "baseline" and k % 4:
            ev.append(InjectionEvent(step=0, protocol="p2", error_type="semantic_wrong",
                                     status="applied", call_id="c1", tool="lookup",
                                     param="q", original=task, injected="other"))
            ev.append(ToolResultEvent(step=0, call_id="c1", name="lookup",
                                      arguments={"q": "other"}, observation={"v": 1},
                                      counterfactual={"v": k % 2}))
        else:
            ev.append(ToolResultEvent(step=0, call_id="c1", name="lookup",
                                      arguments={"q": task}, observation={"v": 1}))
        text = f"The value is {k}." + (" That looks wrong to me." if k % 5 == 0 else "")
        ev.append(ModelCallEvent(step=1, request_hash="h", output=ModelOutput(text=text)))
        if k != 7:  # one trace without a final answer
            ev.append(FinalEvent(step=1, answer=text, abstained=k == 4))
        out.append(Trace(id=f"t{k}", run_id="r", model=f"sim/m{k % 2}", task_id=task,
                         domain="weather", split="test", difficulty="easy", condition=cond,
                         simulated=True, events=ev,
                         status="error" if k == 9 else "ok"))
    return out


def _verdicts() -> list[Verdict]:  # t10 unscored, t11 unjudged
    return [*(Verdict(trace_id=f"t{k}", judge="facts", correct=None if k == 10 else k % 2 == 0)
              for k in range(11)),
            Verdict(trace_id="t1", judge="ensemble", correct=True,
                    members={"b": True, "a": False, "c": True}),
            Verdict(trace_id="t2", judge="ensemble", correct=None, members={})]


def _same_as_events(ws: Workspace) -> None:
    events = TraceChecks()
    expected = load_analysis_input(ws, tap=events.tap)  # the per-trace path
    stored = TraceChecks()
    got = load_analysis_input(ws, checks=stored)
    pd.testing.assert_frame_equal(expected.stages, got.stages, check_exact=True)
    assert (stored.n_traces, stored.differs, stored.violations) == \
        (events.n_traces, events.differs, events.violations)
    rows = ws.verdict_rows()  # the verdicts as rows, as before they were read as columns
    pd.testing.assert_frame_equal(verdict_frame(rows), got.verdicts, check_exact=True)
    pd.testing.assert_frame_equal(members_frame(rows), got.members, check_exact=True)


def _stage_rows(ws: Workspace) -> int:
    return int(ws.conn.execute("SELECT COUNT(*) FROM stages").fetchone()[0])


def test_rows_written_with_traces_give_the_event_table(tmp_path: Path) -> None:
    with Workspace(tmp_path / "ws") as ws:
        assert ws.put_traces(_traces(), stages=stage_recorder(ws)) == 12
        ws.put_verdicts(_verdicts())
        assert _stage_rows(ws) == 12
        assert ws.stage_frame(stage_recorder(ws)[0]) is not None
        _same_as_events(ws)


def test_older_workspace_is_back_filled(tmp_path: Path) -> None:
    with Workspace(tmp_path / "ws") as ws:
        ws.put_traces(_traces())  # as an agentprop before the stage table wrote them
        ws.put_verdicts(_verdicts())
        ws.conn.execute("DROP TABLE stages")
    with Workspace(tmp_path / "ws") as ws:  # opening makes the table again
        assert _stage_rows(ws) == 0
        assert ws.stage_frame(stage_recorder(ws)[0]) is None
        _same_as_events(ws)
        assert _stage_rows(ws) == 12


def test_rows_of_another_context_are_recomputed(tmp_path: Path) -> None:
    with Workspace(tmp_path / "ws") as ws:
        ws.put_traces(_traces(), stages=("stages-v0 suite:other", stage_recorder(ws)[1]))
        ws.put_verdicts(_verdicts())
        assert ws.stage_frame(stage_recorder(ws)[0]) is None
        _same_as_events(ws)
        assert ws.stage_frame(stage_recorder(ws)[0]) is not None


def test_a_failed_stage_row_stores_no_trace(tmp_path: Path) -> None:
    def broken(trace: Trace) -> tuple[object, ...]:
        raise RuntimeError("boom")

    with Workspace(tmp_path / "ws") as ws:
        with pytest.raises(RuntimeError):
            ws.put_traces(_traces(), stages=("c", broken))
        assert ws.count_traces() == 0 and _stage_rows(ws) == 0


def test_row_columns_match_the_analysis() -> None:
    from agentprop.analysis._stored import STORED_COLUMNS

    assert STORED_COLUMNS == STAGE_ROW_COLUMNS
