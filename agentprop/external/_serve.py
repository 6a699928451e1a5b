"""`agentprop serve-tools`: the tools for agents that agentprop does not launch.

The units are planned and stored by `run_units` as for any run (resume, locks, writer);
this executor opens each unit as an episode and waits until the client ends it with the
`submit_answer` tool (or the episode times out, an error trace). Over streamable HTTP,
`concurrency` episodes are open at once, ``GET /episodes`` lists the open ones and
``/mcp`` hands the next one to a new session; an episode belongs to the first session
that calls its tools (another session's calls are refused, never merged). Over stdio the
process serves one episode (the first unit not yet stored), and a session that ends
without an answer is an error trace.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import stat
import sys
from collections.abc import AsyncIterator, Sequence
from typing import Any, cast

from agentprop.agent import AgentHooks
from agentprop.core import Task, ToolResultEvent, Trace, WorkUnit
from agentprop.domains import Environment
from agentprop.external._episode import EpisodeRecorder
from agentprop.external._host import EpisodeHost
from agentprop.external._tools import build_server


class _Submissions:
    """The pending answer of every open episode."""

    def __init__(self) -> None:
        self.futures: dict[str, asyncio.Future[str]] = {}

    def open(self, episode_id: str) -> asyncio.Future[str]:
        fut: asyncio.Future[str] = asyncio.get_running_loop().create_future()
        self.futures[episode_id] = fut
        return fut

    async def submit(self, rec: EpisodeRecorder, answer: str) -> None:
        fut = self.futures.get(rec.id)
        if fut is not None and not fut.done():
            fut.set_result(answer)


async def _outcome(rec: EpisodeRecorder, answer: asyncio.Future[str],
                   ended: asyncio.Future[Any] | None, timeout_s: float) -> Trace:
    """Wait for the episode's answer (or its session's end, or the timeout): its trace."""
    waits: set[asyncio.Future[Any]] = {answer} | ({ended} if ended is not None else set())
    done, _ = await asyncio.wait(waits, timeout=timeout_s, return_when=asyncio.FIRST_COMPLETED)
    if answer in done:
        return rec.finish(answer.result())
    if done:
        return rec.fail("no_final_answer", "the MCP session ended without submit_answer")
    return rec.fail("timeout", f"no answer within {timeout_s:g} s")


def _reached(trace: Trace) -> bool:
    return trace.status == "ok" or any(isinstance(e, ToolResultEvent) for e in trace.events)


class HttpServedExecutor:
    """Episodes served over streamable HTTP until each is answered or times out."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0,
                 timeout_s: float = 300.0) -> None:
        self.submissions = _Submissions()
        self.host = EpisodeHost(host, port, submit=self.submissions.submit, listing=True)
        self.timeout_s = timeout_s

    async def __aenter__(self) -> HttpServedExecutor:
        await self.host.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.host.stop()

    async def run(self, unit: WorkUnit, task: Task, hooks: Sequence[AgentHooks],
                  env: Environment) -> Trace:
        rec = EpisodeRecorder(unit, task, env, hooks, exclusive=True)
        answer = self.submissions.open(rec.id)
        self.host.add(rec)
        try:
            return await _outcome(rec, answer, None, self.timeout_s)
        finally:
            self.host.remove(rec.id)
            self.submissions.futures.pop(rec.id, None)

    def reached(self, trace: Trace) -> bool:
        return _reached(trace)


_MAX_LINE = 1 << 24
"""Longest JSON-RPC line read from stdin (16 MiB; asyncio's default of 64 KiB is too short
for a large tool argument)."""


def _stdin_is_stream() -> bool:
    """Stdin is a pipe or socket (as an MCP client launches a server), which the event
    loop can watch."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (AttributeError, OSError, ValueError):
        return False
    return stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def _stdin_lines() -> AsyncIterator[str]:
    """This process's stdin (a pipe or socket), line by line, read by the event loop so
    that cancelling the reader ends it at once. (The SDK's default reads in a worker thread
    that a cancel waits for: the server could not stop until the client wrote or closed
    stdin, not even on SIGTERM.)"""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=_MAX_LINE)
    transport, _ = await loop.connect_read_pipe(
        lambda: asyncio.StreamReaderProtocol(reader), sys.stdin.buffer)
    try:
        while line := await reader.readline():
            yield line.decode("utf-8", errors="replace")
    finally:
        transport.close()


class StdioServedExecutor:
    """One episode over this process's stdin/stdout (run with a single unit).

    The MCP session, not the episode, bounds the server: after the episode's trace the
    server goes on answering (the client still has to read the `submit_answer` reply) until
    the client closes stdin, for at most `linger_s`; only then is it stopped. Stopping it as
    soon as the answer was in could drop that reply, and the client waited for it forever.
    """

    def __init__(self, *, timeout_s: float = 300.0, linger_s: float = 10.0) -> None:
        self.submissions = _Submissions()
        self.timeout_s = timeout_s
        self.linger_s = linger_s
        self.current: EpisodeRecorder | None = None
        self._task: asyncio.Task[None] | None = None
        self._ready = asyncio.Event()

    def _resolve(self) -> EpisodeRecorder:
        if self.current is None:
            raise LookupError("no episode is open")
        return self.current

    async def __aenter__(self) -> StdioServedExecutor:
        self._task = asyncio.ensure_future(self._serve())
        return self

    async def _serve(self) -> None:
        from mcp.server.stdio import stdio_server

        server = build_server(self._resolve, submit=self.submissions.submit,
                              initial=lambda: self.current)
        await self._ready.wait()
        # stdio_server only iterates its stdin (lines of JSON-RPC); a file, /dev/null or a
        # terminal is read by the SDK's own reader (they end, or a person ends them)
        stdin = cast(Any, _stdin_lines()) if _stdin_is_stream() else None
        async with stdio_server(stdin=stdin) as (read, write):
            await server.run(read, write, server.create_initialization_options())

    async def __aexit__(self, *exc: object) -> None:
        task = self._task
        if task is None or task.done():
            return
        if (not exc or exc[0] is None) and self._ready.is_set():
            # the session's end: the client has read the last reply and closed stdin
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(asyncio.shield(task), self.linger_s)
        if not task.done():
            task.cancel()
        with contextlib.suppress(BaseException):
            await task

    async def run(self, unit: WorkUnit, task: Task, hooks: Sequence[AgentHooks],
                  env: Environment) -> Trace:
        assert self._task is not None, "enter the executor first"
        rec = self.current = EpisodeRecorder(unit, task, env, hooks)
        answer = self.submissions.open(rec.id)
        self._ready.set()
        return await _outcome(rec, answer, self._task, self.timeout_s)

    def reached(self, trace: Trace) -> bool:
        return _reached(trace)
