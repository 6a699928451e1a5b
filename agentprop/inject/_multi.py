"""Several parameters at once, `p2:multi=K`: K P2 corruptions in one call or across calls.

Each of the K corruptions draws its error type from the unit's generator (the four P2
types in a seeded order, the first that applies wins) and must hit a parameter no earlier
one touched in the same call. A call takes as many as it offers; the rest wait for the
agent's next calls. One `InjectionEvent` per placed corruption; the stage table follows
the first (its target call) and counts them (`n_injected`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from agentprop.agent import AgentHooks, CallRewrite, EpisodeContext
from agentprop.core import InjectionEvent, Task, ToolCall, WorkUnit
from agentprop.domains import Domain
from agentprop.inject._hooks import PROTOCOL_NAME, missing_target
from agentprop.inject._protocols import ERROR_TYPES, get_protocol, unit_rng

MAX_MULTI = 5


@dataclass
class MultiInjectionHooks(AgentHooks):
    """Places K P2 corruptions on the agent's calls (see the module docstring)."""

    name: str = "inject"
    unit: WorkUnit | None = None
    task: Task | None = None
    domain: Domain | None = None
    k: int = 2
    in_history: bool = True
    calls_seen: int = field(default=0, init=False)
    placed: int = field(default=0, init=False)
    ended: bool = field(default=False, init=False)

    def before_tool_call(self, ctx: EpisodeContext, call: ToolCall) -> CallRewrite | None:
        self.calls_seen += 1
        if self.placed >= self.k or self.domain is None or not self.domain.injectable:
            return None
        tool = self.domain.tool(call.name)
        if tool is None:
            return None
        unit = self.unit or ctx.unit
        # one stream per call index: a call's corruptions do not depend on the others'
        rng = unit_rng(unit, f"multi={self.k}#{self.calls_seen}")
        current = call
        touched: set[str] = set()
        while self.placed < self.k:
            order = list(ERROR_TYPES)
            rng.shuffle(order)
            hit = None
            for error_type in order:
                c = get_protocol(error_type).corrupt(current, tool, self.domain, ctx.env, rng)
                if c is not None and c.param not in touched:
                    hit = (error_type, c)
                    break
            if hit is None:
                break
            error_type, c = hit
            touched.add(c.param)
            self.placed += 1
            current = ToolCall(id=call.id, name=call.name, arguments=c.arguments)
            ctx.events.append(InjectionEvent(
                step=ctx.step, protocol=PROTOCOL_NAME, error_type=error_type, status="applied",
                call_id=call.id, tool=call.name, param=c.param, original=c.original,
                injected=c.injected, removed=c.removed, in_history=self.in_history,
                call_index=self.calls_seen,
            ))
        if not touched:
            return None
        return CallRewrite(executed=current, history=current if self.in_history else call)

    def on_episode_end(self, ctx: EpisodeContext) -> None:
        if self.placed or self.ended:
            return
        self.ended = True
        ctx.events.append(missing_target(ctx, self.calls_seen, PROTOCOL_NAME, "multi",
                                         in_history=self.in_history))
