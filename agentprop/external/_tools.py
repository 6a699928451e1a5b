"""The suite's domain tools as an MCP server (the official `mcp` SDK's low-level Server).

One `Server` serves every episode: each request is resolved to its `EpisodeRecorder`
(over HTTP by the episode id in the URL path, over stdio the one episode of the process),
which lists only that task's tools and runs each call through the native boundary.
Arguments are not validated by the SDK (`validate_input=False`): a malformed call must
reach the injector and the environment, which answers it with the same typed error
observation the native loop shows. Observations go back as JSON text (and as structured
content), never as an MCP protocol error, because that is what the native loop's model
sees and because several frameworks abort a run on `isError`.

A client learns the question three ways, as MCP offers them: the server's
`instructions` on `initialize` (resolved per session: `EpisodeServer`), the prompt
``question`` and the resource ``agentprop://episode/question``.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable
from typing import Any

from mcp import types
from mcp.server.lowlevel import Server
from mcp.server.lowlevel.helper_types import ReadResourceContents
from mcp.server.models import InitializationOptions
from pydantic import AnyUrl

from agentprop.agent import observation_text
from agentprop.external._episode import (
    QUESTION_PROMPT,
    QUESTION_URI,
    EpisodeClosed,
    EpisodeRecorder,
)
from agentprop.safety import utf8_clean

SUBMIT_TOOL = "submit_answer"
"""Only in `serve-tools` (no callable returns an answer there): ends the episode."""

Resolve = Callable[[], EpisodeRecorder]
Submit = Callable[[EpisodeRecorder, str], Awaitable[None]]
Initial = Callable[[], EpisodeRecorder | None]
"""The episode of a session being opened (None: unknown yet), for its instructions."""


class EpisodeServer(Server[Any, Any]):
    """A low-level Server whose `initialize` instructions are the opening session's
    episode's (the SDK reads them once per session, when the session starts)."""

    def __init__(self, name: str, version: str, initial: Initial, submit: bool) -> None:
        super().__init__(name, version=version)
        self._initial = initial
        self._submit = submit

    def create_initialization_options(self, *args: Any, **kwargs: Any
                                      ) -> InitializationOptions:
        options = super().create_initialization_options(*args, **kwargs)
        rec = self._initial()
        if rec is not None:
            options.instructions = rec.instructions(submit=self._submit)
        return options


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


def _session(server: Server[Any, Any]) -> str | None:
    """The MCP session id of the request being handled (None over stdio: one session)."""
    try:
        request = server.request_context.request
    except LookupError:
        return None
    headers = getattr(request, "headers", None)
    return headers.get("mcp-session-id") if headers is not None else None


def build_server(resolve: Resolve, *, submit: Submit | None = None,
                 initial: Initial | None = None,
                 name: str = "agentprop-tools") -> Server[Any, Any]:
    """The MCP server. `resolve()` returns the episode of the request being handled (it
    may read `server.request_context`); `initial()` the episode of a session being
    opened (for its instructions); with `submit`, a `submit_answer` tool ends it."""
    from agentprop import __version__

    server = EpisodeServer(name, __version__, initial or (lambda: None), submit is not None)

    @server.list_prompts()
    async def list_prompts() -> list[types.Prompt]:
        resolve()
        return [types.Prompt(name=QUESTION_PROMPT,
                             description="The user's question of this episode.")]

    @server.get_prompt()
    async def get_prompt(name: str, arguments: dict[str, str] | None) -> types.GetPromptResult:
        rec = resolve()
        if name != QUESTION_PROMPT:
            raise ValueError(f"no prompt {name!r}; the one prompt is {QUESTION_PROMPT!r}")
        return types.GetPromptResult(
            description=rec.instructions(submit=submit is not None),
            messages=[types.PromptMessage(
                role="user", content=types.TextContent(type="text", text=rec.task.query))])

    @server.list_resources()
    async def list_resources() -> list[types.Resource]:
        resolve()
        return [types.Resource(uri=AnyUrl(QUESTION_URI), name=QUESTION_PROMPT,
                               description="The user's question of this episode.",
                               mimeType="text/plain")]

    @server.read_resource()
    async def read_resource(uri: AnyUrl) -> Iterable[ReadResourceContents]:
        rec = resolve()
        if str(uri) != QUESTION_URI:
            raise ValueError(f"no resource {uri}; the one resource is {QUESTION_URI}")
        return [ReadResourceContents(content=rec.task.query, mime_type="text/plain")]

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
        if not rec.claim(_session(server)):
            return _result({"error": {
                "type": "episode_taken",
                "message": "this episode belongs to another MCP session: its calls are "
                "never merged with yours. Take another episode (POST /mcp, or GET "
                "/episodes), and keep one session per episode"}}, error=True)
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
