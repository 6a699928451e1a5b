"""Retries with exponential backoff and jitter; the only retry layer (SDK retries are off).

Providers raise `RetryableError` for transient failures (429, 5xx, timeouts, connection
errors, unparseable responses) and `ModelError` for permanent ones (auth, bad request).
`call_with_retries` turns the last transient failure into a `ModelError` carrying the
number of attempts, so a unit that still fails is recorded, never silently dropped.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
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


def status_kind(status: int) -> tuple[str, bool]:
    """The ModelError kind of an HTTP status and whether it is worth retrying."""
    if status == 429:
        return "rate_limit", True
    if status in (401, 403):
        return "auth", False
    if status in (408, 409) or status >= 500:
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
