"""serve-sim's Anthropic Messages format (``POST /v1/messages``), through the anthropic
provider's own conversion (`from_anthropic`). The Messages API has no seed: the provider
sends the episode seed in the ``x-agentprop-seed`` header to loopback servers."""

from __future__ import annotations

import json
from typing import Any

from agentprop.core import ModelOutput, ToolSpec
from agentprop.models._anthropic import (
    from_anthropic,
    from_anthropic_tool_choice,
    from_anthropic_tools,
)
from agentprop.sim._wire_base import WireRequest, first_tool, truncated_json

SEED_HEADER = "x-agentprop-seed"
_TYPES = {400: "invalid_request_error", 404: "not_found_error", 405: "invalid_request_error",
          429: "rate_limit_error", 500: "api_error"}


class AnthropicWire:
    route = "messages"

    def parse(self, body: bytes, headers: dict[str, str], path_model: str | None
              ) -> WireRequest:
        req = json.loads(body)
        return WireRequest(model=str(req["model"]),
                           messages=from_anthropic(req.get("system"), req["messages"]),
                           tools=from_anthropic_tools(req.get("tools")),
                           seed=int(headers.get(SEED_HEADER) or 0),
                           tool_choice=from_anthropic_tool_choice(req.get("tool_choice")))

    def response(self, out: ModelOutput, model: str, ident: str) -> dict[str, Any]:
        content: list[dict[str, Any]] = []
        if out.text:
            content.append({"type": "text", "text": out.text})
        content += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                    for c in out.tool_calls]
        return {"id": f"msg_sim_{ident}", "type": "message", "role": "assistant",
                "model": model, "content": content,
                "stop_reason": "tool_use" if out.tool_calls else "end_turn",
                "stop_sequence": None,
                "usage": {"input_tokens": out.usage.input_tokens,
                          "output_tokens": out.usage.output_tokens}}

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"type": "error",
                "error": {"type": _TYPES.get(status, "api_error"), "message": message}}

    def malform(self, payload: dict[str, Any], tools: list[ToolSpec]) -> None:
        blocks = [b for b in payload["content"] if b["type"] == "tool_use"]
        if not blocks:
            blocks = [{"type": "tool_use", "id": "toolu_sim_bad", "name": first_tool(tools),
                       "input": {}}]
            payload["content"] += blocks
            payload["stop_reason"] = "tool_use"
        for b in blocks:  # `input` is an object on this API: a cut-off string stands in
            b["input"] = truncated_json(b["input"])
