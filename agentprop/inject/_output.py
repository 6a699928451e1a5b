"""Corrupted tool output, `out:<kind>`: the tool runs correctly, but the agent sees a
corrupted observation; the true one is stored as the counterfactual.

- `wrong_value`: one graded value of the result (a value the task's facts grade, else any
  number) replaced by another plausible one: a number moved by 20-40 % (at least 2), a
  word (a severity, a condition) taken from another real entity's result;
- `swapped_entity`: the result of the same call for another real entity (city, patient,
  drug, product, event...);
- `stale`: the result of the same call for another date;
- `truncated`: the longest list of the result cut to half its length.

A call whose result offers nothing to corrupt (an error, no list, no other entity) is not
eligible; the injector waits for a later call, like P2. Random choices come from the unit's
generator (`unit_rng`, keyed by the condition), so a unit always gets the same corruption.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from agentprop.agent import CallRewrite, EpisodeContext
from agentprop.core import InjectionEvent, Task, ToolCall
from agentprop.domains import (
    Domain,
    Environment,
    Observation,
    ObservationPath,
    Tool,
    is_error,
    observation_leaves,
)
from agentprop.inject._hooks import OneCallHooks
from agentprop.inject._protocols import unit_rng

OUTPUT = "out"
OUTPUT_KINDS: tuple[str, ...] = ("wrong_value", "swapped_entity", "stale", "truncated")
"""The output corruptions, in the order `out:all` expands to."""
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


def _lists(obj: Any, path: Path = ()) -> Iterator[tuple[Path, list[Any]]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _lists(v, (*path, k))
    elif isinstance(obj, list):
        yield path, obj
        for i, v in enumerate(obj):
            yield from _lists(v, (*path, i))


def _get(obj: Any, path: Path) -> Any:
    for p in path:
        obj = obj[p]
    return obj


def _set(obj: Observation, path: Path, value: Any) -> Observation:
    out = copy.deepcopy(obj)
    parent: Any = out
    for p in path[:-1]:
        parent = parent[p]
    parent[path[-1]] = value
    return out


def _dotted(path: Path) -> str:
    return ".".join(str(p) for p in path)


def _is_number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _rerun(call: ToolCall, tool: Tool, domain: Domain, env: Environment,
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


def _shift(value: int | float, rng: random.Random) -> int | float:
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


def _graded(task: Task | None) -> tuple[list[float], set[str]]:
    numbers: list[float] = []
    words: set[str] = set()
    for f in task.expected_facts if task is not None else []:
        if _is_number(f.value):
            numbers.append(float(f.value))
        elif isinstance(f.value, str):
            words.add(f.value.casefold().strip())
    return numbers, words


def _wrong_value(call: ToolCall, obs: Observation, tool: Tool, domain: Domain,
                 env: Environment, rng: random.Random,
                 task: Task | None) -> OutputCorruption | None:
    numbers, words = _graded(task)
    leaves = [(p, v) for p, v in observation_leaves(obs)
              if p and isinstance(p[-1], str) and p[-1] not in call.arguments
              and not p[-1].endswith("id") and (_is_number(v) or isinstance(v, str))]
    graded = [(p, v) for p, v in leaves
              if (_is_number(v) and any(abs(float(v) - x) < 1e-6 for x in numbers))
              or (isinstance(v, str) and v.casefold().strip() in words)]
    candidates = graded or [(p, v) for p, v in leaves if _is_number(v)]
    rng.shuffle(candidates)
    other: Observation | None = None
    for path, value in candidates:
        if _is_number(value):
            new: Any = _shift(value, rng)
        else:
            if other is None:
                hit = _rerun(call, tool, domain, env, rng, ENTITY_KINDS)
                other = hit[3] if hit else {}
            try:
                new = _get(other, path)
            except (KeyError, IndexError, TypeError):
                continue
            if not isinstance(new, str) or new.casefold() == value.casefold():
                continue
        return OutputCorruption(_dotted(path), value, new, _set(obs, path, new))
    return None


def _rerun_corruption(call: ToolCall, obs: Observation, tool: Tool, domain: Domain,
                      env: Environment, rng: random.Random,
                      kinds: frozenset[str]) -> OutputCorruption | None:
    hit = _rerun(call, tool, domain, env, rng, kinds)
    if hit is None or hit[3] == obs:
        return None
    param, original, value, other = hit
    return OutputCorruption(param, original, value, other)


def _truncated(obs: Observation) -> OutputCorruption | None:
    lists = [(p, v) for p, v in _lists(obs) if len(v) >= 2]
    if not lists:
        return None
    path, items = max(lists, key=lambda pv: len(pv[1]))  # max keeps the first of ties
    kept = items[: len(items) // 2]
    return OutputCorruption(_dotted(path), len(items), len(kept), _set(obs, path, kept))


def corrupt_observation(kind: str, call: ToolCall, obs: Observation, tool: Tool,
                        domain: Domain, env: Environment, rng: random.Random,
                        task: Task | None = None) -> OutputCorruption | None:
    """The corrupted observation of `kind` for a call's true result (None: not eligible).
    `env` is the episode state after the call; it is never modified."""
    if is_error(obs):
        return None
    if kind == "wrong_value":
        return _wrong_value(call, obs, tool, domain, env, rng, task)
    if kind == "swapped_entity":
        return _rerun_corruption(call, obs, tool, domain, env, rng, ENTITY_KINDS)
    if kind == "stale":
        return _rerun_corruption(call, obs, tool, domain, env, rng, DATE_KINDS)
    if kind == "truncated":
        return _truncated(obs)
    raise KeyError(kind)


@dataclass
class OutputHooks(OneCallHooks):
    """Corrupts the observation of the first eligible call with `kind`; one event per
    episode ("applied", or at the end "no_tool_call" / "no_target_param")."""

    protocol: ClassVar[str] = OUTPUT
    name: str = "out"
    kind: str = "wrong_value"

    def before_tool_call(self, ctx: EpisodeContext, call: ToolCall) -> CallRewrite | None:
        self.calls_seen += 1
        return None

    def rewrite_observation(
        self, ctx: EpisodeContext, call: ToolCall, observation: Observation
    ) -> Observation | None:
        if self.done or self.domain is None or not self.domain.injectable:
            return None
        tool = self.domain.tool(call.name)
        if tool is None:
            return None
        rng = unit_rng(self.unit or ctx.unit, f"{OUTPUT}:{self.kind}")
        c = corrupt_observation(self.kind, call, observation, tool, self.domain, ctx.env, rng,
                                self.task or ctx.task)
        if c is None:
            return None
        self.done = True
        ctx.events.append(InjectionEvent(
            step=ctx.step, protocol=OUTPUT, error_type=self.kind, status="applied",
            call_id=call.id, tool=call.name, param=c.path, original=c.original,
            injected=c.injected, call_index=self.calls_seen,
        ))
        return c.observation
