"""The built-in baseline mitigations, each a `Guard` (the rows of the mitigation ×
fault-class matrix). They read the interceptor's own signals, so a layer means the same
thing here as in the interceptor."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agentprop.agent import WARNING_PREFIX
from agentprop.core import GuardEvent, UnknownNameError, did_you_mean
from agentprop.intercept._config import InterceptConfig
from agentprop.intercept._guard import Decision, Guard, GuardView
from agentprop.intercept._signals import Firing, decide

RETRY_LIMIT = 2
"""Retries of a failed call by the `retry` mitigation (LangChain's default is 2 too)."""


@dataclass(frozen=True)
class Mitigation:
    """A named built-in mitigation: what it does, and how to build its guard from the
    interceptor configuration in use (thresholds of the layers it reads)."""

    name: str
    summary: str
    build: Callable[[InterceptConfig], Guard]
    replays_as: Callable[[InterceptConfig], InterceptConfig] | None = None
    """For a mitigation that only abstains: the interceptor configuration that makes the
    same decision, so its effect has an exact replay estimate over the control arm."""


def _layers(view: GuardView, config: InterceptConfig) -> list[Firing]:
    return decide(view.signals(config), config)


def _reasons(firings: list[Firing]) -> str:
    return "; ".join(f"{f.layer}: {f.reason}" for f in firings)


def _retry(config: InterceptConfig) -> Guard:
    def guard(view: GuardView) -> Decision | None:
        if view.point == "tool_result" and view.is_error and view.attempt < RETRY_LIMIT:
            err = view.observation["error"] if isinstance(view.observation, dict) else {}
            return Decision.retry(f"tool error ({err.get('type') or 'error'}): retry "
                                  f"{view.attempt + 1} of {RETRY_LIMIT}")
        return None
    return guard


REQUERY_TEXT = WARNING_PREFIX + (
    " Before you answer: something in your tool results looks wrong ({why}). Call the tool "
    "again with the exact values from the question, and answer only from what it returns."
)


def _requery(config: InterceptConfig) -> Guard:
    """The note starts like the interceptor's warning, so it is never read back as
    context (L3) and a simulated agent heeds it as it heeds a warning."""
    cfg = config.model_copy(update={"l3": False})

    def guard(view: GuardView) -> Decision | None:
        if view.point != "answer" or any(
                isinstance(e, GuardEvent) and e.action == "reject" for e in view.events):
            return None  # one re-query per episode; then the answer stands
        fired = _layers(view, cfg)
        if not fired:
            return None
        return Decision.reject(REQUERY_TEXT.format(why=", ".join(f.layer for f in fired)),
                               reason=_reasons(fired))
    return guard


ASK_TEXT = (
    "I could not verify what the tools returned for your question ({why}). Could you "
    "confirm the details you are asking about, so that I can look them up again?"
)


def _ask_user(config: InterceptConfig) -> Guard:
    def guard(view: GuardView) -> Decision | None:
        fired = _layers(view, config) if view.point == "answer" else []
        if not fired:
            return None
        return Decision.abstain(_reasons(fired), message=ASK_TEXT.format(
            why=", ".join(f.layer for f in fired)))
    return guard


def _only(layer: str) -> Callable[[InterceptConfig], InterceptConfig]:
    def config_of(config: InterceptConfig) -> InterceptConfig:
        return config.model_copy(update={"l1": layer == "L1", "l2": layer == "L2",
                                         "l3": layer == "L3", "mode": "abstain"})
    return config_of


def _abstain_on(layer: str) -> Callable[[InterceptConfig], Guard]:
    def build(config: InterceptConfig) -> Guard:
        return _interceptor(_only(layer)(config))
    return build


def _abstaining(config: InterceptConfig) -> InterceptConfig:
    return config.model_copy(update={"mode": "abstain"})


def _interceptor(config: InterceptConfig) -> Guard:
    def guard(view: GuardView) -> Decision | None:
        fired = _layers(view, config) if view.point == "answer" else []
        return Decision.abstain(_reasons(fired)) if fired else None
    return guard


MITIGATIONS: tuple[Mitigation, ...] = (
    Mitigation("retry", f"retry a call whose result is a tool error (up to {RETRY_LIMIT} "
               "times), as LangChain's tool-retry middleware does", _retry),
    Mitigation("requery", "when L1 or L2 fires at the answer, hold it back once and ask the "
               "agent to call the tool again with the question's exact values", _requery),
    Mitigation("ask_user", "when any layer fires at the answer, ask the user to confirm "
               "the details instead of answering (counted as an abstention)", _ask_user,
               _abstaining),
    Mitigation("abstain_l1", "abstain when L1 (tool errors) alone fires", _abstain_on("L1"),
               _only("L1")),
    Mitigation("abstain_l2", "abstain when L2 (uncertainty words) alone fires",
               _abstain_on("L2"), _only("L2")),
    Mitigation("abstain_l3", "abstain when L3 (an unsupported number) alone fires",
               _abstain_on("L3"), _only("L3")),
    Mitigation("interceptor", "abstain when any layer fires: the interceptor itself, "
               "as a guard", _interceptor, _abstaining),
)
"""The matrix's rows, in order."""


def mitigation(name: str) -> Mitigation:
    """The built-in mitigation `name`; UnknownNameError (with a suggestion) otherwise."""
    for m in MITIGATIONS:
        if m.name == name:
            return m
    names = [m.name for m in MITIGATIONS]
    raise UnknownNameError(f"unknown mitigation {name!r}{did_you_mean(name, names)} "
                           f"(built in: {', '.join(names)})")
