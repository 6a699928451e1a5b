"""`anthropic/<name>` through the official SDK (optional extra, imported lazily).

Messages API mapping: system messages → `system`; assistant tool calls → `tool_use`
blocks; consecutive tool results → one user message of `tool_result` blocks. Both
directions live here (`to_anthropic` for the provider, `from_anthropic` for serve-sim's
``/v1/messages`` route), so a change to the mapping is made once.

``base_url`` (or ANTHROPIC_BASE_URL) points the SDK elsewhere, e.g. at serve-sim: a
loopback base URL needs no key, and then the episode seed travels in the
``x-agentprop-seed`` header (the Messages API has no seed parameter).
"""

from __future__ import annotations

import json
import os
from typing import Any

from agentprop.core import Message, ModelOutput, ToolCall, ToolSpec, Usage
from agentprop.models._base import GenerateConfig, ModelError
from agentprop.models._openai import is_loopback, sdk_error
from agentprop.models._provider import RemoteModel
from agentprop.models._registry import register_provider
from agentprop.models._retry import RetryableError


def to_anthropic(messages: list[Message]) -> tuple[str | None, list[dict[str, Any]]]:
    """(system prompt, messages) in Anthropic's format."""
    system = [m.content for m in messages if m.role == "system" and m.content]
    out: list[dict[str, Any]] = []
    for m in messages:
        if m.role == "system":
            continue
        if m.role == "tool":
            block = {"type": "tool_result", "tool_use_id": m.tool_call_id or "",
                     "content": m.content or ""}
            prev = out[-1] if out else None
            if (prev and prev["role"] == "user" and isinstance(prev["content"], list)
                    and all(b.get("type") == "tool_result" for b in prev["content"])):
                prev["content"].append(block)
            else:
                out.append({"role": "user", "content": [block]})
        elif m.role == "assistant":
            blocks: list[dict[str, Any]] = []
            if m.content:
                blocks.append({"type": "text", "text": m.content})
            blocks += [{"type": "tool_use", "id": c.id, "name": c.name, "input": c.arguments}
                       for c in m.tool_calls]
            out.append({"role": "assistant", "content": blocks or ""})
        else:
            out.append({"role": "user", "content": m.content or ""})
    return ("\n\n".join(system) if system else None), out


def _block_text(content: Any) -> str:
    """Text of a string or a list of text blocks."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(b.get("text", "") for b in content
                       if isinstance(b, dict) and b.get("type", "text") == "text")
    return "" if content is None else str(content)


def from_anthropic(system: Any, messages: list[dict[str, Any]]) -> list[Message]:
    """The inverse of `to_anthropic`: a Messages API request's system and messages as
    our Messages (tool results split back into one "tool" message each)."""
    out: list[Message] = []
    text = _block_text(system)
    if text:
        out.append(Message(role="system", content=text))
    names: dict[str, str] = {}
    for m in messages:
        role, content = m.get("role"), m.get("content")
        if role not in ("user", "assistant"):
            raise ValueError(f"unsupported message role {role!r}")
        if not isinstance(content, list):
            out.append(Message(role=role, content=_block_text(content)))
            continue
        if role == "assistant":
            texts: list[str] = []
            calls: list[ToolCall] = []
            for b in content:
                if b.get("type") == "text":
                    texts.append(b.get("text", ""))
                elif b.get("type") == "tool_use":
                    args = b.get("input")
                    calls.append(ToolCall(id=b.get("id") or "", name=b.get("name") or "",
                                          arguments=args if isinstance(args, dict) else {}))
                    names[calls[-1].id] = calls[-1].name
            out.append(Message(role="assistant", content="".join(texts) or None,
                               tool_calls=calls))
            continue
        pending: list[str] = []  # user text blocks, flushed in order around tool results
        for b in content:
            if b.get("type") == "tool_result":
                if pending:
                    out.append(Message(role="user", content="".join(pending)))
                    pending = []
                tid = b.get("tool_use_id") or ""
                out.append(Message(role="tool", tool_call_id=tid, name=names.get(tid),
                                   content=_block_text(b.get("content"))))
            elif b.get("type") == "text":
                pending.append(b.get("text", ""))
        if pending:
            out.append(Message(role="user", content="".join(pending)))
    return out


def from_anthropic_tools(tools: list[dict[str, Any]] | None) -> list[ToolSpec]:
    """The inverse of `to_anthropic_tools` (server tools without a schema are skipped)."""
    return [ToolSpec(name=t["name"], description=t.get("description") or "",
                     parameters=t.get("input_schema") or {"type": "object"})
            for t in tools or [] if t.get("name") and "input_schema" in t]


def to_anthropic_tools(tools: list[ToolSpec]) -> list[dict[str, Any]]:
    return [{"name": t.name, "description": t.description, "input_schema": t.parameters}
            for t in tools]


def to_anthropic_tool_choice(choice: str) -> dict[str, Any]:
    """`GenerateConfig.tool_choice` as the Messages API's object."""
    if choice in ("auto", "none"):
        return {"type": choice}
    if choice == "required":
        return {"type": "any"}
    return {"type": "tool", "name": choice}


def from_anthropic_tool_choice(value: Any) -> str | None:
    """The inverse of `to_anthropic_tool_choice`."""
    if not isinstance(value, dict):
        return None
    kind = value.get("type")
    if kind == "tool":
        return value.get("name") or None
    return {"auto": "auto", "none": "none", "any": "required"}.get(str(kind))


def parse_anthropic(resp: Any) -> ModelOutput:
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[ToolCall] = []
    for block in resp.content or []:
        kind = getattr(block, "type", None)
        if kind == "text":
            texts.append(block.text)
        elif kind == "thinking":
            thinking.append(getattr(block, "thinking", "") or "")
        elif kind == "tool_use":
            if not isinstance(block.input, dict):
                raise RetryableError("bad_response", f"tool_use {block.name!r} input is not"
                                     " a JSON object")
            args = block.input
            calls.append(ToolCall(id=block.id, name=block.name, arguments=args))
    usage = Usage(input_tokens=getattr(resp.usage, "input_tokens", 0) or 0,
                  output_tokens=getattr(resp.usage, "output_tokens", 0) or 0)
    return ModelOutput(text="".join(texts) or None, tool_calls=calls,
                       reasoning="\n".join(thinking) or None, usage=usage,
                       raw=json.loads(resp.model_dump_json(exclude_none=True)))


class AnthropicModel(RemoteModel):
    provider = "anthropic"

    def __init__(self, name: str, *, api_key_env: str = "ANTHROPIC_API_KEY",
                 api_key: str | None = None, **options: Any) -> None:
        super().__init__(name, **options)
        key = api_key or os.environ.get(api_key_env)
        if not key:
            if not is_loopback(self.base_url):
                raise ModelError("auth", f"{api_key_env} is not set: export it or add it to"
                                 f" .env to use anthropic/{name}")
            key = "sk-local"
        self.__key = key
        # the SDK is imported now (~0.5 s), when the model is built, not inside the first
        # call of a run, where every episode would wait for it
        import anthropic  # noqa: F401

    def _make_client(self, connections: int, *, aio: bool = False) -> Any:
        import anthropic
        import httpx2

        transport = anthropic.DefaultAioHttpClient if aio else anthropic.DefaultAsyncHttpxClient
        http = transport(
            verify=self.ssl_context(),
            limits=httpx2.Limits(max_connections=connections,
                                 max_keepalive_connections=connections))
        return anthropic.AsyncAnthropic(api_key=self.__key, base_url=self.base_url,
                                        max_retries=0, http_client=http)

    def request_params(self, messages: list[Message], tools: list[ToolSpec],
                       config: GenerateConfig) -> dict[str, Any]:
        system, msgs = to_anthropic(messages)
        params: dict[str, Any] = {"model": self.name, "messages": msgs,
                                  "max_tokens": config.max_tokens or 1024}
        if system:
            params["system"] = system
        if tools:
            params["tools"] = to_anthropic_tools(tools)
            choice = self.choice(tools, config)
            if choice is not None:  # the Messages API's default is "auto"
                params["tool_choice"] = to_anthropic_tool_choice(choice)
        if config.temperature is not None:
            params["temperature"] = config.temperature
        if config.extra:
            params["extra_body"] = dict(config.extra)
        if config.seed is not None and is_loopback(self.base_url):
            params["extra_headers"] = {"x-agentprop-seed": str(config.seed)}
        return params

    async def _attempt(self, client: Any, messages: list[Message], tools: list[ToolSpec],
                       config: GenerateConfig) -> ModelOutput:
        import anthropic

        params = self.request_params(messages, tools, config)
        options: dict[str, Any] = {"timeout": config.timeout_s,
                                   "idempotency_key": self.idempotency_key()}
        if "extra_headers" in params:
            options["headers"] = params.pop("extra_headers")
        body = {**params, **(params.pop("extra_body", None) or {})}
        try:
            # The SDK's request path (auth, version header, errors, pooling) with our
            # wire-format body as is: `messages.create`'s signature follows the newest
            # models (this SDK version has no `temperature`) and re-walks every schema.
            resp = await client.post("/v1/messages", cast_to=anthropic.types.Message,
                                     body=body, options=options)
        except anthropic.AnthropicError as e:
            raise sdk_error(anthropic, e, model_id=self.id,
                            where=self.where, secret=self.__key,
                            timeout_s=config.timeout_s) from None
        return parse_anthropic(resp)


@register_provider("anthropic")
def anthropic_provider(name: str, **options: Any) -> AnthropicModel:
    try:
        import anthropic  # noqa: F401
    except ImportError:
        raise ModelError("missing_sdk", "the anthropic SDK is not installed: pip install"
                         " 'agentprop[anthropic]'") from None
    if options.get("base_url") is None:
        options["base_url"] = os.environ.get("ANTHROPIC_BASE_URL") or None
    return AnthropicModel(name, **options)
