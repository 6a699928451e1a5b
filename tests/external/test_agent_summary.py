"""The summary of `run --agent`: an external agent calls its own model, so without the
gateway no model call is seen; the summary counts its tool calls and says why the model
calls are missing instead of claiming "0 model calls … 0 tokens"."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from agentprop.cli import app

AGENTS = Path(__file__).with_name("_agents.py")


def test_an_agent_runs_summary_counts_tool_calls_not_zero_model_calls(tmp_path: Path) -> None:
    res = CliRunner().invoke(app, ["run", "--agent", f"{AGENTS}:probe", "-n", "1", "-d",
                                   "weather", "-w", str(tmp_path / "w")])
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "2 tool calls; the agent's model calls, tokens and cost: not observed" in text, text
    assert "agentprop gateway" in text and "0 model calls" not in text


def test_api_faults_without_the_gateway_are_recorded_as_not_applicable(tmp_path: Path) -> None:
    """`api:*` acts at the gateway; an agent run without it records `no_model_call` (never
    an opportunity), and the summary says so."""
    from agentprop.analysis.stages import stage_table
    from agentprop.store import Workspace

    res = CliRunner().invoke(app, ["run", "--agent", f"{AGENTS}:probe", "-n", "1", "-d",
                                   "weather", "-c", "api:server_error", "-w",
                                   str(tmp_path / "w")])
    assert res.exit_code == 0, res.output
    text = " ".join(res.stdout.split())
    assert "api:* faults act at the gateway: their units record no_model_call" in text, text
    with Workspace(tmp_path / "w") as ws:
        (trace,) = list(ws.iter_traces())
    (ev,) = [e for e in trace.events if e.type == "injection"]
    assert (ev.protocol, ev.status) == ("api", "no_model_call")
    assert not stage_table([trace]).iloc[0]["opportunity"]
