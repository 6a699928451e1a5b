"""Run conditions: `baseline` (no injection) and `p2:<error_type>`; their hooks."""

from __future__ import annotations

from collections.abc import Iterable

from agentprop.core import Task, UnknownNameError, WorkUnit
from agentprop.domains import get_domain
from agentprop.inject._hooks import PROTOCOL_NAME, InjectionHooks
from agentprop.inject._protocols import ERROR_TYPES, PROTOCOLS, get_protocol
from agentprop.plugins import load_plugins

BASELINE = "baseline"
ALL = f"{PROTOCOL_NAME}:all"


class UnknownConditionError(UnknownNameError, ValueError):
    """A condition name that is neither `baseline` nor `p2:<error_type>`; lists valid ones."""


def _error_types() -> list[str]:
    """The paper's four error types, then those plugins registered (`p2:all` expands to
    the four only: a plugin's error type is asked for by name)."""
    load_plugins()
    return [*ERROR_TYPES, *(t for t in PROTOCOLS.names() if t not in ERROR_TYPES)]


def valid_conditions() -> list[str]:
    return [BASELINE, ALL, *(f"{PROTOCOL_NAME}:{t}" for t in _error_types())]


def _unknown(condition: str) -> UnknownConditionError:
    return UnknownConditionError(
        f"unknown condition {condition!r} (valid: {', '.join(valid_conditions())})"
    )


def error_type_of(condition: str) -> str | None:
    """The error type of a condition (None for baseline); raises for an unknown condition."""
    if condition == BASELINE:
        return None
    prefix, _, kind = condition.partition(":")
    if prefix == PROTOCOL_NAME and kind in _error_types():
        return kind
    raise _unknown(condition)


def expand_conditions(conditions: Iterable[str]) -> list[str]:
    """Validate conditions and expand `p2:all` to the four error types; dedupe, keep order."""
    out: list[str] = []
    for raw in conditions:
        cond = raw.strip()
        expanded = [f"{PROTOCOL_NAME}:{t}" for t in ERROR_TYPES] if cond == ALL else [cond]
        for c in expanded:
            error_type_of(c)
            if c not in out:
                out.append(c)
    return out


def is_injectable(task: Task) -> bool:
    """Whether P2 can target this task's domain (knowledge tasks have no tool parameters
    worth corrupting). Runners should not plan `p2:*` units for tasks where this is False;
    if they do, the injector records status `no_target_param` (or `no_tool_call`)."""
    return get_domain(task.domain).injectable


def hooks_for(
    condition: str, unit: WorkUnit, task: Task, *, in_history: bool = True
) -> InjectionHooks | None:
    """The injector for one work unit: None for `baseline`, a fresh `InjectionHooks` for
    `p2:<error_type>`. `p2:all` must be expanded first (`expand_conditions`)."""
    error_type = error_type_of(condition)
    if error_type is None:
        return None
    return InjectionHooks(
        unit=unit,
        task=task,
        domain=get_domain(task.domain),
        protocol=get_protocol(error_type),
        error_type=error_type,
        in_history=in_history,
    )
