"""The three example agents run offline against serve-sim through `agentprop run --agent`:
injections are applied at the MCP boundary, the traces are judged, and the stage table
has the same columns as for native traces."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import InjectionEvent, ToolResultEvent
from agentprop.store import Workspace

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
SELECT = ["-n", "2", "-d", "weather", "-c", "baseline", "-c", "p2:all"]
runner = CliRunner()


def _stage_columns(ws: Path) -> set[str]:
    res = runner.invoke(app, ["judge", "-w", str(ws), "-j", "facts"])
    assert res.exit_code == 0, res.output
    res = runner.invoke(app, ["stages", "-w", str(ws), "--json", "--n-boot", "100"])
    assert res.exit_code == 0, res.output
    groups = json.loads(res.stdout)["groups"]
    assert groups
    return {k for g in groups for k in g}


@pytest.fixture(scope="module")
def native_columns(tmp_path_factory: pytest.TempPathFactory) -> set[str]:
    ws = tmp_path_factory.mktemp("native")
    res = runner.invoke(app, ["run", "-m", "sim/balanced", *SELECT, "-w", str(ws)])
    assert res.exit_code == 0, res.output
    return _stage_columns(ws)


@pytest.mark.parametrize("example", ["mcp_client", "openai_agents", "langgraph_agent"])
def test_example_agent_runs_judged_with_injections(
    example: str, openai_env: str, native_columns: set[str], tmp_path: Path
) -> None:
    ws = tmp_path / "ws"
    args = ["run", "--agent", f"{EXAMPLES / example}.py:agent", *SELECT, "-w", str(ws),
            "--json"]
    res = runner.invoke(app, args)
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["completed"] == summary["units"] > 5 and summary["errors"] == 0

    with Workspace(ws, create=False) as w:
        traces = [w.get_trace(i) for i in w.trace_ids()]
    assert all(t is not None and t.model == f"{example}.agent" for t in traces)
    injections = [e for t in traces if t for e in t.events if isinstance(e, InjectionEvent)]
    applied = [e for e in injections if e.status == "applied"]
    assert applied, "no injection was applied at the MCP boundary"
    assert all(not e.in_history for e in applied)  # the agent's own history is untouched
    # the counterfactual of each corrupted call is recorded, as in the native loop
    corrupted = [e for t in traces if t for e in t.events
                 if isinstance(e, ToolResultEvent) and e.counterfactual is not None]
    assert len(corrupted) == len(applied)
    assert all(t is not None and t.final is not None and t.final.answer for t in traces)

    assert _stage_columns(ws) == native_columns
    with Workspace(ws, create=False) as w:
        assert all(w.verdicts_of(t.id) for t in traces if t)

    again = runner.invoke(app, args)  # resume: nothing runs twice
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout)["skipped"] == summary["units"]
