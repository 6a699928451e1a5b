"""OpenAI-compatible chat completions through the official async SDK.

One provider serves OpenAI, OpenRouter, Gemini's OpenAI endpoint, DeepSeek, vLLM, Ollama,
llama.cpp and `agentprop serve-sim`: set ``base_url`` (or OPENAI_BASE_URL). The SDK's own
retries are off; `_retry` is the only retry layer. The API key lives only inside the SDK
client: never in `raw`, cache keys, reprs or error messages.
"""

from __future__ import annotations

import json
import os
import re
from typing import Any
from urllib.parse import urlparse

from agentprop.core import Message, ModelOutput, ToolCall, ToolSpec, UnparsedCall, Usage
from agentprop.models._base import GenerateConfig, ModelError
from agentprop.models._openai_format import (
    parse_arguments,
    to_openai_messages,
    to_openai_tool_choice,
    to_openai_tools,
)
from agentprop.models._provider import RemoteModel
from agentprop.models._registry import register_provider
from agentprop.models._retry import RetryableError, parse_retry_after, status_kind
from agentprop.models._transport import dead_server, dead_server_error

OPENROUTER_BASE_URL = "https://openrouter.ai/api/v1"
_REASONING = re.compile(r"^(o1|o3|o4)(\b|-|$)")
_KEYLIKE = re.compile(r"\b(sk|key|rk)-[A-Za-z0-9_\-*.]{6,}")


def is_loopback(url: str | None) -> bool:
    if not url:
        return False
    host = (urlparse(url).hostname or "").lower()
    return host in ("localhost", "::1") or host.startswith("127.")


def is_reasoning_model(name: str) -> bool:
    """o1/o3/o4 families take max_completion_tokens and no temperature."""
    return bool(_REASONING.match(name.rsplit("/", 1)[-1]))


MIN_SUBSTRING_SECRET = 8
"""A secret this long or longer is redacted wherever it occurs; a shorter one (``x``, the
README's key for a loopback server) would turn every ``x`` of a message into ``***``,
so it is redacted only where it stands as a value (`_VALUE_BEFORE`)."""
_VALUE_BEFORE = (r"((?:bearer|basic)\s+|(?:key|token|secret|passw\w*|auth\w*|provided)"
                 r"[\"']?\s*[:=]?\s*[\"']?)")


def redact(text: str, secret: str | None) -> str:
    """`text` without `secret` (see `MIN_SUBSTRING_SECRET`) and without key-like tokens."""
    if secret:
        if len(secret) >= MIN_SUBSTRING_SECRET:
            text = text.replace(secret, "***")
        else:
            as_value = re.compile(_VALUE_BEFORE + re.escape(secret) + r"(?![\w\-~+/]|\.\w)",
                                  re.I)
            text = as_value.sub(r"\1***", text)
    return _KEYLIKE.sub("***", text)


class OpenAIModel(RemoteModel):
    """`openai/<name>` (and `openrouter/<name>`)."""

    def __init__(
        self,
        name: str,
        *,
        provider: str = "openai",
        base_url: str | None = None,
        api_key_env: str = "OPENAI_API_KEY",
        api_key: str | None = None,
        **options: Any,
    ) -> None:
        super().__init__(name, base_url=base_url, **options)
        self.provider = provider
        self.api_key_env = api_key_env
        key = api_key or os.environ.get(api_key_env)
        if not key:
            if not is_loopback(base_url):
                raise ModelError("auth", f"{api_key_env} is not set: export it or add it to"
                                 f" .env to use {provider}/{name}")
            key = "sk-local"  # loopback servers need none
        self.__key = key
        # the SDK is imported now (~0.5 s), when the model is built, not inside the first
        # call of a run, where every episode would wait for it
        import openai  # noqa: F401

    def _make_client(self, connections: int, *, aio: bool = False) -> Any:
        import httpx2
        import openai

        transport = openai.DefaultAioHttpClient if aio else openai.DefaultAsyncHttpxClient
        http = transport(
            verify=self.ssl_context(),
            limits=httpx2.Limits(max_connections=connections,
                                 max_keepalive_connections=connections)
        )
        return openai.AsyncOpenAI(api_key=self.__key, base_url=self.base_url, max_retries=0,
                                  http_client=http)

    def request_params(self, messages: list[Message], tools: list[ToolSpec],
                       config: GenerateConfig) -> dict[str, Any]:
        """The chat.completions.create keyword arguments (without the timeout)."""
        params: dict[str, Any] = {"model": self.name,
                                  "messages": to_openai_messages(messages)}
        if tools:
            params["tools"] = to_openai_tools(tools)
            # explicit, since servers differ on the default: OpenAI's is "auto",
            # llama-cpp-python's chatml-function-calling reads a missing value as "none"
            params["tool_choice"] = to_openai_tool_choice(self.choice(tools, config) or "auto")
        if is_reasoning_model(self.name):
            if config.max_tokens is not None:
                params["max_completion_tokens"] = config.max_tokens
        else:
            if config.temperature is not None:
                params["temperature"] = config.temperature
            if config.max_tokens is not None:
                params["max_tokens"] = config.max_tokens
        if config.seed is not None:
            params["seed"] = config.seed
        if config.extra:
            params["extra_body"] = dict(config.extra)
        return params

    async def _attempt(
        self, client: Any, messages: list[Message], tools: list[ToolSpec], config: GenerateConfig
    ) -> ModelOutput:
        import httpx2
        import openai

        params = self.request_params(messages, tools, config)
        extra = params.pop("extra_body", None) or {}
        try:
            # The SDK's own request path (client.post: auth, errors, connection pooling)
            # without its per-field TypedDict transform, which walks every tool schema and
            # costs more CPU than the rest of the call; the body is already wire-format.
            resp = await client.post("/chat/completions", cast_to=httpx2.Response,
                                     body={**params, **extra},
                                     options={"timeout": config.timeout_s,
                                              "idempotency_key": self.idempotency_key()})
        except openai.OpenAIError as e:
            raise sdk_error(openai, e, model_id=self.id,
                            where=self.where, secret=self.__key,
                            timeout_s=config.timeout_s) from None
        try:
            data = resp.json()
        except ValueError:
            raise RetryableError("bad_response", "response body is not JSON") from None
        return parse_response(data)


def sdk_error(sdk: Any, e: Exception, *, model_id: str, where: str, secret: str | None,
              timeout_s: float) -> Exception:
    """Translate an exception of a Stainless-generated SDK (openai, anthropic) into a
    RetryableError or ModelError whose message carries no secret. A refused or reset
    connection is a dead server, whatever class the SDK gave it (`_transport`)."""
    if isinstance(e, sdk.APIConnectionError) and (how := dead_server(e)) is not None:
        return dead_server_error(how, where)
    if isinstance(e, sdk.APITimeoutError):
        return RetryableError("timeout", f"request timed out after {timeout_s:g} s")
    if isinstance(e, sdk.APIConnectionError):
        return RetryableError("connection", f"cannot connect to {where}")
    if isinstance(e, sdk.APIStatusError):
        kind, retry = status_kind(e.status_code, _error_body(e))
        msg = f"HTTP {e.status_code} from {model_id}: {redact(e.message, secret)[:300]}"
        if retry:
            return RetryableError(kind, msg, parse_retry_after(e.response.headers))
        return ModelError(kind, msg)
    if isinstance(e, sdk.APIResponseValidationError):
        detail = redact(e.message, secret)[:200]
        return RetryableError("bad_response", f"invalid response: {detail}")
    return ModelError("bad_request", redact(str(e), secret)[:300])


def _error_body(e: Any) -> object:
    """An APIStatusError's body as the server sent it (JSON when it was), for
    `status_kind`: the SDK keeps the parsed ``error`` object, or only the message."""
    body = getattr(e, "body", None)
    if body is None:
        try:
            body = e.response.json()
        except Exception:
            body = getattr(e, "message", None)
    return body


def parse_response(data: Any) -> ModelOutput:
    """ModelOutput from a chat-completion JSON body. A response that breaks the format
    (no message, a call without a name) is a transient error and retried; a call whose
    arguments are not a JSON object is the model's output, kept as an `UnparsedCall`
    (recorded, never retried: the same prompt at temperature 0 writes it again)."""
    try:
        msg = data["choices"][0]["message"]
    except (KeyError, IndexError, TypeError):
        raise RetryableError("bad_response", "response has no choices[0].message") from None
    if not isinstance(msg, dict):
        raise RetryableError("bad_response", "response message is not an object")
    calls: list[ToolCall] = []
    unparsed: list[UnparsedCall] = []
    for i, c in enumerate(msg.get("tool_calls") or []):
        fn = c.get("function") if isinstance(c, dict) else None
        if not isinstance(fn, dict) or not fn.get("name"):
            raise RetryableError("bad_response", "tool call without a function name")
        raw = fn.get("arguments")
        try:
            args = parse_arguments(raw)
        except ValueError as e:
            text = raw if isinstance(raw, str) else json.dumps(raw)
            unparsed.append(UnparsedCall(id=c.get("id") or "", name=str(fn["name"]),
                                         arguments=text, error=str(e), index=i))
            continue
        calls.append(ToolCall(id=c.get("id") or f"call_{i}", name=fn["name"], arguments=args))
    reasoning = msg.get("reasoning_content") or msg.get("reasoning")
    u = data.get("usage") or {}
    usage = Usage(input_tokens=int(u.get("prompt_tokens") or 0),
                  output_tokens=int(u.get("completion_tokens") or 0))
    content = msg.get("content")
    return ModelOutput(
        text=content if isinstance(content, str) else None,
        tool_calls=calls,
        unparsed_calls=unparsed,
        reasoning=reasoning if isinstance(reasoning, str) else None,
        usage=usage,
        raw=data,
    )


@register_provider("openai")
def openai_provider(name: str, **options: Any) -> OpenAIModel:
    if options.get("base_url") is None:
        options["base_url"] = os.environ.get("OPENAI_BASE_URL") or None
    return OpenAIModel(name, provider="openai", **options)


@register_provider("openrouter")
def openrouter_provider(name: str, **options: Any) -> OpenAIModel:
    options.setdefault("api_key_env", "OPENROUTER_API_KEY")
    if options.get("base_url") is None:
        options["base_url"] = OPENROUTER_BASE_URL
    return OpenAIModel(name, provider="openrouter", **options)
