"""The report's `tool_calls` section: the preflight of each model and the calls that did
not arrive as calls, in numbers.json, the tables and the page."""

from __future__ import annotations

import json
from pathlib import Path

from agentprop.analysis import WorkspaceFacts, build_input
from agentprop.core import (
    CallIssueEvent,
    FinalEvent,
    ToolCall,
    ToolCallEvent,
    ToolProbe,
    ToolResultEvent,
    Trace,
    Verdict,
)
from agentprop.report import analyze, build_report

LEAK = '{"name": "get_weather", "arguments": {"city": "Paris"}}'


def _trace(model: str, task: str, leaked: bool) -> Trace:
    call = ToolCall(id="c1", name="get_weather", arguments={"city": "Paris"})
    events = ([CallIssueEvent(step=0, kind="leaked", tool="get_weather", raw=LEAK),
               FinalEvent(step=0, answer=LEAK)] if leaked else
              [ToolCallEvent(step=0, call=call),
               ToolResultEvent(step=0, call_id="c1", name="get_weather",
                               arguments={"city": "Paris"}, observation={"temp_c": 14}),
               FinalEvent(step=1, answer="14 C")])
    return Trace(id=f"{model}-{task}", run_id="r", model=model, task_id=task,
                 domain="weather", split="test", difficulty="easy", events=events)


def test_the_section_counts_leaked_calls_and_shows_the_preflight(tmp_path: Path) -> None:
    traces = [_trace("openai/small", f"weather_{k:03d}", leaked=k < 3) for k in range(6)]
    probe = ToolProbe(model="openai/small", verdict="leaked", tools=5, requests=1,
                      detail="weather.get_weather: the call came back as text: '{...}'")
    inp = build_input(traces, [Verdict(trace_id=t.id, judge="facts", correct=False)
                               for t in traces],
                      workspace=WorkspaceFacts(preflight=(probe,)))
    result = analyze(inp, n_resamples=50)
    index = build_report(result, tmp_path / "report")
    numbers = json.loads((tmp_path / "report" / "numbers.json").read_text())
    assert numbers["tool_calls.leaked_call[openai/small]"]["value"] == 0.5
    assert numbers["tool_calls.leaked_call[openai/small]"]["n"] == 6
    assert numbers["tool_calls.n_leaked_call[openai/small]"]["value"] == 3
    assert numbers["tool_calls.no_tool_call[openai/small]"]["value"] == 0.0
    pre = numbers["tool_calls.preflight_tools_passed[openai/small]"]
    assert pre["value"] == 0 and pre["n"] == 5 and pre["verdict"] == "leaked"
    html = index.read_text(encoding="utf-8")
    assert 'id="sec-tool_calls"' in html and "calls leaked into text" in html
    assert "tool-calling preflight: 1 of 1 models failed it" in html
