"""Tool calls that did not arrive as calls (docs/tool-call-outcomes.md): a call written as
text, a call of a tool that was not offered, arguments that do not parse. Each is a typed
`call_issue` event with the raw text; none is "no tool call"; a leaked call runs only with
`execute_leaked`."""

from __future__ import annotations

import json
from typing import Any

from agentprop.agent import run_episode
from agentprop.analysis.stages import stage_table
from agentprop.core import (
    CallIssueEvent,
    InjectionEvent,
    ModelOutput,
    Task,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    UnparsedCall,
    WorkUnit,
)
from agentprop.models import GenerateConfig
from agentprop.testing import ScriptedModel as Scripted
from agentprop.testing import TinyDomain

TASK = Task(
    id="tiny-1", domain="tiny", split="test", difficulty="easy", intent="weather",
    query="How warm is it in Paris?", tools=["lookup", "book"], env_seed=1,
    gold_plan=[ToolCall(name="lookup", arguments={"city": "Paris"})],
    reference_answer="15 C in Paris.",
)
UNIT = WorkUnit(run_id="r1", model="fake/scripted", task_id=TASK.id)
LEAK = 'I will check. {"name": "lookup", "arguments": {"city": "Paris"}}'


async def run(model: Scripted, **kw: Any) -> Any:
    env = TinyDomain().make_env(TASK.env_seed)
    return await run_episode(UNIT, TASK, model, [], GenerateConfig(), env, **kw)


def issues(trace: Any) -> list[CallIssueEvent]:
    return [e for e in trace.events if isinstance(e, CallIssueEvent)]


def stage_row(trace: Any) -> dict[str, Any]:
    return stage_table([trace]).iloc[0].to_dict()


async def test_a_call_written_as_text_is_recorded_and_by_default_not_run() -> None:
    trace = await run(Scripted([ModelOutput(text=LEAK)], after="unused"))
    [issue] = issues(trace)
    assert (issue.kind, issue.tool, issue.raw, issue.detail) == ("leaked", "lookup", LEAK,
                                                                 "json")
    assert not issue.executed and issue.call_id is None
    assert not any(isinstance(e, ToolCallEvent) for e in trace.events)
    assert trace.final_answer == LEAK  # the reply stands as the answer, as it would
    row = stage_row(trace)
    assert row["leaked_call"] and row["undelivered_call"]
    assert not row["no_tool_call"]  # it tried: never counted as "no tool call"


async def test_execute_leaked_runs_the_call_and_says_so() -> None:
    model = Scripted([ModelOutput(text=LEAK), "It is 15 C in Paris."])
    trace = await run(model, execute_leaked=True)
    [issue] = issues(trace)
    assert issue.executed and issue.call_id is not None
    [result] = [e for e in trace.events if isinstance(e, ToolResultEvent)]
    assert result.call_id == issue.call_id and result.observation["city"] == "Paris"
    sent = model.seen[1]
    assert sent[2].tool_calls[0].id == issue.call_id  # the history pairs call and result
    assert sent[3].tool_call_id == issue.call_id
    row = stage_row(trace)
    assert row["leaked_call"] and not row["undelivered_call"] and not row["no_tool_call"]


async def test_prose_naming_a_tool_is_a_final_answer() -> None:
    trace = await run(Scripted(["I would use lookup() to check Paris."]))
    assert not issues(trace)
    assert stage_row(trace)["no_tool_call"]


async def test_a_call_of_a_tool_not_offered_is_answered_with_an_error_not_run() -> None:
    model = Scripted([[ToolCall(id="c1", name="forecast", arguments={"city": "Paris"})],
                      "done"])
    trace = await run(model)
    [issue] = issues(trace)
    assert issue.kind == "unknown_tool" and issue.tool == "forecast" and issue.call_id == "c1"
    assert json.loads(issue.raw) == {"name": "forecast", "arguments": {"city": "Paris"}}
    assert not any(isinstance(e, ToolCallEvent | ToolResultEvent) for e in trace.events)
    reply = model.seen[1][-1]
    assert reply.role == "tool" and json.loads(reply.content or "")["error"]["type"] == \
        "unknown_tool"
    row = stage_row(trace)
    assert row["unknown_tool"] and row["undelivered_call"] and not row["no_tool_call"]


async def test_unparsed_arguments_keep_their_place_and_get_an_error_observation() -> None:
    bad = UnparsedCall(id="c1", name="lookup", arguments='{"city": "Par', error="cut",
                       index=0)
    first = ModelOutput(tool_calls=[ToolCall(id="c2", name="lookup",
                                             arguments={"city": "Rome"})],
                        unparsed_calls=[bad])
    model = Scripted([first, "done"])
    trace = await run(model)
    [issue] = issues(trace)
    assert (issue.kind, issue.tool, issue.raw, issue.call_id) == (
        "bad_arguments", "lookup", '{"city": "Par', "c1")
    sent = model.seen[1]
    assert [c.id for c in sent[2].tool_calls] == ["c1", "c2"]  # the model's order
    assert json.loads(sent[3].content or "")["error"]["type"] == "invalid_arguments"
    assert json.loads(sent[4].content or "")["city"] == "Rome"
    [ran] = [e for e in trace.events if isinstance(e, ToolCallEvent)]
    assert ran.call.id == "c2"  # only the parsed call reached the environment
    row = stage_row(trace)
    assert row["bad_arguments"] and not row["undelivered_call"]


async def test_text_mode_arguments_that_do_not_parse_are_an_issue() -> None:
    model = Scripted(['Action: lookup\nAction Input: {"city": Paris}', "Final Answer: ok"])
    trace = await run(model, text_mode=True)
    [issue] = issues(trace)
    assert issue.kind == "bad_arguments" and issue.tool == "lookup"
    assert "Paris" in issue.raw


def test_an_injected_trace_whose_calls_never_arrived_is_its_own_outcome() -> None:
    from agentprop.core import FinalEvent, ModelCallEvent, Trace

    trace = Trace(id="t", run_id="r", model="m", task_id="x", domain="tiny", split="test",
                  difficulty="easy", condition="p2:semantic_wrong", events=[
                      ModelCallEvent(step=0, request_hash="h", output=ModelOutput(text=LEAK)),
                      CallIssueEvent(step=0, kind="leaked", tool="lookup", raw=LEAK),
                      FinalEvent(step=0, answer=LEAK),
                      InjectionEvent(protocol="p2", error_type="semantic_wrong",
                                     status="no_tool_call")])
    row = stage_row(trace)
    assert row["stopped_at"] == "undelivered_call"
    assert not row["opportunity"]  # so never in the rejection rate (1 − p_S1)
