"""`build_input` gives the same frames from Verdict objects and from light verdict rows."""

from __future__ import annotations

from pathlib import Path

import pandas as pd

from agentprop.analysis import build_input
from agentprop.core import FinalEvent, Trace, Verdict
from agentprop.store import Workspace


def _trace(tid: str) -> Trace:
    return Trace(id=tid, run_id="r", model="m", task_id=f"t_{tid}", domain="weather",
                 split="test", difficulty="easy", condition="baseline", seed=0,
                 events=[FinalEvent(step=0, answer="x")])


VERDICTS = [
    Verdict(trace_id="a", judge="facts", correct=False, raw={"checks": [1, 2, 3]}),
    Verdict(trace_id="b", judge="facts", correct=None),
    Verdict(trace_id="a", judge="heuristic", correct=True),
    Verdict(trace_id="a", judge="ensemble", correct=True,
            members={"j1": True, "j2": None, "j3": False}),
    Verdict(trace_id="b", judge="ensemble", correct=False, members={"j1": False}),
]


def test_rows_and_verdicts_build_the_same_input(tmp_path: Path) -> None:
    traces = [_trace("a"), _trace("b")]
    from_objects = build_input(traces, VERDICTS)
    with Workspace(tmp_path / "w") as ws:
        ws.put_verdicts(VERDICTS)
        from_rows = build_input(traces, ws.verdict_rows())
    for name in ("stages", "verdicts", "members"):
        pd.testing.assert_frame_equal(getattr(from_objects, name), getattr(from_rows, name))
    assert from_rows.stages["S3"].tolist()[0] is True  # facts says a is wrong
    assert from_rows.stages["S3"].isna().tolist() == [False, True]
    assert len(from_rows.verdicts) == 5
    assert from_rows.members["member"].tolist() == ["j1", "j2", "j3", "j1"]
    assert from_rows.members["correct"].isna().tolist() == [False, True, False, False]
