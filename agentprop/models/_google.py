"""`google/<name>` through the official google-genai SDK (optional extra, imported lazily).

Gemini mapping: system messages → `system_instruction`; assistant tool calls →
`function_call` parts of a "model" turn; tool results → `function_response` parts of a
"user" turn (the observation JSON as the response object). Automatic function calling is
off: the agent loop runs the tools.
"""

from __future__ import annotations

import json
import os
from typing import Any

from agentprop.core import Message, ModelOutput, ToolCall, ToolSpec, Usage
from agentprop.models._base import GenerateConfig, ModelError
from agentprop.models._openai import redact
from agentprop.models._provider import RemoteModel
from agentprop.models._registry import register_provider
from agentprop.models._retry import RetryableError, parse_retry_after, status_kind


def _response_obj(content: str | None) -> dict[str, Any]:
    try:
        value = json.loads(content or "")
    except ValueError:
        return {"output": content or ""}
    return value if isinstance(value, dict) else {"output": value}


def to_gemini(messages: list[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """(system instruction, contents) in Gemini's format (plain dicts the SDK accepts)."""
    system = [m.content for m in messages if m.role == "system" and m.content]
    names: dict[str, str] = {}
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "assistant":
            parts: list[dict[str, Any]] = []
            if m.content:
                parts.append({"text": m.content})
            for c in m.tool_calls:
                names[c.id] = c.name
                parts.append({"function_call": {"id": c.id or None, "name": c.name,
                                                "args": c.arguments}})
            out.append({"role": "model", "parts": parts or [{"text": ""}]})
        elif m.role == "tool":
            part = {"function_response": {
                "id": m.tool_call_id or None,
                "name": m.name or names.get(m.tool_call_id or "", "tool"),
                "response": _response_obj(m.content)}}
            prev = out[-1] if out else None
            if prev and prev["role"] == "user" and all("function_response" in p
                                                       for p in prev["parts"]):
                prev["parts"].append(part)
            else:
                out.append({"role": "user", "parts": [part]})
        else:
            out.append({"role": "user", "parts": [{"text": m.content or ""}]})
    return ("\n\n".join(system) if system else None), out


def to_gemini_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    if not tools:
        return []
    return [{"function_declarations": [
        {"name": t.name, "description": t.description, "parameters_json_schema": t.parameters}
        for t in tools]}]


def parse_gemini(resp: Any) -> ModelOutput:
    cands = getattr(resp, "candidates", None) or []
    if not cands or cands[0].content is None:
        raise RetryableError("bad_response", "response has no candidates")
    texts: list[str] = []
    thoughts: list[str] = []
    calls: list[ToolCall] = []
    for i, p in enumerate(cands[0].content.parts or []):
        if getattr(p, "function_call", None) is not None:
            fc = p.function_call
            calls.append(ToolCall(id=fc.id or f"call_{i}", name=fc.name or "",
                                  arguments=dict(fc.args or {})))
        elif getattr(p, "text", None):
            (thoughts if getattr(p, "thought", False) else texts).append(p.text)
    um = getattr(resp, "usage_metadata", None)
    usage = Usage(
        input_tokens=(getattr(um, "prompt_token_count", 0) or 0) if um else 0,
        output_tokens=((getattr(um, "candidates_token_count", 0) or 0)
                       + (getattr(um, "thoughts_token_count", 0) or 0)) if um else 0,
    )
    return ModelOutput(text="".join(texts) or None, tool_calls=calls,
                       reasoning="\n".join(thoughts) or None, usage=usage,
                       raw=resp.model_dump(mode="json", exclude_none=True))


class GoogleModel(RemoteModel):
    provider = "google"

    def __init__(self, name: str, *, api_key_env: str = "GOOGLE_API_KEY",
                 api_key: str | None = None, **options: Any) -> None:
        super().__init__(name, **options)
        key = api_key or os.environ.get(api_key_env) or os.environ.get("GEMINI_API_KEY")
        if not key:
            raise ModelError("auth", f"{api_key_env} (or GEMINI_API_KEY) is not set: export it"
                             f" or add it to .env to use google/{name}")
        self.__key = key

    def _make_client(self, connections: int) -> Any:
        from google import genai
        from google.genai import types

        http = types.HttpOptions(base_url=self.base_url,
                                 retry_options=types.HttpRetryOptions(attempts=1))
        return genai.Client(api_key=self.__key, http_options=http)

    def request_config(self, messages: list[Message], tools: list[ToolSpec],
                       config: GenerateConfig) -> tuple[list[dict[str, Any]], dict[str, Any]]:
        system, contents = to_gemini(messages)
        cfg: dict[str, Any] = {"automatic_function_calling": {"disable": True},
                               "http_options": {"timeout": int(config.timeout_s * 1000)}}
        if system:
            cfg["system_instruction"] = system
        if tools:
            cfg["tools"] = to_gemini_tools(tools)
        if config.temperature is not None:
            cfg["temperature"] = config.temperature
        if config.seed is not None:
            cfg["seed"] = config.seed
        if config.max_tokens is not None:
            cfg["max_output_tokens"] = config.max_tokens
        cfg.update(config.extra)
        return contents, cfg

    async def _attempt(self, client: Any, messages: list[Message], tools: list[ToolSpec],
                       config: GenerateConfig) -> ModelOutput:
        from google.genai import errors

        contents, cfg = self.request_config(messages, tools, config)
        try:
            resp = await client.aio.models.generate_content(model=self.name, contents=contents,
                                                            config=cfg)
        except errors.APIError as e:
            kind, retry = status_kind(int(e.code or 500))
            msg = f"HTTP {e.code} from {self.id}: {redact(str(e.message), self.__key)[:300]}"
            headers = getattr(getattr(e, "response", None), "headers", None)
            if retry:
                raise RetryableError(kind, msg, parse_retry_after(headers)) from None
            raise ModelError(kind, msg) from None
        except Exception as e:  # transport errors of whichever httpx the SDK uses
            name = type(e).__name__.lower()
            if "timeout" in name:
                raise RetryableError("timeout", f"request timed out after {config.timeout_s:g} s"
                                     ) from None
            if "connect" in name or "network" in name or isinstance(e, OSError):
                raise RetryableError("connection", "cannot connect to the Gemini API") from None
            raise ModelError("bad_request", redact(str(e), self.__key)[:300]) from None
        return parse_gemini(resp)


@register_provider("google")
def google_provider(name: str, **options: Any) -> GoogleModel:
    try:
        from google import genai  # noqa: F401
    except ImportError:
        raise ModelError("missing_sdk", "the google-genai SDK is not installed: pip install"
                         " 'agentprop[google]'") from None
    return GoogleModel(name, **options)
