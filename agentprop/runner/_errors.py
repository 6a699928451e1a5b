"""The runner's user-facing errors, in their own module so that planning units and
running them can both raise them without importing each other."""

from __future__ import annotations

from agentprop.errors import AgentpropError


class RunError(AgentpropError):
    """A run that cannot start or must stop; the message is one line for the user."""


class RunLocked(RunError):
    """Another process is executing the same run on this workspace."""


class RunAborted(RunError):
    """The first episodes of a model all failed (unreachable server, bad key, unknown
    model): stopping beats recording thousands of identical error traces."""

    exit_code = 1
