"""The interceptor as an agent-loop hook (online)."""

from __future__ import annotations

from agentprop.agent import WARNING_PREFIX, AgentHooks, EpisodeContext, EpisodeStates
from agentprop.core import FinalEvent, InterceptEvent, Message, ModelOutput, ToolCall
from agentprop.domains import Observation
from agentprop.intercept._config import InterceptConfig
from agentprop.intercept._signals import (
    ABSTENTION_TEXT,
    EpisodeState,
    Firing,
    decide,
)


def warning_text(firings: list[Firing]) -> str:
    """The message warn mode adds: what looks wrong, and what to do about it."""
    reasons = "; ".join(f"{f.layer}: {f.reason}" for f in firings)
    return (
        f"{WARNING_PREFIX} Before you answer, check your work. Something looks wrong: "
        f"{reasons}. Re-read the tool results against the question; if a call used a wrong "
        "or invalid argument, call the tool again with the correct one. State only values the "
        "tools returned. If you cannot get reliable information, say so instead of guessing."
    )


class Interceptor(AgentHooks):
    """Three-layer runtime monitor (L1 tool errors, L2 reasoning keywords, L3 unsupported
    numbers in the answer).

    mode "abstain": when a layer fires at the final answer, the answer is replaced by an
    abstention. mode "warn": the first time a layer fires on an answer candidate, the
    answer is held back and a `user` message (the only role a message without a tool call
    id may take in every provider's API) tells the agent what looks wrong; the agent
    continues, and the interceptor abstains only if a layer fires again on evidence
    gathered after the warning. Every decision is recorded as an `InterceptEvent`.

    Per-episode state is keyed by the episode context, so one instance may serve several
    concurrent episodes; it is dropped in `on_episode_end`.
    """

    def __init__(self, config: InterceptConfig | None = None, *, name: str = "interceptor"):
        self.name = name
        self.config = config or InterceptConfig()
        self._episodes = EpisodeStates(EpisodeState)

    def __repr__(self) -> str:
        return f"Interceptor({self.config.label}, mode={self.config.mode})"

    def _state(self, ctx: EpisodeContext) -> EpisodeState:
        state = self._episodes.of(ctx)
        state.add_context(ctx.task.query)
        for m in ctx.messages:
            if m.role == "system":
                state.add_context(m.content)
        return state

    def on_model_output(self, ctx: EpisodeContext, output: ModelOutput) -> Message | None:
        state = self._state(ctx)
        candidate = state.add_model_output(output)
        if self.config.mode != "warn" or state.warned or candidate is None:
            return None
        firings = decide(state.signals(candidate, self.config), self.config)
        if not firings:
            return None
        for f in firings:
            ctx.events.append(
                InterceptEvent(step=ctx.step, layer=f.layer, decision="warn", reason=f.reason)
            )
        state.warned = True
        state.mark()
        return Message(role="user", content=warning_text(firings))

    def after_tool_result(
        self, ctx: EpisodeContext, call: ToolCall, observation: Observation
    ) -> None:
        self._state(ctx).add_observation(observation)

    def before_final(self, ctx: EpisodeContext, final: FinalEvent) -> FinalEvent | None:
        if final.abstained:
            return None
        state = self._state(ctx)
        firings = decide(state.signals(final.answer, self.config), self.config)
        if not firings:
            return None
        for f in firings:
            ctx.events.append(
                InterceptEvent(step=ctx.step, layer=f.layer, decision="abstain", reason=f.reason)
            )
        return FinalEvent(
            step=final.step,
            answer=ABSTENTION_TEXT,
            abstained=True,
            reason="; ".join(f"{f.layer}: {f.reason}" for f in firings),
        )

    def on_episode_end(self, ctx: EpisodeContext) -> None:
        self._episodes.drop(ctx)
