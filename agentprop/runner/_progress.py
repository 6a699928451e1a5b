"""The run's progress bar (stderr): done, errors, 429s, tokens, cost, ETA, and each
model's call rate (so a slow or throttled provider shows itself in a mixed run)."""

from __future__ import annotations

import time
from typing import Any, Protocol

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)


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
    """A rich progress bar, or nothing when disabled (tests, --json, benchmarks)."""

    def __init__(self, total: int, *, enabled: bool, skipped: int = 0) -> None:
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: Any = None
        self._t0 = time.perf_counter()
        if not enabled:
            return
        self._progress = Progress(
            TextColumn("[bold]run[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors [red]{task.fields[errors]}[/]"),
            TextColumn("429s {task.fields[limited]}"),
            TextColumn("{task.fields[tokens]:,} tok"),
            TextColumn("${task.fields[cost]:.4f}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            TextColumn("{task.fields[rates]}"),
            console=Console(stderr=True),
            transient=False,
        )
        self._task = self._progress.add_task(
            "run", total=total, errors=0, tokens=0, cost=0.0, skipped=skipped, limited=0,
            rates="",
        )

    def start(self) -> None:
        self._t0 = time.perf_counter()
        if self._progress is not None:
            self._progress.start()

    def update(self, summary: RunCounts, rate_limited: int = 0) -> None:
        if self._progress is not None:
            self._progress.update(
                self._task,
                completed=summary.completed,
                errors=summary.errors,
                tokens=summary.tokens,
                cost=summary.cost,
                limited=rate_limited,
                rates=model_rates(summary.calls_by_model, time.perf_counter() - self._t0),
            )

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
