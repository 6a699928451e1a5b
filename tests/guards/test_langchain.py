"""The LangChain v1 middleware's decisions: on constructed message states and tool-call
requests, and on offline `create_agent` runs of a scripted chat model with a local tool."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest

pytest.importorskip("langchain.agents.middleware")

from langchain.agents import create_agent
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage
from langchain_core.tools import tool
from langgraph.prebuilt.tool_node import ToolCallRequest

from agentprop.agent import MAX_RETRIES
from agentprop.core import GuardEvent, ModelCallEvent, ToolCallEvent, ToolResultEvent
from agentprop.external import Abstention
from agentprop.guards import observation_of, to_events
from agentprop.guards.langchain import (
    MARK,
    final_answer,
    guard_middleware,
    turns_of,
)
from agentprop.intercept import ABSTENTION_TEXT, GUARD_ERROR, Decision, GuardView

QUERY = "What is the temperature in Paris on 2025-06-17?"
ERROR = json.dumps({"error": {"type": "timeout", "message": "get_weather did not respond"}})
OK = json.dumps({"city": "Paris", "temperature": 21.5})
CALL = {"id": "c1", "name": "get_weather", "args": {"city": "Paris"}, "type": "tool_call"}


def _history(result: str = ERROR, answer: str = "It is 31 degrees.") -> list[Any]:
    return [HumanMessage(QUERY, id="h"), AIMessage("", tool_calls=[CALL], id="a1"),
            ToolMessage(result, tool_call_id="c1", name="get_weather", id="t1"),
            AIMessage(answer, id="a2")]


def _request(messages: list[Any]) -> ToolCallRequest:
    return ToolCallRequest(tool_call=CALL, tool=None,  # type: ignore[arg-type]
                           state={"messages": messages}, runtime=None)  # type: ignore[arg-type]


def _always(decision: Decision, point: str) -> Any:
    def guard(view: GuardView) -> Decision | None:
        return decision if view.point == point else None
    return guard


def test_the_history_becomes_the_events_of_agentprops_loop() -> None:
    events = to_events(turns_of(_history()))
    assert [type(e) for e in events] == [ModelCallEvent, ToolCallEvent, ToolResultEvent,
                                         ModelCallEvent]
    result = events[2]
    assert isinstance(result, ToolResultEvent)
    assert result.arguments == {"city": "Paris"} and result.observation["error"]
    # content blocks, plain text and a framework error without an error object
    assert observation_of([{"type": "text", "text": OK}]) == json.loads(OK)
    assert observation_of("sunny") == {"text": "sunny"}
    assert observation_of("boom", error=True)["error"]["type"] == "tool_error"


def test_tool_call_reject_does_not_run_the_tool() -> None:
    mw = guard_middleware(_always(Decision.reject("not that city"), "tool_call"))
    ran: list[Any] = []
    out = mw.wrap_tool_call(_request(_history()[:2]), lambda r: ran.append(r))  # type: ignore[arg-type,func-returns-value]
    assert ran == [] and isinstance(out, ToolMessage) and out.status == "error"
    assert json.loads(str(out.content))["error"]["type"] == GUARD_ERROR
    assert out.additional_kwargs[MARK][0]["action"] == "reject"


def test_tool_result_retry_runs_the_handler_again_up_to_the_limit() -> None:
    mw = guard_middleware(lambda v: Decision.retry("again") if v.is_error else None)
    calls: list[int] = []

    def handler(request: ToolCallRequest) -> ToolMessage:
        calls.append(1)
        return ToolMessage(ERROR if len(calls) < 3 else OK, tool_call_id="c1")

    out = mw.wrap_tool_call(_request(_history()[:2]), handler)
    assert len(calls) == 3 and isinstance(out, ToolMessage) and out.content == OK
    assert [m["action"] for m in out.additional_kwargs[MARK]] == ["retry", "retry"]
    # a guard that always wants a retry is stopped at agentprop's retry limit
    mw = guard_middleware(lambda v: Decision.retry("again"))
    calls.clear()
    asyncio.run(mw.awrap_tool_call(_request(_history()[:2]), _async(handler)))
    assert len(calls) == MAX_RETRIES + 1


def test_a_raised_tool_failure_is_an_error_result_to_the_guard() -> None:
    """The built-in retry mitigation retries a tool that raised; a guard that allows lets
    the exception go on unchanged."""
    from agentprop.intercept import InterceptConfig, mitigation

    calls: list[int] = []

    def handler(request: ToolCallRequest) -> ToolMessage:
        calls.append(1)
        if len(calls) == 1:
            raise RuntimeError(ERROR)  # a client's timeout, carrying the error object
        return ToolMessage(OK, tool_call_id="c1")

    mw = guard_middleware(mitigation("retry").build(InterceptConfig()))
    out = mw.wrap_tool_call(_request(_history()[:2]), handler)
    assert len(calls) == 2 and isinstance(out, ToolMessage) and out.content == OK
    calls.clear()
    with pytest.raises(RuntimeError):
        guard_middleware(lambda v: None).wrap_tool_call(_request(_history()[:2]), handler)
    assert len(calls) == 1


def _async(handler: Any) -> Any:
    async def run(request: ToolCallRequest) -> Any:
        return handler(request)
    return run


def test_tool_result_reject_replaces_it_and_abstain_ends_at_the_next_turn() -> None:
    mw = guard_middleware(_always(Decision.reject("ignore this"), "tool_result"))
    out = mw.wrap_tool_call(_request(_history()[:2]),
                            lambda r: ToolMessage(OK, tool_call_id="c1"))
    assert isinstance(out, ToolMessage)
    assert json.loads(str(out.content))["error"]["message"] == "ignore this"

    mw = guard_middleware(_always(Decision.abstain("bad"), "tool_result"))
    marked = mw.wrap_tool_call(_request(_history()[:2]),
                               lambda r: ToolMessage(OK, tool_call_id="c1", id="t1"))
    nxt = AIMessage("", tool_calls=[{**CALL, "id": "c2"}], id="a2")
    update = mw.after_model({"messages": [*_history()[:2], marked, nxt]}, None)  # type: ignore[arg-type]
    assert update is not None and update["jump_to"] == "end"
    reply = update["messages"][0]
    assert reply.id == "a2" and not reply.tool_calls
    answer = final_answer({"messages": [reply]})
    assert isinstance(answer, Abstention) and answer.reason == "bad"


def test_answer_reject_asks_again_then_abstains() -> None:
    mw = guard_middleware(_always(Decision.reject("check again"), "answer"), max_rejects=1)
    history = _history(OK)
    update = mw.after_model({"messages": history}, None)  # type: ignore[arg-type]
    assert update is not None and update["jump_to"] == "model"
    note = update["messages"][0]
    assert isinstance(note, HumanMessage) and note.content == "check again"
    again = [*history, note, AIMessage("still 31", id="a3")]
    update = mw.after_model({"messages": again}, None)  # type: ignore[arg-type]
    assert update is not None and update["jump_to"] == "end"
    assert update["messages"][0].content == ABSTENTION_TEXT
    # the rejection is in the guard's view as a GuardEvent, as in agentprop's loop
    assert any(isinstance(e, GuardEvent) for e in to_events(turns_of(again)))


def test_the_interceptor_decides_from_the_state_alone() -> None:
    """One middleware instance, two runs: each decision depends on its own state only."""
    mw = guard_middleware()  # the interceptor
    assert mw.after_model({"messages": _history(OK, "It is 21.5 degrees.")}, None) is None  # type: ignore[arg-type]
    update = mw.after_model({"messages": _history(ERROR)}, None)  # type: ignore[arg-type]
    assert update is not None and update["jump_to"] == "end"
    assert mw.after_model({"messages": _history(OK, "It is 21.5 degrees.")}, None) is None  # type: ignore[arg-type]


class _Scripted(GenericFakeChatModel):
    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        return self


@tool
def get_weather(city: str) -> str:
    """The weather of a city."""
    return ERROR


def _run(replies: list[AIMessage], mw: Any) -> dict[str, Any]:
    model = _Scripted(messages=iter(replies))
    graph = create_agent(model, [get_weather], middleware=[mw])
    return graph.invoke({"messages": [("user", QUERY)]})  # type: ignore[no-any-return]


def test_in_a_create_agent_graph_the_interceptor_abstains() -> None:
    state = _run([AIMessage("", tool_calls=[CALL]), AIMessage("It is 31 degrees.")],
                 guard_middleware())
    answer = final_answer(state)
    assert isinstance(answer, Abstention) and "L1" in answer.reason


def test_in_a_create_agent_graph_an_answer_reject_jumps_back_to_the_model() -> None:
    mw = guard_middleware(_always(Decision.reject("check again"), "answer"), max_rejects=1)
    state = _run([AIMessage("one"), AIMessage("two")], mw)
    kinds = [type(m).__name__ for m in state["messages"]]
    assert kinds == ["HumanMessage", "AIMessage", "HumanMessage", "AIMessage"]
    assert isinstance(final_answer(state), Abstention)
