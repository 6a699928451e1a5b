"""Shared helpers of the weather and calendar generators: relative-date phrasings anchored on
REFERENCE_DATE, number formatting that matches the suite check, the difficulty/intent
schedule, and the draw-execute-render loop that turns a draft into a Task."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, timedelta
from typing import Any

from agentprop.core import REFERENCE_DATE, Difficulty, Fact, Task, ToolCall
from agentprop.domains import Environment, Observation, is_error

TODAY = date.fromisoformat(REFERENCE_DATE)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")


def iso(offset: int) -> str:
    return (TODAY + timedelta(days=offset)).isoformat()


def relative_phrases(offset: int) -> list[str]:
    """Unambiguous relative phrasings of TODAY + `offset` days (TODAY is a Monday)."""
    d = TODAY + timedelta(days=offset)
    wd = WEEKDAYS[d.weekday()]
    out: list[str] = []
    if offset == 0:
        out += ["today"]
    elif offset == 1:
        out += ["tomorrow", "tomorrow", f"this {wd}"]
    elif offset == 2:
        out += ["the day after tomorrow", "in 2 days", f"this {wd}"]
    elif 3 <= offset <= 6:
        out += [f"in {offset} days", f"this {wd}"]
    elif offset == 7:
        out += ["next Monday", "a week from today", "in 7 days"]
    elif 8 <= offset <= 13:
        out += [f"in {offset} days", f"{wd} next week"]
    elif offset == -1:
        out += ["yesterday"]
    elif -6 <= offset <= -2:
        out += [f"{-offset} days ago", f"last {wd}"]
    elif offset == -7:
        out += ["a week ago", "last Monday"]
    return out


def absolute_phrases(offset: int) -> list[str]:
    d = TODAY + timedelta(days=offset)
    return [f"on {d.isoformat()}", f"on {MONTHS[d.month - 1]} {d.day}",
            f"on {d.day} {MONTHS[d.month - 1]} {d.year}"]


def date_phrase(rng: random.Random, offset: int, p_relative: float = 0.6) -> tuple[str, bool]:
    """A phrasing of TODAY + `offset` and whether it is relative."""
    rel = relative_phrases(offset)
    if rel and rng.random() < p_relative:
        return rng.choice(rel), True
    return rng.choice(absolute_phrases(offset)), False


def num(x: float) -> str:
    """How references print numbers: at most one decimal, no trailing zero (the check's `:g`)."""
    return f"{round(float(x), 1) + 0.0:g}"


def number_value(x: float) -> float | int:
    """The canonical fact value: an int when integral, else rounded to one decimal."""
    v = round(float(x), 1) + 0.0
    return int(v) if v.is_integer() else v


def number_fact(key: str, x: float, unit: str | None, tol: float) -> Fact:
    return Fact(kind="number", key=key, value=number_value(x), unit=unit, tolerance=tol)


def schedule(
    n: int, weights: list[tuple[str, Difficulty, float]], rng: random.Random
) -> list[tuple[str, Difficulty]]:
    """Exactly `n` (intent, difficulty) slots in the given proportions (largest remainder),
    shuffled deterministically."""
    total = sum(w for _, _, w in weights)
    raw = [n * w / total for _, _, w in weights]
    counts = [int(r) for r in raw]
    order = sorted(range(len(raw)), key=lambda i: (counts[i] - raw[i], i))
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    out = [(name, diff) for (name, diff, _), c in zip(weights, counts, strict=True)
           for _ in range(c)]
    rng.shuffle(out)
    return out


def sub_seed(seed: int, domain: str, i: int) -> int:
    h = hashlib.sha256(f"{seed}:{domain}:{i}".encode()).digest()
    return int.from_bytes(h[:4], "big") & 0x7FFFFFFF


class Redraw(Exception):
    """A draw that does not make a good task (e.g. an empty day for "delete X"): draw again."""


@dataclass
class Draft:
    """A task under construction: the gold plan is executed call by call as it is built."""

    env: Environment
    query: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    expected_state: dict[str, Any] | None = None

    def call(self, name: str, args: dict[str, Any]) -> Observation:
        """Execute one gold call; an error observation means the draw is unusable."""
        obs = self.env.call(name, args)
        if is_error(obs):
            raise Redraw(f"{name}({args}) -> {obs['error']}")
        self.calls.append(ToolCall(id=f"gold_{len(self.calls) + 1}", name=name,
                                   arguments=dict(args)))
        self.observations.append(obs)
        return obs


Builder = Callable[[Draft, random.Random], None]


def build_task(
    *,
    domain: str,
    index: int,
    intent: str,
    difficulty: Difficulty,
    seed: int,
    tools: list[str],
    make_env: Callable[[int], Environment],
    builder: Builder,
    render: Callable[[Task, list[Observation]], str],
    facts: Callable[[Task, list[Observation]], list[Fact]],
    attempts: int = 50,
) -> Task:
    """Draw, execute and render one task; redraw (deterministically) when a draw fails."""
    base = sub_seed(seed, domain, index)
    last: Exception | None = None
    for attempt in range(attempts):
        rng = random.Random(f"{base}:{attempt}")
        env_seed = rng.getrandbits(31)
        draft = Draft(env=make_env(env_seed))
        try:
            builder(draft, rng)
        except Redraw as e:
            last = e
            continue
        task = Task(
            id=f"{domain}_{index:04d}", domain=domain, split="test", difficulty=difficulty,
            intent=intent, query=draft.query, tools=tools, env_seed=env_seed,
            gold_plan=draft.calls, reference_answer="", expected_state=draft.expected_state,
            meta=draft.meta,
        )
        task.reference_answer = render(task, draft.observations)
        task.expected_facts = facts(task, draft.observations)
        return task
    raise RuntimeError(f"could not draw a {domain}/{intent} task after {attempts} tries: {last}")


def failure_sentence(tool: str | None, obs: Observation, noun: str = "lookup") -> str:
    """The sentence an answer gives for an error observation (states the error message)."""
    err = obs.get("error", {}) if isinstance(obs, dict) else {}
    what = f"The {tool} {noun}" if tool else f"The {noun}"
    return f"{what} failed ({err.get('type', 'error')}): {err.get('message', 'unknown error')}."


def tool_at(task: Task, i: int) -> str | None:
    return task.gold_plan[i].name if i < len(task.gold_plan) else None
