"""`agentprop run --agent`: each work unit is one call of the user's agent, with the task's
tools served over MCP for that episode only."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Sequence

from agentprop.agent import AgentHooks
from agentprop.core import FinalEvent, ModelCallEvent, Task, ToolResultEvent, Trace, WorkUnit
from agentprop.domains import Environment
from agentprop.external._agent import AgentCallable, Episode
from agentprop.external._episode import EpisodeRecorder
from agentprop.external._host import EpisodeHost

DEFAULT_EPISODE_TIMEOUT_S = 300.0


class AgentExecutor:
    """Runs episodes by awaiting `agent(episode)`; an `EpisodeExecutor` for `run_units`.

    The agent's exception, a timeout (`timeout_s`), or a missing answer becomes an error
    trace (kinds ``agent_exception``, ``timeout``, ``no_final_answer``) and the run goes
    on. A synchronous callable runs in a worker thread.
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

    def episode_of(self, unit: WorkUnit, task: Task) -> Episode:
        return Episode(id=unit.key, query=task.query, mcp_url=self.host.mcp_url(unit.key),
                       task_id=task.id, domain=task.domain, condition=unit.condition,
                       seed=unit.seed)

    async def run(
        self, unit: WorkUnit, task: Task, hooks: Sequence[AgentHooks], env: Environment
    ) -> Trace:
        recorder = EpisodeRecorder(unit, task, env, hooks)
        self.host.add(recorder)
        episode = self.episode_of(unit, task)
        try:
            async with asyncio.timeout(self.timeout_s):
                if inspect.iscoroutinefunction(self.agent):
                    answer = await self.agent(episode)
                else:
                    answer = await asyncio.to_thread(self.agent, episode)
                    if inspect.isawaitable(answer):
                        answer = await answer
        except TimeoutError:
            return recorder.fail("timeout", f"no answer within {self.timeout_s:g} s")
        except Exception as e:  # the user's agent must not stop a run of thousands
            cause = _leaf(e)
            return recorder.fail("agent_exception", f"{type(cause).__name__}: {cause}")
        finally:
            self.host.remove(unit.key)
        if not isinstance(answer, str) or not answer.strip():
            return recorder.fail("no_final_answer",
                                 f"the agent returned {type(answer).__name__}, not answer text")
        return recorder.finish(answer)

    def reached(self, trace: Trace) -> bool:
        return any(isinstance(ev, ToolResultEvent | FinalEvent | ModelCallEvent)
                   for ev in trace.events)


def _leaf(e: BaseException) -> BaseException:
    """The first real exception inside task-group wrappers (anyio, asyncio.TaskGroup), so
    the error trace says what failed rather than "unhandled errors in a TaskGroup"."""
    while isinstance(e, BaseExceptionGroup) and e.exceptions:
        e = e.exceptions[0]
    return e
