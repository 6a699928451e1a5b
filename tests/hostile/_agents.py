"""Hostile agents for `run --agent` (loaded by file path: `tests/hostile/_agents.py:NAME`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.hostile._helpers import LONE_SURROGATE, RawMcp


def surrogate(episode: Any) -> str:
    """Calls a tool with a lone surrogate in its arguments (raw JSON-RPC), then answers
    with one."""
    mcp = RawMcp(episode.mcp_url)
    try:
        mcp.initialize()
        name = mcp.tools()[0]
        reply = mcp.call(name, f'{{"city":"{LONE_SURROGATE}"}}')
        assert reply.status_code == 200 and "result" in reply.json(), reply.text
    finally:
        mcp.close()
    return "It is sunny \ud83d"


class Custom(BaseException):
    """A BaseException of the agent's own."""


def _raise(kind: str) -> None:
    if kind == "exit":
        sys.exit(0)
    if kind == "interrupt":
        raise KeyboardInterrupt
    raise Custom("the agent's own BaseException")


async def raises_base(episode: Any) -> str:
    """Seed 1: sys.exit(0); seed 2: KeyboardInterrupt; seed 3: a custom BaseException."""
    kinds = {1: "exit", 2: "interrupt", 3: "custom"}
    if episode.seed in kinds:
        _raise(kinds[episode.seed])
    return "fine"


def raises_base_sync(episode: Any) -> str:
    kinds = {1: "exit", 2: "interrupt", 3: "custom"}
    if episode.seed in kinds:
        _raise(kinds[episode.seed])
    return "fine"


def sleeps(episode: Any) -> str:
    """Synchronous: seed 1 blocks in time.sleep for an hour."""
    import time

    if episode.seed == 1:
        time.sleep(3600)
    return "done"


def spins(episode: Any) -> str:
    """Synchronous: seed 1 never leaves a busy loop."""
    if episode.seed == 1:
        while True:
            pass
    return "done"


async def blocks_loop(episode: Any) -> str:
    """Async, but seed 1 blocks its event loop (time.sleep in a coroutine)."""
    import time

    if episode.seed == 1:
        time.sleep(3600)
    return "done"


async def always_blocks(episode: Any) -> str:
    """Async, blocking its event loop in every episode (after touching the file
    $AGENT_STARTED, when set: the episode has started)."""
    import os
    import time

    if os.environ.get("AGENT_STARTED"):
        Path(os.environ["AGENT_STARTED"]).touch()
    time.sleep(3600)
    return "never"


def explores(episode: Any) -> str:
    """Tries to reach beyond its own episode: lists the host's episodes and guesses the
    URL of an episode named by its work unit's fields; answers with what it got."""
    import json

    import httpx

    base = episode.mcp_url.split("/episodes/")[0]
    seen = {"id": episode.id,
            "list": httpx.get(f"{base}/episodes").status_code,
            "stable": httpx.post(f"{base}/mcp", content=b"{}",
                                 headers={"content-type": "application/json"}).status_code}
    return json.dumps(seen)


async def gold(episode: Any) -> str:
    """Follows the task's gold plan over MCP and answers its reference answer (no model:
    an external agent whose model turns agentprop never sees)."""
    from agentprop.suite import load_suite

    task = load_suite().get(episode.task_id)
    async with episode.session() as session:
        for call in task.gold_plan:
            await session.call_tool(call.name, call.arguments)
    return str(task.reference_answer)


async def awaits_forever(episode: Any) -> str:
    import asyncio
    import os

    if os.environ.get("AGENT_STARTED"):
        Path(os.environ["AGENT_STARTED"]).touch()
    await asyncio.sleep(3600)
    return "never"


async def blocks_loop_late(episode: Any) -> str:
    """Async; seed 3 blocks its event loop (after the first episodes answered)."""
    import time

    if episode.seed == 3:
        time.sleep(3600)
    return "done"
