"""Any guardrail or mitigation as an agent hook: a function over the episode's events that
allows, rejects with a message, retries or abstains (docs/guardrails.md).

A guard is asked at three points: before a tool call runs (`tool_call`), on the call's
result before the agent sees it (`tool_result`), and on an answer candidate (`answer`).
`GuardHooks` turns its decisions into what the agent loop does, at the same boundary the
injector and the interceptor use, so a guard acts identically in native runs and for an
external agent's MCP calls. Every action is recorded as a `GuardEvent`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from agentprop.agent import (
    AgentHooks,
    CallRewrite,
    EpisodeContext,
    EpisodeStates,
    ResultReview,
)
from agentprop.core import (
    FinalEvent,
    GuardAction,
    GuardEvent,
    GuardPoint,
    Message,
    ModelOutput,
    ToolCall,
    ToolResultEvent,
    TraceEvent,
)
from agentprop.domains import Observation, is_error
from agentprop.intercept._config import InterceptConfig
from agentprop.intercept._replay import feed_events
from agentprop.intercept._signals import ABSTENTION_TEXT, EpisodeState, Signals, split_output

GUARD_ERROR = "guard_rejected"
"""The error type of the observation an agent sees when a guard rejects a call or result."""


@dataclass(frozen=True)
class GuardView:
    """What a guard sees at one point: the question, the episode's events so far, and the
    call, its result or the answer candidate the point is about."""

    point: GuardPoint
    query: str
    events: tuple[TraceEvent, ...]
    call: ToolCall | None = None
    observation: Observation | None = None
    answer: str | None = None
    attempt: int = 0
    """tool_result: how many times this call has been retried already."""

    @property
    def is_error(self) -> bool:
        """The result is a tool error (`{"error": {...}}`)."""
        return self.observation is not None and is_error(self.observation)

    @property
    def results(self) -> list[ToolResultEvent]:
        """The tool results of the episode so far (what the agent saw)."""
        return [e for e in self.events if isinstance(e, ToolResultEvent)]

    def signals(self, config: InterceptConfig | None = None) -> Signals:
        """The interceptor's three layers measured on this episode so far (L3 on the
        answer candidate, when the point is `answer`)."""
        cfg = config or InterceptConfig()
        state = EpisodeState()
        state.add_context(self.query)
        feed_events(state, self.events)
        return state.signals(self.answer, cfg)


@dataclass(frozen=True)
class Decision:
    """A guard's answer. `message`: for reject, what the agent sees instead (the tool's
    result, or a user turn after an answer); for abstain, the text that replaces the answer
    (default: the interceptor's abstention). `reason`: one line for the trace."""

    action: Literal["allow", "reject", "retry", "abstain"] = "allow"
    message: str = ""
    reason: str = ""

    @classmethod
    def allow(cls) -> Decision:
        return cls()

    @classmethod
    def reject(cls, message: str, reason: str = "") -> Decision:
        return cls("reject", message, reason or message)

    @classmethod
    def retry(cls, reason: str = "") -> Decision:
        return cls("retry", "", reason)

    @classmethod
    def abstain(cls, reason: str = "", message: str = "") -> Decision:
        return cls("abstain", message, reason)

    def as_abstention(self) -> Decision:
        """This decision where it can only abstain (a reject past the limit, or on an
        answer already given): a reject's message was for the agent, so the user gets the
        abstention text, not that message."""
        return self if self.action == "abstain" else Decision.abstain(self.reason)


Guard = Callable[[GuardView], "Decision | None"]
"""A guardrail or mitigation: None or `Decision.allow()` lets the episode go on."""


@dataclass
class _Episode:
    rejected_answers: int = 0
    abstain: Decision | None = None
    checked: set[str] = field(default_factory=set)


class GuardHooks(AgentHooks):
    """A `Guard` in the agent loop.

    - tool_call: reject → the call does not run; the agent sees the guard's message as a
      tool error (`guard_rejected`). abstain → the same, and the answer is withheld.
    - tool_result: retry → the call runs again (up to `agent.MAX_RETRIES` times), as a
      retry middleware does; reject → the agent sees the message instead of the result.
    - answer: reject → the answer is held back and the message is given as a user turn
      (at most `max_rejects` times; then it abstains); abstain → the answer is replaced.
      An answer the loop could not show the guard as a candidate (an external agent's
      answer, a forced one) is checked at the end, where a reject can only abstain.

    Actions that make no sense at a point (retry before a call, retry on an answer) allow.
    Per-episode state is keyed by the context, so one instance may serve many episodes.
    """

    def __init__(self, guard: Guard, *, name: str = "guard", max_rejects: int = 2):
        self.name = name
        self.guard = guard
        self.max_rejects = max_rejects
        self._episodes = EpisodeStates(_Episode)

    def __repr__(self) -> str:
        return f"GuardHooks({self.name})"

    def _state(self, ctx: EpisodeContext) -> _Episode:
        return self._episodes.of(ctx)

    def _ask(self, ctx: EpisodeContext, point: GuardPoint, **about: object) -> Decision:
        view = GuardView(point=point, query=ctx.task.query, events=tuple(ctx.events),
                         **about)  # type: ignore[arg-type]
        return self.guard(view) or Decision.allow()

    def _record(self, ctx: EpisodeContext, point: GuardPoint, action: GuardAction,
                d: Decision, call_id: str | None = None) -> None:
        ctx.events.append(GuardEvent(step=ctx.step, guard=self.name, point=point,
                                     action=action, call_id=call_id, reason=d.reason))

    def before_tool_call(self, ctx: EpisodeContext, call: ToolCall) -> CallRewrite | None:
        if ctx.retry_of is not None:  # a retry the guard itself asked for
            return None
        d = self._ask(ctx, "tool_call", call=call)
        if d.action not in ("reject", "abstain"):
            return None
        self._record(ctx, "tool_call", d.action, d, call.id)
        if d.action == "abstain":
            self._state(ctx).abstain = d
        message = d.message if d.action == "reject" else \
            f"the guard stopped this call: {d.reason or 'no reason given'}"
        return CallRewrite(executed=call, history=call,
                           observation={"error": {"type": GUARD_ERROR, "message": message}})

    def review_result(
        self, ctx: EpisodeContext, call: ToolCall, observation: Observation, attempt: int
    ) -> ResultReview | None:
        d = self._ask(ctx, "tool_result", call=call, observation=observation,
                      attempt=attempt)
        if d.action == "retry":
            self._record(ctx, "tool_result", "retry", d, call.id)
            return ResultReview(retry=True)
        if d.action == "reject":
            self._record(ctx, "tool_result", "reject", d, call.id)
            return ResultReview(replace={"error": {"type": GUARD_ERROR, "message": d.message}})
        if d.action == "abstain":
            self._record(ctx, "tool_result", "abstain", d, call.id)
            self._state(ctx).abstain = d
        return None

    def on_model_output(self, ctx: EpisodeContext, output: ModelOutput) -> Message | None:
        state = self._state(ctx)
        _, candidate = split_output(output)
        if candidate is None or state.abstain is not None:
            return None
        state.checked.add(candidate)
        d = self._ask(ctx, "answer", answer=candidate)
        if d.action == "reject" and state.rejected_answers < self.max_rejects:
            state.rejected_answers += 1
            self._record(ctx, "answer", "reject", d)
            return Message(role="user", content=d.message)
        if d.action in ("reject", "abstain"):
            self._record(ctx, "answer", "abstain", d)
            state.abstain = d.as_abstention()
        return None

    def before_final(self, ctx: EpisodeContext, final: FinalEvent) -> FinalEvent | None:
        if final.abstained:
            return None
        state = self._state(ctx)
        if state.abstain is None and final.answer is not None \
                and final.answer not in state.checked:
            d = self._ask(ctx, "answer", answer=final.answer)
            if d.action in ("reject", "abstain"):
                self._record(ctx, "answer", "abstain", d)
                state.abstain = d.as_abstention()
        if state.abstain is None:
            return None
        return FinalEvent(step=final.step, answer=state.abstain.message or ABSTENTION_TEXT,
                          abstained=True, reason=f"{self.name}: {state.abstain.reason}")

    def on_episode_end(self, ctx: EpisodeContext) -> None:
        self._episodes.drop(ctx)
