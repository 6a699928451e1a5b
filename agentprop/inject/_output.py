"""Corrupted tool output, `out:<kind>`, the paper-era kinds and the helpers every kind
shares: the tool runs correctly, but the agent sees a corrupted observation; the true one
is stored as the counterfactual.

- `wrong_value`: one graded value of the result (a value the task's facts grade, else any
  number) replaced by another plausible one: a number moved by 20-40 % (at least 2), a
  word (a severity, a condition) taken from another real entity's result (natively only);
- `swapped_entity`: the result of the same call for another real entity (city, patient,
  drug, product, event...);
- `stale`: the result of the same call for another date;
- `truncated`: the longest list of the result cut to half its length.

The kinds added for foreign tools are in `_observed`; `_outhooks` dispatches and hooks them.
A call whose result offers nothing to corrupt (an error, no list, no other entity) is not
eligible; the injector waits for a later call, like P2. Random choices come from the unit's
generator (`unit_rng`, keyed by the condition), so a unit always gets the same corruption.
"""

from __future__ import annotations

import copy
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from agentprop.core import Task, ToolCall
from agentprop.domains import (
    Domain,
    Environment,
    Observation,
    ObservationPath,
    Tool,
    is_error,
    observation_leaves,
)

ENTITY_KINDS = frozenset({"city", "event_id", "patient_id", "drug", "specialty", "doctor_id",
                          "product_id", "article_id", "category"})
"""Critical-parameter kinds that name a real entity (swapping one gives another entity's
result); dates, times, units and amounts are not entities."""
DATE_KINDS = frozenset({"date"})

Path = ObservationPath


@dataclass(frozen=True)
class OutputCorruption:
    """What the agent sees instead of the true observation, and what changed where."""

    path: str
    original: Any
    injected: Any
    observation: Observation
    removed: bool = False
    """The field at `path` was removed (schema drift, a partial result's dropped fields)."""


@dataclass(frozen=True)
class Native:
    """A native domain's material for one call (another entity's result, the task's graded
    facts); a foreign tool's call has none, and the kinds then work on the observation."""

    tool: Tool
    domain: Domain
    env: Environment
    """The episode state after the call; never modified."""
    task: Task | None = None


def lists(obj: Any, path: Path = ()) -> Iterator[tuple[Path, list[Any]]]:
    """Every list of an observation with its path, outer lists first."""
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from lists(v, (*path, k))
    elif isinstance(obj, list):
        yield path, obj
        for i, v in enumerate(obj):
            yield from lists(v, (*path, i))


def get_at(obj: Any, path: Path) -> Any:
    """The value at `path` (raises KeyError/IndexError/TypeError when there is none)."""
    for p in path:
        obj = obj[p]
    return obj


def set_at(obj: Observation, path: Path, value: Any) -> Observation:
    """A copy of `obj` with `value` at `path`."""
    out = copy.deepcopy(obj)
    parent: Any = out
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = value
    return out


def dotted(path: Path) -> str:
    return ".".join(str(p) for p in path)


def is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def rerun(call: ToolCall, tool: Tool, domain: Domain, env: Environment,
          rng: random.Random, kinds: frozenset[str]) -> tuple[str, Any, Any, Observation] | None:
    """The same call with one critical parameter of `kinds` swapped for another real value,
    run on a copy of the state: (param, original, swapped value, observation)."""
    params = [p for p, k in tool.spec.critical_params.items()
              if k in kinds and p in call.arguments]
    rng.shuffle(params)
    for p in params:
        original = call.arguments[p]
        try:
            value = domain.alternative(tool.spec.critical_params[p], original, rng, env)
        except KeyError:
            continue
        if value == original:
            continue
        obs = env.copy().call(call.name, {**call.arguments, p: value})
        if not is_error(obs):
            return p, original, value, obs
    return None


def shift(value: int | float, rng: random.Random) -> int | float:
    """Another plausible number: 20-40 % (at least 2) away, same sign and precision."""
    delta = max(2.0, abs(value) * rng.uniform(0.2, 0.4))
    up = rng.random() < 0.5
    new = value + delta if up else value - delta
    if (value >= 0 > new) or (0 <= value <= 100 < new):
        new = value - delta if up else value + delta
    if isinstance(value, int):
        return round(new)
    decimals = len(repr(value).split(".")[1]) if "." in repr(value) else 1
    return round(new, min(decimals, 2))


def graded(task: Task | None) -> tuple[list[float], set[str]]:
    """The numbers and words the task's facts grade (what an answer is judged on)."""
    numbers: list[float] = []
    words: set[str] = set()
    for f in task.expected_facts if task is not None else []:
        if is_number(f.value):
            numbers.append(float(f.value))
        elif isinstance(f.value, str):
            words.add(f.value.casefold().strip())
    return numbers, words


def wrong_value(call: ToolCall, obs: Observation, native: Native | None,
                rng: random.Random) -> OutputCorruption | None:
    """`out:wrong_value` (module docstring); without a domain, numbers only."""
    numbers, words = graded(native.task if native else None)
    leaves = [(p, v) for p, v in observation_leaves(obs)
              if p and isinstance(p[-1], str) and p[-1] not in call.arguments
              and not p[-1].endswith("id") and (is_number(v) or isinstance(v, str))]
    hits = [(p, v) for p, v in leaves
            if (is_number(v) and any(abs(float(v) - x) < 1e-6 for x in numbers))
            or (isinstance(v, str) and v.casefold().strip() in words)]
    candidates = hits or [(p, v) for p, v in leaves if is_number(v)]
    if not candidates and native is None:  # a foreign tool's plain text: a number in it
        return _number_in_text(leaves, obs, rng)
    rng.shuffle(candidates)
    other: Observation | None = None
    for path, value in candidates:
        if is_number(value):
            new: Any = shift(value, rng)
        else:
            if other is None:
                hit = None if native is None else rerun(
                    call, native.tool, native.domain, native.env, rng, ENTITY_KINDS)
                other = hit[3] if hit else {}
            try:
                new = get_at(other, path)
            except (KeyError, IndexError, TypeError):
                continue
            if not isinstance(new, str) or new.casefold() == value.casefold():
                continue
        return OutputCorruption(dotted(path), value, new, set_at(obs, path, new))
    return None


_TEXT_NUMBER = re.compile(r"(?<![\w.:/#-])\d+(?:\.\d+)?(?![\w.:/-]|\.\d)")
"""A number standing alone in text: not part of a date, time, version, path, hash or id."""


def _number_in_text(leaves: list[tuple[Path, Any]], obs: Observation,
                    rng: random.Random) -> OutputCorruption | None:
    """A number standing alone in a text field moved as `shift` moves one (the path
    names the field, `original`/`injected` the numbers)."""
    found = [(p, v, m) for p, v in leaves if isinstance(v, str)
             for m in _TEXT_NUMBER.finditer(v)]
    if not found:
        return None
    path, text, m = found[rng.randrange(len(found))]
    raw = m.group(0)
    value: int | float = float(raw) if "." in raw else int(raw)
    new = shift(value, rng)
    changed = text[:m.start()] + str(new) + text[m.end():]
    return OutputCorruption(dotted(path), value, new, set_at(obs, path, changed))


def _text_lines(obs: Observation) -> OutputCorruption | None:
    """A foreign tool's text cut to the first half of its lines (at least 4 lines)."""
    for path, v in observation_leaves(obs):
        if isinstance(v, str):
            lines = v.splitlines()
            if len([x for x in lines if x.strip()]) >= 4:
                kept = "\n".join(lines[: len(lines) // 2])
                return OutputCorruption(dotted(path), len(lines), len(lines) // 2,
                                        set_at(obs, path, kept))
    return None


def rerun_corruption(call: ToolCall, obs: Observation, native: Native | None,
                     rng: random.Random, kinds: frozenset[str]) -> OutputCorruption | None:
    """`out:swapped_entity` / `out:stale`: the call rerun for another entity or date of
    `kinds` (natively only: a foreign tool has no other real value to run it for)."""
    if native is None:
        return None
    hit = rerun(call, native.tool, native.domain, native.env, rng, kinds)
    if hit is None or hit[3] == obs:
        return None
    param, original, value, other = hit
    return OutputCorruption(param, original, value, other)


def truncated(obs: Observation, foreign: bool = False) -> OutputCorruption | None:
    """`out:truncated`: the longest list cut to half its length; for a foreign tool's
    result without a list, its text's lines cut to half."""
    cands = [(p, v) for p, v in lists(obs) if len(v) >= 2]
    if not cands:
        return _text_lines(obs) if foreign else None
    path, items = max(cands, key=lambda pv: len(pv[1]))  # max keeps the first of ties
    kept = items[: len(items) // 2]
    return OutputCorruption(dotted(path), len(items), len(kept), set_at(obs, path, kept))
