"""What every remote provider shares: cache lookup, a connection limit, retries, cost.

A provider subclasses `RemoteModel` and implements `_make_client(connections)` and
`_attempt` (one request, raising `RetryableError` or `ModelError`). The semaphore and the
SDK clients are created per event loop and owned by the instance, so no state leaks
between runs or modules.

The connection limit is split over several SDK clients of at most `SHARD_CONNECTIONS`
connections each, used round-robin: an httpx connection pool's bookkeeping grows with its
size, and one pool of 64 busy connections costs several times the CPU per request of
eight pools of eight (bench/bench_http.py).
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import os
import random
import time
from collections.abc import Mapping
from typing import Any
from urllib.parse import urlsplit

from agentprop.core import Message, ModelOutput, ToolSpec
from agentprop.models._base import GenerateConfig, ModelError
from agentprop.models._cache import CacheStore, ResponseCache, clean_output, request_key
from agentprop.models._limits import Limiter, RateLimits
from agentprop.models._prices import PriceTable, price_table
from agentprop.models._retry import RetryableError, RetryPolicy, call_with_retries

DEFAULT_MAX_CONNECTIONS = 100
SHARD_CONNECTIONS = 8


def check_base_url(url: str) -> tuple[str, str, int]:
    """(scheme, host, port) of a provider base URL; ModelError (kind ``bad_request``,
    credentials redacted) when it is not ``http(s)://host[:port]/...``."""
    from agentprop.safety import redact_url

    try:
        parts = urlsplit(url)
        host, port = parts.hostname, parts.port
    except ValueError as e:
        raise ModelError("bad_request", f"invalid base URL {redact_url(url)!r}: "
                         f"{redact_url(str(e))}") from None
    if parts.scheme not in ("http", "https") or not host:
        raise ModelError("bad_request", f"invalid base URL {redact_url(url)!r}: expected "
                         "http(s)://host[:port]/...")
    return parts.scheme, host, port or (443 if parts.scheme == "https" else 80)


def request_chars(messages: list[Message], tools: list[ToolSpec]) -> int:
    """A request's prompt size in characters (text, tool calls, tool schemas): what the
    TPM budget's token estimate scales."""
    n = 0
    for m in messages:
        n += len(m.content or "") + 8
        for c in m.tool_calls:
            n += len(c.name) + len(json.dumps(c.arguments))
    for t in tools:
        n += len(t.name) + len(t.description) + len(json.dumps(t.parameters))
    return n


class RemoteModel:
    """Base class of the SDK-backed providers."""

    provider: str = ""
    simulated: bool = False

    def __init__(
        self,
        name: str,
        *,
        base_url: str | None = None,
        cache: CacheStore | None = None,
        cache_epoch: int | str = 0,
        max_attempts: int = 5,
        retry_base_s: float = 1.0,
        retry_max_s: float = 30.0,
        max_connections: int = DEFAULT_MAX_CONNECTIONS,
        prices: PriceTable | Mapping[str, Any] | None = None,
        rpm: float | None = None,
        tpm: float | None = None,
        rng_seed: int = 0,
        tool_choice: str | None = None,
        suite: object = None,  # accepted so one options dict serves every provider; unused
    ) -> None:
        if max_connections < 1:
            raise ValueError("max_connections must be at least 1")
        if base_url is not None:
            check_base_url(base_url)
        self.name = name
        self.base_url = base_url
        self.tool_choice = tool_choice
        """The user's `tool_choice` (``-o tool_choice=...``) when a request sets none."""
        self.cache = ResponseCache(cache) if cache is not None else None
        self.cache_epoch = cache_epoch
        self.retry = RetryPolicy(max_attempts=max_attempts, base_delay_s=retry_base_s,
                                 max_delay_s=retry_max_s)
        self.max_connections = max_connections
        self.limiter = Limiter(RateLimits(rpm=rpm, tpm=tpm), max_connections)
        self.prices: PriceTable = price_table(prices)
        self._rng = random.Random(rng_seed)  # jitter only; never affects outputs
        self._loop: asyncio.AbstractEventLoop | None = None
        self._clients: list[Any] = []
        self._turn = -1
        self._shards = 1
        self._per_shard = max_connections
        self._aio = False
        self._ssl: Any = None
        self._request_ids = itertools.count()
        self._request_prefix = os.urandom(6).hex()

    @property
    def id(self) -> str:
        return f"{self.provider}/{self.name}"

    def __repr__(self) -> str:  # never shows the key
        from agentprop.safety import redact_url

        url = None if self.base_url is None else redact_url(self.base_url)
        return f"<{type(self).__name__} {self.id} base_url={url!r}>"

    @property
    def where(self) -> str:
        """The server this model calls, for messages: its base URL without credentials."""
        from agentprop.safety import redact_url

        return redact_url(self.base_url) if self.base_url else f"the {self.provider} API"

    def choice(self, tools: list[ToolSpec], config: GenerateConfig) -> str | None:
        """The request's tool choice: the config's, else the user's, else None (each
        provider says what it sends then); None without tools."""
        if not tools:
            return None
        return config.tool_choice or self.tool_choice

    # -- to implement ------------------------------------------------------------------
    def _make_client(self, connections: int, *, aio: bool = False) -> Any:
        """An SDK client with `connections` connections (`aio`: on the SDK's aiohttp
        transport, where it has one)."""
        raise NotImplementedError

    async def _attempt(
        self, client: Any, messages: list[Message], tools: list[ToolSpec], config: GenerateConfig
    ) -> ModelOutput:
        raise NotImplementedError

    # -- shared ------------------------------------------------------------------------
    def ssl_context(self) -> Any:
        """One TLS context for all of this model's client shards: loading the CA bundle
        costs ~0.1 s of CPU per context, and eight shards each loading their own stalled
        the event loop at the start of every run."""
        if self._ssl is None:
            import httpx2

            self._ssl = httpx2.create_ssl_context()
        return self._ssl

    def idempotency_key(self) -> str:
        """A unique key per request, as the SDKs send: left to them, each call draws a
        uuid4 from os.urandom, a system call that cost ~0.2 ms per call under load."""
        return f"stainless-python-retry-{self._request_prefix}-{next(self._request_ids)}"

    def open(self, concurrency: int | None = None) -> None:
        """Create this event loop's clients now, on the SDK's aiohttp transport when
        aiohttp is installed (`aclose()` must follow), for at most `concurrency` calls
        at once. The runner calls it before the first episode: no call waits for the
        clients of all the others, and the aiohttp transport costs ~40 % less client CPU
        per call than the default httpx one (bench/README.md, whole-episode throughput)."""
        import importlib.util

        limit = min(self.max_connections, concurrency or self.max_connections)
        # aiohttp refuses credentials in the URL next to the SDK's Authorization header:
        # such a base URL keeps the httpx transport
        userinfo = bool(self.base_url and urlsplit(self.base_url).username)
        aio = importlib.util.find_spec("aiohttp") is not None and not userinfo
        self._start_loop(limit, aio=aio)
        while len(self._clients) < self._shards:
            self._clients.append(self._make_client(self._per_shard, aio=self._aio))

    async def aclose(self) -> None:
        """Close the clients `open()` made (aiohttp sessions must be closed explicitly)."""
        clients, self._clients, self._loop = self._clients, [], None
        for client in clients:
            closer = getattr(client, "close", None)
            if closer is not None:
                with contextlib.suppress(Exception):
                    result = closer()
                    if asyncio.iscoroutine(result):
                        await result

    def _start_loop(self, limit: int, *, aio: bool) -> None:
        self._loop = asyncio.get_running_loop()
        self._clients, self._aio, self._turn = [], aio, -1
        self._shards = -(-limit // SHARD_CONNECTIONS)
        self._per_shard = -(-limit // self._shards)

    def _per_loop(self) -> Any:
        """The next client shard of this event loop, round-robin; shards are made when
        first needed, so a model used for a few calls builds one SDK client, not 13."""
        if self._loop is not asyncio.get_running_loop():
            self._start_loop(self.max_connections, aio=False)
        self._turn = (self._turn + 1) % self._shards
        if self._turn >= len(self._clients):
            self._clients.append(self._make_client(self._per_shard, aio=self._aio))
            self._turn = len(self._clients) - 1
        return self._clients[self._turn]

    def set_rate_limits(self, limits: RateLimits) -> None:
        """Budgets for this model (`--rpm`/`--tpm`); replaces the constructor's."""
        self.limiter = Limiter(limits, self.max_connections)

    @property
    def rate_limited(self) -> int:
        """429 answers received so far (every attempt counts)."""
        return self.limiter.rate_limited

    def cache_key(self, messages: list[Message], tools: list[ToolSpec],
                  config: GenerateConfig) -> str:
        return request_key(provider=self.provider, model=self.name, base_url=self.base_url,
                           messages=messages, tools=tools, config=config,
                           epoch=self.cache_epoch)

    async def generate(
        self, messages: list[Message], tools: list[ToolSpec], config: GenerateConfig
    ) -> ModelOutput:
        key = self.cache_key(messages, tools, config) if self.cache is not None else ""
        if self.cache is not None:
            hit = self.cache.get(key)
            if hit is not None:
                return hit
        client = self._per_loop()
        limiter = self.limiter

        chars = request_chars(messages, tools) if limiter.counts_tokens else 0

        async def once() -> ModelOutput:
            reserved = await limiter.admit(chars)
            try:
                out = await self._attempt(client, messages, tools, config)
            except RetryableError as e:
                if e.kind == "rate_limit":
                    await limiter.refused(reserved, e.retry_after)
                else:
                    await limiter.failed(reserved)
                raise
            except BaseException:
                await limiter.failed(reserved)
                raise
            await limiter.done(reserved, out.usage.input_tokens, out.usage.output_tokens)
            return out

        start = time.perf_counter()
        out, attempts = await call_with_retries(once, self.retry, self._rng)
        out = clean_output(out)
        out.latency_s = time.perf_counter() - start
        out.cost = self.prices.cost(self.name, out.usage)
        if attempts > 1:
            out.raw = {**(out.raw or {}), "attempts": attempts}
        if self.cache is not None:
            self.cache.put(key, out)
        return out
