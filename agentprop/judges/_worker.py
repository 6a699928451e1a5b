"""The worker process of `judge --workers N`: judges chunks of traces, writes nothing.

The facts judge is pure Python, so one process judges on one core; a worker reads the
traces of each chunk it is sent from the workspace itself (the driver ships ids, not
traces) and sends back the verdicts, which the driver alone writes (`_processes.py`).
Everything a worker holds lives in `worker_main`'s frame. It ignores SIGINT (a Ctrl-C
reaches the whole process group; the driver decides what stops) and ends when the
driver says so or its pipe closes (the driver ended, even by kill -9).
"""

from __future__ import annotations

import asyncio
import functools
import os
import pickle
import signal
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from multiprocessing.connection import Connection

    from agentprop.judges._base import Judge
    from agentprop.store import Workspace
    from agentprop.suite import Suite


async def _judge_chunk(ws: Workspace, judges: dict[str, Judge], suite: Suite,
                       items: list[tuple[str, list[str]]]) -> list[tuple[str, str, list[Any]]]:
    """(trace id, judge name, verdicts) of every item whose trace is stored."""
    from agentprop.judges._base import verdicts_for

    traces = {t.id: t for t in ws.iter_traces(id=[trace_id for trace_id, _ in items])}
    out = []
    for trace_id, names in items:
        trace = traces.get(trace_id)
        if trace is None:
            continue
        task = suite.get(trace.task_id)
        for name in names:
            out.append((trace_id, name, await verdicts_for(judges[name], trace, task)))
    return out


def worker_main(conn: Connection) -> None:
    """Receive (workspace path, pickled suite, judge names), then (key, items) chunks until
    None or EOF; answer each with (key, results, None) or (key, None, error text)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    from agentprop.judges._entities import query_vocabulary
    from agentprop.judges._lookup import get_judge
    from agentprop.store import Workspace

    try:
        path, blob, names = conn.recv()
    except (EOFError, OSError):
        return
    suite: Suite = pickle.loads(blob)
    vocabulary = functools.cache(lambda: query_vocabulary(suite.tasks))
    loop = asyncio.new_event_loop()
    with Workspace(path, create=False, check=False) as ws:
        judges = {n: get_judge(n, suite=suite, vocabulary=vocabulary, workspace=ws)
                  for n in names}
        try:
            conn.send(("ready", os.getpid(), None))
            while True:
                msg = conn.recv()
                if msg is None:
                    return
                key, items = msg
                try:
                    result = loop.run_until_complete(_judge_chunk(ws, judges, suite, items))
                except Exception as e:  # the driver reports it and stops
                    conn.send((key, None, f"{type(e).__name__}: {e}"))
                    continue
                conn.send((key, result, None))
        except (EOFError, OSError):  # the driver is gone: nothing to report to
            return
        finally:
            loop.close()
