"""Scripted agents for the boundary tests (no model: they call the MCP tools directly)."""

from __future__ import annotations

import asyncio
import json
from typing import Any


def _text(result: Any) -> dict[str, Any]:
    return json.loads("".join(getattr(c, "text", "") for c in result.content))


async def probe(episode: Any) -> str:
    """Lists its tools, calls an unknown tool and one with malformed arguments, then the
    first tool with no arguments; answers with what it saw (JSON)."""
    async with episode.session() as s:
        tools = (await s.list_tools()).tools
        unknown = _text(await s.call_tool("no_such_tool", {"x": 1}))
        malformed = _text(await s.call_tool(tools[0].name, {"bogus": [1, 2]}))
    return json.dumps({"tools": [t.name for t in tools], "unknown": unknown,
                       "malformed": malformed})


async def silent(episode: Any) -> str:
    return "I cannot help with that."


async def hangs(episode: Any) -> str:
    if episode.seed == 1:
        await asyncio.sleep(3600)
    return "done"


async def raises(episode: Any) -> str:
    if episode.seed == 1:
        raise RuntimeError("the agent broke")
    return "fine"


def sync_agent(episode: Any) -> str:
    return f"sync answer to {episode.query}"


async def two_args(episode: Any, other: Any) -> str:
    return ""


not_callable = 42


async def slow(episode: Any) -> str:
    """Calls one tool, then takes a while (for kill -9 tests)."""
    async with episode.session() as s:
        tools = (await s.list_tools()).tools
        await s.call_tool(tools[0].name, {})
    await asyncio.sleep(0.3)
    return "slow answer"
