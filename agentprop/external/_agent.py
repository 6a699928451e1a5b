"""The user's agent: `MODULE_OR_FILE:CALLABLE`, loaded and checked before any unit starts,
and the `Episode` it is called with."""

from __future__ import annotations

import contextlib
import importlib
import importlib.util
import inspect
import sys
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from mcp import ClientSession

from agentprop.errors import AgentpropError

AgentCallable = Callable[["Episode"], Awaitable[str] | str]


class AgentLoadError(AgentpropError, ValueError):
    """The agent spec does not name a usable callable (one line for the user)."""


@dataclass(frozen=True)
class Episode:
    """What an agent gets for one work unit: the user's query and where its tools are.

    `mcp_url` is this episode's MCP endpoint (streamable HTTP); `session()` opens a ready
    (initialised) `mcp.ClientSession` on it. `id` is the episode id: send it to the
    recording gateway as the ``X-Agentprop-Episode`` header or as a model-name suffix
    (``model@<id>``) so the model's turns join this episode's trace.
    """

    id: str
    query: str
    mcp_url: str
    task_id: str
    domain: str
    condition: str
    seed: int

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


def _import(target: str) -> Any:
    path = Path(target)
    if target.endswith(".py") or path.exists():
        if not path.is_file():
            raise AgentLoadError(f"agent file {target!r} does not exist")
        name = f"agentprop_agent_{path.stem}"
        spec = importlib.util.spec_from_file_location(name, path)
        if spec is None or spec.loader is None:
            raise AgentLoadError(f"cannot load {target!r} as a Python file")
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        try:
            spec.loader.exec_module(module)
        except Exception as e:
            sys.modules.pop(name, None)
            raise AgentLoadError(f"importing {target!r} failed: {type(e).__name__}: {e}"
                                 ) from None
        return module
    try:
        return importlib.import_module(target)
    except ModuleNotFoundError as e:
        raise AgentLoadError(f"no module {target!r} ({e})") from None
    except Exception as e:
        raise AgentLoadError(f"importing {target!r} failed: {type(e).__name__}: {e}") from None


def load_agent(spec: str) -> tuple[AgentCallable, str]:
    """The callable named by ``MODULE_OR_FILE:CALLABLE`` and its default agent name
    (``module.callable``). `AgentLoadError` when it is missing, not callable, or cannot
    be called with one argument (the episode)."""
    target, sep, attr = spec.rpartition(":")
    if not sep or not target or not attr:
        raise AgentLoadError(f"invalid agent {spec!r}: expected MODULE_OR_FILE:CALLABLE")
    module = _import(target)
    obj: Any = module
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentLoadError(f"{target!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if not callable(obj):
        raise AgentLoadError(f"{spec!r} is not callable")
    try:
        inspect.signature(obj).bind(object())
    except TypeError:
        raise AgentLoadError(
            f"{spec!r} must take exactly one argument (the episode)") from None
    except ValueError:  # a builtin without a signature: let the call decide
        pass
    stem = Path(target).stem if target.endswith(".py") else target
    return obj, f"{stem}.{attr}"
