"""serve-sim's request and token limits: a 429 above `rpm` / `tpm`, like a real API.

Each limit is a bucket refilled continuously at limit/60 per second holding at most
`burst_s` seconds' worth, so the limit is enforced over short periods as the providers
do, not once per calendar minute. A request is charged the tokens its answer reports
(prompt + completion), checked before the answer is sent; a refused request is charged
nothing and its Retry-After is the time until the bucket holds enough.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field


@dataclass
class _Bucket:
    per_minute: float
    burst_s: float
    clock: Callable[[], float]
    level: float = field(init=False)
    at: float = field(init=False)

    def __post_init__(self) -> None:
        self.level = self.capacity
        self.at = self.clock()

    @property
    def capacity(self) -> float:
        return self.per_minute / 60.0 * self.burst_s

    def refill(self) -> None:
        now = self.clock()
        self.level = min(self.capacity, self.level + (now - self.at) * self.per_minute / 60.0)
        self.at = now

    def wait_for(self, n: float) -> float:
        """Seconds until `n` fits (a request larger than the bucket waits for a full one)."""
        need = min(n, self.capacity) - self.level
        return max(0.0, need / (self.per_minute / 60.0))


class Admission:
    """`admit(tokens)`: None and the request is charged, or the Retry-After in seconds."""

    def __init__(self, rpm: float | None = None, tpm: float | None = None, *,
                 burst_s: float = 5.0, clock: Callable[[], float] = time.monotonic) -> None:
        for name, v in (("rpm", rpm), ("tpm", tpm)):
            if v is not None and v <= 0:
                raise ValueError(f"--{name} must be positive")
        self.requests = _Bucket(rpm, burst_s, clock) if rpm else None
        self.tokens = _Bucket(tpm, burst_s, clock) if tpm else None

    @property
    def limited(self) -> bool:
        return self.requests is not None or self.tokens is not None

    def admit(self, tokens: int) -> float | None:
        wait = 0.0
        for bucket, n in ((self.requests, 1.0), (self.tokens, float(tokens))):
            if bucket is not None:
                bucket.refill()
                wait = max(wait, bucket.wait_for(n))
        if wait > 0:
            return wait
        for bucket, n in ((self.requests, 1.0), (self.tokens, float(tokens))):
            if bucket is not None:
                bucket.level -= n
        return None
