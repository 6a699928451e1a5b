"""What serve-sim needs from each wire format it speaks (OpenAI chat completions,
Anthropic Messages, Gemini generateContent): parse a request into our Message/ToolSpec
form, render a sim output or an error in the format, and corrupt a response's tool-call
arguments for the "malformed" fault."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from agentprop.core import Message, ModelOutput, ToolSpec


@dataclass
class WireRequest:
    model: str
    messages: list[Message]
    tools: list[ToolSpec]
    seed: int
    tool_choice: str | None = None
    """As `GenerateConfig.tool_choice` (None when the request sets none)."""


class WireFormat(Protocol):
    route: str  # the stats name of the route

    def parse(self, body: bytes, headers: dict[str, str], path_model: str | None
              ) -> WireRequest:
        """Raises ValueError, KeyError or TypeError on a bad request."""
        ...

    def response(self, out: ModelOutput, model: str, ident: str) -> dict[str, Any]: ...

    def error(self, status: int, message: str) -> dict[str, Any]: ...

    def malform(self, payload: dict[str, Any], tools: list[ToolSpec]) -> None:
        """Make the payload's tool-call arguments unparseable, in place (adding a call
        when there is none)."""
        ...


def truncated_json(args: dict[str, Any]) -> str:
    """Tool-call arguments cut mid-JSON, as a model that ran out of tokens emits them."""
    import json

    return '{"' + json.dumps(args)[2:12]


def first_tool(tools: list[ToolSpec]) -> str:
    return tools[0].name if tools else "unknown"
