"""`sim/<profile>`: the simulated agent as a Model (in-process, no network, free)."""

from __future__ import annotations

import asyncio
from functools import cached_property
from typing import TYPE_CHECKING, Any

from agentprop.core import (
    Message,
    ModelOutput,
    Task,
    ToolCall,
    ToolSpec,
    unknown_name,
)
from agentprop.models._base import TOOL_CHOICE_KEYWORDS, GenerateConfig
from agentprop.sim._generic import forced_fit
from agentprop.sim._policy import Observation, RenderFn, decide
from agentprop.sim._profiles import PROFILES, SimProfile

if TYPE_CHECKING:
    from agentprop.suite import Suite


def get_profile(name: str) -> SimProfile:
    try:
        return PROFILES[name]
    except KeyError:
        raise unknown_name("sim profile", name, sorted(PROFILES)) from None


def _norm(text: str) -> str:
    return " ".join(text.lower().split())


class SimAgent:
    """Task lookup and answer rendering for the policy, with the suite loaded lazily once.

    `generators` (domain → object with `render_answer`) overrides the suite's generators.

    Shared by SimModel and the HTTP server so both answer identically.
    """

    def __init__(self, suite: Suite | None = None,
                 generators: dict[str, Any] | None = None) -> None:
        self._suite = suite
        self._generators: dict[str, Any] = dict(generators or {})

    @property
    def suite(self) -> Any:
        if self._suite is None:
            from agentprop.suite import load_suite

            self._suite = load_suite()
        return self._suite

    @cached_property
    def _by_query(self) -> dict[str, list[Task]]:
        index: dict[str, list[Task]] = {}
        for t in self.suite.tasks:
            index.setdefault(_norm(t.query), []).append(t)
        return index

    def find_task(self, messages: list[Message]) -> Task | None:
        """The task whose query opens the conversation. When several tasks share a query
        (same words, different worlds), pick the one whose later gold arguments (an event
        id, a patient id) appear in the observations received so far, as a planner
        reading those observations would; ties go to the first in suite order."""
        query = next((m.content for m in messages if m.role == "user" and m.content), None)
        if not query:
            return None
        candidates = self._by_query.get(_norm(query), [])
        if len(candidates) <= 1:
            return candidates[0] if candidates else None
        seen = " ".join(m.content or "" for m in messages if m.role == "tool")
        if not seen:
            return candidates[0]

        def score(t: Task) -> int:
            return sum(str(v) in seen for c in t.gold_plan[1:] for v in c.arguments.values()
                       if isinstance(v, str | int) and not isinstance(v, bool))

        return max(candidates, key=score)  # max keeps the first of equal scores

    def renderer(self, domain: str) -> RenderFn:
        """`render_answer` of the domain's generator, loaded on first use."""

        def render(task: Task, observations: list[Observation]) -> str:
            gen = self._generators.get(domain)
            if gen is None:
                from agentprop.suite import get_generator

                gen = self._generators[domain] = get_generator(domain)
            return str(gen.render_answer(task, observations))

        return render

    @cached_property
    def _examples(self) -> dict[str, dict[str, Any]]:
        """tool name → the arguments of its first gold call in the suite."""
        out: dict[str, dict[str, Any]] = {}
        for t in self.suite.tasks:
            for c in t.gold_plan:
                out.setdefault(c.name, dict(c.arguments))
        return out

    def forced_call(self, name: str, task: Task | None) -> ToolCall:
        """The call a forced `tool_choice` makes: the arguments of the task's own gold
        call of that tool, else of the suite's first one (schema-valid, since gold calls
        are executed when the suite is drawn), else none."""
        gold = next((c for c in (task.gold_plan if task else []) if c.name == name), None)
        args = dict(gold.arguments) if gold is not None else self._examples.get(name, {})
        return ToolCall(id="call_sim_forced", name=name, arguments=args)

    def respond(self, messages: list[Message], tools: list[ToolSpec], profile: SimProfile,
                seed: int, tool_choice: str | None = None) -> ModelOutput:
        """The policy's answer; `tool_choice` as `GenerateConfig.tool_choice` (``none``
        hides the tools, a tool name forces a call of it, ``required`` is ``auto``)."""
        if tool_choice == "none":
            tools = []
        task = self.find_task(messages)
        if task is not None and not task.gold_plan:
            task = None  # a user's own question (`run --tasks`): the generic policy's
        render = self.renderer(task.domain) if task is not None else None
        forced = None
        spec = next((t for t in tools if t.name == tool_choice), None)
        if tool_choice not in (None, *TOOL_CHOICE_KEYWORDS) and spec is not None:
            # a tool no suite task uses: fill it from the question, like the generic policy
            generic = forced_fit(messages, spec) if task is None else None
            forced = generic or self.forced_call(str(tool_choice), task)
        return decide(messages, tools, profile, seed, task, render, forced)


class SimModel:
    """A simulated agent behind the Model protocol. Deterministic in (messages, seed)."""

    simulated = True

    def __init__(self, profile: SimProfile, *, suite: Suite | None = None, latency_ms: float = 0.0,
                 generators: dict[str, Any] | None = None,
                 agent: SimAgent | None = None) -> None:
        self.profile = profile
        self.latency_s = latency_ms / 1000.0
        self.agent = agent or SimAgent(suite, generators=generators)

    @property
    def id(self) -> str:
        return f"sim/{self.profile.name}"

    def __repr__(self) -> str:
        return f"<SimModel {self.id}>"

    async def generate(
        self, messages: list[Message], tools: list[ToolSpec], config: GenerateConfig
    ) -> ModelOutput:
        if self.latency_s > 0:
            await asyncio.sleep(self.latency_s)
        out = self.agent.respond(messages, tools, self.profile, config.seed or 0,
                                 config.tool_choice)
        out.latency_s = self.latency_s
        out.raw = {"simulated": True, "profile": self.profile.name}
        return out


# Options other providers take; accepted and ignored so one options dict serves all.
_IGNORED = {"base_url", "api_key_env", "cache", "cache_epoch", "max_attempts",
            "max_connections", "prices", "retry_base_s", "retry_max_s", "tool_choice"}


def sim_provider(name: str, **options: Any) -> SimModel:
    """Factory for ``sim/<profile>``; ``profile=SimProfile(...)`` overrides the named one."""
    profile = options.pop("profile", None)
    for k in _IGNORED:
        options.pop(k, None)
    if profile is None:
        profile = get_profile(name)
    return SimModel(profile, **options)
