"""An OpenAI Agents SDK agent under agentprop's guard: the tool input and output guardrails
of `agentprop.guards.openai_agents` installed on its MCP server's tools, and the answer
checked by `GuardedRun.run`. ``AGENT_GUARD`` names the built-in mitigation to run
(default ``interceptor``; ``off`` for none); framework guardrails `intercept evaluate
--guard` hands the episode (`episode.guards`: SDK tool input/output guardrails, agent
output guardrails) are installed beside it.

    OPENAI_BASE_URL=http://127.0.0.1:8768/v1 OPENAI_API_KEY=sk-none \
    agentprop run --agent examples/guarded_openai_agents.py:agent -c p2:type_mismatch -w W

`AGENT_MODEL` names the model (default ``balanced``, a serve-sim profile). The SDK's own
tracing upload is switched off: the trace that matters is agentprop's.
"""

from __future__ import annotations

import os
from typing import Any

from agents import (
    Agent,
    OpenAIChatCompletionsModel,
    OutputGuardrail,
    Runner,
    ToolInputGuardrail,
    ToolOutputGuardrail,
    set_tracing_disabled,
)
from agents.mcp import MCPServerStreamableHttp
from openai import AsyncOpenAI

from agentprop.guards.openai_agents import GuardedRun, guarded_run
from agentprop.intercept import InterceptConfig, mitigation

INSTRUCTIONS = (
    "You are a careful assistant. Answer the user's question with the tools available; "
    "report what they return."
)


def _guard_run(episode: Any) -> GuardedRun | None:
    wanted = os.environ.get("AGENT_GUARD", "interceptor")
    if wanted == "off":
        return None
    return guarded_run(episode.query, mitigation(wanted).build(InterceptConfig()),
                       name=f"agentprop_{wanted}")


async def agent(episode: Any) -> str:
    set_tracing_disabled(True)
    # A client of this episode's own: each episode runs on an event loop of its own, and a
    # shared client would reuse connections of a closed loop.
    client = AsyncOpenAI(api_key=os.environ.get("OPENAI_API_KEY", "sk-none"))
    model = OpenAIChatCompletionsModel(model=os.environ.get("AGENT_MODEL", "balanced"),
                                       openai_client=client)
    given = list(episode.guards)
    run = _guard_run(episode)
    async with client, MCPServerStreamableHttp(
        name="agentprop", params={"url": episode.mcp_url}, cache_tools_list=True,
        tool_input_guardrails=[g for g in given if isinstance(g, ToolInputGuardrail)],
        tool_output_guardrails=[g for g in given if isinstance(g, ToolOutputGuardrail)],
    ) as tools:
        if run is not None:
            run.attach(tools)
        assistant = Agent(name="assistant", instructions=INSTRUCTIONS, model=model,
                          mcp_servers=[tools],
                          output_guardrails=[g for g in given if isinstance(g, OutputGuardrail)])
        if run is not None:
            return await run.run(assistant, max_turns=10)
        result = await Runner.run(assistant, episode.query, max_turns=10)
    return str(result.final_output)
