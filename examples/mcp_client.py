"""A plain agent: an `mcp` client session plus the openai SDK's chat completions.

Run it against the suite with injected errors:

    OPENAI_BASE_URL=http://127.0.0.1:8768/v1 OPENAI_API_KEY=sk-none \
    agentprop run --agent examples/mcp_client.py:agent --condition p2:all --limit 20 -w W

`OPENAI_BASE_URL` may be any OpenAI-compatible server (`agentprop serve-sim` offline);
`AGENT_MODEL` names the model (default ``balanced``, a serve-sim profile).
"""

from __future__ import annotations

import functools
import json
import os
from typing import Any

from openai import AsyncOpenAI

SYSTEM = "You are a support agent. Use the tools to answer; be concise."
MAX_TURNS = 10


@functools.cache
def _client() -> AsyncOpenAI:
    """One client for all episodes: a client per episode would redo its TLS setup."""
    return AsyncOpenAI(api_key=os.environ.get("OPENAI_API_KEY", "sk-none"))


async def agent(episode: Any) -> str:
    client = _client()
    model = os.environ.get("AGENT_MODEL", "balanced")
    async with episode.session() as session:
        listed = await session.list_tools()
        tools: Any = [
            {"type": "function",
             "function": {"name": t.name, "description": t.description or "",
                          "parameters": t.inputSchema}}
            for t in listed.tools
        ]
        messages: list[Any] = [{"role": "system", "content": SYSTEM},
                               {"role": "user", "content": episode.query}]
        for _ in range(MAX_TURNS):
            reply = await client.chat.completions.create(
                model=model, messages=messages, tools=tools)
            msg = reply.choices[0].message
            if not msg.tool_calls:
                return msg.content or ""
            messages.append(msg.model_dump(exclude_none=True))
            for call in msg.tool_calls:
                fn = call.function  # type: ignore[union-attr]
                try:
                    args = json.loads(fn.arguments or "{}")
                except json.JSONDecodeError:
                    args = {}
                result = await session.call_tool(fn.name, args)
                text = "".join(getattr(c, "text", "") for c in result.content)
                messages.append({"role": "tool", "tool_call_id": call.id, "content": text})
    raise RuntimeError(f"no answer after {MAX_TURNS} turns")
