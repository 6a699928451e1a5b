"""The driver side of `judge --workers N`: in-process judges over N worker processes.

The facts judge is CPU-bound Python (≈ 300 traces/s on one core), so at a million traces
one process is the bottleneck of the pipeline. The driver reads the pending work in pages
(`_pending.py`), ships chunks of trace ids to spawned workers (`_worker.py`; no fork of a
threaded driver), keeps `DEPTH` chunks in flight per worker so none waits for the next,
and records every verdict that comes back through the pass's `record` — the single writer,
so resume, counts and the batching `VerdictWriter` are the serial path's. Only ids are in
flight: memory stays bounded by workers × DEPTH × CHUNK traces.

Stopping: Ctrl-C or SIGTERM cancels the pass; the workers are terminated at once (their
chunks in flight are lost, never half-written) and the finished verdicts stay stored. A
worker that fails or dies stops the pass with JudgeError; what was recorded stays.
"""

from __future__ import annotations

import asyncio
import collections
import concurrent.futures
import itertools
import pickle
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentprop._interrupts import checkpoint
from agentprop.errors import AgentpropError

if TYPE_CHECKING:
    from multiprocessing.connection import Connection
    from multiprocessing.process import BaseProcess

    from agentprop.core import Verdict
    from agentprop.judges._base import Judge
    from agentprop.store import Workspace
    from agentprop.suite import Suite

PROCESS_KINDS = frozenset({"facts", "heuristic"})
"""Judges that run in worker processes: in-process, no model, no response cache."""
CHUNK = 100
DEPTH = 2
READY_TIMEOUT_S = 300.0


class WorkerFailed(AgentpropError):
    """A judge worker process failed or died; the verdicts recorded so far are stored."""

    exit_code = 1


@dataclass
class _Worker:
    process: BaseProcess
    conn: Connection
    inflight: collections.deque[int] = field(default_factory=collections.deque)


def _chunks(items: Iterator[tuple[str, list[Judge]]], size: int
            ) -> Iterator[list[tuple[str, list[Judge]]]]:
    while chunk := list(itertools.islice(items, size)):
        yield chunk


class ProcessJudging:
    """One pass of in-process judges over `workers` processes; `record(judge, verdicts)`
    and `advance()` are called in the event loop for every (trace, judge) judged."""

    def __init__(self, ws: Workspace, suite: Suite, judges: list[Judge], workers: int,
                 record: Callable[[Judge, list[Verdict]], None],
                 advance: Callable[[], None]) -> None:
        self.ws = ws
        self.suite = suite
        self.judges = {j.name: j for j in judges}
        self.workers = max(1, workers)
        self.record = record
        self.advance = advance

    async def run(self, items: Iterator[tuple[str, list[Judge]]]) -> None:
        import multiprocessing

        ctx = multiprocessing.get_context("spawn")
        from agentprop.judges._worker import worker_main

        procs: list[_Worker] = []
        # one thread per worker waits on its pipe; cancelled waits end when it is closed
        threads = concurrent.futures.ThreadPoolExecutor(self.workers,
                                                        thread_name_prefix="agentprop-judge")
        try:
            for i in range(self.workers):
                parent, child = ctx.Pipe()
                proc = ctx.Process(target=worker_main, args=(child,), daemon=True,
                                   name=f"agentprop-judge-{i}")
                proc.start()
                child.close()  # so the driver sees EOF when the worker dies
                procs.append(_Worker(proc, parent))
            job = (str(self.ws.path), pickle.dumps(self.suite), list(self.judges))
            for w in procs:
                w.conn.send(job)
            loop = asyncio.get_running_loop()
            for w in procs:
                await asyncio.wait_for(self._recv(loop, threads, w), READY_TIMEOUT_S)
            chunks = _chunks(items, CHUNK)
            keys = itertools.count()
            try:
                async with asyncio.TaskGroup() as group:  # a failure cancels the others
                    for w in procs:
                        group.create_task(self._drive(loop, threads, w, chunks, keys))
            except BaseExceptionGroup as eg:
                raise eg.exceptions[0] from None
        finally:
            for w in procs:
                if w.process.is_alive():
                    w.process.kill()
            for w in procs:
                w.process.join(5)
                w.conn.close()
            threads.shutdown(wait=False, cancel_futures=True)

    async def _recv(self, loop: asyncio.AbstractEventLoop,
                    threads: concurrent.futures.Executor, w: _Worker) -> Any:
        try:
            key, result, error = await loop.run_in_executor(threads, w.conn.recv)
        except (EOFError, OSError):
            raise WorkerFailed(f"judge worker {w.process.name} died (exit code "
                               f"{w.process.exitcode}); the verdicts recorded so far are "
                               "stored, rerun to judge the rest") from None
        if error is not None:
            raise WorkerFailed(f"judge worker {w.process.name} failed: {error}")
        return key, result

    async def _drive(self, loop: asyncio.AbstractEventLoop,
                     threads: concurrent.futures.Executor, w: _Worker,
                     chunks: Iterator[list[tuple[str, list[Judge]]]],
                     keys: Iterator[int]) -> None:
        while True:
            while len(w.inflight) < DEPTH:
                chunk = next(chunks, None)
                if chunk is None:
                    break
                key = next(keys)
                w.conn.send((key, [(tid, [j.name for j in js]) for tid, js in chunk]))
                w.inflight.append(key)
            if not w.inflight:
                w.conn.send(None)
                return
            _, result = await self._recv(loop, threads, w)
            w.inflight.popleft()
            for _trace_id, name, verdicts in result:
                self.record(self.judges[name], verdicts)
                self.advance()
            await checkpoint()
