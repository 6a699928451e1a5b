"""`agentprop stages` on a small hand-built workspace."""

from __future__ import annotations

import json
from pathlib import Path

from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
    Verdict,
)
from agentprop.store import Workspace

runner = CliRunner()


def _trace(i: int, model: str, visible: bool, condition: str = "p2:semantic_wrong") -> Trace:
    args, bad = {"city": "London"}, {"city": "Paris"}
    obs = {"city": "Paris"} if visible else {"city": "London"}
    events = [ToolCallEvent(step=0, call=ToolCall(id="c1", name="f", arguments=args))]
    if condition != "baseline":
        events += [
            InjectionEvent(protocol="p2", error_type="semantic_wrong", status="applied",
                           call_id="c1", tool="f", param="city", original="London",
                           injected="Paris"),
            ToolResultEvent(step=0, call_id="c1", name="f", arguments=bad, observation=obs,
                            counterfactual={"city": "London"}),
        ]
    events.append(FinalEvent(step=1, answer="x"))
    return Trace(id=f"{model}{condition}{i}", run_id="r", model=model, task_id=f"t{i}",
                 domain="weather", split="test", difficulty="easy", condition=condition,
                 simulated=model.startswith("sim/"), events=events)  # type: ignore[arg-type]


def _workspace(tmp_path: Path) -> Path:
    path = tmp_path / "ws"
    with Workspace(path) as ws:
        traces = [_trace(i, "sim/a", visible=i % 2 == 0) for i in range(10)]
        traces += [_trace(i, "openai/b", visible=True) for i in range(6)]
        traces += [_trace(i, "sim/a", True, condition="baseline") for i in range(3)]
        ws.put_traces(traces)
    return path


def test_stages_json_and_table(tmp_path: Path) -> None:
    path = _workspace(tmp_path)
    res = runner.invoke(app, ["stages", "--workspace", str(path), "--json", "--n-boot", "200"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert data["n_traces"] == 19 and data["n_baseline"] == 3 and not data["judged"]
    groups = {g["model"]: g for g in data["groups"]}
    assert groups["sim/a"]["n"] == 10 and groups["sim/a"]["p_S2"] == 0.5
    assert groups["sim/a"]["simulated"] and not groups["openai/b"]["simulated"]
    assert groups["openai/b"]["p_S2"] == 1.0 and groups["openai/b"]["r_23"] is None

    res = runner.invoke(app, ["stages", "--workspace", str(path)])
    assert res.exit_code == 0 and "sim/a (simulated)" in res.stdout and "r_23" not in res.stdout
    # p_S1 is 1 for every model (the runtime applies the corruption): said once, not a row
    assert res.stdout.count("1 by construction") == 1 and "│ p_S1" not in res.stdout
    assert "p_S2" in res.stdout and "noticed" in res.stdout

    with Workspace(path) as ws:
        ws.put_verdicts(Verdict(trace_id=f"sim/ap2:semantic_wrong{i}", judge="facts",
                                correct=i < 5) for i in range(10))
    res = runner.invoke(app, ["stages", "--workspace", str(path), "--json", "--n-boot", "200"])
    data = json.loads(res.stdout)
    a = next(g for g in data["groups"] if g["model"] == "sim/a")
    assert data["judged"] and data["judge"] == "facts"
    # S2 traces are the even ones: 0, 2, 4 correct; 6, 8 wrong
    assert a["r_23"] == 0.4 and a["r_23_n"] == 5
    res = runner.invoke(app, ["stages", "--workspace", str(path)])
    assert "r_23" in res.stdout and "recovered" in res.stdout


def test_stages_errors(tmp_path: Path) -> None:
    res = runner.invoke(app, ["stages", "--workspace", str(tmp_path / "missing")])
    assert res.exit_code != 0 and "no workspace" in res.output
    Workspace(tmp_path / "empty").close()
    res = runner.invoke(app, ["stages", "--workspace", str(tmp_path / "empty")])
    assert res.exit_code != 0 and "no traces" in res.output
    path = _workspace(tmp_path)
    res = runner.invoke(app, ["stages", "--workspace", str(path), "--judge", "heuristic"])
    assert res.exit_code != 0 and "no verdicts by judge 'heuristic'" in res.output
    res = runner.invoke(app, ["stages", "--workspace", str(path), "--judge", "nobody"])
    assert res.exit_code != 0 and "unknown judge 'nobody'" in res.output
    assert "Traceback" not in res.output
