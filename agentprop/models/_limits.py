"""Staying under a provider's limits: request and token budgets, and adaptive concurrency.

Real APIs cap requests (RPM) and tokens (TPM) per minute and answer 429 above them.
Reacting to 429s one by one wastes calls and time, so each remote model paces itself:

- `TokenBucket` — a budget of `per_minute` units refilled continuously (GCRA form: one
  "theoretical arrival time"), with a burst of `burst_s` seconds' worth. A request
  reserves its estimated tokens before it is sent and settles the difference once the
  response reports its usage, so the budget counts the tokens the provider counted.
- `AdaptiveConcurrency` — how many requests may be in flight: halved on a 429 (at most
  once per `cooldown_s`), then climbing by one per `limit` successes back to the
  configured maximum (AIMD). A 429's Retry-After pauses every new request of the model
  until it has passed, not only the one that was refused.

The clock is injectable (`Clock`), so tests drive both with a fake one.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable
from dataclasses import dataclass
from typing import Protocol

DEFAULT_OUTPUT_TOKENS = 100.0
"""The completion-token estimate before any usage has been reported."""


class Clock(Protocol):
    def now(self) -> float: ...

    def sleep(self, seconds: float) -> Awaitable[None]: ...


class MonotonicClock:
    """The real clock."""

    def now(self) -> float:
        return time.monotonic()

    def sleep(self, seconds: float) -> Awaitable[None]:
        return asyncio.sleep(seconds)


@dataclass(frozen=True)
class RateLimits:
    """A model's budgets; None means unlimited."""

    rpm: float | None = None
    tpm: float | None = None

    def __post_init__(self) -> None:
        for name, v in (("rpm", self.rpm), ("tpm", self.tpm)):
            if v is not None and v <= 0:
                raise ValueError(f"{name} must be positive, got {v:g}")

    @property
    def any(self) -> bool:
        return self.rpm is not None or self.tpm is not None


class TokenBucket:
    """`per_minute` units per minute, bursts of up to `burst_s` seconds' worth."""

    def __init__(self, per_minute: float, *, burst_s: float = 1.0,
                 clock: Clock | None = None) -> None:
        if per_minute <= 0:
            raise ValueError("a budget must be positive")
        self.rate = per_minute / 60.0
        self.burst_s = burst_s
        self.clock = clock or MonotonicClock()
        self._tat = self.clock.now()  # when the budget spent so far is paid back

    def reserve(self, n: float) -> float:
        """Reserve `n` units now; the seconds to wait before using them. A reservation
        may start once what was reserved before it is paid back to within the burst;
        its own cost is paid afterwards, so over time the rate is `per_minute`."""
        now = self.clock.now()
        start = max(self._tat, now)
        self._tat = start + n / self.rate
        return max(0.0, start - now - self.burst_s)

    def settle(self, delta: float) -> None:
        """Correct an earlier reservation by `delta` units (usage minus estimate)."""
        self._tat += delta / self.rate

    def available_in(self) -> float:
        """Seconds until a reservation would start without waiting."""
        return max(0.0, self._tat - self.clock.now() - self.burst_s)


class AdaptiveConcurrency:
    """At most `limit` requests in flight; halve on a 429, climb back one at a time."""

    def __init__(self, maximum: int, *, cooldown_s: float = 1.0,
                 clock: Clock | None = None) -> None:
        if maximum < 1:
            raise ValueError("maximum concurrency must be at least 1")
        self.maximum = maximum
        self.limit = float(maximum)
        self.cooldown_s = cooldown_s
        self.clock = clock or MonotonicClock()
        self.in_flight = 0
        self.paused_until = 0.0
        self._last_cut = -float("inf")
        self._cond: asyncio.Condition | None = None
        self._loop: asyncio.AbstractEventLoop | None = None

    def _condition(self) -> asyncio.Condition:
        loop = asyncio.get_running_loop()
        if self._cond is None or self._loop is not loop:
            self._cond, self._loop, self.in_flight = asyncio.Condition(), loop, 0
        return self._cond

    async def acquire(self) -> None:
        """Wait for a free slot and for any Retry-After pause to pass."""
        cond = self._condition()
        while True:
            wait = self.paused_until - self.clock.now()
            if wait > 0:
                await self.clock.sleep(wait)
                continue
            async with cond:
                if self.in_flight < int(self.limit):
                    self.in_flight += 1
                    return
                await cond.wait()

    async def release(self) -> None:
        cond = self._condition()
        async with cond:
            self.in_flight = max(0, self.in_flight - 1)
            cond.notify(max(1, int(self.limit) - self.in_flight))

    def on_success(self) -> None:
        """Additive increase: one more slot per `limit` successes."""
        self.limit = min(float(self.maximum), self.limit + 1.0 / max(1.0, self.limit))

    def on_rate_limited(self, retry_after: float | None) -> None:
        """Multiplicative decrease (once per cooldown: a burst of 429s is one signal) and
        a pause of every new request until Retry-After has passed."""
        now = self.clock.now()
        if now - self._last_cut >= self.cooldown_s:
            self.limit = max(1.0, self.limit / 2.0)
            self._last_cut = now
        if retry_after is not None and retry_after > 0:
            self.paused_until = max(self.paused_until, now + retry_after)


@dataclass(frozen=True)
class Reservation:
    """What `Limiter.admit` reserved for one request."""

    tokens: float
    chars: int


class Limiter:
    """A model's budgets and concurrency together: `await admit(chars)` before a request,
    then exactly one of `done`, `failed` or `refused`.

    A request's tokens are estimated from its size in characters: prompt characters ×
    the model's learned tokens-per-character (reported prompt tokens ÷ characters sent,
    a running mean starting at 1/4), plus the running mean of reported completion tokens.
    """

    def __init__(self, limits: RateLimits, max_connections: int, *,
                 clock: Clock | None = None) -> None:
        self.clock = clock or MonotonicClock()
        self.limits = limits
        self.concurrency = AdaptiveConcurrency(max_connections, clock=self.clock)
        self.requests = (TokenBucket(limits.rpm, clock=self.clock)
                         if limits.rpm is not None else None)
        self.tokens = (TokenBucket(limits.tpm, clock=self.clock)
                       if limits.tpm is not None else None)
        self.tokens_per_char = 0.25
        self.output_tokens = DEFAULT_OUTPUT_TOKENS
        self.rate_limited = 0

    @property
    def counts_tokens(self) -> bool:
        """Whether `admit` needs the request's size (only a TPM budget uses it)."""
        return self.tokens is not None

    def estimate(self, chars: int) -> float:
        """The tokens a request of `chars` prompt characters will likely use."""
        return chars * self.tokens_per_char + self.output_tokens

    async def admit(self, chars: int = 0) -> Reservation:
        """Wait for a slot and for the budgets; returns what was reserved."""
        await self.concurrency.acquire()
        res = Reservation(self.estimate(chars) if self.tokens is not None else 0.0, chars)
        try:
            wait = 0.0
            if self.requests is not None:
                wait = max(wait, self.requests.reserve(1))
            if self.tokens is not None:
                wait = max(wait, self.tokens.reserve(res.tokens))
            if wait > 0:
                await self.clock.sleep(wait)
        except BaseException:
            await self.concurrency.release()
            raise
        return res

    async def done(self, res: Reservation, input_tokens: int, output_tokens: int) -> None:
        """A response arrived: settle the token budget with the reported usage."""
        if self.tokens is not None:
            self.tokens.settle(input_tokens + output_tokens - res.tokens)
            if res.chars > 0 and input_tokens > 0:
                self.tokens_per_char += 0.2 * (input_tokens / res.chars - self.tokens_per_char)
            self.output_tokens += 0.2 * (output_tokens - self.output_tokens)
        self.concurrency.on_success()
        await self.concurrency.release()

    async def failed(self, res: Reservation) -> None:
        """A request failed otherwise (no usage): its reservation is given back."""
        if self.tokens is not None:
            self.tokens.settle(-res.tokens)
        await self.concurrency.release()

    async def refused(self, res: Reservation, retry_after: float | None) -> None:
        """A 429: nothing was spent; back off and honour Retry-After."""
        self.rate_limited += 1
        if self.tokens is not None:
            self.tokens.settle(-res.tokens)
        self.concurrency.on_rate_limited(retry_after)
        await self.concurrency.release()
