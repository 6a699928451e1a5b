"""Run conditions: their names, how they parse, and the hook that applies one to a unit.

- `baseline`: no injection.
- `p2:<error_type>[@first|@last|@random|@n=K]`: P2, one wrong parameter in the chosen
  eligible call (`@first`, the paper's, is the default and the canonical name drops it).
- `p2:multi=K`: K parameters corrupted, in one call or across calls.
- `out:<kind>`: the tool runs correctly, the agent sees a corrupted observation.
- `fault:<kind>`: the call fails (a typed error) or returns an empty result.
- `api:<kind>`: one model call fails as the model API fails (429, 500) or arrives cut.
`p2:all`, `out:all`, `fault:all` and `api:all` expand to every kind of their family.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from agentprop.agent import AgentHooks
from agentprop.core import Task, UnknownNameError, WorkUnit, unknown_message
from agentprop.domains import Domain, get_domain
from agentprop.inject._api import API, API_KINDS, ApiFaultHooks
from agentprop.inject._faults import FAULT_KINDS, FaultHooks
from agentprop.inject._hooks import PROTOCOL_NAME, InjectionHooks, Position
from agentprop.inject._multi import MAX_MULTI, MultiInjectionHooks
from agentprop.inject._outhooks import OUTPUT_KINDS, OutputHooks
from agentprop.inject._protocols import ERROR_TYPES, PROTOCOLS, get_protocol
from agentprop.plugins import explain_unknown, load_plugins

BASELINE = "baseline"
ALL = f"{PROTOCOL_NAME}:all"
OUTPUT = "out"
FAULT = "fault"
Family = Literal["p2", "out", "fault", "api"]
FAMILIES: dict[str, tuple[str, ...]] = {
    PROTOCOL_NAME: ERROR_TYPES, OUTPUT: OUTPUT_KINDS, FAULT: FAULT_KINDS, API: API_KINDS,
}
POSITIONS = ("first", "last", "random")
_AT_N = re.compile(r"^n=(\d+)$")
_MULTI = re.compile(r"^multi=(\d+)$")


class UnknownConditionError(UnknownNameError, ValueError):
    """A condition name no family knows; the message lists the valid ones."""


@dataclass(frozen=True)
class Condition:
    """A parsed condition. `kind` is the error type, output kind or fault kind ("multi" for
    `p2:multi=K`, with `k` set); `position` says which eligible call is corrupted."""

    family: Family
    kind: str
    position: Position = "first"
    k: int = 1

    @property
    def name(self) -> str:
        """The canonical name (`@first` and `@n=1` are the default and are dropped)."""
        if self.kind == "multi":
            return f"{self.family}:multi={self.k}"
        at = "" if self.position in ("first", 1) else (
            f"@n={self.position}" if isinstance(self.position, int) else f"@{self.position}")
        return f"{self.family}:{self.kind}{at}"


def _error_types() -> list[str]:
    """The paper's four error types, then those plugins registered (`p2:all` expands to
    the four only: a plugin's error type is asked for by name)."""
    load_plugins()
    return [*ERROR_TYPES, *(t for t in PROTOCOLS.names() if t not in ERROR_TYPES)]


def _kinds(family: str) -> tuple[str, ...]:
    """The kinds a family accepts by name (p2: the paper's four and plugins' types)."""
    return tuple(_error_types()) if family == PROTOCOL_NAME else FAMILIES[family]


def valid_conditions() -> list[str]:
    """Every condition name, with the position and multi forms as patterns."""
    out = [BASELINE]
    for family in FAMILIES:
        out += [f"{family}:all", *(f"{family}:{k}" for k in _kinds(family))]
        if family == PROTOCOL_NAME:
            out += ["p2:<type>@first", "p2:<type>@last", "p2:<type>@random", "p2:<type>@n=K",
                    f"p2:multi=K (K = 2..{MAX_MULTI})"]
    return out


def _unknown(condition: str, why: str = "") -> UnknownConditionError:
    """The unknown-condition error, with the closest concrete condition names (and the
    plugin that failed to load, when one did)."""
    concrete = [c for c in valid_conditions() if "<" not in c and " " not in c]
    return explain_unknown(UnknownConditionError(unknown_message(
        "condition", condition, concrete, why=why, label="valid",
        listing=", ".join(valid_conditions()))))


def parse_condition(condition: str) -> Condition | None:
    """The parsed condition (None for baseline); raises `UnknownConditionError`."""
    if condition == BASELINE:
        return None
    family, sep, rest = condition.partition(":")
    if not sep or family not in FAMILIES:
        raise _unknown(condition)
    fam: Family = family  # type: ignore[assignment]
    kind, at, where = rest.partition("@")
    if family == PROTOCOL_NAME and not at and (m := _MULTI.match(kind)):
        k = int(m.group(1))
        if not 2 <= k <= MAX_MULTI:
            raise _unknown(condition, f"multi takes K from 2 to {MAX_MULTI}")
        return Condition("p2", "multi", "first", k)
    if kind not in _kinds(family):
        raise _unknown(condition)
    if not at:
        return Condition(fam, kind)
    if family != PROTOCOL_NAME:
        raise _unknown(condition, "a call position is given to p2 conditions only")
    position: Position
    if where in POSITIONS:
        position = where  # type: ignore[assignment]
    elif (m := _AT_N.match(where)) and int(m.group(1)) >= 1:
        n = int(m.group(1))
        position = "first" if n == 1 else n
    else:
        raise _unknown(condition, "positions: @first, @last, @random, @n=K with K >= 1")
    return Condition("p2", kind, position)


def error_type_of(condition: str) -> str | None:
    """The kind of a condition (error type, output or fault kind; "multi"); None for
    baseline. Raises for an unknown condition."""
    parsed = parse_condition(condition)
    return None if parsed is None else parsed.kind


def expand_conditions(conditions: Iterable[str]) -> list[str]:
    """Validate, expand `<family>:all`, canonicalise (`p2:x@first` is `p2:x`); dedupe,
    keep order."""
    out: list[str] = []
    for raw in conditions:
        cond = raw.strip()
        family, _, kind = cond.partition(":")
        if kind == "all" and family in FAMILIES:
            expanded = [f"{family}:{k}" for k in FAMILIES[family]]
        else:
            parsed = parse_condition(cond)
            expanded = [BASELINE if parsed is None else parsed.name]
        for c in expanded:
            if c not in out:
                out.append(c)
    return out


def is_injectable(task: Task, domain: Domain | None = None) -> bool:
    """Whether the injected conditions can target this task's domain (knowledge tasks
    have no tool parameters worth corrupting). Runners should not plan injected units for
    tasks where this is False; if they do, the injector records `no_target_param`.
    `domain` is the task's domain when it is not a registered one (an upstream server's)."""
    return (domain or get_domain(task.domain)).injectable


def hooks_for(
    condition: str, unit: WorkUnit, task: Task, *, in_history: bool = True,
    domain: Domain | None = None,
) -> AgentHooks | None:
    """The injector for one work unit: None for `baseline`, else a fresh hook (never share
    one between episodes). `<family>:all` must be expanded first (`expand_conditions`).
    `domain`: the task's domain when it is not a registered one (an upstream server's)."""
    parsed = parse_condition(condition)
    if parsed is None:
        return None
    domain = domain or get_domain(task.domain)
    # a world agentprop does not simulate (an upstream server's): its results alone
    world = None if domain.foreign else domain
    if parsed.family == OUTPUT:
        return OutputHooks(unit=unit, task=task, domain=world, kind=parsed.kind)
    if parsed.family == FAULT:
        return FaultHooks(unit=unit, task=task, domain=world, kind=parsed.kind)
    if parsed.family == API:
        return ApiFaultHooks(unit=unit, task=task, kind=parsed.kind)
    if parsed.kind == "multi":
        return MultiInjectionHooks(unit=unit, task=task, domain=domain, k=parsed.k,
                                   in_history=in_history)
    return InjectionHooks(
        unit=unit,
        task=task,
        domain=domain,
        protocol=get_protocol(parsed.kind),
        error_type=parsed.kind,
        in_history=in_history,
        position=parsed.position,
    )
