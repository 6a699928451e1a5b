"""Offline replay: the interceptor's decision on a stored trace, without calling a model."""

from __future__ import annotations

from collections.abc import Sequence

from pydantic import BaseModel, Field

from agentprop.core import (
    FinalEvent,
    ModelCallEvent,
    Task,
    ToolResultEvent,
    Trace,
    TraceEvent,
)
from agentprop.intercept._config import InterceptConfig
from agentprop.intercept._signals import EpisodeState, Firing, Layer, Signals, decide


class ReplayResult(BaseModel):
    """What the interceptor would have done on a trace.

    `layer` is the first layer that fired (L1 < L2 < L3), `layers` all of them; in abstain
    mode `abstained` equals `fires`. In warn mode a replay can only say whether the warning
    would have been given (the agent's reaction to it is not in the trace): `fires` is that,
    and `abstained` is False.
    """

    fires: bool
    layer: Layer | None = None
    reason: str | None = None
    abstained: bool = False
    layers: list[Layer] = Field(default_factory=list)


def episode_state(trace: Trace, task: Task | None = None) -> tuple[EpisodeState, str | None]:
    """Feed a stored trace's events into a fresh `EpisodeState`, in the order the agent
    loop's hooks saw them; return it with the un-intercepted final answer (None if the
    episode has none).

    The question comes from `task` when given, else from the trace's first user message;
    system messages are context too (they state "today"), as online.
    """
    state = EpisodeState()
    user = [m.content for m in trace.messages if m.role == "user" and m.content]
    state.add_context(task.query if task is not None else (user[0] if user else None))
    for m in trace.messages:
        if m.role == "system":
            state.add_context(m.content)
    last_candidate, final = feed_events(state, trace.events)
    answer: str | None = None
    if final is not None:
        # An intercepted trace keeps the agent's own answer in its last model output.
        answer = last_candidate if final.abstained else final.answer
    return state, answer


def feed_events(state: EpisodeState, events: Sequence[TraceEvent]
                ) -> tuple[str | None, FinalEvent | None]:
    """Feed `events` into `state` in the order the loop's hooks saw them: (the last answer
    candidate of a model output, the final event), each None if there is none yet."""
    last_candidate: str | None = None
    final: FinalEvent | None = None
    for ev in events:
        if isinstance(ev, ModelCallEvent):
            last_candidate = state.add_model_output(ev.output)
        elif isinstance(ev, ToolResultEvent):
            state.add_observation(ev.observation)
        elif isinstance(ev, FinalEvent):
            final = ev
    return last_candidate, final


def trace_signals(trace: Trace, config: InterceptConfig, task: Task | None = None) -> Signals:
    state, answer = episode_state(trace, task)
    return state.signals(answer, config)


def signals_for(
    trace: Trace, configs: Sequence[InterceptConfig], task: Task | None = None
) -> list[Signals]:
    """`trace_signals` under each of `configs`, replaying the episode once (`signals` only
    reads the state, so the results are the same as separate calls)."""
    if not configs:
        return []
    state, answer = episode_state(trace, task)
    return [state.signals(answer, c) for c in configs]


def result_of(firings: list[Firing], config: InterceptConfig) -> ReplayResult:
    if not firings:
        return ReplayResult(fires=False)
    return ReplayResult(
        fires=True,
        layer=firings[0].layer,
        reason="; ".join(f"{f.layer}: {f.reason}" for f in firings),
        abstained=config.mode == "abstain",
        layers=[f.layer for f in firings],
    )


def replay(trace: Trace, config: InterceptConfig, *, task: Task | None = None) -> ReplayResult:
    """The decision the interceptor with `config` makes on `trace`'s episode.

    Uses the same `EpisodeState` and `decide` as the online hook, fed from the stored
    events, so in abstain mode it agrees exactly with an online run of the same episode.
    """
    return result_of(decide(trace_signals(trace, config, task), config), config)
