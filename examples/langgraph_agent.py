"""A LangGraph agent: the tools through `langchain-mcp-adapters`, the model through
`langchain-openai` (any OpenAI-compatible server), a prebuilt ReAct graph.

    OPENAI_BASE_URL=http://127.0.0.1:8768/v1 OPENAI_API_KEY=sk-none \
    agentprop run --agent examples/langgraph_agent.py:agent --condition p2:all --limit 20 -w W

`AGENT_MODEL` names the model (default ``balanced``, a serve-sim profile).
"""

from __future__ import annotations

import os
from typing import Any

from langchain_mcp_adapters.client import MultiServerMCPClient
from langchain_openai import ChatOpenAI
from langgraph.prebuilt import create_react_agent

PROMPT = "You are a helpful assistant. Use the tools to look things up before answering."


async def agent(episode: Any) -> str:
    client = MultiServerMCPClient(
        {"agentprop": {"url": episode.mcp_url, "transport": "streamable_http"}}
    )
    tools = await client.get_tools()
    llm = ChatOpenAI(model=os.environ.get("AGENT_MODEL", "balanced"),
                     api_key=os.environ.get("OPENAI_API_KEY", "sk-none"))  # type: ignore[arg-type]
    graph = create_react_agent(llm, tools, prompt=PROMPT)
    state = await graph.ainvoke({"messages": [("user", episode.query)]},
                                {"recursion_limit": 25})
    content = state["messages"][-1].content
    return content if isinstance(content, str) else str(content)
