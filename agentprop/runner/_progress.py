"""The run's progress bar (stderr): done, errors, 429s, tokens, cost, ETA, and each
model's call rate (so a slow or throttled provider shows itself in a mixed run)."""

from __future__ import annotations

from typing import Protocol

from agentprop._progress import WorkProgress


class RunCounts(Protocol):
    """What the bar shows of a run summary (`RunSummary` has it; declared here so the
    bar does not import the runner that drives it)."""

    @property
    def completed(self) -> int: ...

    @property
    def errors(self) -> int: ...

    @property
    def tokens(self) -> int: ...

    @property
    def cost(self) -> float: ...

    @property
    def calls_by_model(self) -> dict[str, int]: ...


def model_rates(calls_by_model: dict[str, int], elapsed_s: float) -> str:
    """`gpt-4o-mini 12.3/s · gemini-2.0-flash 8.1/s`: model calls per second so far, by
    the model's name without its provider."""
    if elapsed_s <= 0:
        return ""
    return " · ".join(f"{m.split('/', 1)[-1]} {n / elapsed_s:.1f}/s"
                      for m, n in calls_by_model.items())


class RunProgress:
    """The run's progress on stderr (`agentprop._progress.WorkProgress`: a bar on a
    terminal, plain lines elsewhere), or nothing when disabled (tests, --json, benchmarks).
    Beside the bar: errors and 429s; under it: tokens, cost and each model's call rate."""

    def __init__(self, total: int, *, enabled: bool, skipped: int = 0) -> None:
        self.enabled = enabled
        self.skipped = skipped
        self._work = WorkProgress("run", total, enabled=enabled)

    def start(self) -> None:
        self._work.start()

    def update(self, summary: RunCounts, rate_limited: int = 0) -> None:
        if not self.enabled:
            return
        head = f"errors {summary.errors}" + (f" · 429s {rate_limited}" if rate_limited else "")
        rates = model_rates(summary.calls_by_model, self._work.elapsed())
        detail = " · ".join(x for x in (f"{summary.tokens:,} tok", f"${summary.cost:.4f}",
                                        rates) if x)
        self._work.update(summary.completed, head, detail)

    def stop(self) -> None:
        self._work.stop()
