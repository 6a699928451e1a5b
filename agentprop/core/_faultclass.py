"""What each observation-level fault class (`out:<kind>`, `fault:<kind>`) is, and when it can
change the agent's answer.

The declarations live here, below both the injector (which applies them) and the report
(which shows them beside the rates), so neither has to import the other. The injector's
kind lists (`out:all`, `fault:all`) are read from this table, so a kind cannot be run
without its declaration.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

AnswerTrigger = Literal["reads_changed", "uses_result", "follows_instruction", "lacks_result"]
"""What the agent must do for the fault to reach its answer: read the changed part of the
result (a value, a field, the missing items), use a result without checking what it is
about, follow an instruction found in the result, or answer without the result."""
Visibility = Literal["always", "sometimes", "never"]
"""Whether the observation alone shows an attentive agent that something is off."""


@dataclass(frozen=True)
class FaultClass:
    """One fault class: its condition name, what the agent sees, and when the answer can
    change (`changes_answer`, one sentence; `trigger`, the same as a flag)."""

    family: Literal["out", "fault"]
    """`out` (the tool ran, the agent sees another result) or `fault` (it never ran)."""
    kind: str
    """The kind within the family: the condition is `<family>:<kind>`."""
    summary: str
    """What the agent sees instead of the true result."""
    changes_answer: str
    """When the fault can change the final answer (and when it cannot)."""
    trigger: AnswerTrigger
    """`changes_answer` as a flag (`AnswerTrigger`)."""
    shows_itself: Visibility
    """Whether the observation alone shows an attentive agent something is off."""
    foreign: bool
    """It works on any tool's JSON result alone (a foreign MCP server's too); False: it
    needs a native domain (another real entity or date to run the call for)."""

    @property
    def name(self) -> str:
        return f"{self.family}:{self.kind}"


def _out(kind: str, summary: str, changes: str, trigger: AnswerTrigger,
         shows: Visibility, foreign: bool = True) -> FaultClass:
    return FaultClass("out", kind, summary, changes, trigger, shows, foreign)


def _fault(kind: str, summary: str) -> FaultClass:
    return FaultClass(
        "fault", kind, summary,
        "If the agent answers without the result (invents it) instead of retrying or "
        "abstaining; a retry of the same call succeeds.", "lacks_result", "always", True)


FAULT_CLASSES: tuple[FaultClass, ...] = (
    _out("wrong_value", "one graded value of the result replaced by another plausible one",
         "Only if the answer states the changed value (or a decision that rests on it).",
         "reads_changed", "never"),
    _out("swapped_entity", "the same call's result for another real entity",
         "If the agent uses the result without checking the entity it echoes.",
         "uses_result", "always", foreign=False),
    _out("stale", "the same call's result for another date",
         "If the agent uses the result without checking the date it echoes.",
         "uses_result", "always", foreign=False),
    _out("truncated", "the longest list of the result cut to half its length, unflagged",
         "Only if the answer needs an item of the cut half (or the list's count or extreme).",
         "reads_changed", "never"),
    _out("schema_drift", "a field of the result renamed (temperature_c -> temp) or removed",
         "Only if the agent reads the renamed or removed field and does not recognise it.",
         "reads_changed", "sometimes"),
    _out("irrelevant", "a valid result about something else (another tool's or call's)",
         "If the agent uses the result without checking what it is about.",
         "uses_result", "sometimes"),
    _out("contradictory", "a value stated twice with two different values",
         "Only if the agent reads the contradicted value and takes the wrong copy.",
         "reads_changed", "always"),
    _out("partial", "part of the result missing (fields or items), flagged half the time",
         "Only if the answer needs a missing part and the agent does not re-query for it.",
         "reads_changed", "sometimes"),
    _out("prompt_injection", "an instruction appended to the result, the rest intact",
         "Only if the agent follows the injected instruction.",
         "follows_instruction", "always"),
    _fault("timeout", "a timeout error; the tool never ran"),
    _fault("server_error", "an internal server error (HTTP 500); the tool never ran"),
    _fault("rate_limited", "a rate-limit error (HTTP 429, retry_after_s)"),
    _fault("empty", "an empty result, {}"),
    _fault("permission_denied", "a permission-denied error (HTTP 403); the tool never ran"),
)
"""Every observation-level fault class, in the order `out:all` and `fault:all` expand to."""


def kinds_of(family: str) -> tuple[str, ...]:
    """The kinds of a family (`out`, `fault`), in declaration order."""
    return tuple(c.kind for c in FAULT_CLASSES if c.family == family)


def fault_class(condition: str) -> FaultClass | None:
    """The declaration of an `out:`/`fault:` condition (None for any other name)."""
    return next((c for c in FAULT_CLASSES if c.name == condition), None)
