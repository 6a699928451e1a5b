"""The run's progress bar (stderr): done, errors, ETA, tokens, cost."""

from __future__ import annotations

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


class RunProgress:
    """A rich progress bar, or nothing when disabled (tests, --json, benchmarks)."""

    def __init__(self, total: int, *, enabled: bool, skipped: int = 0) -> None:
        self.enabled = enabled
        self._progress: Progress | None = None
        self._task: Any = None
        if not enabled:
            return
        self._progress = Progress(
            TextColumn("[bold]run[/]"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("errors [red]{task.fields[errors]}[/]"),
            TextColumn("{task.fields[tokens]:,} tok"),
            TextColumn("${task.fields[cost]:.4f}"),
            TimeElapsedColumn(),
            TextColumn("ETA"),
            TimeRemainingColumn(),
            console=Console(stderr=True),
            transient=False,
        )
        self._task = self._progress.add_task(
            "run", total=total, errors=0, tokens=0, cost=0.0, skipped=skipped
        )

    def start(self) -> None:
        if self._progress is not None:
            self._progress.start()

    def update(self, summary: RunCounts) -> None:
        if self._progress is not None:
            self._progress.update(
                self._task,
                completed=summary.completed,
                errors=summary.errors,
                tokens=summary.tokens,
                cost=summary.cost,
            )

    def stop(self) -> None:
        if self._progress is not None:
            self._progress.stop()
