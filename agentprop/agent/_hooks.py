"""Hook points at the tool-call boundary: where the injector and the interceptor plug in.

The agent loop calls, in order, for every hook in its chain:
- `wrap_model` once, before the first model call (may return a model that stands in for
  the episode's model, e.g. one that fails one call as the API would: `api:*`);
- `on_model_output` after each model response (may return a message to append, e.g. a
  warning; the loop then gives the model another turn instead of accepting an answer);
- `before_tool_call` before a proposed call executes (may return a `CallRewrite`: the
  arguments to execute and the arguments to keep in the agent's history, or an
  `observation` that replaces the call: the tool does not run, e.g. a timeout); when the
  executed arguments differ from the proposed ones, or the call was replaced, the loop
  also runs the proposed call on a copy of the environment and stores that counterfactual
  observation;
- `rewrite_observation` after the tool ran (may return another observation for the agent
  to see, e.g. a stale or truncated result; the true one is then the counterfactual);
- `review_result` on each result before the agent sees it (may return a `ResultReview`:
  run the call again, as a framework's retry middleware does, or show the agent another
  observation, e.g. a guardrail's rejection; a guard, docs/guardrails.md);
- `after_tool_result` after each observation (the one the agent sees);
- `before_final` before a final answer is accepted (may return a `FinalEvent` that replaces
  it, e.g. an abstention);
- `on_episode_end` once, last (e.g. to record that the injector never saw a tool call).
Hooks append their own typed events to `ctx.events`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Generic, TypeVar

from agentprop.core import FinalEvent, Message, ModelOutput, Task, ToolCall, TraceEvent, WorkUnit
from agentprop.domains import Environment, Observation

if TYPE_CHECKING:
    from agentprop.models import Model

S = TypeVar("S")

WARNING_PREFIX = "[interceptor]"
"""Messages a hook adds as a warning (the interceptor's warn mode) start with this; the
interceptor never reads them back as context, and the simulated agents recognise them.
Here, with the hook points, so that both can import it from below."""


@dataclass
class EpisodeContext:
    """The live state of one episode, visible to hooks."""

    unit: WorkUnit
    task: Task
    env: Environment
    messages: list[Message]
    events: list[TraceEvent]
    step: int = 0
    tool_calls_seen: int = 0
    retry_of: str | None = None
    """While a review's retry runs: the id of the call retried (an injector keeps a fault
    that the same request would meet again, `out:*`; a transient one, `fault:*`, is gone)."""


@dataclass
class CallRewrite:
    """What to execute, and what the agent's history should say it called. With
    `observation` set the call is not executed at all: the agent sees that observation
    (a tool failure) and the proposed call's true result becomes the counterfactual."""

    executed: ToolCall
    history: ToolCall
    observation: Observation | None = None


class EpisodeStates(Generic[S]):
    """Per-episode state of a hook instance that serves several concurrent episodes,
    keyed by the episode's context (by identity: a context is not hashable, and an id
    reused by a later context starts fresh). Drop it in `on_episode_end`."""

    def __init__(self, make: Callable[[], S]):
        self._make = make
        self._by_id: dict[int, tuple[EpisodeContext, S]] = {}

    def of(self, ctx: EpisodeContext) -> S:
        entry = self._by_id.get(id(ctx))
        if entry is None or entry[0] is not ctx:
            entry = (ctx, self._make())
            self._by_id[id(ctx)] = entry
        return entry[1]

    def drop(self, ctx: EpisodeContext) -> None:
        self._by_id.pop(id(ctx), None)

    def __len__(self) -> int:
        """Episodes with state (none once every episode ended)."""
        return len(self._by_id)


@dataclass(frozen=True)
class ResultReview:
    """A guard's answer to a tool result: `retry` runs the call again (the call the agent's
    history holds, through every hook again); otherwise the agent sees `replace`."""

    retry: bool = False
    replace: Observation | None = None


MAX_RETRIES = 3
"""Retries of one call a review may ask for; the last result stands after them."""


@dataclass
class AgentHooks:
    """Base hook: does nothing. Subclass and override what you need."""

    name: str = field(default="hooks")

    def wrap_model(self, ctx: EpisodeContext, model: Model) -> Model | None:
        return None

    def on_model_output(self, ctx: EpisodeContext, output: ModelOutput) -> Message | None:
        return None

    def before_tool_call(self, ctx: EpisodeContext, call: ToolCall) -> CallRewrite | None:
        return None

    def rewrite_observation(
        self, ctx: EpisodeContext, call: ToolCall, observation: Observation
    ) -> Observation | None:
        return None

    def review_result(
        self, ctx: EpisodeContext, call: ToolCall, observation: Observation, attempt: int
    ) -> ResultReview | None:
        return None

    def after_tool_result(
        self, ctx: EpisodeContext, call: ToolCall, observation: Observation
    ) -> None:
        return None

    def before_final(self, ctx: EpisodeContext, final: FinalEvent) -> FinalEvent | None:
        return None

    def on_episode_end(self, ctx: EpisodeContext) -> None:
        return None
