"""An OpenAI Agents SDK agent: its MCP server support for the tools, and
`OpenAIChatCompletionsModel` for the model (any OpenAI-compatible server).

    OPENAI_BASE_URL=http://127.0.0.1:8768/v1 OPENAI_API_KEY=sk-none \
    agentprop run --agent examples/openai_agents.py:agent --condition p2:all --limit 20 -w W

`AGENT_MODEL` names the model (default ``balanced``, a serve-sim profile). The SDK's own
tracing upload is switched off: the trace that matters is agentprop's.
"""

from __future__ import annotations

import asyncio
import functools
import os
from typing import Any

from agents import Agent, OpenAIChatCompletionsModel, Runner, set_tracing_disabled
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI

INSTRUCTIONS = (
    "You are a careful assistant. Answer the user's question with the tools available; "
    "report what they return."
)


@functools.lru_cache(maxsize=4)
def _client(loop: asyncio.AbstractEventLoop) -> AsyncOpenAI:
    """One client per event loop, shared by its episodes: a client per episode would redo
    its TLS setup, and a client outlives no loop (a new run, or a loop agentprop replaced
    because an agent blocked it, gets its own)."""
    return AsyncOpenAI(api_key=os.environ.get("OPENAI_API_KEY", "sk-none"))


async def agent(episode: Any) -> str:
    set_tracing_disabled(True)
    client = _client(asyncio.get_running_loop())
    model = OpenAIChatCompletionsModel(model=os.environ.get("AGENT_MODEL", "balanced"),
                                       openai_client=client)
    async with MCPServerStreamableHttp(
        name="agentprop", params={"url": episode.mcp_url}, cache_tools_list=True
    ) as tools:
        assistant = Agent(name="assistant", instructions=INSTRUCTIONS, model=model,
                          mcp_servers=[tools])
        result = await Runner.run(assistant, episode.query, max_turns=10)
    return str(result.final_output)
