"""What both adapters share: the default guard, a framework's tool output as an agentprop
observation, and a framework's history as agentprop trace events, so a guard's view (and
`view.signals()`) inside a framework is what it is in agentprop's own loop."""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from agentprop.core import (
    GuardAction,
    GuardEvent,
    GuardPoint,
    ModelCallEvent,
    ModelOutput,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    TraceEvent,
)
from agentprop.domains import Observation
from agentprop.intercept import (
    ABSTENTION_TEXT,
    Decision,
    Guard,
    GuardView,
    InterceptConfig,
    mitigation,
)

TOOL_ERROR = "tool_error"
"""The error type of a framework's own tool failure that has no agentprop error object."""


def default_guard(config: InterceptConfig | None = None) -> Guard:
    """The interceptor as a guard: abstain at the answer when any layer fires."""
    return mitigation("interceptor").build(config or InterceptConfig())


def ask(guard: Guard, view: GuardView) -> Decision:
    """The guard's decision; None means allow."""
    return guard(view) or Decision.allow()


def abstention_text(decision: Decision) -> str:
    return decision.message or ABSTENTION_TEXT


def content_text(content: Any) -> str:
    """The text of a message or tool output: a string, a content block
    (``{"type": "text", "text": ...}``) or a list of them."""
    if isinstance(content, str):
        return content
    if isinstance(content, dict):
        return str(content.get("text", "")) if content.get("type") == "text" \
            else json.dumps(content, default=str)
    if isinstance(content, list | tuple):
        return "".join(content_text(c) for c in content)
    return "" if content is None else str(content)


def observation_of(content: Any, *, error: bool = False) -> Observation:
    """A tool output as the observation agentprop's loop would have recorded: the JSON
    object it holds (agentprop's MCP tools answer in JSON), else the text (``{"text":
    ...}``; a failure the framework reported without an error object becomes
    ``{"error": {"type": "tool_error", ...}}`` so L1 counts it, as it counts a tool error)."""
    if isinstance(content, dict) and content.get("type") != "text":
        return content
    text = content_text(content)
    try:
        parsed = json.loads(text)
    except ValueError:
        parsed = None
    if isinstance(parsed, dict):
        return parsed
    if error:
        return {"error": {"type": TOOL_ERROR, "message": text}}
    return {"text": text}


@dataclass(frozen=True)
class Turn:
    """One entry of a framework's history in neutral form: an assistant turn (text and
    the calls it proposed), a tool result, or a guard action the adapter recorded."""

    kind: str  # "assistant" | "tool" | "guard"
    text: str = ""
    calls: tuple[ToolCall, ...] = ()
    reasoning: str = ""
    call_id: str = ""
    name: str = ""
    observation: Observation = field(default_factory=dict)
    point: GuardPoint = "answer"
    action: GuardAction = "reject"


def to_events(turns: Iterable[Turn], guard_name: str = "guard") -> tuple[TraceEvent, ...]:
    """The trace events of a history, as agentprop's loop records them: an assistant turn
    is a model call (step = its index) followed by the calls it proposed, a tool result a
    `ToolResultEvent` with the arguments of the call it answers."""
    events: list[TraceEvent] = []
    args: dict[str, dict[str, Any]] = {}
    step = -1
    for t in turns:
        if t.kind == "assistant":
            step += 1
            args.update({c.id: c.arguments for c in t.calls})
            events.append(ModelCallEvent(step=step, request_hash="", output=ModelOutput(
                text=t.text or None, tool_calls=list(t.calls),
                reasoning=t.reasoning or None)))
            events.extend(ToolCallEvent(step=step, call=c) for c in t.calls)
        elif t.kind == "tool":
            events.append(ToolResultEvent(step=max(step, 0), call_id=t.call_id, name=t.name,
                                          arguments=args.get(t.call_id, {}),
                                          observation=t.observation))
        else:
            events.append(GuardEvent(step=max(step, 0), guard=guard_name, point=t.point,
                                     action=t.action, call_id=t.call_id or None,
                                     reason=t.text))
    return tuple(events)


def parse_arguments(arguments: Any) -> dict[str, Any]:
    """A tool call's arguments as a dict (frameworks hand them as JSON text or a dict)."""
    if isinstance(arguments, dict):
        return arguments
    try:
        parsed = json.loads(arguments or "{}")
    except (TypeError, ValueError):
        return {}
    return parsed if isinstance(parsed, dict) else {}
