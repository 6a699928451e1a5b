"""Offline agents on third-party servers: mcp-server-time driven by the sim's generic
policy (agentprop's loop, and the OpenAI Agents SDK example through serve-sim), and by a
real local model (SmolLM2 through llama.cpp). Tests on real models assert structure, never
wording."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import ModelCallEvent, ToolCallEvent, ToolResultEvent
from agentprop.sim import ServerConfig, ServerThread
from agentprop.store import Workspace
from tests.conftest import local_model_path

ROOT = Path(__file__).resolve().parents[2]
runner = CliRunner()
TIME = f"{sys.executable} -m mcp_server_time --local-timezone Europe/London"
QUESTIONS = [
    {"query": "What time is it now in Asia/Tokyo?"},
    {"query": "What is the current time in America/New_York?"},
    {"query": "Convert 14:30 from Europe/Paris to America/Chicago.",
     "tools": ["convert_time"]},
]


@pytest.fixture(scope="module")
def sim_url() -> Iterator[str]:
    with ServerThread(ServerConfig(port=0)) as srv:
        yield srv.base_url


def _tasks(path: Path) -> Path:
    path.write_text("".join(json.dumps(q) + "\n" for q in QUESTIONS))
    return path


def _traces(ws: Path) -> list:
    with Workspace(ws, create=False) as w:
        return [w.get_trace(i) for i in w.trace_ids()]


def test_the_sim_asks_the_time_server(tmp_path: Path) -> None:
    ws = tmp_path / "W"
    res = runner.invoke(app, ["run", "-m", "sim/balanced", "--upstream", TIME, "--tasks",
                              str(_tasks(tmp_path / "t.jsonl")), "-c", "baseline",
                              "-c", "p2:semantic_wrong", "-c", "fault:timeout",
                              "-w", str(ws), "--json"])
    assert res.exit_code == 0, res.output
    traces = _traces(ws)
    assert len(traces) == 9 and all(t.status == "ok" for t in traces)
    calls = [e.call for t in traces for e in t.events if isinstance(e, ToolCallEvent)]
    assert {c.name for c in calls} <= {"get_current_time", "convert_time"}
    tokyo = [e for t in traces if t.condition == "baseline"
             for e in t.events if isinstance(e, ToolResultEvent)
             and e.arguments.get("timezone") == "Asia/Tokyo"]
    assert tokyo and tokyo[0].observation.get("timezone") == "Asia/Tokyo"  # the real server


def test_the_agents_sdk_example_on_the_time_server(sim_url: str, tmp_path: Path,
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_BASE_URL", sim_url)
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-none")
    ws = tmp_path / "W"
    res = runner.invoke(app, ["run", "--agent", f"{ROOT / 'examples' / 'openai_agents.py'}"
                              ":agent", "--upstream", TIME, "--tasks",
                              str(_tasks(tmp_path / "t.jsonl")), "-c", "baseline",
                              "-c", "out:wrong_value", "-w", str(ws), "--json"])
    assert res.exit_code == 0, res.output
    traces = _traces(ws)
    assert len(traces) == 6 and all(t.status == "ok" for t in traces)
    results = [e for t in traces for e in t.events if isinstance(e, ToolResultEvent)]
    assert results and all("error" not in r.observation for r in results
                           if r.name == "get_current_time")


def test_a_local_model_on_the_time_server(tmp_path: Path) -> None:
    local_model_path()  # skips without the local extra, fails in CI (AGENTPROP_REQUIRE_LOCAL)
    ws = tmp_path / "W"
    tasks = tmp_path / "t.jsonl"  # one question, one injected episode: a CPU model is slow
    tasks.write_text(json.dumps(QUESTIONS[0]) + "\n")
    res = runner.invoke(app, ["run", "-m", "local/smollm2-135m", "-o", "n_ctx=4096",
                              "--upstream", TIME, "--tasks", str(tasks),
                              "-c", "p2:type_mismatch", "--max-steps", "2",
                              "-w", str(ws), "--json"])
    assert res.exit_code == 0, res.output
    traces = _traces(ws)
    assert len(traces) == 1
    for t in traces:  # structure, never wording: every episode reached the model, and
        # every tool it called was one of the server's, answered by the server or refused
        assert any(isinstance(e, ModelCallEvent) for e in t.events)
        for e in t.events:
            if isinstance(e, ToolResultEvent):
                assert e.name in {"get_current_time", "convert_time"}
                assert isinstance(e.observation, dict) and e.observation
