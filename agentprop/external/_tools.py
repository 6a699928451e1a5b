"""The suite's domain tools as an MCP server (the official `mcp` SDK's low-level Server).

One `Server` serves every episode: each request is resolved to its `EpisodeRecorder`
(over HTTP by the episode id in the URL path, over stdio the one episode of the process),
which lists only that task's tools and runs each call through the native boundary.
Arguments are not validated by the SDK (`validate_input=False`): a malformed call must
reach the injector and the environment, which answers it with the same typed error
observation the native loop shows. Observations go back as JSON text (and as structured
content), never as an MCP protocol error, because that is what the native loop's model
sees and because several frameworks abort a run on `isError`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server

from agentprop.agent import observation_text
from agentprop.external._episode import EpisodeClosed, EpisodeRecorder
from agentprop.safety import utf8_clean

SUBMIT_TOOL = "submit_answer"
"""Only in `serve-tools` (no callable returns an answer there): ends the episode."""

Resolve = Callable[[], EpisodeRecorder]
Submit = Callable[[EpisodeRecorder, str], Awaitable[None]]


class UnknownEpisode(LookupError):
    """A request names an episode this server does not serve."""


def _submit_spec() -> types.Tool:
    return types.Tool(
        name=SUBMIT_TOOL,
        description="Give your final answer to the user's question. Call it once, last; "
        "the episode ends with it.",
        inputSchema={
            "type": "object",
            "properties": {"answer": {"type": "string", "description": "The final answer."}},
            "required": ["answer"],
            "additionalProperties": False,
        },
    )


def build_server(resolve: Resolve, *, submit: Submit | None = None,
                 name: str = "agentprop-tools") -> Server[Any, Any]:
    """The MCP server. `resolve()` returns the episode of the request being handled (it
    may read `server.request_context`); with `submit`, a `submit_answer` tool ends it."""
    from agentprop import __version__

    server: Server[Any, Any] = Server(name, version=__version__)

    @server.list_tools()
    async def list_tools() -> list[types.Tool]:
        rec = resolve()
        tools = [
            types.Tool(name=s.name, description=s.description, inputSchema=s.parameters)
            for s in rec.tool_specs()
        ]
        if submit is not None:
            tools.append(_submit_spec())
        return tools

    @server.call_tool(validate_input=False)
    async def call_tool(name: str, arguments: dict[str, Any]) -> types.CallToolResult:
        rec = resolve()
        # a lone surrogate (valid JSON) could not be encoded in the reply nor stored
        (name, arguments), replaced = utf8_clean((name, arguments))
        rec.replaced += replaced
        if submit is not None and name == SUBMIT_TOOL:
            answer = arguments.get("answer") if isinstance(arguments, dict) else None
            if not isinstance(answer, str):
                return _result({"error": {"type": "invalid_arguments",
                                          "message": "answer must be a string",
                                          "param": "answer"}}, error=True)
            await submit(rec, answer)
            return _result({"ok": True, "episode": rec.id})
        try:
            observation = await rec.call_tool(name, arguments)
        except EpisodeClosed as e:
            return _result({"error": {"type": "episode_closed", "message": str(e)}},
                           error=True)
        return _result(observation)

    return server


def _result(observation: dict[str, Any], *, error: bool = False) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=observation_text(observation))],
        structuredContent=observation,
        isError=error,
    )
