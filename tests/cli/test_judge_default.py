"""`agentprop judge -w W` without --judge uses the workspace's primary judge: the facts
judge for the suite's tasks (the agreement judge for the user's own questions is tested
in tests/upstream/test_upstream_cli.py)."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.store import Workspace

runner = CliRunner()


def test_judge_without_a_judge_uses_the_primary(tmp_path: Path) -> None:
    ws = tmp_path / "w"
    res = runner.invoke(app, ["run", "-m", "sim/balanced", "-n", "2", "-d", "weather",
                              "-w", str(ws)])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["judge", "-w", str(ws)])
    assert res.exit_code == 0, res.output
    with Workspace(ws, create=False) as w:
        assert w.primary_judge() == "facts" and not w.has_user_tasks()
        judged = {v.judge for v in w.verdicts()}
        assert judged == {"facts"} and len(w.verdicts()) == len(w.trace_ids())
