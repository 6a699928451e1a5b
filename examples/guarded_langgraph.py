"""A LangChain v1 agent (`create_agent`, a LangGraph graph) with guardrail middleware: the
guard `intercept evaluate --guard` hands it (`episode.guards`, treatment arm only) and,
when ``AGENT_GUARD`` names a built-in mitigation (``interceptor``, ``retry``...),
agentprop's own guard as middleware (`agentprop.guards.langchain`).

    OPENAI_BASE_URL=http://127.0.0.1:8768/v1 OPENAI_API_KEY=sk-none \
    agentprop intercept evaluate --agent examples/guarded_langgraph.py:agent \
        --guard langchain.agents.middleware:ToolRetryMiddleware -c fault:timeout -w W

agentprop's tools answer a failure as a JSON error object, never as an MCP error (what a
native model sees). A real client raises when a service does not answer, and LangChain's
retry middleware retries exceptions, so this agent raises `ToolUnavailable` for a
transient error (timeout, server error, rate limit) and `ToolErrorMiddleware`, outermost,
shows the model the error text when no retry helped. `AGENT_MODEL` names the model
(default ``balanced``, a serve-sim profile).
"""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from typing import Any

import httpx
from langchain.agents import create_agent
from langchain.agents.middleware import AgentMiddleware, ToolErrorMiddleware
from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_mcp_adapters.interceptors import MCPToolCallRequest
from langchain_openai import ChatOpenAI
from mcp.types import CallToolResult

from agentprop.domains import TRANSIENT_ERRORS
from agentprop.guards.langchain import final_answer, guard_middleware
from agentprop.intercept import InterceptConfig, mitigation

PROMPT = "You are a helpful assistant. Use the tools to look things up before answering."


class ToolUnavailable(Exception):
    """The tool did not answer (its message: the error object as JSON)."""


def _error_type(result: CallToolResult) -> str | None:
    obs = result.structuredContent
    if obs is None and result.content and getattr(result.content[0], "text", None):
        try:
            obs = json.loads(result.content[0].text)  # type: ignore[union-attr]
        except ValueError:
            obs = None
    err = obs.get("error") if isinstance(obs, dict) else None
    return str(err.get("type")) if isinstance(err, dict) else None


async def raise_unavailable(request: MCPToolCallRequest,
                            handler: Callable[[MCPToolCallRequest], Awaitable[Any]]) -> Any:
    """A transient tool error as an exception, as a real client raises one."""
    result = await handler(request)
    if isinstance(result, CallToolResult) and _error_type(result) in TRANSIENT_ERRORS:
        raise ToolUnavailable(str(result.content[0].text))  # type: ignore[union-attr]
    return result


def _shown(exc: Exception, request: Any) -> str | None:
    return str(exc) if isinstance(exc, ToolUnavailable) else None


def middleware(episode: Any) -> list[AgentMiddleware[Any, Any, Any]]:
    """Outermost first: the error handler, the framework guards of this episode, then
    agentprop's guard when asked for."""
    chain: list[AgentMiddleware[Any, Any, Any]] = [ToolErrorMiddleware(_shown),
                                                   *episode.guards]
    wanted = os.environ.get("AGENT_GUARD")
    if wanted:
        chain.append(guard_middleware(mitigation(wanted).build(InterceptConfig()),
                                      name=f"agentprop_{wanted}"))
    return chain


async def agent(episode: Any) -> str:
    client = MultiServerMCPClient(
        {"agentprop": {"url": episode.mcp_url, "transport": "streamable_http"}},
        tool_interceptors=[raise_unavailable],
    )
    tools = await client.get_tools()
    # A client of this episode's own: each episode runs on an event loop of its own, and
    # langchain-openai's shared default client would reuse connections of a closed loop.
    async with httpx.AsyncClient(timeout=httpx.Timeout(60.0)) as http:
        llm = ChatOpenAI(model=os.environ.get("AGENT_MODEL", "balanced"),
                         api_key=os.environ.get("OPENAI_API_KEY", "sk-none"),
                         http_async_client=http)
        graph = create_agent(llm, tools, system_prompt=PROMPT, middleware=middleware(episode))
        state = await graph.ainvoke({"messages": [{"role": "user", "content": episode.query}]},
                                    {"recursion_limit": 25})
    return final_answer(state)
