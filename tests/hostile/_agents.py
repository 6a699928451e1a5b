"""Hostile agents for `run --agent` (loaded by file path: `tests/hostile/_agents.py:NAME`)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from tests.hostile._helpers import LONE_SURROGATE, RawMcp  # noqa: E402


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
