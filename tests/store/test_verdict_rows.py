"""`verdict_rows` gives what `verdicts()` gives for trace_id/judge/correct/members, in order."""

from __future__ import annotations

from pathlib import Path

from agentprop.core import Verdict
from agentprop.store import Workspace


def _verdicts() -> list[Verdict]:
    return [
        Verdict(trace_id="t2", judge="facts", correct=False,
                raw={"checks": [{"fact": "15", "found": False}] * 3}),
        Verdict(trace_id="t1", judge="facts", correct=None, raw="no answer"),
        Verdict(trace_id="t1", judge="ensemble", correct=True,
                members={"sim-a": True, "sim-b": None, "sim-c": False}),
        Verdict(trace_id="t3", judge="heuristic", correct=True),
    ]


def test_verdict_rows_match_verdicts(tmp_path: Path) -> None:
    with Workspace(tmp_path / "w") as ws:
        ws.put_verdicts(_verdicts())
        for judge in (None, "facts", "ensemble", "missing"):
            full = [(v.trace_id, v.judge, v.correct, v.members) for v in ws.verdicts(judge)]
            assert ws.verdict_rows(judge) == full
        rows = ws.verdict_rows()
        assert [r[:3] for r in rows] == [
            ("t2", "facts", False), ("t1", "facts", None), ("t1", "ensemble", True),
            ("t3", "heuristic", True),
        ]
        members = rows[2][3]
        assert members == {"sim-a": True, "sim-b": None, "sim-c": False}
        assert list(members) == ["sim-a", "sim-b", "sim-c"]
        assert all(type(v) is bool for v in (members["sim-a"], members["sim-c"]))


def test_verdict_rows_follow_replacement(tmp_path: Path) -> None:
    """A re-judged trace (INSERT OR REPLACE) shows its new decision only."""
    with Workspace(tmp_path / "w") as ws:
        ws.put_verdicts(_verdicts())
        ws.put_verdicts([Verdict(trace_id="t2", judge="facts", correct=True)])
        facts = ws.verdict_rows("facts")
        assert sorted(facts) == sorted([("t1", "facts", None, {}), ("t2", "facts", True, {})])
        assert facts == [(v.trace_id, v.judge, v.correct, v.members)
                         for v in ws.verdicts("facts")]
