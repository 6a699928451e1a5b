"""The response cache: a stored ModelOutput per exact request, so reruns cost nothing.

The key is a sha256 over provider, model, base URL, messages, tools, the config fields
that shape the output (not the timeout) and an epoch (bump it to invalidate). It never
contains the API key. The store is any object with ``cache_get(key) -> dict | None``
and ``cache_put(key, dict)`` (the Workspace); ``cache=None`` (``--no-cache``) bypasses it.
What it stores and what it returns is cleaned of text UTF-8 cannot encode
(`clean_output`), so an answer holding a lone surrogate, even one cached by an older
version, cannot make every rerun fail the same way.
"""

from __future__ import annotations

import logging
from typing import Any, Protocol

from agentprop.core import Message, ModelOutput, ToolSpec, stable_hash
from agentprop.models._base import GenerateConfig

log = logging.getLogger(__name__)


class CacheStore(Protocol):
    def cache_get(self, key: str) -> dict[str, Any] | None: ...

    def cache_put(self, key: str, value: dict[str, Any]) -> None: ...


def request_key(
    *,
    provider: str,
    model: str,
    base_url: str | None,
    messages: list[Message],
    tools: list[ToolSpec],
    config: GenerateConfig,
    epoch: int | str = 0,
) -> str:
    """The cache key of one request."""
    return stable_hash(
        {
            "v": 1,
            "provider": provider,
            "model": model,
            "base_url": (base_url or "").rstrip("/"),
            "messages": [m.model_dump(mode="json", exclude_none=True) for m in messages],
            "tools": [t.model_dump(mode="json") for t in tools],
            "config": config.model_dump(mode="json", exclude={"timeout_s"}),
            "epoch": str(epoch),
        }
    )


def clean_output(output: ModelOutput) -> ModelOutput:
    """`output` with text UTF-8 cannot encode (a lone surrogate, valid JSON) replaced by
    U+FFFD, the count in ``raw["replaced_code_points"]``: such text would fail the next
    request's encoding, the trace writer and the cache."""
    from agentprop.safety import utf8_clean_model

    cleaned, n = utf8_clean_model(output)
    if not n:
        return output
    return cleaned.model_copy(update={"raw": {**(cleaned.raw or {}),
                                              "replaced_code_points": n}})


class ResponseCache:
    """Typed access to a CacheStore. Errors while caching never fail a call."""

    def __init__(self, store: CacheStore) -> None:
        self.store = store

    def get(self, key: str) -> ModelOutput | None:
        value = self.store.cache_get(key)
        if value is None:
            return None
        try:
            out = clean_output(ModelOutput.model_validate(value))
        except ValueError:
            return None
        return out.model_copy(update={"cached": True, "latency_s": 0.0})

    def put(self, key: str, output: ModelOutput) -> None:
        try:
            self.store.cache_put(key, clean_output(output).model_dump(mode="json",
                                                                      exclude={"cached"}))
        except Exception as e:  # a full disk must not turn a good answer into an error
            log.warning("response cache write failed: %s", type(e).__name__)
