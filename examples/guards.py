"""A guard of your own for `--guard examples/guards.py:my_guard`: a function from what the
guard sees (`GuardView`) to a `Decision` (None = allow). The same function runs in
agentprop's loop (`intercept evaluate --guard`), and inside LangChain or the Agents SDK
through `agentprop.guards` (docs/guardrails.md).

    agentprop intercept evaluate -m sim/balanced -c fault:timeout --n 20 \
        --guard examples/guards.py:my_guard -w W
"""

from __future__ import annotations

from agentprop.core import GuardEvent
from agentprop.intercept import Decision, GuardView

MAX_REJECTS = 2

RETRY_TEXT = ("That tool call failed ({kind}). Call the tool again with the exact values "
              "from the question before you answer.")


def my_guard(view: GuardView) -> Decision | None:
    """A tool error is shown to the agent as a request to call again, at most twice per
    episode; a third error means the tools cannot be trusted: abstain."""
    if view.point != "tool_result" or not view.is_error:
        return None
    rejected = sum(isinstance(e, GuardEvent) and e.action == "reject" for e in view.events)
    if rejected < MAX_REJECTS:
        kind = (view.observation or {}).get("error", {}).get("type", "error")
        return Decision.reject(RETRY_TEXT.format(kind=kind), reason=f"tool error: {kind}")
    return Decision.abstain(f"{rejected + 1} tool errors")
