"""Building what an episode needs: the models of a run, and each unit's task, hooks and
fresh environment (the batching loop in `_run.py` asks for them unit by unit; the
`EpisodeExecutor` then runs the episode)."""

from __future__ import annotations

import contextlib
import importlib
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from agentprop.agent import AgentHooks
from agentprop.core import Task, WorkUnit
from agentprop.domains import Domain, Environment, get_domain
from agentprop.models import GenerateConfig, Model, RateLimits, get_model
from agentprop.runner._errors import RunError
from agentprop.store import Workspace
from agentprop.suite import Suite

ExtraHooks = Callable[[WorkUnit, Task], list[AgentHooks]]
BASELINE = "baseline"


def _hooks_factory(conditions: set[str]) -> Callable[..., AgentHooks | None] | None:
    """`agentprop.inject.hooks_for`, imported lazily; without it only baseline runs."""
    try:
        factory = getattr(importlib.import_module("agentprop.inject"), "hooks_for", None)
    except ImportError:
        factory = None
    if factory is None and conditions - {BASELINE}:
        bad = sorted(conditions - {BASELINE})[0]
        raise RunError(f"condition {bad!r} needs agentprop.inject.hooks_for (not available)")
    return factory


def make_models(
    model_ids: Sequence[str],
    *,
    workspace: Workspace | None,
    suite: Suite,
    model_options: Mapping[str, Any] | None = None,
    use_cache: bool = True,
) -> dict[str, Model]:
    """One Model per id. Real providers get the workspace as response cache (unless
    `use_cache` is False); simulated ones never need it."""
    opts = {"suite": suite, **dict(model_options or {})}
    models: dict[str, Model] = {}
    for mid in dict.fromkeys(model_ids):
        try:
            model = get_model(mid, **opts)
            if use_cache and workspace is not None and not model.simulated:
                model = get_model(mid, **opts, cache=workspace)
        except TypeError as e:  # an option the provider does not take
            bad = str(e).split("argument", 1)[-1].strip(" '\"") if "argument" in str(e) else ""
            what = f"option {bad!r}" if bad else "an option"
            raise RunError(f"model {mid} does not take {what} (see `agentprop models list`)"
                           ) from None
        except ValueError as e:
            raise RunError(f"model {mid}: {e}") from None
        models[mid] = model
    return models


def unit_tasks(units: Sequence[WorkUnit], suite: Suite) -> dict[str, Task]:
    """task id → task of every unit; RunError for a task the suite does not hold."""
    tasks: dict[str, Task] = {}
    for u in units:
        if u.task_id not in tasks:
            task = suite.get(u.task_id)
            if task is None:
                raise RunError(f"task {u.task_id!r} is not in the suite")
            tasks[u.task_id] = task
    return tasks


class EpisodeBuilder:
    """Each unit's hooks (its condition's injector, then `extra_hooks`) and a fresh
    environment; built once per run, checked before anything is written."""

    def __init__(self, tasks: Mapping[str, Task], *, in_history: bool = True,
                 extra_hooks: ExtraHooks | None = None,
                 domains: Mapping[str, Domain] | None = None) -> None:
        self.tasks = tasks
        self.in_history = in_history
        self.extra_hooks = extra_hooks
        self.domains = dict(domains or {})
        """Domains that are not registered (an upstream server's), by name."""
        self._hooks_for: Callable[..., AgentHooks | None] | None = None

    def check(self, units: Sequence[WorkUnit]) -> None:
        """Build the hooks of each condition once (RunError for one that cannot be)."""
        conditions = {u.condition for u in units}
        self._hooks_for = _hooks_factory(conditions)
        if self._hooks_for is None:
            return
        for cond in sorted(conditions):
            first = next(u for u in units if u.condition == cond)
            try:
                task = self.tasks[first.task_id]
                self._hooks_for(cond, first, task, in_history=self.in_history,
                                **self._domain_of(task))
            except Exception as e:
                raise RunError(f"condition {cond!r}: {e}") from None

    def hooks(self, unit: WorkUnit, task: Task) -> list[AgentHooks]:
        """Fresh hooks for one episode (never shared between episodes)."""
        hooks: list[AgentHooks] = []
        if self._hooks_for is not None:
            h = self._hooks_for(unit.condition, unit, task, in_history=self.in_history,
                                **self._domain_of(task))
            if h is not None:
                hooks.append(h)
        if self.extra_hooks is not None:
            hooks.extend(self.extra_hooks(unit, task))
        return hooks

    def _domain_of(self, task: Task) -> dict[str, Domain]:
        """The `domain` argument of `hooks_for` (none for a registered domain)."""
        domain = self.domains.get(task.domain)
        return {"domain": domain} if domain is not None else {}

    def env(self, task: Task) -> Environment:
        """A fresh environment for one episode (entered by the runner around it)."""
        domain = self.domains.get(task.domain) or get_domain(task.domain)
        return domain.make_env(task.env_seed)


def seeded_configs(config: GenerateConfig) -> Callable[[int], GenerateConfig]:
    """The generation config of an episode seed (one copy per seed)."""
    configs: dict[int, GenerateConfig] = {}

    def config_for(seed: int) -> GenerateConfig:
        if config.seed is None:
            return config
        if seed not in configs:
            configs[seed] = config.model_copy(update={"seed": seed})
        return configs[seed]
    return config_for


def ready_models(model_objs: Mapping[str, Model], limits: Mapping[str, RateLimits],
                 concurrency: int, *, open_clients: bool) -> dict[str, int]:
    """Give the models their rate limits and open their clients now, not in the first
    calls; the 429 counts they start from (a summary counts this run's only)."""
    for mid, lim in limits.items():
        setter = getattr(model_objs.get(mid), "set_rate_limits", None)
        if callable(setter) and lim.any:
            setter(lim)
    before = {mid: int(getattr(m, "rate_limited", 0)) for mid, m in model_objs.items()}
    for m in model_objs.values() if open_clients else ():
        opener = getattr(m, "open", None)
        if callable(opener):
            opener(concurrency)
    return before


async def close_models(model_objs: Mapping[str, Model]) -> None:
    """Close every model's client; a failure to close is not the run's failure."""
    for m in model_objs.values():
        closer = getattr(m, "aclose", None)
        if callable(closer):
            with contextlib.suppress(Exception):
                await closer()
