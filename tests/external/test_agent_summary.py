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
