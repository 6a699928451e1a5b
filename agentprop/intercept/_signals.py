"""The one implementation of the three layers, fed event by event.

Online, the `Interceptor` hook feeds an `EpisodeState` from the agent loop's hook calls;
offline, `replay` feeds the same state from a stored trace's events. Both then call
`decide`, so for the same episode they reach the same decision.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from typing import Any, Literal

from agentprop.agent import WARNING_PREFIX
from agentprop.core import ModelOutput
from agentprop.domains import is_error
from agentprop.intercept._config import InterceptConfig
from agentprop.intercept._numbers import Support, stated_numbers

ABSTENTION_TEXT = (
    "I can't give a reliable answer to this: the information I retrieved looks erroneous "
    "or inconsistent, so I am not going to guess."
)

# Text-mode (ReAct) turns: an Action line means tool use; "Final Answer:" splits off the
# answer from the thought before it.
_ACTION = re.compile(r"^[ \t]*\**Action\**[ \t]*:", re.M | re.I)
_FINAL = re.compile(r"^[ \t]*\**Final[ \t]*Answer\**[ \t]*:", re.M | re.I)


def split_output(output: ModelOutput) -> tuple[str, str | None]:
    """(reasoning text, answer candidate or None) of one model output.

    Reasoning = provider reasoning content + assistant text beside tool calls (or the
    "Thought" before a text-mode "Final Answer:"). An output with no tool call is an answer
    candidate; its text is the answer, not reasoning.
    """
    text = output.text or ""
    parts = [output.reasoning or ""]
    candidate: str | None = None
    if output.tool_calls or _ACTION.search(text):
        parts.append(text)
    else:
        final = _FINAL.search(text)
        if final:
            parts.append(text[: final.start()])
            candidate = text[final.end() :].strip()
        else:
            candidate = text
    return "\n".join(p for p in parts if p), candidate


Layer = Literal["L1", "L2", "L3"]


@dataclass(frozen=True)
class Firing:
    """One layer that fired, and why (one line, for the trace and the report)."""

    layer: Layer
    reason: str


@dataclass
class Signals:
    """What the three layers measured; `decide` applies a config's thresholds to it.

    `unsupported` is None when L3 has nothing to check (no answer, or no tool observation
    at all: an answer given without looking anything up is not an inconsistency with
    observations, and no-tool traces are their own outcome).
    """

    tool_errors: list[str] = field(default_factory=list)
    keyword_hits: Counter[str] = field(default_factory=Counter)
    unsupported: list[str] | None = None

    @property
    def l1_count(self) -> int:
        return len(self.tool_errors)

    @property
    def l2_count(self) -> int:
        return sum(self.keyword_hits.values())


def signal_strength(signals: Signals) -> int:
    """One scalar suspicion score per trace (higher = more suspicious) for threshold-free
    measures such as the AURC: every piece of evidence the three layers weigh, counted
    once (tool errors, uncertainty keywords, unsupported numbers)."""
    return signals.l1_count + signals.l2_count + len(signals.unsupported or [])


def decide(signals: Signals, config: InterceptConfig) -> list[Firing]:
    """The layers that fire under `config`, in layer order (empty = let the answer pass)."""
    firings: list[Firing] = []
    if config.l1 and signals.l1_count >= config.tau_l1:
        kinds = ", ".join(f"{k}×{n}" for k, n in Counter(signals.tool_errors).most_common())
        firings.append(
            Firing(
                "L1",
                f"{signals.l1_count} tool error observation(s) ({kinds}) >= tau_l1="
                f"{config.tau_l1}",
            )
        )
    if config.l2 and signals.l2_count >= config.tau_l2:
        words = ", ".join(f"{k}×{n}" for k, n in signals.keyword_hits.most_common())
        firings.append(
            Firing(
                "L2",
                f"{signals.l2_count} uncertainty keyword(s) in the reasoning ({words}) >= "
                f"tau_l2={config.tau_l2}",
            )
        )
    if config.l3 and signals.unsupported:
        shown = ", ".join(signals.unsupported[:5])
        more = f" (+{len(signals.unsupported) - 5} more)" if len(signals.unsupported) > 5 else ""
        firings.append(
            Firing("L3", f"the answer states {shown}{more}, which no observation supports")
        )
    return firings


@dataclass
class EpisodeState:
    """Everything the layers need, accumulated as the episode unfolds.

    `mark()` restarts the L1/L2 counts (warn mode: after the warning, only new evidence
    counts); L3 always checks the answer against every observation of the episode.
    """

    reasoning: list[str] = field(default_factory=list)
    tool_errors: list[str] = field(default_factory=list)
    observations: list[Any] = field(default_factory=list)
    context: list[str] = field(default_factory=list)
    warned: bool = False
    _reasoning_from: int = 0
    _errors_from: int = 0

    def add_model_output(self, output: ModelOutput) -> str | None:
        """Record an output's reasoning text; return its answer candidate (None if it calls
        tools)."""
        reasoning, candidate = split_output(output)
        if reasoning:
            self.reasoning.append(reasoning)
        return candidate

    def add_observation(self, observation: Any) -> None:
        self.observations.append(observation)
        if is_error(observation):
            err = observation["error"]
            self.tool_errors.append(str(err.get("type") or "error"))

    def add_context(self, text: str | None) -> None:
        if text and not text.startswith(WARNING_PREFIX) and text not in self.context:
            self.context.append(text)

    def mark(self) -> None:
        self._reasoning_from = len(self.reasoning)
        self._errors_from = len(self.tool_errors)

    def signals(self, answer: str | None, config: InterceptConfig) -> Signals:
        pattern = config.keyword_pattern()
        hits: Counter[str] = Counter()
        for text in self.reasoning[self._reasoning_from :]:
            hits.update(m.group(0).lower() for m in pattern.finditer(text))
        unsupported: list[str] | None = None
        if config.l3 and answer and self.observations:
            support = Support()
            for obs in self.observations:
                support.add_observation(obs)
            for text in self.context:
                support.add_text(text)
            unsupported = [n.text for n in support.unsupported(stated_numbers(answer))]
        return Signals(
            tool_errors=list(self.tool_errors[self._errors_from :]),
            keyword_hits=hits,
            unsupported=unsupported,
        )
