"""Shared phrasing helpers of the weather and calendar generators: relative-date phrasings
anchored on REFERENCE_DATE, number formatting that matches the suite check, and the failure
sentence of an answer. (The draw-execute-render loop is in `_draw`.)"""

from __future__ import annotations

import random
from datetime import date, timedelta

from agentprop.core import REFERENCE_DATE, Fact, FactRole, Task
from agentprop.domains import Observation

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


def number_fact(key: str, x: float, unit: str | None, tol: float, *,
                accepts: list[float] | None = None, role: FactRole = "asked",
                about: dict[str, list[str]] | None = None, exact: bool = False) -> Fact:
    """A number fact at the canonical precision (the other arguments are `Fact` fields)."""
    return Fact(kind="number", key=key, value=number_value(x), unit=unit, tolerance=tol,
                accepts=[number_value(a) for a in accepts or []], role=role,
                about=about or {}, exact=exact)


def failure_sentence(tool: str | None, obs: Observation, noun: str = "lookup",
                     unknown: str = "unknown error") -> str:
    """The sentence an answer gives for an error observation (states the error message;
    `unknown` when it has none)."""
    err = obs.get("error", {}) if isinstance(obs, dict) else {}
    what = f"The {tool} {noun}" if tool else f"The {noun}"
    return f"{what} failed ({err.get('type', 'error')}): {err.get('message', unknown)}."


def tool_at(task: Task, i: int) -> str | None:
    return task.gold_plan[i].name if i < len(task.gold_plan) else None
