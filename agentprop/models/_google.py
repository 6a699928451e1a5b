"""`google/<name>` through the official google-genai SDK (optional extra, imported lazily).

Gemini mapping: system messages → `system_instruction`; assistant tool calls →
`function_call` parts of a "model" turn; tool results → `function_response` parts of a
"user" turn (the observation JSON as the response object). Automatic function calling is
off: the agent loop runs the tools. Both directions live here (`to_gemini` for the
provider, `from_gemini` for serve-sim's ``generateContent`` route).

``base_url`` (or GOOGLE_GEMINI_BASE_URL, which the SDK also honours) points the SDK
elsewhere, e.g. at serve-sim; a loopback base URL needs no key. SDK retries are off.
"""

from __future__ import annotations

import json
import os
from typing import Any

from agentprop.core import Message, ModelOutput, ToolCall, ToolSpec, Usage
from agentprop.models._base import GenerateConfig, ModelError
from agentprop.models._openai import is_loopback, redact
from agentprop.models._provider import RemoteModel
from agentprop.models._registry import register_provider
from agentprop.models._retry import RetryableError, parse_retry_after, status_kind
from agentprop.models._transport import dead_server, dead_server_error


def _response_obj(content: str | None) -> dict[str, Any]:
    try:
        value = json.loads(content or "")
    except (ValueError, RecursionError):
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


def _get(d: Any, snake: str) -> Any:
    """A field of a Gemini JSON object under its snake_case or camelCase name (the SDK
    sends camelCase; our own dicts use snake_case)."""
    if not isinstance(d, dict):
        return None
    if snake in d:
        return d[snake]
    head, *rest = snake.split("_")
    return d.get(head + "".join(w.title() for w in rest))


def _content_from_response(resp: Any) -> str:
    """The inverse of `_response_obj`: the tool message content a response object came
    from."""
    if isinstance(resp, dict) and set(resp) == {"output"}:
        value = resp["output"]
        return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return json.dumps(resp, ensure_ascii=False)


def from_gemini(system_instruction: Any, contents: list[dict[str, Any]]) -> list[Message]:
    """The inverse of `to_gemini`: a generateContent request's system instruction and
    contents as our Messages."""
    out: list[Message] = []
    if isinstance(system_instruction, str):
        system = system_instruction
    else:
        parts = _get(system_instruction, "parts") or []
        system = "".join(_get(p, "text") or "" for p in parts)
    if system:
        out.append(Message(role="system", content=system))
    for c in contents:
        role = _get(c, "role") or "user"
        if role not in ("user", "model"):
            raise ValueError(f"unsupported content role {role!r}")
        texts: list[str] = []
        calls: list[ToolCall] = []
        for i, p in enumerate(_get(c, "parts") or []):
            fc, fr = _get(p, "function_call"), _get(p, "function_response")
            if fc is not None:
                args = _get(fc, "args")
                calls.append(ToolCall(id=_get(fc, "id") or f"call_{i}",
                                      name=_get(fc, "name") or "",
                                      arguments=args if isinstance(args, dict) else {}))
            elif fr is not None:
                out.append(Message(role="tool", tool_call_id=_get(fr, "id"),
                                   name=_get(fr, "name"),
                                   content=_content_from_response(_get(fr, "response"))))
            elif _get(p, "text") is not None and not _get(p, "thought"):
                texts.append(_get(p, "text"))
        if role == "model":
            out.append(Message(role="assistant", content="".join(texts) or None,
                               tool_calls=calls))
        elif texts:
            out.append(Message(role="user", content="".join(texts)))
    return out


def from_gemini_tools(tools: list[dict[str, Any]] | None) -> list[ToolSpec]:
    """The inverse of `to_gemini_tools` (either schema field; other tool kinds skipped)."""
    out: list[ToolSpec] = []
    for t in tools or []:
        for d in _get(t, "function_declarations") or []:
            schema = _get(d, "parameters_json_schema") or _get(d, "parameters")
            if _get(d, "name"):
                out.append(ToolSpec(name=d["name"], description=_get(d, "description") or "",
                                    parameters=schema or {"type": "object"}))
    return out


def to_gemini_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    if not tools:
        return []
    return [{"function_declarations": [
        {"name": t.name, "description": t.description, "parameters_json_schema": t.parameters}
        for t in tools]}]


def to_gemini_tool_config(choice: str) -> dict[str, Any]:
    """`GenerateConfig.tool_choice` as Gemini's function-calling config."""
    modes = {"auto": "AUTO", "none": "NONE", "required": "ANY"}
    if choice in modes:
        return {"function_calling_config": {"mode": modes[choice]}}
    return {"function_calling_config": {"mode": "ANY", "allowed_function_names": [choice]}}


def from_gemini_tool_config(value: Any) -> str | None:
    """The inverse of `to_gemini_tool_config` (either spelling of the keys)."""
    fcc = _get(value, "function_calling_config")
    mode = str(_get(fcc, "mode") or "").upper()
    names = _get(fcc, "allowed_function_names") or []
    if mode == "ANY" and len(names) == 1:
        return str(names[0])
    return {"AUTO": "auto", "NONE": "none", "ANY": "required"}.get(mode)


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
                       raw=resp.model_dump(mode="json", exclude_none=True,
                                           exclude={"sdk_http_response"}))


class GoogleModel(RemoteModel):
    provider = "google"

    def __init__(self, name: str, *, api_key_env: str = "GOOGLE_API_KEY",
                 api_key: str | None = None, **options: Any) -> None:
        super().__init__(name, **options)
        key = api_key or os.environ.get(api_key_env) or os.environ.get("GEMINI_API_KEY")
        if not key:
            if not is_loopback(self.base_url):
                raise ModelError("auth", f"{api_key_env} (or GEMINI_API_KEY) is not set:"
                                 f" export it or add it to .env to use google/{name}")
            key = "local-key"  # loopback servers need none
        self.__key = key

    def _make_client(self, connections: int, *, aio: bool = False) -> Any:
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
            choice = self.choice(tools, config)
            if choice is not None:  # Gemini's default mode is AUTO
                cfg["tool_config"] = to_gemini_tool_config(choice)
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
        import pydantic
        from google.genai import errors

        contents, cfg = self.request_config(messages, tools, config)
        try:
            resp = await client.aio.models.generate_content(model=self.name, contents=contents,
                                                            config=cfg)
        except errors.APIError as e:
            kind, retry = status_kind(int(e.code or 500),
                                      getattr(e, "details", None) or str(e.message))
            msg = f"HTTP {e.code} from {self.id}: {redact(str(e.message), self.__key)[:300]}"
            headers = getattr(getattr(e, "response", None), "headers", None)
            if retry:
                raise RetryableError(kind, msg, parse_retry_after(headers)) from None
            raise ModelError(kind, msg) from None
        except pydantic.ValidationError:  # e.g. functionCall.args that is not an object
            raise RetryableError("bad_response", f"invalid response from {self.id}") from None
        except Exception as e:  # transport errors of whichever httpx the SDK uses
            # by class name along the MRO: the SDK may use httpx, httpx2 or aiohttp, whose
            # read/write/protocol errors (connection reset) are TransportError subclasses
            name = " ".join(c.__name__.lower() for c in type(e).__mro__)
            if (how := dead_server(e)) is not None:
                raise dead_server_error(how, self.where) from None
            if "timeout" in name:
                raise RetryableError("timeout", f"request timed out after {config.timeout_s:g} s"
                                     ) from None
            if (any(w in name for w in ("connect", "network", "transport", "disconnect"))
                    or isinstance(e, OSError)):
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
    if options.get("base_url") is None:
        options["base_url"] = os.environ.get("GOOGLE_GEMINI_BASE_URL") or None
    return GoogleModel(name, **options)
