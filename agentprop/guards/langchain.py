"""An agentprop `Guard` as LangChain v1 agent middleware (`create_agent(middleware=[...])`):
the decision code agentprop's own loop runs, inside a LangChain or LangGraph agent.

- tool_call (`wrap_tool_call`, before the tool runs): reject or abstain → the tool does not
  run; the model sees the guard's message as the tool's error result.
- tool_result (after the handler; a tool that raised is an error result): retry → the
  handler runs again (at most `agent.MAX_RETRIES` times); reject → the model sees the
  message instead of the result; abstain → the result passes and the run ends with the
  abstention at the next model turn. Otherwise a raised exception goes on as it came.
- answer (`after_model`, on a reply without tool calls): reject → the message is added as a
  user turn and the model is asked again (at most `max_rejects` times; then it abstains);
  abstain → the reply's text is replaced by the abstention and the run ends.

The middleware holds no state: every action is written into the messages it returns
(``additional_kwargs["agentprop_guard"]``), so the guard's view is rebuilt from the run's
own message state and concurrent runs sharing one instance never share state.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from langchain.agents.middleware import AgentMiddleware, AgentState, hook_config
from langchain.agents.middleware.types import ToolCallRequest
from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, ToolMessage
from langgraph.errors import GraphBubbleUp
from langgraph.runtime import Runtime
from langgraph.types import Command

from agentprop.agent import MAX_RETRIES, observation_text
from agentprop.core import GuardAction, GuardPoint, ToolCall, TraceEvent
from agentprop.external import Abstention
from agentprop.guards._common import (
    Turn,
    abstention_text,
    ask,
    content_text,
    default_guard,
    observation_of,
    to_events,
)
from agentprop.intercept import GUARD_ERROR, Decision, Guard, GuardView, InterceptConfig

MARK = "agentprop_guard"
"""The `additional_kwargs` key of a message that carries the guard's actions."""

ToolResult = ToolMessage | Command[Any]


def _mark(point: GuardPoint, action: GuardAction, d: Decision, call_id: str = ""
          ) -> dict[str, str]:
    return {"point": point, "action": action, "reason": d.reason, "call_id": call_id}


def _marks(m: BaseMessage) -> list[dict[str, str]]:
    marks = m.additional_kwargs.get(MARK) if isinstance(m.additional_kwargs, dict) else None
    return list(marks) if isinstance(marks, list) else []


def _with_marks(m: ToolMessage, marks: list[dict[str, str]]) -> ToolMessage:
    if not marks:
        return m
    return m.model_copy(update={"additional_kwargs": {**m.additional_kwargs,
                                                      MARK: [*_marks(m), *marks]}})


def turns_of(messages: Sequence[BaseMessage]) -> list[Turn]:
    """A LangChain message history in agentprop's neutral form (see `to_events`)."""
    turns: list[Turn] = []
    for m in messages:
        turns += [Turn("guard", text=k.get("reason", ""), call_id=k.get("call_id", ""),
                       point=k["point"], action=k["action"])  # type: ignore[arg-type]
                  for k in _marks(m) if k.get("point") and k.get("action")]
        if isinstance(m, AIMessage):
            calls = tuple(ToolCall(id=c.get("id") or "", name=c["name"],
                                   arguments=c.get("args") or {}) for c in m.tool_calls)
            turns.append(Turn("assistant", text=content_text(m.content), calls=calls))
        elif isinstance(m, ToolMessage):
            turns.append(Turn("tool", call_id=m.tool_call_id, name=m.name or "",
                              observation=observation_of(m.content,
                                                         error=m.status == "error")))
    return turns


def query_of(messages: Sequence[BaseMessage]) -> str:
    """The user's question: the first human message."""
    return next((content_text(m.content) for m in messages if isinstance(m, HumanMessage)
                 and not _marks(m)), "")


def _messages(state: Any) -> list[AnyMessage]:
    if isinstance(state, dict):
        return list(state.get("messages") or [])
    if isinstance(state, list):
        return state
    return list(getattr(state, "messages", []) or [])


def final_answer(state: Any) -> str:
    """The run's answer: the last message's text, as an `agentprop.external.Abstention`
    when the guard withheld it (so agentprop records an abstention, not an answer)."""
    messages = _messages(state)
    if not messages:
        return ""
    last = messages[-1]
    text = content_text(last.content)
    abstained = [k for k in _marks(last) if k.get("action") == "abstain"]
    return Abstention(text, abstained[-1].get("reason", "")) if abstained else text


class GuardMiddleware(AgentMiddleware[AgentState[Any], Any, Any]):
    """See the module docstring. Build it with `guard_middleware`."""

    def __init__(self, guard: Guard, *, name: str, max_rejects: int = 2) -> None:
        super().__init__()
        self.guard = guard
        self._name = name
        self.max_rejects = max_rejects

    @property
    def name(self) -> str:
        return self._name

    def _view(self, messages: Sequence[BaseMessage], point: GuardPoint,
              **about: Any) -> GuardView:
        events: tuple[TraceEvent, ...] = to_events(turns_of(messages), self._name)
        return GuardView(point=point, query=query_of(messages), events=events, **about)

    # -- tool_call / tool_result ---------------------------------------------------------

    def _call(self, request: ToolCallRequest) -> ToolCall:
        tc = request.tool_call
        return ToolCall(id=tc.get("id") or "", name=tc["name"], arguments=tc.get("args") or {})

    def _before(self, request: ToolCallRequest) -> ToolMessage | None:
        """The message that replaces the call when the guard stops it, else None."""
        call = self._call(request)
        d = ask(self.guard, self._view(_messages(request.state), "tool_call", call=call))
        if d.action not in ("reject", "abstain"):
            return None
        return self._error(call, d.message or "the guard stopped this call",
                           [_mark("tool_call", d.action, d, call.id)])

    def _error(self, call: ToolCall, message: str, marks: list[dict[str, str]]
               ) -> ToolMessage:
        text = observation_text({"error": {"type": GUARD_ERROR, "message": message}})
        return _with_marks(ToolMessage(content=text, tool_call_id=call.id, name=call.name,
                                       status="error"), marks)

    def _review(self, request: ToolCallRequest, result: ToolResult | Exception,
                attempt: int, marks: list[dict[str, str]]) -> ToolResult | None:
        """The result to return, or None to run the handler again (a retry). A tool that
        raised is an error result to the guard; the exception goes on unless the guard
        retries, rejects or abstains."""
        if not isinstance(result, ToolMessage | Exception):
            return result  # a Command: the tool steers the graph itself
        call = self._call(request)
        obs = observation_of(str(result), error=True) if isinstance(result, Exception) \
            else observation_of(result.content, error=result.status == "error")
        d = ask(self.guard, self._view(_messages(request.state), "tool_result", call=call,
                                       observation=obs, attempt=attempt))
        if d.action == "retry" and attempt < MAX_RETRIES:
            marks.append(_mark("tool_result", "retry", d, call.id))
            return None
        if d.action == "reject":
            return self._error(call, d.message, [*marks, _mark("tool_result", "reject", d,
                                                                call.id)])
        if d.action == "abstain":
            marks.append(_mark("tool_result", "abstain", d, call.id))
        if isinstance(result, Exception):
            if d.action != "abstain":
                raise result
            result = ToolMessage(content=observation_text(obs), tool_call_id=call.id,
                                 name=call.name, status="error")
        return _with_marks(result, marks)

    def wrap_tool_call(self, request: ToolCallRequest,
                       handler: Callable[[ToolCallRequest], ToolResult]) -> ToolResult:
        stopped = self._before(request)
        if stopped is not None:
            return stopped
        marks: list[dict[str, str]] = []
        attempt = 0
        while True:
            try:
                result: ToolResult | Exception = handler(request)
            except GraphBubbleUp:
                raise  # interrupts and parent commands are control flow, not failures
            except Exception as e:
                result = e
            if (out := self._review(request, result, attempt, marks)) is not None:
                return out
            attempt += 1

    async def awrap_tool_call(self, request: ToolCallRequest,
                              handler: Callable[[ToolCallRequest], Awaitable[ToolResult]]
                              ) -> ToolResult:
        stopped = self._before(request)
        if stopped is not None:
            return stopped
        marks: list[dict[str, str]] = []
        attempt = 0
        while True:
            try:
                result: ToolResult | Exception = await handler(request)
            except GraphBubbleUp:
                raise
            except Exception as e:
                result = e
            if (out := self._review(request, result, attempt, marks)) is not None:
                return out
            attempt += 1

    # -- answer --------------------------------------------------------------------------

    def _answer(self, state: AgentState[Any]) -> dict[str, Any] | None:
        messages = _messages(state)
        last = messages[-1] if messages else None
        if not isinstance(last, AIMessage):
            return None
        marks = [k for m in messages for k in _marks(m)]
        held = next((k for k in marks if k.get("action") == "abstain"), None)
        if held is not None:  # abstained on a tool: end now, whatever the model wants
            return self._abstain(last, Decision.abstain(held.get("reason", "")))
        if last.tool_calls:
            return None
        d = ask(self.guard, self._view(messages, "answer", answer=content_text(last.content)))
        rejected = sum(k.get("point") == "answer" and k.get("action") == "reject"
                       for k in marks)
        if d.action == "reject" and rejected < self.max_rejects:
            note = HumanMessage(content=d.message,
                                additional_kwargs={MARK: [_mark("answer", "reject", d)]})
            return {"messages": [note], "jump_to": "model"}
        if d.action in ("reject", "abstain"):
            return self._abstain(last, d.as_abstention())
        return None

    def _abstain(self, last: AIMessage, d: Decision) -> dict[str, Any]:
        """The reply replaced (same id) by the abstention, and the run ended."""
        reply = AIMessage(content=abstention_text(d), id=last.id,
                          additional_kwargs={MARK: [_mark("answer", "abstain", d)]})
        return {"messages": [reply], "jump_to": "end"}

    @hook_config(can_jump_to=["model", "end"])
    def after_model(self, state: AgentState[Any], runtime: Runtime[Any]
                    ) -> dict[str, Any] | None:
        return self._answer(state)

    @hook_config(can_jump_to=["model", "end"])
    async def aafter_model(self, state: AgentState[Any], runtime: Runtime[Any]
                           ) -> dict[str, Any] | None:
        return self._answer(state)


def guard_middleware(guard: Guard | None = None, *, config: InterceptConfig | None = None,
                     name: str = "agentprop_guard", max_rejects: int = 2) -> GuardMiddleware:
    """`guard` (default: the interceptor, with `config`'s thresholds) as LangChain v1
    middleware. `name` must differ between middlewares of one agent."""
    return GuardMiddleware(guard or default_guard(config), name=name, max_rejects=max_rejects)
