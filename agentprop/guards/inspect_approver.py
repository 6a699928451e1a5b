"""Any agentprop `Guard` as an Inspect AI approver (docs/guardrails.md, "Inspect AI
approver").

An approver is the one place Inspect lets code decide about a tool call before it runs,
so the guard is asked at the `tool_call` point only: it sees the episode so far (the
approver's `history`, converted into the trace events agentprop's own loop records, so
`view.signals()` means what it means there) and the call. What it decides becomes
Inspect's decision:

- allow (or None) → approve;
- reject → reject: the call does not run, and the model sees the guard's message as the
  tool's error (`error.type == "approval"`), as in agentprop's loop;
- abstain → terminate: the sample ends, with no answer (Inspect records an `operator`
  limit), the nearest thing to an abstention Inspect has;
- retry → approve: nothing has run yet, so there is nothing to retry (agentprop's loop
  allows it at this point too).

Guards that act only on results or answers (every built-in mitigation) never act here:
an approver sees neither. Only this module imports `inspect_ai` (the ``inspect`` extra).
"""

from __future__ import annotations

from collections.abc import Sequence

from inspect_ai.approval import Approval, Approver, approver
from inspect_ai.model import (
    ChatMessage,
    ChatMessageAssistant,
    ChatMessageTool,
    ChatMessageUser,
    ContentReasoning,
)
from inspect_ai.tool import ToolCall as InspectToolCall
from inspect_ai.tool import ToolCallView

from agentprop.core import (
    LoadError,
    ToolCall,
    TraceEvent,
    load_object,
)
from agentprop.domains import Observation
from agentprop.guards._common import Turn, observation_of, to_events
from agentprop.intercept import (
    Decision,
    Guard,
    GuardView,
    InterceptConfig,
    decide,
    parse_config,
)


def default_guard(config: InterceptConfig | None = None) -> Guard:
    """The interceptor's answer-free layers before each tool call: when L1 (tool errors so
    far) or L2 (uncertainty words in the agent's reasoning so far) reaches its threshold,
    abstain, which ends the sample.

    Why this one: the interceptor abstains at the answer on these same signals, but an
    approver never sees the answer, so the last point it can act on them is the next call.
    An episode that makes another call after the evidence then ends as it would under the
    interceptor, without spending the calls in between. L3 is off: it checks an answer.
    """
    cfg = (config or InterceptConfig()).model_copy(update={"l3": False})

    def guard(view: GuardView) -> Decision | None:
        if view.point != "tool_call":
            return None
        fired = decide(view.signals(cfg), cfg)
        if not fired:
            return None
        return Decision.abstain("; ".join(f"{f.layer}: {f.reason}" for f in fired))

    return guard


def _observation(message: ChatMessageTool) -> Observation:
    """A tool message as the observation agentprop's loop records: an error object for a
    failed call (so L1 counts it), else what `observation_of` makes of its text."""
    if message.error is not None:
        return {"error": {"type": message.error.type, "message": message.error.message}}
    return observation_of(message.text)


def _turn(message: ChatMessageAssistant) -> Turn:
    reasoning = [c.reasoning for c in message.content_list
                 if isinstance(c, ContentReasoning) and not c.redacted]
    calls = tuple(ToolCall(id=c.id, name=c.function, arguments=dict(c.arguments))
                  for c in message.tool_calls or [])
    return Turn("assistant", text=message.text or "", calls=calls,
                reasoning="\n".join(reasoning))


def history_events(history: Sequence[ChatMessage]) -> tuple[TraceEvent, ...]:
    """An Inspect conversation as agentprop trace events (`_common.to_events`): assistant
    messages are model calls and the calls they proposed, tool messages the results of
    the calls they answer. System and user messages are not events (the first user
    message is the guard's `query`)."""
    turns: list[Turn] = []
    for message in history:
        if isinstance(message, ChatMessageAssistant):
            turns.append(_turn(message))
        elif isinstance(message, ChatMessageTool):
            turns.append(Turn("tool", call_id=message.tool_call_id or "",
                              name=message.function or "", observation=_observation(message)))
    return to_events(turns)


def _query(history: Sequence[ChatMessage]) -> str:
    return next((m.text for m in history if isinstance(m, ChatMessageUser)), "")


def approval_of(decision: Decision | None, name: str) -> Approval:
    """Inspect's decision for a guard's (see the module docstring for the mapping)."""
    d = decision or Decision.allow()
    if d.action == "allow":
        return Approval(decision="approve")
    metadata = {"guard": name, "action": d.action, "reason": d.reason}
    if d.action == "reject":
        return Approval(decision="reject", explanation=d.message or d.reason,
                        metadata=metadata)
    if d.action == "abstain":
        why = d.reason or d.message or "no reason given"
        return Approval(decision="terminate", explanation=f"{name}: {why}", metadata=metadata)
    return Approval(decision="approve", explanation=f"{name}: retry is not possible before "
                    f"a call runs ({d.reason})", metadata=metadata)


def _resolve(guard: Guard | str | None, config: InterceptConfig) -> Guard:
    """A guard object, or one named `MODULE_OR_FILE:NAME` (an approval policy file can
    only pass text). A built-in mitigation's name is refused: none acts before a call."""
    if guard is None:
        return default_guard(config)
    if not isinstance(guard, str):
        return guard
    if ":" not in guard:
        raise LoadError(f"guard {guard!r}: the built-in mitigations act on results and "
                        "answers, which an approver never sees; name a guard function "
                        "as MODULE_OR_FILE:NAME, or leave guard out for the default")
    obj, _ = load_object(guard, "guard", "MODULE_OR_FILE:NAME")
    if not callable(obj):
        raise LoadError(f"guard {guard!r} is not a function of a GuardView")
    resolved: Guard = obj
    return resolved


@approver(name="guard_approver")
def guard_approver(guard: Guard | str | None = None, *,
                   config: InterceptConfig | str | None = None,
                   name: str = "agentprop") -> Approver:
    """An Inspect approver that asks `guard` (default: `default_guard`) about each tool
    call. `guard` may be a `MODULE_OR_FILE:NAME` text and `config` the interceptor's
    thresholds as text (``tau_l1=2``), so an approval policy file can set both; `name`
    labels the guard in explanations and the approval's metadata."""
    cfg = parse_config(config) if isinstance(config, str) else config or InterceptConfig()
    resolved = _resolve(guard, cfg)

    async def approve(message: str, call: InspectToolCall, view: ToolCallView,
                      history: list[ChatMessage]) -> Approval:
        proposed = ToolCall(id=call.id, name=call.function, arguments=dict(call.arguments))
        seen = GuardView(point="tool_call", query=_query(history),
                         events=history_events(history), call=proposed)
        return approval_of(resolved(seen), name)

    return approve
