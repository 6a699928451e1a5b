"""The user's agent: `MODULE_OR_FILE:CALLABLE`, loaded and checked before any unit starts,
and the `Episode` it is called with."""

from __future__ import annotations

import contextlib
import inspect
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from mcp import ClientSession

from agentprop.core import LoadError, load_object

AgentCallable = Callable[["Episode"], Awaitable[str] | str]


class Abstention(str):
    """An answer the agent withheld: its text (what the user is told) and why. An agent whose
    own guardrail abstains returns one, so the trace records an abstention (`final.abstained`)
    and `intercept evaluate` counts it as one, not as a wrong answer."""

    reason: str

    def __new__(cls, text: str, reason: str = "") -> Abstention:
        self = super().__new__(cls, text)
        self.reason = reason
        return self


class AgentLoadError(LoadError):
    """The agent spec does not name a usable callable (one line for the user)."""


@dataclass(frozen=True)
class Episode:
    """What an agent gets for one work unit: the user's query and where its tools are.

    `mcp_url` is this episode's MCP endpoint (streamable HTTP); `session()` opens a ready
    (initialised) `mcp.ClientSession` on it. `id` is the episode id: send it to the
    recording gateway as the ``X-Agentprop-Episode`` header or as a model-name suffix
    (``model@<id>``) so the model's turns join this episode's trace.

    `guards` are the framework guardrails this episode's agent should install (a
    LangChain middleware, an Agents SDK tool guardrail...): empty except in the treatment
    arm of `intercept evaluate --guard` with a framework's own guard (docs/guardrails.md).
    """

    id: str
    query: str
    mcp_url: str
    task_id: str
    domain: str
    condition: str
    seed: int
    arm: str = ""
    guards: tuple[Any, ...] = ()

    @property
    def headers(self) -> dict[str, str]:
        """The header that ties a model request to this episode at the gateway."""
        return {"X-Agentprop-Episode": self.id}

    def model_name(self, model: str) -> str:
        """`model` with this episode's suffix, for clients that cannot add a header."""
        return f"{model}@{self.id}"

    @contextlib.asynccontextmanager
    async def session(self) -> AsyncIterator[ClientSession]:
        import httpx
        from mcp.client.streamable_http import streamable_http_client

        # Plain HTTP on loopback: no TLS context (loading the CA store costs ~70 ms).
        client = httpx.AsyncClient(verify=False, follow_redirects=False,
                                   timeout=httpx.Timeout(30.0, read=300.0))
        async with (
            client,
            streamable_http_client(self.mcp_url, http_client=client) as (read, write, _),
            ClientSession(read, write) as session,
        ):
            await session.initialize()
            yield session


def load_agent(spec: str) -> tuple[AgentCallable, str]:
    """The callable named by ``MODULE_OR_FILE:CALLABLE`` and its default agent name
    (``module.callable``). `AgentLoadError` when it is missing, not callable, or cannot
    be called with one argument (the episode)."""
    try:
        obj, name = load_object(spec, "agent")
    except LoadError as e:
        raise AgentLoadError(str(e)) from None
    if not callable(obj):
        raise AgentLoadError(f"{spec!r} is not callable")
    try:
        inspect.signature(obj).bind(object())
    except TypeError:
        raise AgentLoadError(
            f"{spec!r} must take exactly one argument (the episode)") from None
    except ValueError:  # a builtin without a signature: let the call decide
        pass
    return obj, name
