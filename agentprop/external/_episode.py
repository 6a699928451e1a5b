"""One external agent's episode as agentprop sees it: calls in, a native-format trace out.

An external agent (any framework) reaches the task's tools over MCP and, optionally, its
model through the recording gateway. `EpisodeRecorder` is what both feed: every tool call
goes through `agentprop.agent.execute_call`, the boundary the native loop uses, so P2
injection, the counterfactual observation and the interceptor hooks behave identically;
model turns reported by the gateway become the same `ModelCallEvent`s a native loop
records. `finish` / `fail` build the `Trace` in the native format, so judges, stages and
reports need no special case.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from agentprop.agent import (
    AgentHooks,
    EpisodeContext,
    execute_call,
    finish_episode,
    observation_text,
)
from agentprop.core import (
    ErrorEvent,
    FinalEvent,
    InjectionEvent,
    Message,
    ModelCallEvent,
    ModelOutput,
    Task,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    ToolSpec,
    Trace,
    TraceStatus,
    WorkUnit,
    utcnow,
)
from agentprop.domains import Environment, Observation
from agentprop.external._agent import Abstention
from agentprop.safety import utf8_clean

if TYPE_CHECKING:
    from agentprop.inject import ApiFaultHooks

QUESTION_PROMPT = "question"
"""The MCP prompt (and `QUESTION_URI` the resource) that gives a client the question."""
QUESTION_URI = "agentprop://episode/question"


@dataclass
class EpisodeRecorder:
    """The live record of one external episode (one work unit, its own environment).

    `id` is the episode id clients see (in its URL, at the gateway): random and
    unguessable, unlike the work unit's key (the trace id), so neither a web page nor
    another episode's agent can name it. Tool calls are serialised by a lock, so the
    environment sees them in one order and the "first eligible call" of P2 is well
    defined. With `exclusive` (serve-tools), the episode belongs to the first MCP session
    that calls one of its tools: another session's calls are refused and counted
    (`refused_sessions`), never merged into its trace. Without it (`run --agent`, whose
    episode URL only the agent's own call knows), every session on the URL is that
    call's (LangChain's adapter opens one per tool call). Once finished, further calls
    are refused (the trace is already written).
    """

    unit: WorkUnit
    task: Task
    env: Environment
    hooks: Sequence[AgentHooks] = ()
    exclusive: bool = False
    id: str = field(default_factory=lambda: secrets.token_urlsafe(16))
    ctx: EpisodeContext = field(init=False)
    finished: bool = field(default=False, init=False)
    owner: str | None = field(default=None, init=False)
    """The MCP session the episode belongs to (`exclusive` only)."""
    refused_sessions: set[str] = field(default_factory=set, init=False)
    model_turns: int = field(default=0, init=False)
    replaced: int = field(default=0, init=False)
    """Code points UTF-8 cannot encode replaced in the agent's calls and answer."""
    _calls: int = field(default=0, init=False)
    _lock: asyncio.Lock = field(default_factory=asyncio.Lock, init=False)
    _generated: dict[str, ToolCall] = field(default_factory=dict, init=False)
    at_generation: bool = field(default=False, init=False)
    _api_retry: str | None = field(default=None, init=False)
    """The request digest of an `api:` fault just delivered: the next turn with the same
    digest is the client's retry of it."""

    def __post_init__(self) -> None:
        self.started = utcnow()
        messages = [Message(role="user", content=self.task.query)]
        self.ctx = EpisodeContext(
            unit=self.unit, task=self.task, env=self.env, messages=messages, events=[]
        )

    def claim(self, session: str | None) -> bool:
        """Whether `session` may call this episode's tools; the first session that asks
        owns an exclusive episode. A refused session is counted, once."""
        if not self.exclusive or session is None or self.owner in (None, session):
            if self.exclusive and session is not None:
                self.owner = session
            return True
        self.refused_sessions.add(session)
        return False

    @property
    def open(self) -> bool:
        """Not finished and not yet taken by an MCP session: an episode to hand out."""
        return not self.finished and self.owner is None

    def instructions(self, *, submit: bool) -> str:
        """What the MCP server tells a client on `initialize`: the question, and how the
        episode ends."""
        end = ("Give your final answer by calling the submit_answer tool; that ends the "
               "episode." if submit else "Reply to the user with your final answer.")
        return (f"This server serves one agentprop episode: the tools of one task. Answer "
                f"the user's question using the tools.\n\nThe user's question: "
                f"{self.task.query}\n\n{end} The same question is the prompt "
                f"'{QUESTION_PROMPT}' and the resource {QUESTION_URI}.")

    def tool_specs(self) -> list[ToolSpec]:
        """Only this task's tools, with the domain's JSON Schemas."""
        return self.env.domain.tool_specs(self.task.tools)

    def _step(self) -> int:
        # With the gateway, steps are model turns as in the native loop; without it, each
        # tool call is its own step (the agent's turns are not visible).
        return max(self.model_turns - 1, 0) if self.model_turns else self._calls

    async def call_tool(self, name: str, arguments: Any) -> Observation:
        """Run one tool call of the agent through the hooks and the environment."""
        async with self._lock:
            if self.finished:
                raise EpisodeClosed(f"episode {self.id} has ended")
            self.ctx.step = self._step()
            args = dict(arguments) if isinstance(arguments, dict) else {}
            proposed = ToolCall(id=f"mcp_{self._calls}", name=name, arguments=args)
            self._calls += 1
            at = len(self.ctx.messages)
            self.ctx.messages.append(Message(role="assistant", tool_calls=[proposed]))
            original = self._generated.pop(_call_key(name, args), None)
            # corrupted at generation: what the model's own call would have returned, on
            # the state before this call (as the native loop records it)
            counterfactual: Observation | None = None
            withheld = self.env.withholds(name) if original is not None else None
            if original is not None and withheld is None:
                counterfactual = await self.env.counterfactual(original.name,
                                                               original.arguments)
            history, observation = await execute_call(self.ctx, self._boundary_hooks(),
                                                      proposed)
            if original is not None:
                self._mark_generated(proposed, original, counterfactual, withheld)
            self.ctx.messages[at] = Message(role="assistant", tool_calls=[history])
            self.ctx.messages.append(
                Message(role="tool", content=observation_text(observation),
                        tool_call_id=proposed.id, name=history.name)
            )
            return observation

    def record_model_output(self, output: ModelOutput, request: Any = None, *,
                            inject: bool = False) -> list[ToolCall]:
        """A model turn seen by the gateway: the same event the native loop records.
        Returns the turn's tool calls, with P2 applied to the first eligible one when
        `inject` (the gateway's --inject-at-generation: the agent then carries the
        corrupted arguments in its own history, the paper's parameter-generation stage).
        Hooks see the turn (`on_model_output`); a message they would add cannot reach an
        external agent's history and is dropped (docs/external-agents.md)."""
        if self.finished:
            return list(output.tool_calls)
        calls = [self._generate(c) if inject else c for c in output.tool_calls]
        if calls != output.tool_calls:
            output = output.model_copy(update={"tool_calls": calls})
        self.model_turns += 1
        self.ctx.step = self.model_turns - 1
        digest = _digest(request)
        if self._api_retry is not None and (api := self._api_hook()) is not None:
            if digest == self._api_retry:
                api.retried(output)
            self._api_retry = None
        self.ctx.events.append(
            ModelCallEvent(step=self.ctx.step, request_hash=digest, output=output)
        )
        if output.text and not output.tool_calls:
            self.ctx.messages.append(
                Message(role="assistant", content=output.text, reasoning=output.reasoning)
            )
        for h in self.hooks:
            h.on_model_output(self.ctx, output)
        return calls

    def _api_hook(self) -> ApiFaultHooks | None:
        from agentprop.inject import ApiFaultHooks

        return next((h for h in self.hooks if isinstance(h, ApiFaultHooks)), None)

    def begin_model_call(self) -> dict[str, Any]:
        """The gateway asks before forwarding a turn: ``fault``, the `api:` kind to apply
        to this call (None: forward it as it is); ``more``, whether a later call of this
        episode may still be faulted (False: the gateway stops asking)."""
        api = self._api_hook()
        if self.finished or api is None:
            return {"fault": None, "more": False}
        fault = api.kind if api.take(self.ctx) else None
        return {"fault": fault, "more": api.event is None}

    def release_model_call(self) -> None:
        """The faulted call's upstream failed by itself: the next call is the target."""
        if (api := self._api_hook()) is not None:
            api.release()

    def api_fault_applied(self, real: ModelOutput, injected: dict[str, Any],
                          delivered: ModelOutput | None, request: Any) -> None:
        """The gateway faulted a call: `real` the upstream's completion (the
        counterfactual), `injected` what the client got, `delivered` the completion it got
        (a cut one; None: only an error). A delivered completion is the agent's model turn
        too. The next turn with the same request is the client's retry."""
        api = self._api_hook()
        if self.finished or api is None:
            return
        from agentprop.inject import completion_content

        self.ctx.step = self.model_turns
        api.applied(self.ctx, real, injected,
                    completion_content(delivered) if delivered is not None else None)
        if delivered is not None:
            self.record_model_output(delivered, request)
        self._api_retry = _digest(request)

    def _generate(self, call: ToolCall) -> ToolCall:
        """P2 at generation: the injector's rewrite of `call`, remembered so the boundary
        records the counterfactual of the original arguments when the call arrives. From
        the first such turn on, the injector no longer acts at the tool boundary."""
        from agentprop.inject import InjectionHooks

        self.at_generation = True
        for h in self.hooks:
            if not isinstance(h, InjectionHooks):
                continue
            self.ctx.step = self.model_turns
            n = len(self.ctx.events)
            rewrite = h.before_tool_call(self.ctx, call)
            h.calls_seen -= 1  # counted when the call reaches the boundary
            if rewrite is not None:
                for ev in self.ctx.events[n:]:
                    if isinstance(ev, InjectionEvent):
                        ev.in_history = True  # the agent's own history carries it
                self._generated[_call_key(call.name, rewrite.executed.arguments)] = call
                return rewrite.executed.model_copy(update={"id": call.id})
        return call

    def _boundary_hooks(self) -> Sequence[AgentHooks]:
        if not self.at_generation:
            return self.hooks
        from agentprop.inject import InjectionHooks

        for h in self.hooks:  # seen, not injected: the gateway already did
            if isinstance(h, InjectionHooks):
                h.calls_seen += 1
        return [h for h in self.hooks if not isinstance(h, InjectionHooks)]

    def finish(self, answer: str) -> Trace:
        """The agent returned `answer`: the final event goes through `before_final`. An
        `Abstention` is recorded as the agent's own abstention."""
        reason = answer.reason if isinstance(answer, Abstention) else None
        answer, bad = utf8_clean(str(answer))
        self.replaced += bad
        final = FinalEvent(step=self._step(), answer=answer, abstained=reason is not None,
                           reason=reason or None)
        for h in self.hooks:
            replaced = h.before_final(self.ctx, final)
            if replaced is not None:
                final = replaced
        last = self.ctx.messages[-1]
        if not (last.role == "assistant" and last.content == answer):
            self.ctx.messages.append(Message(role="assistant", content=answer))
        self.ctx.events.append(final)
        return self._trace("ok")

    def fail(self, kind: str, message: str) -> Trace:
        """The agent raised, hung or gave no answer: an error trace, as the native loop
        writes for a provider failure."""
        self.ctx.events.append(ErrorEvent(step=self._step(), kind=kind, message=message))
        return self._trace("error")

    def _trace(self, status: TraceStatus) -> Trace:
        self.finished = True
        meta: dict[str, Any] = {"external": True, "model_turns_recorded": self.model_turns}
        if self.replaced:
            meta["replaced_code_points"] = self.replaced
        if self.refused_sessions:
            meta["refused_sessions"] = len(self.refused_sessions)
        return finish_episode(self.ctx, self.hooks, status, simulated=False,
                              started=self.started, meta=meta)


    def _mark_generated(self, proposed: ToolCall, original: ToolCall,
                        counterfactual: Observation | None, withheld: str | None) -> None:
        """The events of a call corrupted at generation read as a native injected call:
        the tool-call event holds the model's own arguments, the result the
        counterfactual."""
        for ev in reversed(self.ctx.events):
            if isinstance(ev, ToolResultEvent) and ev.call_id == proposed.id:
                ev.counterfactual = counterfactual
                ev.counterfactual_withheld = withheld
            if isinstance(ev, ToolCallEvent) and ev.call.id == proposed.id:
                ev.call = original.model_copy(update={"id": proposed.id})
                break


def _digest(request: Any) -> str:
    return hashlib.sha256(json.dumps(request, sort_keys=True, default=str).encode()).hexdigest()


def _call_key(name: str, arguments: dict[str, Any]) -> str:
    return name + "\x1f" + json.dumps(arguments, sort_keys=True, default=str)


class EpisodeClosed(RuntimeError):
    """A call for an episode whose trace is already written."""
