"""The episode's actual final world state, rebuilt by replaying its executed tool calls.

The simulators are deterministic, so a fresh environment from the task's seed plus the
trace's executed calls (``ToolResultEvent.name`` / ``.arguments``, in order) is exactly the
world the agent left behind. Checking `expected_state` against that — rather than against
what the observations happened to echo — credits an agent that undid or superseded a
corrupted call, and never credits one whose observations were corrupted but whose actions
were wrong.
"""

from __future__ import annotations

from typing import Any

from agentprop.core import Task, ToolResultEvent, Trace, UnknownNameError
from agentprop.domains import get_domain
from agentprop.suite._check import state_matches


def replay_state(task: Task, trace: Trace) -> dict[str, Any] | None:
    """`env.snapshot()` after replaying the trace's executed calls; None for a domain this
    installation does not simulate."""
    try:
        domain = get_domain(task.domain)
    except UnknownNameError:
        return None
    env = domain.make_env(task.env_seed)
    for ev in trace.events:
        if isinstance(ev, ToolResultEvent):
            env.call(ev.name, ev.arguments)
    return env.snapshot()


def state_checks(expected: dict[str, Any], actual: dict[str, Any]) -> list[dict[str, Any]]:
    """One check per top-level key of `expected` (subset match, `[]` means "none")."""
    return [
        {"key": f"state.{k}", "kind": "state", "value": v,
         "ok": k in actual and state_matches(v, actual[k]), "optional": False}
        for k, v in expected.items()
    ]
