"""The report's `your_tools` section on a small user-task workspace: the server and its
tools, S2 proven for the read-only tool and undefined (counted, with its reason) for the
other, the noise floor through the agreement judge the loader passes in, the figure in text
(80 columns) and as a PNG, and the numbers in numbers.json."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from agentprop.cli import app
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    ModelCallEvent,
    ModelOutput,
    RunSpec,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
    Verdict,
    WorkUnit,
)
from agentprop.store import Workspace
from agentprop.suite import load_user_tasks

runner = CliRunner()
MODEL = "ext/agent"
WITHHELD = "side effects: the tool is not annotated readOnlyHint"
N_TASKS = 6
SEEDS = (0, 1, 2)


def _trace(task: str, condition: str, seed: int, answer: str, model: str = MODEL) -> Trace:
    """One episode: a read-only `get_time` call (out:*: its result corrupted, the
    counterfactual made) or a `set_alarm` call (p2:*: its argument corrupted, the
    counterfactual withheld: the tool may have side effects)."""
    unit = WorkUnit(run_id="r1", model=model, task_id=task, condition=condition, seed=seed)
    tool = "set_alarm" if condition.startswith("p2:") else "get_time"
    call = ToolCall(id="c1", name=tool, arguments={"timezone": "Europe/Paris"})
    events: list = [ModelCallEvent(step=0, request_hash="h", output=ModelOutput(
        tool_calls=[call])), ToolCallEvent(step=0, call=call)]
    obs = {"text": "12:00"}
    if condition == "baseline":
        events.append(ToolResultEvent(step=0, call_id="c1", name=tool,
                                      arguments=call.arguments, observation=obs))
    elif tool == "get_time":
        events.append(InjectionEvent(step=0, protocol="out", error_type="wrong_value",
                                     status="applied", call_id="c1", tool=tool))
        events.append(ToolResultEvent(step=0, call_id="c1", name=tool,
                                      arguments=call.arguments, observation={"text": "13:00"},
                                      counterfactual=obs))
    else:
        events.append(InjectionEvent(step=0, protocol="p2", error_type="semantic_wrong",
                                     status="applied", call_id="c1", tool=tool,
                                     param="timezone", original="Europe/Paris",
                                     injected="Asia/Tokyo"))
        events.append(ToolResultEvent(step=0, call_id="c1", name=tool,
                                      arguments={"timezone": "Asia/Tokyo"}, observation=obs,
                                      counterfactual_withheld=WITHHELD))
    events.append(FinalEvent(step=1, answer=answer))
    return Trace(id=unit.key, run_id="r1", model=model, task_id=task, domain="mcp-time",
                 split="test", difficulty="medium", condition=condition, seed=seed,
                 events=events)


@pytest.fixture()
def user_workspace(tmp_path: Path) -> Path:
    """6 questions × 3 seeds: tasks 0–2 answer the same in every clean run, tasks 3–5
    differently each time (floor 0.5); out:wrong_value is wrong on tasks 3–5 and on task 0
    (S3 rate 4/6 → 2/3), p2:semantic_wrong on every task."""
    tasks_file = tmp_path / "tasks.jsonl"
    tasks_file.write_text("".join(json.dumps({"query": f"What time is it in zone {i}?"}) + "\n"
                                  for i in range(N_TASKS)), encoding="utf-8")
    tasks = load_user_tasks(tasks_file, domain="mcp-time", tools=["get_time", "set_alarm"])
    ws = Workspace(tmp_path / "w")
    ws.put_tasks(tasks)
    ws.put_run(RunSpec(id="r1", config={
        "models": [MODEL], "upstream": "python -m mcp_server_time", "safe_tools": [],
        "upstream_server": "mcp-time",
        "upstream_tools": {"get_time": True, "set_alarm": False}}))
    traces, verdicts = [], []
    for i, task in enumerate(t.id for t in tasks):
        for seed in SEEDS:
            clean = f"It is {i}:00" if i < 3 else f"It is {i}:{seed}0"
            for cond, wrong in (("baseline", False), ("out:wrong_value", i >= 3 or i == 0),
                                ("p2:semantic_wrong", True)):
                t = _trace(task, cond, seed, clean if not wrong else "It is 13:00")
                traces.append(t)
                if cond != "baseline":
                    verdicts.append(Verdict(trace_id=t.id, judge="agree", correct=not wrong))
    ws.put_traces(traces)
    ws.put_verdicts(verdicts)
    ws.set_meta("primary_judge", "agree")
    ws.close()
    return tmp_path / "w"


def _same(query: str, a: str, b: str) -> bool | None:
    assert query.startswith("What time is it in zone")
    return a == b


def _report(path: Path) -> tuple[dict, str]:
    res = runner.invoke(app, ["report", "--workspace", str(path), "--resamples", "200"])
    assert res.exit_code == 0, res.output
    out = path / "report"
    numbers = json.loads((out / "numbers.json").read_text(encoding="utf-8"))
    return numbers, (out / "index.html").read_text(encoding="utf-8")


def test_section_with_the_agreement_judge(user_workspace: Path,
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    import agentprop.judges as judges

    monkeypatch.setattr(judges, "answers_agree", _same, raising=False)
    numbers, html = _report(user_workspace)
    key = f"{MODEL}|baseline"
    floor = numbers[f"your_tools.noise_floor[{key}]"]
    assert floor["value"] == pytest.approx(0.5) and floor["n"] == N_TASKS
    assert numbers[f"your_tools.floor_pairs[{key}]"]["value"] == N_TASKS * 3
    out = f"{MODEL}|out:wrong_value"
    assert numbers[f"your_tools.s3_rate[{out}]"]["value"] == pytest.approx(4 / 6)
    beyond = numbers[f"your_tools.beyond_floor[{out}]"]
    assert beyond["value"] == pytest.approx(4 / 6 - 0.5)
    lo, hi = beyond["ci"]
    assert lo <= beyond["value"] <= hi
    # S2: proven for the read-only tool; undefined (never 0) for the other, counted
    assert numbers[f"your_tools.p_S2[{out}]"]["value"] == 1.0
    p2 = f"{MODEL}|p2:semantic_wrong"
    s2 = numbers[f"your_tools.p_S2[{p2}]"]
    assert s2["value"] is None and s2["n"] == 0
    assert s2["note"].startswith(f"S2 undefined: {N_TASKS * 3} traces, because side effects")
    assert numbers[f"your_tools.n_s2_withheld[{p2}]"]["value"] == N_TASKS * 3
    # the page: server, tools, the chart in text (80 columns), the figure
    assert "mcp_server_time" in html and "set_alarm" in html
    assert "not read-only (no second call, S2 undefined): set_alarm" in html
    chart = html.split('id="sec-your_tools"', 1)[1].split("<pre>", 1)[1].split("</pre>", 1)[0]
    assert "noise floor" in chart and "●" in chart
    assert max(len(line) for line in chart.splitlines()) <= 80
    assert (user_workspace / "report" / "figures" / "your_tools_floor.png").stat().st_size > 0
    assert html.count("r_12 = 1 by construction") == 1


def test_section_without_the_agreement_judge_says_why(user_workspace: Path,
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    import agentprop.judges as judges

    monkeypatch.delattr(judges, "answers_agree", raising=False)
    numbers, _ = _report(user_workspace)
    floor = numbers[f"your_tools.noise_floor[{MODEL}|baseline]"]
    assert floor["value"] is None and floor["note"] == "no agreement judge"
    beyond = numbers[f"your_tools.beyond_floor[{MODEL}|out:wrong_value]"]
    assert beyond["value"] is None and beyond["note"] == "no agreement judge"
    # S3 itself does not need the floor
    s3 = numbers[f"your_tools.s3_rate[{MODEL}|out:wrong_value]"]["value"]
    assert s3 is not None and not math.isnan(s3)


def test_text_chart_fits_80_columns_with_long_names() -> None:
    import pandas as pd

    from agentprop.analysis._stats import Estimate
    from agentprop.analysis._tidy import frame, row
    from agentprop.report.sections.your_tools import text_chart

    m = "provider/a-very-long-model-name-that-goes-on-and-on-and-on-and-on-forever"
    rows = [row({"model": m, "condition": "baseline"}, f"{m}|baseline", "noise_floor",
                Estimate(0.2, 10, 0.1, 0.3))]
    for c, v in (("out:wrong_value", 0.0), ("p2:semantic_wrong@n=3,multi=2", 1.0)):
        rows.append(row({"model": m, "condition": c}, f"{m}|{c}", "s3_rate",
                        Estimate(v, 10, max(0, v - 0.2), min(1, v + 0.2))))
    chart = text_chart(frame(rows, ["model", "condition"]))
    assert isinstance(chart, str) and len(chart.splitlines()) == 5
    assert max(len(line) for line in chart.splitlines()) <= 80
    assert pd.notna(chart)


def test_real_models_say_unobserved_model_calls_are_not_zero() -> None:
    # an external agent's episodes without the gateway record no model turns: its model
    # calls and tokens per episode are undefined with the reason, not 0; tool calls stay
    import pandas as pd

    from agentprop.analysis import real_model_table
    from agentprop.analysis._real import NOT_OBSERVED
    from agentprop.analysis._tidy import lookup

    st = pd.DataFrame({
        "model": "ext", "task_id": [f"t{i}" for i in range(4)], "arm": "", "simulated": False,
        "status": "ok", "forced": False, "model_calls": 0, "tool_calls": 2, "tokens": 0,
        "model_s": 0.0, "turns_recorded": False})
    table = real_model_table(st, n_resamples=50)
    assert math.isnan(lookup(table, "model_calls", "ext"))
    assert math.isnan(lookup(table, "tokens", "ext"))
    assert lookup(table, "tool_calls", "ext") == 2.0
    notes = table.set_index("metric")["note"]
    assert notes["model_calls"] == NOT_OBSERVED and notes["s_per_call"] == NOT_OBSERVED
    # with the turns recorded the means are read as before
    seen = real_model_table(st.assign(turns_recorded=True, model_calls=3), n_resamples=50)
    assert lookup(seen, "model_calls", "ext") == 3.0


def test_judge_validity_and_simulation_check_on_user_questions(
        user_workspace: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # a simulated agent on the user's questions plays the generic policy: the profiles'
    # stated rates do not describe it, so the simulation check leaves those traces out
    from agentprop.experiment import compute_simulation_check

    ws = Workspace(user_workspace)
    task = ws.stored_tasks()[0].id
    ws.put_traces([_trace(task, c, 0, "It is 1:00", model="sim/careful")
                   for c in ("baseline", "out:wrong_value")])
    assert compute_simulation_check(ws) == []
    ws.close()
    # the validity cards say they are the suite's, not measured on these questions
    _, html = _report(user_workspace)
    cards = html.split('id="sec-judge_validity"', 1)[1]
    assert "not on your questions" in cards.split("</section>", 1)[0]


def test_a_real_run_on_mcp_server_time_records_its_tools_and_reports_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # end to end: `run --upstream --tasks` with an in-process simulated agent, then the
    # report; the manifest carries each tool's read-only flag, which the section shows
    pytest.importorskip("mcp_server_time")
    import agentprop.judges as judges

    monkeypatch.setattr(judges, "answers_agree", lambda q, a, b: a == b, raising=False)
    tasks = tmp_path / "tasks.jsonl"
    tasks.write_text('{"query": "What is the current time in Europe/Paris"}\n'
                     '{"query": "What is the current time in Asia/Tokyo"}\n', encoding="utf-8")
    w = tmp_path / "w"
    res = runner.invoke(app, [
        "run", "-m", "sim/balanced", "--upstream", "python -m mcp_server_time "
        "--local-timezone UTC", "--tasks", str(tasks), "-c", "baseline", "-c",
        "fault:timeout", "--seed", "0", "--seed", "1", "-w", str(w)])
    assert res.exit_code == 0, res.output
    ws = Workspace(w)
    (run,) = ws.runs()
    assert run.config["upstream_tools"] == {"get_current_time": True, "convert_time": True}
    ws.close()
    numbers, html = _report(w)
    floor = numbers["your_tools.noise_floor[sim/balanced|baseline]"]
    assert floor["n"] == 2 and numbers["your_tools.floor_pairs[sim/balanced|baseline]"][
        "value"] == 2
    assert "read-only (counterfactual made, S2 proven): convert_time, get_current_time" in html
    assert "simulation_check." not in json.dumps(list(numbers))


def test_baseline_comparison_leaves_out_questions_without_a_reference(
        user_workspace: Path) -> None:
    # every question of the fixture is without a reference: a clean run judged against its
    # own answer would be right by construction, so the baseline comparison has no data
    ws = Workspace(user_workspace)
    ws.put_verdicts([Verdict(trace_id=t.id, judge="agree", correct=True)
                     for t in ws.iter_traces() if t.condition == "baseline"])
    ws.close()
    numbers, _ = _report(user_workspace)
    got = {k: v for k, v in numbers.items() if k.startswith("baseline_vs_p2.baseline_correct")}
    assert all(v["value"] is None for v in got.values()), got
