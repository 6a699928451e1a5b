"""Fitting a tool the sim does not know to a user's question, as an LLM would from the tool
list alone: which offered tool the question is about (word overlap with the tool's name,
description and parameters) and what to pass it (for each parameter, a value of its kind
that the question holds, else the schema's default or examples, else, when required, a
value an earlier observation holds). Pure functions of (question, tools, observations),
so the same request always fits the same call."""

from __future__ import annotations

import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

from jsonschema.validators import validator_for

from agentprop.core import ToolSpec
from agentprop.sim._common import Observation

_STOP_WORDS = """
a an the of in on at to for from by with and or not is are was were be been am do does did
what whats which who whom whose how when where why can could would should will shall may
might must i im me my mine you your it its this that these those there here please tell
show give get find us our some any all just then than also about into as if so
hi hello thanks thank want need like know let lets see check look up out over one
"""
_STOP = frozenset(_STOP_WORDS.split())
"""Words that say nothing about which tool a question is for."""
_SYNONYMS = {"now": "current", "today": "current", "latest": "recent", "directory": "path",
             "folder": "path", "repository": "repo"}
_WEIGHTS = {"name": 3.0, "param": 2.0, "text": 1.0}

_TZ = re.compile(r"\b(?:Africa|America|Antarctica|Arctic|Asia|Atlantic|Australia|Europe|Indian"
                 r"|Pacific|Etc)/[A-Za-z_]+(?:/[A-Za-z_]+)?|\bUTC\b")
_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
_TIME = re.compile(r"(?<![\d:])([01]?\d|2[0-3]):([0-5]\d)(?![\d:])")
_PATH = re.compile(r"(?<![\w/])(?:~|\.{1,2})?/[^\s'\"`,;?!()]+")
_SQL = re.compile(r"`([^`]+)`|\bquery:\s*(.+)$", re.IGNORECASE | re.DOTALL)
_QUOTED = re.compile(r"\"([^\"]+)\"|“([^”]+)”|(?<!\w)'([^']+)'(?!\w)")
_NUM = re.compile(r"(?<![\w.])-?\d+(?:\.\d+)?(?![\w.])")
_PREV_WORD = re.compile(r"([A-Za-z]+)\W*$")
_SOURCE_CUES = frozenset({"from", "source", "origin"})
_TARGET_CUES = frozenset({"to", "into", "in", "target", "destination"})


def words(text: str) -> list[str]:
    """Lower-case content words of `text`, camelCase and snake_case split, plurals folded."""
    spaced = re.sub(r"(?<=[a-z0-9])(?=[A-Z])", " ", text)
    out = []
    for w in re.findall(r"[a-z0-9]+", spaced.lower()):
        if w in _STOP or len(w) < 2:
            continue
        if len(w) > 4 and w.endswith("ies"):
            w = w[:-3] + "y"
        elif len(w) > 3 and w.endswith("s") and not w.endswith("ss"):
            w = w[:-1]
        out.append(_SYNONYMS.get(w, w))
    return out


def _same(a: str, b: str) -> bool:
    return a == b or (min(len(a), len(b)) >= 4 and (a.startswith(b) or b.startswith(a)))


def _props(tool: ToolSpec) -> dict[str, dict[str, Any]]:
    props = tool.parameters.get("properties") or {}
    return {k: v if isinstance(v, dict) else {} for k, v in props.items()}


def relevance(query: str, tool: ToolSpec, pool: list[Clue] | None = None) -> float:
    """How much the question is about `tool`: each distinct question word counts once, by
    where it matches best (the tool's name 3, a parameter's name 2, any description 1).
    The question's values (`clues`: a timezone, a path, a number...) are arguments, not
    topic words: left out, so 'America/New_York' does not match a description's example."""
    where: list[tuple[str, str]] = [(w, "name") for w in words(tool.name)]
    where += [(w, "text") for w in words(tool.description)]
    for name, schema in _props(tool).items():
        where += [(w, "param") for w in words(name)]
        where += [(w, "text") for w in words(str(schema.get("description", "")))]
    topic = query
    for c in reversed(clues(query) if pool is None else pool):
        topic = topic[: c.start] + " " + topic[c.end:]
    score = 0.0
    for q in dict.fromkeys(words(topic)):
        score += max((_WEIGHTS[kind] for w, kind in where if _same(q, w)), default=0.0)
    return score


@dataclass(frozen=True)
class Clue:
    """A value the question holds: its text, kind, position and the word before it."""

    value: Any
    kind: str
    start: int
    end: int
    before: str


def clues(query: str) -> list[Clue]:
    """Every value of a recognised kind in the question, in order of appearance. A number
    inside another value (a date, a time, a path, a quoted string) is not a number."""
    found: list[Clue] = []
    taken: list[tuple[int, int]] = []

    def add(kind: str, value: Any, start: int, end: int) -> None:
        if any(s < end and start < e for s, e in taken):
            return
        prev = _PREV_WORD.search(query[:start])
        found.append(Clue(value, kind, start, end, prev.group(1).lower() if prev else ""))
        taken.append((start, end))

    for m in _SQL.finditer(query):
        text = (m.group(1) or m.group(2) or "").strip().strip("`").strip()
        if text:
            add("sql", text, m.start(), m.end())
    for m in _TZ.finditer(query):
        add("timezone", m.group(0), m.start(), m.end())
    for m in _DATE.finditer(query):
        add("date", m.group(0), m.start(), m.end())
    for m in _TIME.finditer(query):
        add("time", f"{int(m.group(1)):02d}:{m.group(2)}", m.start(), m.end())
    for m in _PATH.finditer(query):
        add("path", m.group(0).rstrip(".:"), m.start(), m.end())
    for m in _QUOTED.finditer(query):
        add("string", next(g for g in m.groups() if g), m.start(), m.end())
    for m in _NUM.finditer(query):
        text = m.group(0)
        add("number", float(text) if "." in text else int(text), m.start(), m.end())
    return sorted(found, key=lambda c: c.start)


def param_kind(name: str, schema: dict[str, Any]) -> str:
    """What kind of value a parameter takes, from its schema, name and description."""
    if "enum" in schema:
        return "enum"
    types = schema.get("type")
    types = set(types) if isinstance(types, list) else {types}
    fmt = str(schema.get("format", ""))
    own = set(words(name))
    desc = str(schema.get("description", ""))
    if own & {"timezone", "tz"} or "timezone" in name.lower():
        return "timezone"
    if types & {"integer", "number"}:
        return "number"
    if "boolean" in types:
        return "boolean"
    if fmt == "date" or "date" in own:
        return "date"
    if fmt == "time" or "time" in own or "HH:MM" in desc:
        return "time"
    if own & {"path", "dir", "file", "repo", "filename"} or fmt in ("uri", "uri-reference"):
        return "path"
    if own & {"sql", "statement"} or (own & {"query"} and "sql" in desc.lower()):
        return "sql"
    return "string"


def _in_range(value: Any, schema: dict[str, Any]) -> bool:
    types = schema.get("type")
    if types == "integer" and not isinstance(value, int):
        return False
    lo, hi = schema.get("minimum"), schema.get("maximum")
    xlo, xhi = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
    return not ((lo is not None and value < lo) or (hi is not None and value > hi)
                or (xlo is not None and value <= xlo) or (xhi is not None and value >= xhi))


def _enum_member(query: str, schema: dict[str, Any]) -> Any:
    """The enum member the question names (the longest, so 'full' beats 'f')."""
    lowered = query.casefold()
    named = [v for v in schema["enum"] if isinstance(v, str | int | float)
             and re.search(rf"(?<!\w){re.escape(str(v).casefold())}(?!\w)", lowered)]
    return max(named, key=lambda v: len(str(v))) if named else None


def _cued(name: str, pool: list[Clue]) -> Clue | None:
    """Among values of one kind, the one the parameter's role picks: a `source_*`
    parameter takes the value after 'from', a `target_*` one the value after 'to'."""
    own = set(words(name))
    cues = _SOURCE_CUES if own & _SOURCE_CUES else _TARGET_CUES if own & _TARGET_CUES else None
    if cues:
        for c in pool:
            if c.before in cues:
                return c
    return pool[0] if pool else None


def _from_observations(name: str, observations: Sequence[Observation]) -> Any:
    """The latest scalar an earlier observation holds under key `name` (at any depth)."""

    def walk(node: Any) -> Iterator[Any]:
        if isinstance(node, dict):
            for k, v in node.items():
                if k == name and isinstance(v, str | int | float) and not isinstance(v, bool):
                    yield v
                yield from walk(v)
        elif isinstance(node, list):
            for v in node:
                yield from walk(v)

    for obs in reversed(observations):
        for value in walk(obs):
            return value
    return None


@dataclass(frozen=True)
class Fit:
    """A call the sim can make: the tool, its arguments, which of them the question gave
    (the ones an echo in the observation is compared with) and the tool's relevance."""

    tool: ToolSpec
    arguments: dict[str, Any]
    from_query: frozenset[str]
    score: float


def fill(query: str, tool: ToolSpec, observations: Sequence[Observation] = (),
         pool: list[Clue] | None = None, score: float | None = None) -> Fit | None:
    """Arguments for `tool` from the question, or None when a required parameter has
    nothing to go on or the arguments do not validate against the tool's schema. `pool`
    (the question's `clues`) and `score` (the tool's `relevance`) when the caller has
    them."""
    props = _props(tool)
    required = [p for p in tool.parameters.get("required") or [] if isinstance(p, str)]
    order = [*required, *(p for p in props if p not in required)]
    pool = clues(query) if pool is None else pool
    used: set[int] = set()
    args: dict[str, Any] = {}
    from_query: set[str] = set()
    for name in order:
        schema = props.get(name, {})
        kind = param_kind(name, schema)
        value: Any = None
        if kind == "enum":
            value = _enum_member(query, schema)
        elif kind != "boolean":
            fits = [c for c in pool if c.start not in used and c.kind == kind
                    and (kind != "number" or _in_range(c.value, schema))]
            clue = _cued(name, fits) if kind != "string" or name in required else None
            if clue is not None:
                used.add(clue.start)
                value = clue.value
        if value is not None:
            args[name] = value
            from_query.add(name)
            continue
        if name not in required:
            continue
        examples = schema.get("examples")
        if "default" in schema:
            value = schema["default"]
        elif isinstance(examples, list) and examples:
            value = examples[0]
        else:
            value = _from_observations(name, observations)
        if value is None:
            return None
        args[name] = value
    if score is None:
        score = relevance(query, tool, pool)
    return _validated(tool, args, from_query, required, score)


def _validated(tool: ToolSpec, args: dict[str, Any], from_query: set[str],
               required: list[str], score: float) -> Fit | None:
    """The fit, after dropping optional arguments the schema rejects (None when a
    required one is rejected)."""
    schema = tool.parameters or {"type": "object"}
    validator = validator_for(schema)(schema)
    for _ in range(len(args) + 1):
        bad = {str(e.path[0]) if e.path else "" for e in validator.iter_errors(args)}
        if not bad:
            return Fit(tool, args, frozenset(from_query & set(args)), score)
        optional = [k for k in bad if k in args and k not in required]
        if not optional:
            return None
        for k in optional:
            del args[k]
    return None


ARGUMENT_BONUS = 0.5
"""Added to a tool's relevance per argument the question gave: of two tools the question
is equally about, the one that takes more of its values fits better."""


def best_fit(query: str, tools: Sequence[ToolSpec],
             observations: Sequence[Observation] = ()) -> Fit | None:
    """The offered tool that fits the question best and can be called, or None when no
    tool shares a topic word with the question or takes one of its values, or none can be
    filled. Equal fits go to the tool listed first."""
    best: tuple[float, Fit] | None = None
    pool = clues(query)
    for tool in tools:
        score = relevance(query, tool, pool)
        fit = fill(query, tool, observations, pool, score)
        # no shared topic word: still a fit when the question hands it an argument (a
        # SQL statement for a tool that takes one), as a reader would see
        if fit is None or (score <= 0 and not fit.from_query):
            continue
        total = fit.score + ARGUMENT_BONUS * len(fit.from_query)
        if best is None or total > best[0]:
            best = (total, fit)
    return best[1] if best else None
