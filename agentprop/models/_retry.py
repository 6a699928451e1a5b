"""Retries with exponential backoff and jitter; the only retry layer (SDK retries are off).

Providers raise `RetryableError` for transient failures (429, 5xx, timeouts, connection
errors, unparseable responses) and `ModelError` for permanent ones (auth, bad request).
Which HTTP answers are worth another attempt is decided in one place, `status_kind`: a
5xx whose body says the request itself is invalid (a validation error, as
llama-cpp-python's server answers with HTTP 500) cannot change on retry and is not
retried.
`call_with_retries` turns the last transient failure into a `ModelError` carrying the
number of attempts, so a unit that still fails is recorded, never silently dropped.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import random
import re
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from agentprop.models._base import ModelError

T = TypeVar("T")


class RetryableError(Exception):
    """A transient failure worth another attempt; `retry_after` is the server's hint (s)."""

    def __init__(self, kind: str, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.message = message
        self.retry_after = retry_after


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry. Delay of attempt k (1-based) before attempt k+1:
    ``min(max_delay_s, base_delay_s * 2**(k-1))`` scaled by a jitter in [0.5, 1], or the
    server's Retry-After (capped at `max_retry_after_s`) when that is longer."""

    max_attempts: int = 5
    base_delay_s: float = 1.0
    max_delay_s: float = 30.0
    max_retry_after_s: float = 120.0

    def delay(self, attempt: int, retry_after: float | None, rng: random.Random) -> float:
        backoff = min(self.max_delay_s, self.base_delay_s * 2 ** (attempt - 1))
        backoff *= 0.5 + 0.5 * rng.random()
        if retry_after is not None and retry_after > 0:
            return max(backoff, min(retry_after, self.max_retry_after_s))
        return backoff


async def call_with_retries(
    attempt_fn: Callable[[], Awaitable[T]],
    policy: RetryPolicy,
    rng: random.Random,
    sleep: Callable[[float], Awaitable[Any]] = asyncio.sleep,
) -> tuple[T, int]:
    """Run `attempt_fn` until it succeeds; returns (result, attempts used)."""
    attempts = max(1, policy.max_attempts)
    for attempt in range(1, attempts + 1):
        try:
            return await attempt_fn(), attempt
        except ModelError as e:
            e.attempts = attempt
            raise
        except RetryableError as e:
            if attempt >= attempts:
                raise ModelError(e.kind, f"{e.message} (after {attempt} attempts)",
                                 attempt) from None
            await sleep(policy.delay(attempt, e.retry_after, rng))
    raise AssertionError("unreachable")  # pragma: no cover


_INVALID_TYPES = frozenset({"invalid_request_error", "invalid_request", "validation_error",
                            "request_validation_error", "context_length_exceeded"})
"""Error `type`/`code` values that say the request is invalid, whatever the status."""
_INVALID_TEXT = re.compile(
    r"validation error|Input should be|Field required|Extra inputs are not permitted"
    r"|'loc': \(|\"loc\": \[|is not valid under|exceed context window"
    r"|maximum context length|object' has no attribute|UndefinedError|TemplateError"
    r"|not found in tools", re.I)
"""Texts of errors that describe the request, not the server's state: pydantic/FastAPI
validation (llama-cpp-python, vLLM), JSON Schema validation, a prompt over the context,
the server's chat template failing on the messages (jinja: "'dict object' has no
attribute 'content'"), a forced tool that is not among the tools. All answered with HTTP
500 by llama-cpp-python's server (docs/real-servers.md); the same request gets the same
answer however often it is sent."""


def request_invalid(body: object) -> bool:
    """Whether an error body (JSON object, or its text) says the request itself is
    invalid: an error `type` or `code` in `_INVALID_TYPES`, or a message matching
    `_INVALID_TEXT`."""
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict):
            if any(str(inner.get(k) or "").lower() in _INVALID_TYPES
                   for k in ("type", "code")):
                return True
            body = inner.get("message", inner)
        elif isinstance(inner, str):
            body = inner
    text = body if isinstance(body, str) else json.dumps(body, default=str)
    return bool(_INVALID_TEXT.search(text))


def status_kind(status: int, body: object = None) -> tuple[str, bool]:
    """The ModelError kind of an HTTP answer and whether it is worth retrying: 429 and
    408/409/5xx are retried, unless the body says the request is invalid
    (`request_invalid`), which no retry changes; other 4xx are never retried."""
    if status == 429:
        return "rate_limit", True
    if status in (401, 403):
        return "auth", False
    if status in (408, 409) or status >= 500:
        if body is not None and request_invalid(body):
            return "bad_request", False
        return ("timeout" if status == 408 else "server"), True
    return "bad_request", False


def parse_retry_after(headers: Mapping[str, str] | None) -> float | None:
    """Seconds from a Retry-After (or retry-after-ms) header, if present and sane."""
    if not headers:
        return None
    ms = headers.get("retry-after-ms")
    if ms:
        try:
            return max(0.0, float(ms) / 1000.0)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        try:
            parsed = email.utils.parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
        return max(0.0, parsed.timestamp() - time.time())
