"""`agentprop run --agent`: each work unit is one call of the user's agent, with the task's
tools served over MCP for that episode only.

The agent never runs on the runner's event loop: each episode's call runs in a daemon
thread of its own (an async agent on an event loop of its own there). The runner's loop
(the MCP host, the writer, Ctrl-C and SIGTERM) therefore stays free whatever the agent
does, and the episode timeout is enforced from outside: an agent that blocks (time.sleep,
a busy loop, a coroutine that blocks its event loop) or never returns is abandoned when
its episode times out (its task is cancelled if its loop still runs), no other episode
waits for it, and the process exits without waiting for it. An agent's `BaseException`
(`sys.exit`, `KeyboardInterrupt`, its own) is its episode's `agent_exception`, never the
run's end.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import inspect
import threading
from collections.abc import Awaitable, Sequence
from typing import Any

from agentprop.agent import AgentHooks
from agentprop.core import FinalEvent, ModelCallEvent, Task, ToolResultEvent, Trace, WorkUnit
from agentprop.domains import Environment
from agentprop.external._agent import AgentCallable, Episode
from agentprop.external._episode import EpisodeRecorder
from agentprop.external._host import EpisodeHost

DEFAULT_EPISODE_TIMEOUT_S = 300.0

Outcome = tuple[str, Any]
"""("answer", what the agent returned) or ("raised", the BaseException it raised)."""


class AgentCall:
    """One call of the agent in a daemon thread; `result` resolves to its `Outcome`."""

    def __init__(self, agent: AgentCallable, episode: Episode) -> None:
        self.agent, self.episode = agent, episode
        self.result: concurrent.futures.Future[Outcome] = concurrent.futures.Future()
        self._loop: asyncio.AbstractEventLoop | None = None
        self._task: asyncio.Task[Any] | None = None
        threading.Thread(target=self._run, daemon=True, name="agentprop-agent").start()

    def _run(self) -> None:
        if not self.result.set_running_or_notify_cancel():
            return
        outcome: Outcome
        try:
            answer: Any = self.agent(self.episode)
            if inspect.isawaitable(answer):
                answer = asyncio.run(self._main(answer))
            outcome = ("answer", answer)
        except BaseException as e:  # sys.exit or ^C inside an agent is its failure
            outcome = ("raised", e)
        with contextlib.suppress(concurrent.futures.InvalidStateError):
            self.result.set_result(outcome)

    async def _main(self, awaitable: Awaitable[Any]) -> Any:
        self._loop, self._task = asyncio.get_running_loop(), asyncio.current_task()
        return await awaitable

    def cancel(self) -> None:
        """Cancel the agent's coroutine, if its event loop still runs (a blocked one is
        simply abandoned)."""
        loop, task = self._loop, self._task
        if loop is not None and task is not None:
            with contextlib.suppress(RuntimeError):  # the loop has closed
                loop.call_soon_threadsafe(task.cancel)


class AgentExecutor:
    """Runs episodes by calling `agent(episode)`; an `EpisodeExecutor` for `run_units`.

    The agent's exception (any `BaseException`), a timeout (`timeout_s`, enforced from
    the runner's loop), or a missing answer becomes an error trace (kinds
    ``agent_exception``, ``timeout``, ``no_final_answer``) and the run goes on.
    """

    def __init__(self, agent: AgentCallable, *, timeout_s: float = DEFAULT_EPISODE_TIMEOUT_S,
                 host: str = "127.0.0.1", port: int = 0) -> None:
        if timeout_s <= 0:
            raise ValueError("the episode timeout must be > 0 seconds")
        self.agent = agent
        self.timeout_s = timeout_s
        self.host = EpisodeHost(host, port)

    async def __aenter__(self) -> AgentExecutor:
        await self.host.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.host.stop()

    def episode_of(self, recorder: EpisodeRecorder) -> Episode:
        unit, task = recorder.unit, recorder.task
        return Episode(id=recorder.id, query=task.query, mcp_url=self.host.mcp_url(recorder.id),
                       task_id=task.id, domain=task.domain, condition=unit.condition,
                       seed=unit.seed)

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
        call = AgentCall(self.agent, episode)
        try:
            return await asyncio.wait_for(asyncio.wrap_future(call.result), self.timeout_s)
        except TimeoutError:
            call.cancel()
            return ("timeout", None)
        except asyncio.CancelledError:  # Ctrl-C, SIGTERM: the run stops, the agent is left
            call.cancel()
            raise

    def reached(self, trace: Trace) -> bool:
        return any(isinstance(ev, ToolResultEvent | FinalEvent | ModelCallEvent)
                   for ev in trace.events)


def _leaf(e: BaseException) -> BaseException:
    """The first real exception inside task-group wrappers (anyio, asyncio.TaskGroup), so
    the error trace says what failed rather than "unhandled errors in a TaskGroup"."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e
