"""The P2 injector as an agent hook: corrupt the first eligible tool call, record it once."""

from __future__ import annotations

from dataclasses import dataclass, field

from agentprop.agent import AgentHooks, CallRewrite, EpisodeContext
from agentprop.core import InjectionEvent, Task, ToolCall, WorkUnit
from agentprop.domains import Domain
from agentprop.inject._protocols import ErrorProtocol, unit_rng

PROTOCOL_NAME = "p2"


@dataclass
class InjectionHooks(AgentHooks):
    """Applies one P2 error type to the first tool call that has an eligible parameter.

    Made per work unit by `hooks_for` (it keeps the episode's "already injected" flag, so
    never share an instance between episodes). Emits exactly one `InjectionEvent` per
    episode: status "applied" when it corrupts a call, otherwise at episode end
    "no_tool_call" (the agent never called a tool) or "no_target_param" (it called tools,
    none had an eligible parameter, or the domain is not injectable).

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
    calls_seen: int = field(default=0, init=False)
    done: bool = field(default=False, init=False)

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
            )
        )
        return CallRewrite(executed=executed, history=executed if self.in_history else call)

    def on_episode_end(self, ctx: EpisodeContext) -> None:
        if self.done:
            return
        self.done = True
        no_calls = self.calls_seen == 0 and ctx.tool_calls_seen == 0
        ctx.events.append(
            InjectionEvent(
                step=ctx.step,
                protocol=PROTOCOL_NAME,
                error_type=self.error_type,
                status="no_tool_call" if no_calls else "no_target_param",
                in_history=self.in_history,
            )
        )
