"""What runs one episode: the native loop over a model, or an external agent.

`run_units` (`_run.py`) owns everything around an episode (resume, locks, concurrency, the
writer, progress, the pre-flight abort), `_build.py` builds each unit's hooks and
environment, and an `EpisodeExecutor` only turns (unit, task, hooks, environment) into a
trace. So an agent
run over MCP (`agentprop.external`) plans, resumes and reports exactly like a model run.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Protocol

from agentprop.agent import AgentHooks, run_episode
from agentprop.core import ErrorEvent, ModelCallEvent, Task, Trace, WorkUnit
from agentprop.domains import Environment
from agentprop.models import GenerateConfig, Model


class EpisodeExecutor(Protocol):
    """Runs episodes; entered once (async context) around all the episodes of a run."""

    async def __aenter__(self) -> EpisodeExecutor: ...

    async def __aexit__(self, *exc: object) -> None: ...

    async def run(
        self, unit: WorkUnit, task: Task, hooks: Sequence[AgentHooks], env: Environment
    ) -> Trace:
        """One episode's trace; failures become error traces, never exceptions."""
        ...

    def reached(self, trace: Trace) -> bool:
        """Whether `trace` shows the agent was reached (the pre-flight check: a run whose
        first episodes all fail this stops instead of recording thousands of them)."""
        ...


def answers_at_step_limit(model: Model, setting: bool | None) -> bool:
    """Whether an episode out of steps asks the model once more without tools: the run's
    setting, else the model's own default (`answer_on_step_limit`: True for local models,
    which keep calling tools; False for every other)."""
    if setting is not None:
        return setting
    return bool(getattr(model, "answer_on_step_limit", False))


class NativeExecutor:
    """The built-in agent loop over `models` (one per unit.model)."""

    def __init__(self, models: Mapping[str, Model], config_for: Callable[[int], GenerateConfig],
                 *, max_steps: int, text_mode: bool, execute_leaked: bool = False,
                 answer_on_step_limit: bool | None = None) -> None:
        self.models = models
        self.config_for = config_for
        self.max_steps = max_steps
        self.text_mode = text_mode
        self.execute_leaked = execute_leaked
        self.answer_on_step_limit = answer_on_step_limit

    async def __aenter__(self) -> NativeExecutor:
        return self

    async def __aexit__(self, *exc: object) -> None:
        return None

    async def run(
        self, unit: WorkUnit, task: Task, hooks: Sequence[AgentHooks], env: Environment
    ) -> Trace:
        return await run_episode(unit, task, self.models[unit.model], hooks,
                                 self.config_for(unit.seed), env,
                                 max_steps=self.max_steps, text_mode=self.text_mode,
                                 execute_leaked=self.execute_leaked,
                                 answer_on_step_limit=answers_at_step_limit(
                                     self.models[unit.model], self.answer_on_step_limit))

    def reached(self, trace: Trace) -> bool:
        return any(isinstance(ev, ModelCallEvent) for ev in trace.events)


def failed(trace: Trace, reason: str) -> Trace:
    """`trace` as an error trace because its environment failed under it (the user's MCP
    server died, hung or did not start): what the agent did is kept, and the analysis
    counts it with the other error traces, never as an answer."""
    step = max((int(getattr(ev, "step", 0)) for ev in trace.events), default=0)
    events = [*trace.events, ErrorEvent(step=step, kind="upstream", message=reason)]
    return trace.model_copy(update={"status": "error", "events": events})
