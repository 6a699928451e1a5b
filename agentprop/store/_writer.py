"""A single batching writer: records go to SQLite from one thread, in transactions.

The runner produces traces from many concurrent episodes, `judge` verdicts from many
concurrent calls; writing each in its own transaction would make the fsyncs the
bottleneck, and writing from the event loop would stall it. The writer owns its own
connection (SQLite connections are per thread) and commits a batch every `batch_size`
records or `interval_s` seconds, whichever comes first. A kill -9 therefore loses at most
the unflushed batch (the last `interval_s`), never part of a record. `TraceWriter` and
`VerdictWriter` are the two uses.
"""

from __future__ import annotations

import queue
import threading
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from types import TracebackType
from typing import Any, Generic, TypeVar

from agentprop.core import RunSpec, Trace, Verdict
from agentprop.store._workspace import StageRows, Workspace

T = TypeVar("T")


class BatchWriter(Generic[T]):
    """Background batching writer. `put()` never blocks for long; `close()` flushes.
    `write(workspace, batch)` stores one batch in one transaction."""

    def __init__(
        self,
        path: str | Path,
        write: Callable[[Workspace, Sequence[T]], Any],
        *,
        batch_size: int = 64,
        interval_s: float = 0.5,
        max_pending: int = 256,
    ) -> None:
        self.path = Path(path)
        self._write = write
        self.batch_size = batch_size
        self.interval_s = interval_s
        self.written = 0
        self.replaced = 0
        """Code points UTF-8 cannot encode replaced in what was written (`put_traces`)."""
        self.error: BaseException | None = None
        self._queue: queue.Queue[T | None] = queue.Queue(maxsize=max_pending)
        self._thread = threading.Thread(target=self._run, name="agentprop-writer", daemon=True)
        self._ready = threading.Event()
        self._closed = False
        self._thread.start()
        self._ready.wait()
        if self.error is not None:
            raise self.error

    def put(self, item: T) -> None:
        """Queue a record (blocks only when `max_pending` records wait: back-pressure)."""
        if self.error is not None:
            raise self.error
        if self._closed:
            raise RuntimeError("writer is closed")
        self._queue.put(item)

    def backlog(self) -> int:
        """How many records wait to be taken into a batch (approximate, as `qsize`)."""
        return self._queue.qsize()

    def close(self) -> None:
        """Flush everything queued and stop the thread. Raises the writer's error, if any."""
        if not self._closed:
            self._closed = True
            self._queue.put(None)
            self._thread.join()
        if self.error is not None:
            raise self.error

    def __enter__(self) -> BatchWriter[T]:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def _run(self) -> None:
        try:
            ws = Workspace(self.path, create=False, check=False)  # its owner checked it
        except BaseException as e:  # reported to the caller by __init__
            self.error = e
            self._ready.set()
            return
        self._ready.set()
        batch: list[T] = []
        deadline = 0.0
        try:
            while True:
                timeout = max(0.0, deadline - time.monotonic()) if batch else None
                try:
                    item = self._queue.get(timeout=timeout)
                except queue.Empty:  # the oldest queued trace waited interval_s: flush
                    batch = self._flush(ws, batch)
                    continue
                if item is None:
                    break
                if not batch:
                    deadline = time.monotonic() + self.interval_s
                batch.append(item)
                if len(batch) >= self.batch_size or time.monotonic() >= deadline:
                    batch = self._flush(ws, batch)
            self._flush(ws, batch)
        except BaseException as e:
            self.error = e
            # Keep draining so producers blocked on a full queue are released.
            while True:
                try:
                    if self._queue.get(timeout=0.1) is None:
                        break
                except queue.Empty:
                    if self._closed:
                        break
        finally:
            ws.close()

    def _flush(self, ws: Workspace, batch: list[T]) -> list[T]:
        if batch:
            self._write(ws, batch)  # one transaction: all of the batch or none of it
            self.written += len(batch)
            self.replaced = ws.replaced
        return []


class TraceWriter(BatchWriter[Trace]):
    """The runner's writer: traces, `INSERT OR IGNORE` (a resumed run never duplicates).
    Each of `runs` is stored in the transaction of the first batch holding one of its
    traces, so a run row never exists without its traces; so is each trace's stage row
    when `stages` (context, row function: `experiment.stage_recorder`) is given."""

    def __init__(self, path: str | Path, *, runs: Sequence[RunSpec] = (),
                 stages: tuple[str, StageRows] | None = None, **options: Any) -> None:
        self._runs = {r.id: r for r in runs}
        self._stages = stages
        super().__init__(path, self._put, **options)

    def _put(self, ws: Workspace, batch: Sequence[Trace]) -> int:
        due = [self._runs.pop(rid) for rid in dict.fromkeys(t.run_id for t in batch)
               if rid in self._runs]
        return ws.put_traces(batch, runs=due, stages=self._stages)

    def __enter__(self) -> TraceWriter:
        return self


class VerdictWriter(BatchWriter[Verdict]):
    """`judge`'s writer: verdicts as they finish (a short interval, so an interrupted
    judge keeps what it paid for)."""

    def __init__(self, path: str | Path, **options: Any) -> None:
        super().__init__(path, Workspace.put_verdicts, **options)

    def __enter__(self) -> VerdictWriter:
        return self
