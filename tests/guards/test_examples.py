"""The guarded examples run offline against serve-sim through `agentprop run --agent` and
`intercept evaluate`: traces are stored, the guard's abstention is recorded as one, and a
framework's retry middleware handed to the treatment arm retries at agentprop's MCP
boundary. Structure only, never a model's wording."""

from __future__ import annotations

import json
from collections import defaultdict
from itertools import pairwise
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import ToolResultEvent, Trace
from agentprop.domains import TRANSIENT_ERRORS
from agentprop.store import Workspace

pytest.importorskip("langchain.agents.middleware")
pytest.importorskip("agents")

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"
runner = CliRunner()


def _traces(ws: Path) -> list[Trace]:
    with Workspace(ws, create=False) as w:
        return [t for i in w.trace_ids() if (t := w.get_trace(i)) is not None]


def _run(example: str, condition: str, ws: Path) -> list[Trace]:
    res = runner.invoke(app, ["run", "--agent", f"{EXAMPLES / example}.py:agent", "-n", "4",
                              "-d", "weather", "-c", condition, "--seed", "0", "-w", str(ws),
                              "--json"])
    assert res.exit_code == 0, res.output
    summary = json.loads(res.stdout)
    assert summary["completed"] == summary["units"] > 0 and summary["errors"] == 0
    return _traces(ws)


def _errors(t: Trace) -> int:
    return sum(isinstance(e, ToolResultEvent) and isinstance(e.observation.get("error"), dict)
               for e in t.events)


@pytest.mark.parametrize(("example", "condition"), [("guarded_langgraph", "fault:timeout"),
                                                    ("guarded_openai_agents", "p2:type_mismatch")])
def test_the_guarded_example_abstains_and_agentprop_records_it(
        example: str, condition: str, openai_env: str, tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_GUARD", "interceptor")
    traces = _run(example, condition, tmp_path / "ws")
    assert traces and all(t.final is not None and t.final.answer for t in traces)
    abstained = [t for t in traces if t.final is not None and t.final.abstained]
    # the interceptor's L1 fires on a tool error: an episode that saw one abstains
    with_error = [t for t in traces if _errors(t)]
    assert with_error and {t.id for t in with_error} <= {t.id for t in abstained}
    assert all(t.final is not None and t.final.reason for t in abstained)


def _evaluate(args: list[str], ws: Path) -> dict[str, object]:
    res = runner.invoke(app, ["intercept", "evaluate", *args, "-d", "weather", "--n", "10",
                              "--seed", "0", "-w", str(ws), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.stdout)
    failed = [(t.arm, t.condition, [e for e in t.events if e.type == "error"])
              for t in _traces(ws) if t.status != "ok"]
    assert out["run"]["completed"] == out["run"]["units"] > 0 and not failed, failed
    return out  # type: ignore[no-any-return]


def test_langchains_retry_middleware_as_the_guard_retries_at_the_mcp_boundary(
        openai_env: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("AGENT_GUARD", raising=False)
    _evaluate(["--agent", f"{EXAMPLES / 'guarded_langgraph.py'}:agent",
               "--guard", "langchain.agents.middleware:ToolRetryMiddleware",
               "-c", "fault:timeout"], tmp_path / "ws")
    calls: dict[tuple[str, str], int] = defaultdict(int)
    retried = 0
    for t in _traces(tmp_path / "ws"):
        results = [e for e in t.events if isinstance(e, ToolResultEvent)]
        calls[(t.arm, t.condition)] += len(results)
        for a, b in pairwise(results):
            failed = (a.observation.get("error") or {}).get("type") in TRANSIENT_ERRORS
            if t.arm == "treatment" and failed and (a.name, a.arguments) == (b.name, b.arguments):
                retried += 1
    assert calls[("treatment", "fault:timeout")] > calls[("control", "fault:timeout")]
    assert calls[("treatment", "baseline")] == calls[("control", "baseline")]
    assert retried > 0


def test_a_user_guard_function_from_examples_completes(tmp_path: Path) -> None:
    out = _evaluate(["-m", "sim/balanced", "--guard", f"{EXAMPLES / 'guards.py'}:my_guard",
                     "-c", "fault:timeout"], tmp_path / "ws")
    actions = {a["condition"]: a for a in out["guard_actions"]}  # type: ignore[attr-defined]
    assert actions["fault:timeout"]["reject_actions"] > 0
    assert actions["baseline"]["reject_actions"] == 0
