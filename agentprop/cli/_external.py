"""External agents: `agentprop run --agent` (its loader), `serve-tools` and `gateway`."""

from __future__ import annotations

from typing import Any

import typer

from agentprop.cli._common import UserError


def agent_executor(spec: str, name: str | None, timeout_s: float,
                   models: list[str]) -> tuple[Any, list[str]]:
    """The executor for `run --agent SPEC` and the unit's model name; a UserError (one
    line) for a callable that does not exist or cannot take the episode."""
    from agentprop.external import AgentExecutor, AgentLoadError, load_agent

    if models:
        raise UserError("give either --model or --agent, not both")
    if not timeout_s > 0:
        raise UserError(f"invalid episode timeout {timeout_s:g}: must be > 0 seconds")
    try:
        fn, default_name = load_agent(spec)
    except AgentLoadError as e:
        raise UserError(str(e)) from None
    agent_name = (name or default_name).strip()
    if not agent_name:
        raise UserError("the agent name must not be empty")
    return AgentExecutor(fn, timeout_s=timeout_s), [agent_name]


def register(app: typer.Typer) -> None:
    """Add `serve-tools` and `gateway` to the main app."""
