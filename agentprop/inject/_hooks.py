"""The P2 injector as an agent hook: corrupt the chosen eligible tool call, record it once."""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from agentprop.agent import AgentHooks, CallRewrite, EpisodeContext
from agentprop.core import InjectionEvent, Task, ToolCall, WorkUnit
from agentprop.domains import Domain, Environment
from agentprop.inject._protocols import ErrorProtocol, unit_rng

PROTOCOL_NAME = "p2"
Position = Literal["first", "last", "random"] | int
"""Which eligible call is corrupted: the first (the paper's), the last, a seeded random
one, or the K-th (an int >= 2)."""


def eligible_plan_calls(
    task: Task, domain: Domain, protocol: ErrorProtocol, env: Environment
) -> int:
    """How many calls of the task's gold plan the protocol could corrupt: the positions a
    task offers (a one-call task offers only the first)."""
    scratch = random.Random(0)
    n = 0
    for i, g in enumerate(task.gold_plan):
        tool = domain.tool(g.name)
        if tool is None:
            continue
        call = ToolCall(id=f"gold_{i}", name=g.name, arguments=dict(g.arguments))
        if protocol.corrupt(call, tool, domain, env, scratch) is not None:
            n += 1
    return n


@dataclass
class InjectionHooks(AgentHooks):
    """Applies one P2 error type to the eligible tool call at `position`.

    Made per work unit by `hooks_for` (it keeps the episode's "already injected" flag, so
    never share an instance between episodes). Emits exactly one `InjectionEvent` per
    episode: status "applied" when it corrupts a call, otherwise at episode end
    "no_tool_call" (the agent never called a tool) or "no_target_param" (no call had an
    eligible parameter, the domain is not injectable, or the task cannot offer the
    position).

    A position other than `first` is counted over the agent's eligible calls; the task
    offers positions 1..m, m = its gold plan's eligible calls (`eligible_plan_calls`):
    `last` is m, `random` a seeded draw from 1..m, `@n=K` is K when K <= m and offered
    nowhere otherwise. The corruption itself is seeded as for `first`.

    `in_history=True` (default) puts the corrupted arguments into the agent's own history
    (an error made when the agent generated the parameters); False corrupts only the
    executed call, so the agent's history still shows what it proposed.
    """

    name: str = "inject"
    unit: WorkUnit | None = None
    task: Task | None = None
    domain: Domain | None = None
    protocol: ErrorProtocol | None = None
    error_type: str = ""
    in_history: bool = True
    position: Position = "first"
    calls_seen: int = field(default=0, init=False)
    done: bool = field(default=False, init=False)
    target: int | None = field(default=None, init=False)
    eligible_seen: int = field(default=0, init=False)

    def _target(self, ctx: EpisodeContext) -> int:
        assert self.domain is not None and self.protocol is not None
        task = self.task or ctx.task
        m = eligible_plan_calls(task, self.domain, self.protocol, ctx.env)
        if self.position == "last":
            return m
        if self.position == "random":
            unit = self.unit or ctx.unit
            return 1 + unit_rng(unit, f"{self.error_type}@random").randrange(m) if m else 0
        if isinstance(self.position, int):
            return self.position if self.position <= m else 0
        return 1

    def before_tool_call(self, ctx: EpisodeContext, call: ToolCall) -> CallRewrite | None:
        self.calls_seen += 1
        if self.done or self.domain is None or self.protocol is None:
            return None
        if not self.domain.injectable:
            return None
        tool = self.domain.tool(call.name)
        if tool is None:
            return None
        unit = self.unit or ctx.unit
        if self.position != "first":
            if self.target is None:
                self.target = self._target(ctx)
            if self.target == 0:
                return None
            scratch = random.Random(0)
            if self.protocol.corrupt(call, tool, self.domain, ctx.env, scratch) is None:
                return None
            self.eligible_seen += 1
            if self.eligible_seen < self.target:
                return None
        corruption = self.protocol.corrupt(
            call, tool, self.domain, ctx.env, unit_rng(unit, self.error_type)
        )
        if corruption is None:
            return None
        self.done = True
        executed = ToolCall(id=call.id, name=call.name, arguments=corruption.arguments)
        ctx.events.append(
            InjectionEvent(
                step=ctx.step,
                protocol=PROTOCOL_NAME,
                error_type=self.error_type,
                status="applied",
                call_id=call.id,
                tool=call.name,
                param=corruption.param,
                original=corruption.original,
                injected=corruption.injected,
                removed=corruption.removed,
                in_history=self.in_history,
                call_index=self.calls_seen,
            )
        )
        return CallRewrite(executed=executed, history=executed if self.in_history else call)

    def on_episode_end(self, ctx: EpisodeContext) -> None:
        if self.done:
            return
        self.done = True
        ctx.events.append(missing_target(ctx, self.calls_seen, PROTOCOL_NAME, self.error_type,
                                         in_history=self.in_history))


def missing_target(ctx: EpisodeContext, calls_seen: int, protocol: str, error_type: str,
                   *, in_history: bool = True) -> InjectionEvent:
    """The event of an episode the injector never applied to: no tool call at all, or no
    call it could target."""
    no_calls = calls_seen == 0 and ctx.tool_calls_seen == 0
    return InjectionEvent(
        step=ctx.step,
        protocol=protocol,
        error_type=error_type,
        status="no_tool_call" if no_calls else "no_target_param",
        in_history=in_history,
    )


@dataclass
class OneCallHooks(AgentHooks):
    """An injector that acts on one call per episode (`out:*`, `fault:*`) and records one
    event: "applied" when it acts, else at the end "no_tool_call" / "no_target_param".
    Subclasses set `protocol` and act in a hook point, setting `done`."""

    protocol: ClassVar[str] = ""
    unit: WorkUnit | None = None
    task: Task | None = None
    domain: Domain | None = None
    kind: str = ""
    calls_seen: int = field(default=0, init=False)
    done: bool = field(default=False, init=False)

    def on_episode_end(self, ctx: EpisodeContext) -> None:
        if self.done:
            return
        self.done = True
        ctx.events.append(missing_target(ctx, self.calls_seen, self.protocol, self.kind))
