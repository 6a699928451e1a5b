"""The one root of every error a user can cause or fix (bad input, a damaged workspace, an
unreachable model, a locked run). The CLI catches `AgentpropError` in one place
(`agentprop.cli._common.AppCommand`) and prints `user_message()` as one line with
`exit_code`; library callers can catch it to tell "your input" from "our bug".

Errors that are internal signals, not user-facing, deliberately do not derive from it:
`models.RetryableError` (retried, never escapes), `suite.GoldError` (the draw is redrawn),
`inject.InjectionError` (a domain broke the injection contract: a bug) and
`labels._app.BadRequest` (answered as HTTP 400), and the external-agent servers'
`EpisodeClosed`, `UnknownEpisode` and `UnknownEpisodeError` (answered to the agent as a tool
error or HTTP 404), and `runner.WorkerLost` (a pool worker died under a unit: the run counts
the unit as lost, and a rerun runs it). This module imports nothing from
agentprop, so every layer may use it."""

from __future__ import annotations


class AgentpropError(Exception):
    """A failure the user can act on; its message is one line meant for them."""

    exit_code: int = 2  # 2: the user's input or environment; 1: the work itself failed

    def user_message(self) -> str:
        """The line the CLI prints after ``error:``."""
        return str(self)


__all__ = ["AgentpropError"]
