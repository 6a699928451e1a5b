"""The stage rows of a run's traces, read in a helper process.

Every trace is stored with its stage row (`analysis._stored.StageRecorder`: S1/S2,
`noticed`, `fabricated`, ...). Reading an answer for it costs ~5 ms of CPU per trace, as
much as the episode's own HTTP calls; in the run's process that CPU holds the GIL the
episodes' event loop needs, and the run reaches ~60 % of C/L where it reaches ~85 %
without it (bench/README.md, "Executors"). `RowHelper` reads the rows in one helper
process instead: a finished trace goes to it (with its task, the first time), and comes
to the writer once its row is back. Nothing is stored before its row, so a kill -9 loses
the traces still being read, which a rerun runs again, as for the episodes in flight.

Whatever the helper cannot take goes to the writer as before, which computes the row
itself: traces beyond `limit` waiting (the helper is behind), every trace once the helper
died, and what is still waiting when the run closes. The rows are the driver's own (the
same recorder, sent without its suite; tested).

The helper is a fresh interpreter (`python -c`, in a session of its own, so Ctrl-C is
the run's alone) talking over a socket pair, not a `multiprocessing` spawn: a spawned
child re-imports the caller's `__main__`, and a user's script calling `run_units`
without an `if __name__ == "__main__"` guard would run again inside it.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import pickle
import queue
import socket
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agentprop.core import Task, Trace

if TYPE_CHECKING:
    from agentprop.analysis._stored import StageRecorder

Row = tuple[Any, ...]
Done = Callable[[Trace, Row | None], None]

HELPER_MIN_UNITS = 256
"""Runs with fewer pending units read their rows in the writer (a helper's start, ~1-2 s
of CPU for its imports, is not worth it for a few traces)."""
CLOSE_WAIT_S = 2.0
"""How long closing waits for rows still being read before the writer computes them."""


def rows_main(fd: int) -> None:
    """The helper, on socket `fd`: the recorder first, then (key, trace, task or None)
    in and (key, row or None) out; None or the run's end of the socket closing ends it."""
    from multiprocessing.connection import Connection

    conn = Connection(fd)
    try:
        recorder: StageRecorder = conn.recv()
    except (EOFError, OSError):
        return
    tasks: dict[str, Task] = {}
    read = recorder.with_tasks(tasks)
    while True:
        try:
            msg = conn.recv()
        except (EOFError, OSError):
            return
        if msg is None:
            return
        key, trace, task = msg
        if task is not None:
            tasks[task.id] = task
        try:
            row: Row | None = read(trace)
        except Exception:  # the writer computes it, and fails as it would have
            row = None
        conn.send((key, row))


class RowHelper:
    """Reads stage rows in a helper process: `submit(trace, task, done)` calls
    `done(trace, row)` from a thread of its own when the row is back (row None: the
    caller's writer computes it). `busy()` says when more than `limit` wait."""

    def __init__(self, recorder: StageRecorder, *, limit: int = 128) -> None:
        from multiprocessing.connection import Connection

        self.limit = limit
        self._waiting: dict[int, tuple[Trace, Done]] = {}
        self._lock = threading.Lock()
        self._keys = itertools.count()
        self._sent_tasks: set[str] = set()
        self._out: queue.Queue[Any] = queue.Queue()
        self._dead = False
        self._handing = 0  # traces taken off `_waiting` whose `done` has not returned
        self._drained = threading.Condition(self._lock)
        mine, theirs = socket.socketpair()
        fd = theirs.fileno()
        self._proc = subprocess.Popen(
            [sys.executable, "-c", "import sys; from agentprop.runner._rows import "
             f"rows_main; rows_main({fd})"], pass_fds=[fd], stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True,
            env={**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)})
        theirs.close()  # so a dead helper is EOF here
        self._conn = Connection(mine.detach())
        self._out.put(recorder.portable())  # the first message: without the suite
        threading.Thread(target=self._send, daemon=True, name="agentprop-rows-send").start()
        threading.Thread(target=self._read, daemon=True, name="agentprop-rows-read").start()

    def busy(self) -> bool:
        """Whether the helper cannot take another trace now (behind, or dead)."""
        return self._dead or len(self._waiting) >= self.limit

    def submit(self, trace: Trace, task: Task, done: Done) -> bool:
        """Send `trace` to be read; False (nothing sent) when the helper is busy."""
        if self.busy():
            return False
        key = next(self._keys)
        with self._lock:
            self._waiting[key] = (trace, done)
        first = task.id not in self._sent_tasks
        self._sent_tasks.add(task.id)
        self._out.put((key, trace, task if first else None))
        return True

    def _send(self) -> None:
        """The only writer to the pipe: pickling and writes stay off the event loop, and
        a helper busy reading never blocks it. None (closing) is passed on, and ends it."""
        while True:
            msg = self._out.get()
            try:
                self._conn.send(msg)
            except (OSError, ValueError, pickle.PicklingError):
                self._fail()
                return
            if msg is None:
                return

    def _read(self) -> None:
        while True:
            try:
                key, row = self._conn.recv()
            except (EOFError, OSError, pickle.UnpicklingError):
                self._fail()
                return
            self._hand([key], row)

    def _fail(self) -> None:
        """The helper is gone: everything waiting goes to the writer without a row."""
        self._dead = True
        self._release()

    def _release(self) -> None:
        with self._lock:
            keys = list(self._waiting)
        self._hand(keys, None)

    def _hand(self, keys: list[int], row: Row | None) -> None:
        """Take `keys` off the waiting list (each is handed over once, by whichever
        thread takes it) and call their `done`; closing waits until every call returned,
        so no trace reaches the writer after it closed."""
        with self._lock:
            taken = [h for k in keys if (h := self._waiting.pop(k, None)) is not None]
            self._handing += len(taken)
        try:
            for trace, done in taken:
                done(trace, row)
        finally:
            with self._lock:
                self._handing -= len(taken)
                if not self._waiting and not self._handing:
                    self._drained.notify_all()

    def close(self, wait_s: float = CLOSE_WAIT_S) -> None:
        """Finish the rows being read and stop the helper. The later half of what waits
        goes to the writer at once, which reads it while the helper reads the earlier
        half; the rest is waited for up to `wait_s`, then handed over without a row. The
        helper's exit is not waited for (an interpreter with pandas takes ~0.8 s to
        exit): a reaper thread kills it if it still runs 5 s later, and as a daemon it
        never outlives the run."""
        with self._lock:
            keys = sorted(self._waiting)
        self._hand(keys[len(keys) // 2:], None)
        with self._lock:
            self._drained.wait_for(lambda: not self._waiting, timeout=wait_s)
        self._dead = True
        self._release()
        with self._lock:  # a row that came back meanwhile is being handed over
            self._drained.wait_for(lambda: not self._handing)
        self._out.put(None)  # the sender passes it on: the helper stops
        proc, conn = self._proc, self._conn

        def reap() -> None:
            try:
                proc.wait(5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(5)
            with contextlib.suppress(Exception):
                conn.close()

        threading.Thread(target=reap, daemon=True, name="agentprop-rows-reaper").start()
