"""serve-sim's OpenAI chat-completions format (``POST /v1/chat/completions``)."""

from __future__ import annotations

import json
import time
from typing import Any

from agentprop.core import ModelOutput, ToolSpec
from agentprop.models._openai_format import (
    from_openai_messages,
    from_openai_tool_choice,
    from_openai_tools,
)
from agentprop.sim._wire_base import WireRequest, first_tool, truncated_json

_TYPES = {400: "invalid_request_error", 404: "invalid_request_error", 405:
          "invalid_request_error", 429: "rate_limit_error", 500: "server_error"}


def completion_json(out: ModelOutput, model: str, ident: str) -> dict[str, Any]:
    """A ChatCompletion body for a sim output."""
    msg: dict[str, Any] = {"role": "assistant", "content": out.text}
    if out.tool_calls:
        msg["tool_calls"] = [
            {"id": c.id, "type": "function",
             "function": {"name": c.name, "arguments": json.dumps(c.arguments)}}
            for c in out.tool_calls
        ]
    return {
        "id": f"chatcmpl-sim-{ident}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "system_fingerprint": "agentprop-sim",
        "choices": [{"index": 0, "message": msg, "logprobs": None,
                     "finish_reason": "tool_calls" if out.tool_calls else "stop"}],
        "usage": {"prompt_tokens": out.usage.input_tokens,
                  "completion_tokens": out.usage.output_tokens,
                  "total_tokens": out.usage.input_tokens + out.usage.output_tokens},
    }


def _check_messages(messages: Any) -> None:
    """Refuse what strict servers refuse (docs/real-servers.md): llama-cpp-python's
    server validates each message with pydantic, and an assistant message's content must
    be a string (null fails validation; a missing one fails its chat template); OpenAI
    accepts both."""
    if not isinstance(messages, list):
        raise ValueError("messages: Input should be a valid list")
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise ValueError(f"messages.{i}: Input should be a valid dictionary")
        if m.get("role") == "assistant" and "content" in m and m["content"] is None:
            raise ValueError(f"1 validation error: messages.{i}.content: Input should be"
                             " a valid string")
        if m.get("role") == "assistant" and "content" not in m:
            raise ValueError(f"messages.{i}: 'dict object' has no attribute 'content'")


class OpenAIWire:
    route = "chat_completions"

    def parse(self, body: bytes, headers: dict[str, str], path_model: str | None
              ) -> WireRequest:
        req = json.loads(body)
        _check_messages(req["messages"])
        return WireRequest(model=str(req["model"]),
                           messages=from_openai_messages(req["messages"]),
                           tools=from_openai_tools(req.get("tools")),
                           seed=int(req.get("seed") or 0),
                           tool_choice=from_openai_tool_choice(req.get("tool_choice")))

    def response(self, out: ModelOutput, model: str, ident: str) -> dict[str, Any]:
        return completion_json(out, model, ident)

    def error(self, status: int, message: str) -> dict[str, Any]:
        code = "model_not_found" if status == 404 and "model" in message else None
        return {"error": {"message": message, "type": _TYPES.get(status, "server_error"),
                          "code": code}}

    def malform(self, payload: dict[str, Any], tools: list[ToolSpec]) -> None:
        msg = payload["choices"][0]["message"]
        calls = msg.get("tool_calls") or [{
            "id": "call_sim_bad", "type": "function",
            "function": {"name": first_tool(tools), "arguments": "{}"}}]
        for c in calls:
            c["function"]["arguments"] = truncated_json(json.loads(c["function"]["arguments"]))
        msg["tool_calls"] = calls
