"""`agentprop run --agent`: each work unit is one call of the user's agent, with the task's
tools served over MCP for that episode only.

The agent never runs on the runner's event loop. Async agents share one event loop of
their own in a daemon thread (`AgentLoop`: one loop for every episode, as before, so a
client the agent caches across calls keeps working); a synchronous agent runs in a daemon
thread per episode. The runner's loop (the MCP host, the writer, Ctrl-C and SIGTERM)
therefore stays free whatever the agent does, and the episode timeout is enforced from
outside: an agent that blocks (time.sleep, a busy loop) or never returns is abandoned when
its episode times out (its coroutine cancelled if its loop still runs), and the process
exits without waiting for it. An async agent that blocks the agents' loop stalls the
episodes on that loop until they time out; the episodes after them get a fresh loop. An
agent's `BaseException` (`sys.exit`, `KeyboardInterrupt`, its own) is its episode's
`agent_exception`, never the run's end.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import threading
from collections.abc import Awaitable, Callable, Sequence
from typing import Any, cast

from agentprop.agent import AgentHooks
from agentprop.core import FinalEvent, ModelCallEvent, Task, ToolResultEvent, Trace, WorkUnit
from agentprop.domains import Environment
from agentprop.external._agent import AgentCallable, Episode
from agentprop.external._episode import EpisodeRecorder
from agentprop.external._host import EpisodeHost

DEFAULT_EPISODE_TIMEOUT_S = 300.0
RESPONSIVE_S = 1.0
"""How long the agents' loop may take to run a no-op before it counts as blocked."""

Outcome = tuple[str, Any]
"""("answer", what the agent returned) or ("raised", the BaseException it raised)."""


class AgentLoop:
    """The event loop async agents run on, in a daemon thread of its own."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True,
                                       name="agentprop-agents")
        self.thread.start()

    def submit(self, awaitable: Awaitable[Any]) -> concurrent.futures.Future[Outcome]:
        return asyncio.run_coroutine_threadsafe(_guarded(awaitable), self.loop)

    async def responsive(self, within: float = RESPONSIVE_S) -> bool:
        """Whether the loop runs a no-op within `within` s (False: an agent blocks it)."""
        done: concurrent.futures.Future[None] = concurrent.futures.Future()
        try:
            self.loop.call_soon_threadsafe(done.set_result, None)
            await asyncio.wait_for(asyncio.wrap_future(done), within)
        except (RuntimeError, TimeoutError):  # closed, or blocked
            return False
        return True

    async def close(self) -> None:
        """Cancel what still runs and stop the loop; a blocked loop is abandoned (its
        thread is a daemon: the process does not wait for it)."""
        if not await self.responsive(0.2):  # the run is ending: no long wait for it
            return
        with contextlib.suppress(Exception):
            await asyncio.wait_for(asyncio.wrap_future(asyncio.run_coroutine_threadsafe(
                _cancel_others(), self.loop)), RESPONSIVE_S * 2)
        self.loop.call_soon_threadsafe(self.loop.stop)
        await asyncio.to_thread(self.thread.join, RESPONSIVE_S)
        if not self.thread.is_alive():
            self.loop.close()


async def _cancel_others() -> None:
    tasks = [t for t in asyncio.all_tasks() if t is not asyncio.current_task()]
    for t in tasks:
        t.cancel()
    if tasks:
        await asyncio.wait(tasks, timeout=RESPONSIVE_S)


async def _guarded(awaitable: Awaitable[Any]) -> Outcome:
    """The agent's answer or what it raised, whatever it raised (on the agents' loop)."""
    try:
        return ("answer", await awaitable)
    except asyncio.CancelledError as e:
        task = asyncio.current_task()
        if task is not None and task.cancelling():  # the runner's timeout or shutdown
            raise
        return ("raised", e)
    except BaseException as e:  # sys.exit or ^C inside an agent is its failure, not ours
        return ("raised", e)


def _run_sync(agent: AgentCallable, episode: Episode, loop: AgentLoop,
              result: concurrent.futures.Future[Outcome]) -> None:
    """A synchronous agent, in a daemon thread of its own."""
    if not result.set_running_or_notify_cancel():
        return
    outcome: Outcome
    try:
        answer: Any = agent(episode)
        outcome = (loop.submit(answer).result() if inspect.isawaitable(answer)
                   else ("answer", answer))  # a sync callable may return a coroutine
    except BaseException as e:  # see _guarded
        outcome = ("raised", e)
    with contextlib.suppress(concurrent.futures.InvalidStateError):
        result.set_result(outcome)


class AgentExecutor:
    """Runs episodes by calling `agent(episode)`; an `EpisodeExecutor` for `run_units`.

    The agent's exception (any `BaseException`), a timeout (`timeout_s`, enforced from
    the runner's loop), or a missing answer becomes an error trace (kinds
    ``agent_exception``, ``timeout``, ``no_final_answer``) and the run goes on.
    """

    def __init__(self, agent: AgentCallable, *, timeout_s: float = DEFAULT_EPISODE_TIMEOUT_S,
                 host: str = "127.0.0.1", port: int = 0,
                 guards: Callable[[WorkUnit], tuple[Any, ...]] | None = None) -> None:
        if timeout_s <= 0:
            raise ValueError("the episode timeout must be > 0 seconds")
        self.agent = agent
        self.guards = guards
        """The framework guardrails of a unit's episode (`Episode.guards`): `intercept
        evaluate --guard` gives its treatment arm the user's framework guard this way."""
        self.timeout_s = timeout_s
        self.host = EpisodeHost(host, port)
        self._loop: AgentLoop | None = None
        self.replaced_loops = 0
        """Agents' loops abandoned because an agent blocked them."""

    async def __aenter__(self) -> AgentExecutor:
        await self.host.start()
        self._loop = AgentLoop()
        return self

    async def __aexit__(self, *exc: object) -> None:
        try:
            if self._loop is not None:
                await self._loop.close()
        finally:
            await self.host.stop()

    def episode_of(self, recorder: EpisodeRecorder) -> Episode:
        unit, task = recorder.unit, recorder.task
        return Episode(id=recorder.id, query=task.query, mcp_url=self.host.mcp_url(recorder.id),
                       task_id=task.id, domain=task.domain, condition=unit.condition,
                       seed=unit.seed, arm=unit.arm,
                       guards=self.guards(unit) if self.guards is not None else ())

    async def run(
        self, unit: WorkUnit, task: Task, hooks: Sequence[AgentHooks], env: Environment
    ) -> Trace:
        recorder = EpisodeRecorder(unit, task, env, hooks)
        self.host.add(recorder)
        try:
            kind, value = await self._call(self.episode_of(recorder))
        finally:
            self.host.remove(recorder.id)
        if kind == "timeout":
            return recorder.fail("timeout", f"no answer within {self.timeout_s:g} s")
        if kind == "raised":
            cause = _leaf(value)
            text = str(cause)
            return recorder.fail("agent_exception",
                                 f"{type(cause).__name__}: {text}" if text
                                 else type(cause).__name__)
        if not isinstance(value, str) or not value.strip():
            return recorder.fail("no_final_answer",
                                 f"the agent returned {type(value).__name__}, not answer text")
        return recorder.finish(value)

    async def _call(self, episode: Episode) -> Outcome:
        """Call the agent off the runner's loop; ("timeout", None) after `timeout_s`."""
        loop = self._loop
        assert loop is not None, "enter the executor first"
        if inspect.iscoroutinefunction(self.agent) or inspect.iscoroutinefunction(
                type(self.agent).__call__):
            future = loop.submit(cast(Awaitable[Any], self.agent(episode)))
        else:
            future = concurrent.futures.Future()
            threading.Thread(target=_run_sync, args=(self.agent, episode, loop, future),
                             daemon=True, name="agentprop-agent").start()
        try:
            return await asyncio.wait_for(asyncio.wrap_future(future), self.timeout_s)
        except TimeoutError:
            future.cancel()  # cancels the agent's coroutine, if its loop still runs
            if loop is self._loop and not await loop.responsive():
                self._loop = AgentLoop()  # an agent blocks it: the next episodes get a new one
                self.replaced_loops += 1
            return ("timeout", None)

    def reached(self, trace: Trace) -> bool:
        return any(isinstance(ev, ToolResultEvent | FinalEvent | ModelCallEvent)
                   for ev in trace.events)


def _leaf(e: BaseException) -> BaseException:
    """The first real exception inside task-group wrappers (anyio, asyncio.TaskGroup), so
    the error trace says what failed rather than "unhandled errors in a TaskGroup"."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e


def agent_in_worker(spec: str, timeout_s: float) -> AgentExecutor:
    """`run --agent SPEC`'s executor built inside a worker process (`--executor
    processes|ray`): the agent is loaded there from its spec, and each worker hosts its
    own episodes' MCP endpoints on a free port. Module-level, so a `functools.partial`
    of it pickles."""
    from agentprop.external._agent import load_agent

    fn, _ = load_agent(spec)
    return AgentExecutor(fn, timeout_s=timeout_s)
