"""The progress of long work on stderr, in 80 columns.

On a terminal: a rich bar with the counts beside it and the details (tokens, cost, call
rates) on a line of their own under it, so nothing is cut to fit. Anywhere else (a file,
a pipe, CI) a redrawn bar becomes garbled text, so it is plain lines instead: one when a
further tenth of the work is done (at most one per `min_interval_s`), and one at the end
(none while nothing is done: a run that fails at once prints only its error).
"""

from __future__ import annotations

import sys
import textwrap
import time
from typing import IO, Any

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.text import Text


class _Bar(Progress):
    """A rich Progress with one detail line under the bars (folded, never cut)."""

    detail = ""

    def get_renderables(self) -> Any:
        yield from super().get_renderables()
        if self.detail:
            yield Text(self.detail, overflow="fold", style="dim")


def _clock(seconds: float) -> str:
    s = int(seconds)
    return f"{s // 3600}:{s % 3600 // 60:02d}:{s % 60:02d}"


class WorkProgress:
    """Progress of `total` steps of work labelled `label` (nothing when not `enabled`).

    `update(done, head, detail)`: `head` goes beside the bar (a few short counts),
    `detail` under it (anything longer). `terminal` and `stream` default to stderr's.
    """

    def __init__(self, label: str, total: int, *, enabled: bool, terminal: bool | None = None,
                 stream: IO[str] | None = None, min_interval_s: float = 2.0) -> None:
        self.label, self.total, self.enabled = label, total, enabled
        self._stream = stream if stream is not None else sys.stderr
        self._terminal = self._stream.isatty() if terminal is None else terminal
        self._min_interval_s = min_interval_s
        self._t0 = time.perf_counter()
        self._done, self._head, self._detail = 0, "", ""
        self._printed_tenth, self._printed_at = -1, 0.0
        self._bar: _Bar | None = None
        self._task: Any = None
        if enabled and self._terminal:
            self._bar = _Bar(TextColumn(f"[bold]{label}[/]"), BarColumn(bar_width=20),
                             MofNCompleteColumn(), TextColumn("{task.fields[head]}"),
                             TimeElapsedColumn(),
                             console=Console(file=self._stream, force_terminal=True),
                             transient=False)
            self._task = self._bar.add_task(label, total=total, head="")

    def start(self) -> None:
        self._t0 = time.perf_counter()
        if self._bar is not None:
            self._bar.start()

    def elapsed(self) -> float:
        return time.perf_counter() - self._t0

    def update(self, done: int, head: str = "", detail: str = "") -> None:
        if not self.enabled:
            return
        self._done, self._head, self._detail = done, head, detail
        if self._bar is not None:
            self._bar.detail = detail
            self._bar.update(self._task, completed=done, head=head)
            return
        tenth = (10 * done) // self.total if self.total else 10
        now = time.perf_counter()
        if done and tenth > self._printed_tenth and \
                now - self._printed_at >= self._min_interval_s:
            self._line()
            self._printed_tenth, self._printed_at = tenth, now

    def stop(self) -> None:
        if not self.enabled:
            return
        if self._bar is not None:
            self._bar.stop()
        elif self._done and self._printed_tenth < 10:
            self._line()  # the final count, unless the last line printed was it already

    def _line(self) -> None:
        """One plain line (folded at 80 columns, between fields); the details at the end."""
        pct = f" ({100 * self._done // self.total}%)" if self.total else ""
        parts = [f"{self.label} {self._done:,}/{self.total:,}{pct}", self._head,
                 _clock(self.elapsed())]
        if self._detail and self._done >= self.total:
            parts.append(self._detail)
        lines = textwrap.wrap(" · ".join(p for p in parts if p), 80, subsequent_indent="  ",
                              break_long_words=False, break_on_hyphens=False)
        self._stream.write("".join(ln + "\n" for ln in lines))
        self._stream.flush()
