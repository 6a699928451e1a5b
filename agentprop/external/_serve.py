"""`agentprop serve-tools`: the tools for agents that agentprop does not launch.

The units are planned and stored by `run_units` as for any run (resume, locks, writer);
this executor opens each unit as an episode and waits until the client ends it with the
`submit_answer` tool (or the episode times out, an error trace). Over streamable HTTP,
`concurrency` episodes are open at once and ``GET /episodes`` lists them; over stdio the
process serves one episode (the first unit not yet stored), and a session that ends
without an answer is an error trace.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Sequence
from typing import Any

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
        self.host = EpisodeHost(host, port, submit=self.submissions.submit)
        self.timeout_s = timeout_s

    async def __aenter__(self) -> HttpServedExecutor:
        await self.host.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.host.stop()

    async def run(self, unit: WorkUnit, task: Task, hooks: Sequence[AgentHooks],
                  env: Environment) -> Trace:
        rec = EpisodeRecorder(unit, task, env, hooks)
        answer = self.submissions.open(rec.id)
        self.host.add(rec)
        try:
            return await _outcome(rec, answer, None, self.timeout_s)
        finally:
            self.host.remove(rec.id)
            self.submissions.futures.pop(rec.id, None)

    def reached(self, trace: Trace) -> bool:
        return _reached(trace)


class StdioServedExecutor:
    """One episode over this process's stdin/stdout (run with a single unit)."""

    def __init__(self, *, timeout_s: float = 300.0) -> None:
        self.submissions = _Submissions()
        self.timeout_s = timeout_s
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

        server = build_server(self._resolve, submit=self.submissions.submit)
        await self._ready.wait()
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())

    async def __aexit__(self, *exc: object) -> None:
        if self._task is not None and not self._task.done():
            self._task.cancel()
            with contextlib.suppress(BaseException):
                await self._task

    async def run(self, unit: WorkUnit, task: Task, hooks: Sequence[AgentHooks],
                  env: Environment) -> Trace:
        assert self._task is not None, "enter the executor first"
        rec = self.current = EpisodeRecorder(unit, task, env, hooks)
        answer = self.submissions.open(rec.id)
        self._ready.set()
        return await _outcome(rec, answer, self._task, self.timeout_s)

    def reached(self, trace: Trace) -> bool:
        return _reached(trace)
