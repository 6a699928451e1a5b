"""serve-sim's Gemini format as the google-genai SDK calls it
(``POST /v1beta/models/{model}:generateContent``), through the google provider's own
conversion (`from_gemini`). The model comes from the URL path, the seed from
``generationConfig.seed``."""

from __future__ import annotations

import json
from typing import Any

from agentprop.core import ModelOutput, ToolSpec
from agentprop.models._google import _get, from_gemini, from_gemini_tool_config, from_gemini_tools
from agentprop.sim._wire_base import WireRequest, first_tool, truncated_json

_STATUS = {400: "INVALID_ARGUMENT", 404: "NOT_FOUND", 405: "INVALID_ARGUMENT",
           429: "RESOURCE_EXHAUSTED", 500: "INTERNAL"}


class GeminiWire:
    route = "generate_content"

    def parse(self, body: bytes, headers: dict[str, str], path_model: str | None
              ) -> WireRequest:
        req = json.loads(body)
        if path_model is None:
            raise ValueError("no model in the path")
        gen = _get(req, "generation_config") or {}
        return WireRequest(model=path_model,
                           messages=from_gemini(_get(req, "system_instruction"),
                                                req["contents"]),
                           tools=from_gemini_tools(req.get("tools")),
                           seed=int(gen.get("seed") or 0),
                           tool_choice=from_gemini_tool_config(_get(req, "tool_config")))

    def response(self, out: ModelOutput, model: str, ident: str) -> dict[str, Any]:
        parts: list[dict[str, Any]] = []
        if out.text:
            parts.append({"text": out.text})
        parts += [{"functionCall": {"id": c.id, "name": c.name, "args": c.arguments}}
                  for c in out.tool_calls]
        u = out.usage
        return {"candidates": [{"content": {"role": "model", "parts": parts or [{"text": ""}]},
                                "finishReason": "STOP", "index": 0}],
                "usageMetadata": {"promptTokenCount": u.input_tokens,
                                  "candidatesTokenCount": u.output_tokens,
                                  "totalTokenCount": u.input_tokens + u.output_tokens},
                "modelVersion": model, "responseId": f"sim-{ident}"}

    def error(self, status: int, message: str) -> dict[str, Any]:
        return {"error": {"code": status, "message": message,
                          "status": _STATUS.get(status, "INTERNAL")}}

    def malform(self, payload: dict[str, Any], tools: list[ToolSpec]) -> None:
        parts = payload["candidates"][0]["content"]["parts"]
        calls = [p["functionCall"] for p in parts if "functionCall" in p]
        if not calls:
            calls = [{"id": "call_sim_bad", "name": first_tool(tools), "args": {}}]
            parts.append({"functionCall": calls[0]})
        for c in calls:  # `args` is a Struct on this API: a cut-off string stands in
            c["args"] = truncated_json(c["args"])
