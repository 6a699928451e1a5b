"""The Agents SDK adapter's decisions, on constructed guardrail data and on offline runs of
a scripted model (`agents.testing.ScriptedModel`) with a local function tool."""

from __future__ import annotations

import asyncio
import json
from types import SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("agents")

from agents import Agent, function_tool, set_tracing_disabled
from agents.testing import ModelStep, ScriptedModel
from agents.testing.model import assistant_message, function_call

from agentprop.core import GuardEvent, ModelCallEvent, ToolCallEvent, ToolResultEvent
from agentprop.external import Abstention
from agentprop.guards.openai_agents import GuardedRun, guarded_run
from agentprop.intercept import ABSTENTION_TEXT, GUARD_ERROR, Decision, GuardView

ERROR = {"error": {"type": "timeout", "message": "get_weather did not respond"}}
QUERY = "What is the temperature in Paris on 2025-06-17?"


def _data(output: Any = None, call_id: str = "c1") -> Any:
    ctx = SimpleNamespace(tool_call_id=call_id, tool_name="get_weather",
                          tool_arguments=json.dumps({"city": "Paris"}))
    return SimpleNamespace(context=ctx, agent=None, output=output)


def _always(decision: Decision, point: str) -> Any:
    def guard(view: GuardView) -> Decision | None:
        return decision if view.point == point else None
    return guard


def test_input_reject_shows_the_error_object_and_abstain_stops_the_run() -> None:
    run = GuardedRun(QUERY, _always(Decision.reject("not that city"), "tool_call"))
    out = run._on_input(_data())
    assert out.behavior["type"] == "reject_content"
    shown = json.loads(out.behavior["message"])  # type: ignore[typeddict-item]
    assert shown["error"]["type"] == GUARD_ERROR
    assert run.abstained is None
    # the model saw an error result: the next view counts it, as agentprop's loop does
    assert run._view("answer", answer="x").signals().tool_errors == [GUARD_ERROR]

    run = GuardedRun(QUERY, _always(Decision.abstain("stop"), "tool_call"))
    assert run._on_input(_data()).behavior["type"] == "raise_exception"
    assert run.abstained is not None
    assert [t.action for t in run.turns if t.kind == "guard"] == ["abstain"]


def test_output_sees_the_mcp_output_as_an_observation_and_retry_is_unexpressed() -> None:
    seen: list[GuardView] = []

    def guard(view: GuardView) -> Decision | None:
        seen.append(view)
        return Decision.retry("again")

    run = GuardedRun(QUERY, guard)
    # an MCP tool's output in the SDK: one text block holding agentprop's JSON
    out = run._on_output(_data({"type": "text", "text": json.dumps(ERROR)}))
    assert out.behavior["type"] == "allow"
    assert seen[0].is_error and seen[0].call is not None
    assert seen[0].call.arguments == {"city": "Paris"}
    assert len(run.unexpressed) == 1  # the SDK cannot run the tool again
    # the result joins the run's history, so the next view's L1 counts it
    assert run._view("answer", answer="x").signals().l1_count == 1


def test_runs_share_no_state() -> None:
    a = guarded_run(QUERY)
    b = guarded_run(QUERY)
    a._on_output(_data(json.dumps(ERROR)))
    assert len(a.turns) == 1 and b.turns == []
    assert a.tool_output_guardrails[0] is not b.tool_output_guardrails[0]


def _agent(steps: list[Any], run: GuardedRun) -> Agent[Any]:
    @function_tool
    def get_weather(city: str) -> str:
        """The weather of a city."""
        return json.dumps(ERROR)

    run.attach(get_weather)
    return Agent(name="a", model=ScriptedModel(steps), tools=[get_weather])


def test_interceptor_abstains_on_the_answer_of_a_run_with_a_tool_error() -> None:
    set_tracing_disabled(True)
    run = guarded_run(QUERY)  # the default guard: the interceptor
    steps = [[function_call("get_weather", {"city": "Paris"}, call_id="c1")],
             [assistant_message("It is 31 degrees in Paris.")]]
    answer = asyncio.run(run.run(_agent(steps, run)))
    assert isinstance(answer, Abstention) and str(answer) == ABSTENTION_TEXT
    assert "L1" in answer.reason
    events = run._view("answer").events
    assert [type(e) for e in events] == [ModelCallEvent, ToolCallEvent, ToolResultEvent,
                                         ModelCallEvent, GuardEvent]


def test_answer_reject_continues_the_run_with_the_message_then_abstains() -> None:
    set_tracing_disabled(True)
    run = GuardedRun(QUERY, _always(Decision.reject("check again"), "answer"),
                     max_rejects=1)
    steps = [ModelStep(output=[assistant_message("one")]),
             ModelStep(output=[assistant_message("two")])]
    agent = _agent(steps, run)
    answer = asyncio.run(run.run(agent))
    assert isinstance(answer, Abstention)
    model = agent.model
    assert isinstance(model, ScriptedModel) and model.remaining_steps == 0
    last_input = model.calls[-1].input
    assert isinstance(last_input, list)
    assert last_input[-1] == {"role": "user", "content": "check again"}
    assert [(t.point, t.action) for t in run.turns if t.kind == "guard"] == [
        ("answer", "reject"), ("answer", "abstain")]


def test_tool_abstention_ends_the_run() -> None:
    set_tracing_disabled(True)
    run = GuardedRun(QUERY, _always(Decision.abstain("bad result"), "tool_result"))
    steps = [[function_call("get_weather", {"city": "Paris"}, call_id="c1")],
             [assistant_message("never asked")]]
    agent = _agent(steps, run)
    answer = asyncio.run(run.run(agent))
    assert isinstance(answer, Abstention) and answer.reason == "bad result"
    model = agent.model
    assert isinstance(model, ScriptedModel) and model.remaining_steps == 1
