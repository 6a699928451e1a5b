"""`out:<kind>` applied: which corruption a kind is, and the hook that puts it on the first
eligible call of an episode (the kinds: `_output` and `_observed`; their declarations:
`core.FAULT_CLASSES`)."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import ClassVar

from agentprop.agent import EpisodeContext
from agentprop.core import InjectionEvent, Task, ToolCall, ToolResultEvent, kinds_of
from agentprop.domains import Domain, Environment, Observation, Tool, is_error
from agentprop.inject._hooks import OneCallHooks
from agentprop.inject._observed import (
    Earlier,
    contradictory,
    irrelevant,
    partial,
    prompt_injection,
    schema_drift,
    through_text,
)
from agentprop.inject._output import (
    DATE_KINDS,
    ENTITY_KINDS,
    Native,
    OutputCorruption,
    rerun_corruption,
    truncated,
    wrong_value,
)
from agentprop.inject._protocols import unit_rng

OUTPUT = "out"
OUTPUT_KINDS: tuple[str, ...] = kinds_of(OUTPUT)
"""The output corruptions, in the order `out:all` expands to (declared in
`core.FAULT_CLASSES`)."""


def _one(kind: str, call: ToolCall, native: Native | None, rng: random.Random,
         earlier: Earlier) -> Callable[[Observation], OutputCorruption | None]:
    """The corruption of `kind` as a function of the observation."""
    table: dict[str, Callable[[Observation], OutputCorruption | None]] = {
        "wrong_value": lambda o: wrong_value(call, o, native, rng),
        "swapped_entity": lambda o: rerun_corruption(call, o, native, rng, ENTITY_KINDS),
        "stale": lambda o: rerun_corruption(call, o, native, rng, DATE_KINDS),
        "truncated": lambda o: truncated(o, foreign=native is None),
        "schema_drift": lambda o: schema_drift(call, o, native, rng),
        "irrelevant": lambda o: irrelevant(call, o, native, rng, earlier),
        "contradictory": lambda o: contradictory(call, o, native, rng),
        "partial": lambda o: partial(call, o, rng),
        "prompt_injection": lambda o: prompt_injection(call, o, native, rng),
    }
    return table[kind]


def corrupt_observation(kind: str, call: ToolCall, obs: Observation, tool: Tool | None,
                        domain: Domain | None, env: Environment | None, rng: random.Random,
                        task: Task | None = None, *,
                        earlier: Earlier = ()) -> OutputCorruption | None:
    """The corrupted observation of `kind` for a call's true result (None: not eligible:
    an error or empty result, or nothing of the kind to corrupt). `tool`, `domain` and
    `env` (the state after the call; never modified) are a native domain's; None for a
    foreign tool, whose result alone is then corrupted. `earlier`: the episode's earlier
    calls and what the agent saw (`irrelevant` draws from it)."""
    if kind not in OUTPUT_KINDS:
        raise KeyError(kind)
    if not isinstance(obs, dict) or not obs or is_error(obs):
        return None
    native = Native(tool, domain, env, task) if tool and domain and env else None
    corrupt = _one(kind, call, native, rng, earlier)
    c = corrupt(obs) if kind in ("swapped_entity", "stale", "irrelevant") \
        else through_text(obs, corrupt)
    return None if c is None or c.observation == obs else c


def _earlier(ctx: EpisodeContext) -> Earlier:
    return [(ToolCall(id=e.call_id, name=e.name, arguments=e.arguments), e.observation)
            for e in ctx.events if isinstance(e, ToolResultEvent)]


@dataclass
class OutputHooks(OneCallHooks):
    """Corrupts the observation of the first eligible call with `kind`; one event per
    episode ("applied", or at the end "no_tool_call" / "no_target_param"). Without a
    domain (a foreign tool's call) the observation alone is corrupted."""

    protocol: ClassVar[str] = OUTPUT
    name: str = "out"
    kind: str = "wrong_value"
    corrupted_call: str | None = field(default=None, init=False)
    corrupted: Observation | None = field(default=None, init=False)

    def before_tool_call(self, ctx: EpisodeContext, call: ToolCall) -> None:
        self.calls_seen += 1

    def rewrite_observation(
        self, ctx: EpisodeContext, call: ToolCall, observation: Observation
    ) -> Observation | None:
        if self.done:
            # a guard's retry of the corrupted call meets the same data again: what a
            # server returns for a request does not change because it is asked twice
            if ctx.retry_of is not None and ctx.retry_of == self.corrupted_call:
                return self.corrupted
            return None
        tool = None
        if self.domain is not None:
            tool = self.domain.tool(call.name)
            if not self.domain.injectable or tool is None:
                return None
        rng = unit_rng(self.unit or ctx.unit, f"{OUTPUT}:{self.kind}")
        c = corrupt_observation(self.kind, call, observation, tool, self.domain,
                                ctx.env if tool else None, rng, self.task or ctx.task,
                                earlier=_earlier(ctx))
        if c is None:
            return None
        self.done = True
        self.corrupted_call, self.corrupted = call.id, c.observation
        ctx.events.append(InjectionEvent(
            step=ctx.step, protocol=OUTPUT, error_type=self.kind, status="applied",
            call_id=call.id, tool=call.name, param=c.path, original=c.original,
            injected=c.injected, removed=c.removed, call_index=self.calls_seen,
        ))
        return c.observation
