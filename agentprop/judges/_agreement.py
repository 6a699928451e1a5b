"""Do two answers to one question give the same answer? The one home of that comparison.

`answers_agree(query, a, b)` reads the claims of each answer by kind (numbers with their
units, times, dates, weekdays, UTC offsets, commit hashes and other hex ids, identifiers
such as paths, versions, branches and e-mails, quoted text, capitalised names, and the
yes/no of a polar question), drops what the query itself states (it restates the
question, it answers nothing), and compares the kinds the query asks about:

- a polar question whose two answers say yes and no disagree;
- for a kind both answers state, they agree when one answer's values are all found among
  the other's (an answer may add or leave out detail), and disagree otherwise;
- the kinds the query asks about decide when both answers state them; only when none of
  them is stated by both do the other kinds decide (the commit message decides a question
  about the message, not the author's name beside it);
- nothing comparable → None (never a guess).

It is symmetric, so the noise-floor analysis (do two clean answers agree?) and the `agree`
judge (does the faulty answer agree with the clean one?) use the same rule. With
`observations` (the clean run's tool results, JSON objects), the value a tool returned
under the field the query names ("message", "author") is the asked value: the answer that
states it and the one that states another of that field's values disagree.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from agentprop.judges._extract import find_dates, find_numbers, find_times, norm_text

Span = tuple[int, int]

_HEX = re.compile(r"(?<![\w.])(?=[0-9a-f]*\d)(?=[0-9a-f]*[a-f])[0-9a-f]{7,64}(?!\w|\.\w)", re.I)
_OFFSET = re.compile(
    r"\b(?:utc|gmt)\s*(?P<sign>[+\-−–])\s*(?P<h>\d{1,2})(?::?(?P<m>\d{2}))?"
    r"|(?P<h2>\d{1,2}(?:\.\d+)?)\s*(?:hours?|h)(?:\s*(?:and\s*)?(?P<m2>\d{1,2})\s*min(?:ute)?s?)?"
    r"\s+(?P<dir>ahead of|behind)\s+(?:utc|gmt)\b", re.I)
_PLACE = r"[A-Z][\w.'-]*(?:\s+[A-Z][\w.'-]*)*"
_RELATIVE = re.compile(rf"(?P<a>{_PLACE})\s+is\s+(?P<n>\d+(?:\.\d+)?|\w+)\s+hours?"
                       r"(?:\s+(?:and\s+)?(?P<m>\d+)\s+min(?:ute)?s?)?\s+"
                       rf"(?P<dir>ahead of|behind)\s+(?P<b>{_PLACE})")
# quoted text; not `code` (markdown marks identifiers and commands with it, not quotations)
_QUOTE = re.compile(r"\"([^\"\n]{2,200})\"|“([^”\n]{2,200})”"
                    r"|(?<![\w])'([^'\n]{2,200})'(?![\w])")
_IDENT = re.compile(r"(?<![\w@./:-])[A-Za-z0-9_]+(?:[./@:\-][A-Za-z0-9_]+)+"
                    r"(?![\w@/-])")
_NAME_RUN = re.compile(r"\b[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|\d+|[A-Z]\d\w*))*")
_WEEKDAY = re.compile(r"\b(monday|tuesday|wednesday|thursday|friday|saturday|sunday)\b", re.I)
_YES = re.compile(r"^\W*(yes|yep|yeah|correct|indeed|true)\b", re.I)
_NO = re.compile(r"^\W*(no|nope|not|false|none)\b", re.I)
_POLAR_Q = re.compile(r"^\s*(is|are|does|do|did|was|were|has|have|had|can|could|will|should"
                      r")\b", re.I)
_UNIT_AFTER = re.compile(r"\s*(kb|mb|gb|tb|kib|mib|gib|bytes?|kilobytes?|megabytes?|"
                         r"gigabytes?|hours?|hrs?|minutes?|mins?|days?|weeks?|months?|years?"
                         r"|seconds?|secs?|ms)\b", re.I)
_UNIT_WORD = MappingProxyType({
    "kilobyte": "kb", "megabyte": "mb", "gigabyte": "gb", "byte": "b", "hr": "hour",
    "min": "minute", "sec": "second", "kib": "kb", "mib": "mb", "gib": "gb"})


def _words(text: str) -> list[str]:
    return text.split()


_SMALL = MappingProxyType({w: i for i, w in enumerate(_words(
    "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen "
    "fifteen sixteen seventeen eighteen nineteen"))})
_TENS = MappingProxyType({w: 10 * i for i, w in enumerate(_words(
    "_ _ twenty thirty forty fifty sixty seventy eighty ninety")) if w != "_"})
_WORD_NUM = re.compile(r"\b(?=\w)(?:(?P<h>" + "|".join(_SMALL) + r")\s+hundred(?:\s+and)?\s*)?"
                       r"(?P<t>" + "|".join(_TENS) + r")?(?:[\s-]?(?P<s>" + "|".join(_SMALL)
                       + r"))?\b", re.I)
_NOT_NAMES = frozenset(_words(
    "the a an it its it's this that these those there here yes no not yes, latest last most "
    "current currently top only in on at of for by from to when which what who whom whose "
    "how head files file tables table columns column status select count sum max min avg "
    "total average i we you he she they my our your his her their and or but so if then "
    "also all each every one two three four five six seven eight nine ten twelve utc gmt "
    "commit commits branch branches tag tags the page title sign sign-ups revenue customer "
    "customers product products order orders employees department id list found after "
    "before since today yesterday tomorrow now right about around roughly approximately "
    "nearly almost just over under both none nothing everything something first second "
    "third root merge merged largest biggest highest lowest newest oldest earliest most "
    "recent product: there's that's here's sure ok okay note according based looking "
    "monday tuesday wednesday thursday friday saturday sunday january february march april "
    "may june july august september october november december am pm"))
_LIST = re.compile(r"\b[\w-]+(?:,\s*[\w-]+)+,?\s+(?:and|&)\s+[\w-]+\b"
                   r"|\b[\w-]+(?:,\s*[\w-]+){2,}\b")
_ALTERNATIVE = re.compile(r"\b([\w./-]+)\s+or\s+([\w./-]+)\s*\?\s*$", re.I)
_FLAG = re.compile(r"\b(true|false|enabled|disabled|on|off)\b", re.I)
_FLAG_VALUE = MappingProxyType({"true": True, "enabled": True, "on": True, "false": False,
                                "disabled": False, "off": False})
_GAVE_UP = re.compile(r"\b(?:couldn[’']?t|could not|can[’']?t|cannot|unable|not able|"
                      r"don[’']?t know|do not know|failed to|no access|unavailable)\b", re.I)
_ONLY = re.compile(r"\bonly\b", re.I)
_STOP = frozenset(_words(
    "a an the is are was were be been to of in on at for by with from and or it its this "
    "that as"))


def _word_number(m: re.Match[str]) -> float | None:
    h, t, s = m["h"], m["t"], m["s"]
    if not (h or t or s):
        return None
    return float((_SMALL[h.lower()] * 100 if h else 0) + (_TENS[t.lower()] if t else 0)
                 + (_SMALL[s.lower()] if s else 0))


@dataclass
class Claims:
    """What one answer states, by kind; each value is canonical for its kind."""

    values: dict[str, set[Any]] = field(default_factory=dict)
    polarity: bool | None = None
    text: str = ""
    exhaustive: bool = False  # "only X": its values are all there is, not a selection

    def add(self, kind: str, value: Any) -> None:
        self.values.setdefault(kind, set()).add(value)


def _mask(text: str, spans: Iterable[Span]) -> str:
    chars = list(text)
    for a, b in spans:
        chars[a:b] = " " * (b - a)
    return "".join(chars)


def _offset_minutes(m: re.Match[str]) -> int:
    if m["h"] is not None:
        sign = -1 if m["sign"] in "-−–" else 1
        return sign * (int(m["h"]) * 60 + int(m["m"] or 0))
    minutes = round(float(m["h2"]) * 60) + int(m["m2"] or 0)
    return minutes if m["dir"].lower() == "ahead of" else -minutes


def _relative(m: re.Match[str]) -> tuple[str, str, int] | None:
    """"Sydney is 9 hours ahead of Berlin" as (berlin, sydney, -540): the two places in
    a fixed order and the first one's offset from the second, so the reverse sentence
    ("Berlin is 9 hours behind Sydney") reads the same and the swapped one does not."""
    n = m["n"].lower()
    hours = float(n) if n[0].isdigit() else _SMALL.get(n)
    if hours is None or m["a"].lower() in ("utc", "gmt") or m["b"].lower() in ("utc", "gmt"):
        return None
    minutes = round(hours * 60) + int(m["m"] or 0)
    a, b = norm_text(m["a"]), norm_text(m["b"])
    signed = minutes if m["dir"].lower() == "ahead of" else -minutes
    return (a, b, signed) if a < b else (b, a, -signed)


def _unit_after(text: str, end: int) -> str | None:
    m = _UNIT_AFTER.match(text, end)
    if not m:
        return None
    word = m[1].lower().rstrip("s") or m[1].lower()
    return _UNIT_WORD.get(word, word)


def read_claims(text: str) -> Claims:
    """The claims of one answer by kind (see the module docstring)."""
    c = Claims(text=text)
    taken: list[Span] = []
    for m in _OFFSET.finditer(text):
        c.add("offset", _offset_minutes(m))
        taken.append(m.span())
    for m in _RELATIVE.finditer(text):
        rel = _relative(m)
        if rel is not None:
            c.add("offset", rel)
    for m in _HEX.finditer(text):
        c.add("hex", m[0].lower())
        taken.append(m.span())
    for m in _QUOTE.finditer(text):
        inner = next(g for g in m.groups() if g is not None)
        c.add("quote", norm_text(inner))
    masked = _mask(text, taken)
    for span, t in find_times(masked):
        c.add("time", t)
        taken.append(span)
    masked = _mask(text, taken)
    for span, days in find_dates(masked, weekdays=False):
        # without a year the reader supplies the suite's: compare month and day only
        year = re.search(r"\d{4}|'\d{2}\b", masked[span[0]:span[1]]) is not None
        for d in days:
            if d is not None:
                c.add("date", d.isoformat() if year else f"--{d.month:02d}-{d.day:02d}")
        taken.append(span)
    for m in _WEEKDAY.finditer(text):
        c.add("weekday", m[1].lower())
    masked = _mask(text, taken)
    for m in _IDENT.finditer(masked):
        ident = m[0].lower().removeprefix("./").rstrip(".")
        # a hyphenated word ("twenty-one", "sign-ups") is no identifier; a number neither
        if re.search(r"[\d./@:_]", ident) and not re.fullmatch(r"[\d.,:]+", ident):
            c.add("ident", ident)
            taken.append(m.span())
    masked = _mask(text, taken)
    for n in find_numbers(masked):
        c.add("number", (round(n.value, 6), n.unit or _unit_after(masked, n.span[1])))
    for m in _WORD_NUM.finditer(masked):
        v = _word_number(m)
        if v is not None:
            c.add("number", (v, _unit_after(masked, m.end())))
    for m in _NAME_RUN.finditer(masked):
        words = [w for w in m[0].split() if w.lower().strip(".,:;'’") not in _NOT_NAMES]
        if words and any(w[:1].isupper() for w in words):
            c.add("name", norm_text(" ".join(words)))
    for m in _LIST.finditer(text):
        items = frozenset(w for w in re.split(r"\s*(?:,|\band\b|&)\s*", m[0].lower())
                          if w and w not in _STOP)
        if len(items) >= 2:
            c.add("items", items)
    for m in _FLAG.finditer(text):
        before = text[max(0, m.start() - 3):m.start()].strip()
        if m[1].lower() in ("true", "false") or before in ("=", ":", "is"):
            c.add("flag", _FLAG_VALUE[m[1].lower()])
    c.exhaustive = bool(_ONLY.search(text))
    if _YES.match(text):
        c.polarity = True
    elif _NO.match(text):
        c.polarity = False
    return c


# -- matching one value against another of its kind --------------------------------------


def _stems(text: str) -> set[str]:
    out = set()
    for w in norm_text(text).split():
        if w in _STOP:
            continue
        for suf in ("ing", "ed", "es", "s"):
            if len(w) > len(suf) + 2 and w.endswith(suf):
                w = w[: -len(suf)]
                break
        out.add(w)
    return out


def _same(kind: str, x: Any, y: Any) -> bool:
    if kind == "hex":
        return x.startswith(y) or y.startswith(x)
    if kind == "number":
        (vx, ux), (vy, uy) = x, y
        return abs(vx - vy) < 1e-6 and (ux is None or uy is None or ux == uy)
    if kind == "ident":
        a, b = x.lstrip("v"), y.lstrip("v")
        return a == b or a.endswith("/" + b) or b.endswith("/" + a)
    if kind == "date" and (x.startswith("--") or y.startswith("--")):
        return bool(x[-5:] == y[-5:])
    if kind == "name":
        a, b = set(x.split()), set(y.split())
        return a <= b or b <= a
    return bool(x == y)


def _within(kind: str, xs: set[Any], ys: set[Any]) -> bool:
    return all(any(_same(kind, x, y) for y in ys) for x in xs)


def _quote_found(quote: str, other: Claims) -> bool:
    want = _stems(quote)
    return bool(want) and want <= _stems(other.text)


def _kind_agrees(kind: str, a: Claims, b: Claims) -> bool | None:
    """One kind's decision: None when not both answers state it."""
    if kind == "quote":
        qa, qb = a.values.get("quote", set()), b.values.get("quote", set())
        if not qa and not qb:
            return None
        found_b = bool(qa) and all(_quote_found(q, b) for q in qa)
        found_a = bool(qb) and all(_quote_found(q, a) for q in qb)
        return found_a or found_b
    xs, ys = a.values.get(kind), b.values.get(kind)
    if not xs or not ys:
        return None
    if kind == "items":  # a list answers a list question: one left out is another answer
        return bool(xs & ys)
    if a.exhaustive or b.exhaustive:
        return _within(kind, xs, ys) and _within(kind, ys, xs)
    return _within(kind, xs, ys) or _within(kind, ys, xs)


# -- what the query asks -------------------------------------------------------------------

_FOCUS: Sequence[tuple[re.Pattern[str], tuple[str, ...]]] = (
    (re.compile(r"\b(hash|sha\w*|checksum|commit id)\b", re.I), ("hex",)),
    (re.compile(r"\b(message|title|first line|last line|say|says|text)\b", re.I), ("quote",)),
    (re.compile(r"\b(offset|difference|ahead|behind)\b", re.I), ("offset", "number")),
    (re.compile(r"\btime\b|\bconvert\b", re.I), ("time", "weekday")),
    (re.compile(r"\bwhen\b|\bdate\b", re.I), ("date", "time")),
    (re.compile(r"\bday of the week\b|\bweekday\b|\bwhat day\b", re.I), ("weekday",)),
    (re.compile(r"\b(how many|how much|how long|number of|count|total|average|mean|size|"
                r"percentage|percent|lines|port)\b", re.I), ("number",)),
    (re.compile(r"\b(who|author\w*|assignee|committer)\b", re.I), ("name", "ident")),
    (re.compile(r"\b(version|email|e-mail|branch|tag|file|files|path)\b", re.I), ("ident",)),
)
# quoted text decides only when the query asks for a text (a message, a title): elsewhere
# one answer quoting a JSON key or a command the other does not is no disagreement
_ALL_KINDS = ("hex", "offset", "time", "date", "weekday", "ident", "number", "flag",
              "items", "name")


def query_focus(query: str) -> tuple[str, ...]:
    """The claim kinds the query asks about, most specific first (may be empty)."""
    out: list[str] = []
    for rx, kinds in _FOCUS:
        if rx.search(query):
            out.extend(k for k in kinds if k not in out)
    return tuple(out)


def _drop_query_values(c: Claims, q: Claims) -> None:
    """What the query states is not an answer to it ("Convert 18:45 in Kolkata")."""
    for kind, qs in q.values.items():
        if kind in ("quote",) or kind not in c.values:
            continue
        c.values[kind] = {v for v in c.values[kind] if not any(_same(kind, v, x) for x in qs)}


# -- observations --------------------------------------------------------------------------


def _field_values(observations: Sequence[Mapping[str, Any]], query: str) -> list[str]:
    """The string values tools returned under a field the query names (also inside a JSON
    text, as MCP servers return their results)."""
    words = {w.rstrip("s") for w in norm_text(query).split() if len(w) > 3}
    out: list[str] = []

    def walk(obj: Any) -> None:
        if isinstance(obj, Mapping):
            for k, v in obj.items():
                if isinstance(v, str) and str(k).lower().rstrip("s") in words \
                        and len(norm_text(v)) >= 3:
                    out.append(v)
                else:
                    walk(v)
        elif isinstance(obj, list):
            for v in obj:
                walk(v)
        elif isinstance(obj, str) and obj.lstrip()[:1] in ("{", "["):
            with contextlib.suppress(ValueError):
                walk(json.loads(obj))

    for obs in observations:
        walk(obs)
    return list(dict.fromkeys(out))


def _states(answer: str, value: str) -> bool:
    v = norm_text(value)
    return bool(v) and f" {v} " in f" {norm_text(answer)} "


def _by_observations(query: str, a: str, b: str,
                     observations: Sequence[Mapping[str, Any]]) -> bool | None:
    """With the tools' values of the asked field: the answers agree when they state the
    same one of them, disagree when each states a different one; else None."""
    values = _field_values(observations, query)
    if len(values) < 2:
        return None  # one value only: nothing to tell the answers apart by
    sa = {v for v in values if _states(a, v)}
    sb = {v for v in values if _states(b, v)}
    if not sa or not sb:
        return None
    return bool(sa & sb) and (sa <= sb or sb <= sa)


_SEGMENT = re.compile(r";|\bbut\b|\bwhereas\b|\bwhile\b|,?\s+and\s+(?=\d)", re.I)
_QUESTION_WORDS = frozenset(_words("what which who whom whose when where how many much is are "
                                   "does do did was were has have give tell there any"))


def _bound(query: str, text: str) -> str:
    """The part of an answer about what the query names, when the answer also speaks of
    something else in another clause ("58 from Mexico and 85 from Canada" for a question
    about Canada; "committed by A but authored by B" for one about the author): the
    clauses naming the query's own names, else those holding a query word that not every
    clause holds. The whole text when no clause stands out."""
    spans, start = [], 0
    for m in _SEGMENT.finditer(text):
        spans.append((start, m.start()))
        start = m.end()
    spans.append((start, len(text)))
    if len(spans) < 2:
        return text
    segs = [text[a:b] for a, b in spans]
    names = {norm_text(w) for w in re.findall(r"(?<!^)(?<![.?!]\s)\b[A-Z][\w-]+", query)}
    words = _stems(query) - _QUESTION_WORDS
    for want in (names, words):
        if not want:
            continue
        hits = [s for s in segs if want & _stems(s)]
        if hits and len(hits) < len(segs):
            return " ; ".join(hits)
    return text


def _picked(answer: str, x: str, y: str) -> str | None:
    """Which option of "x or y?" the answer names first."""
    low = f" {norm_text(answer)} "
    at = {o: low.find(f" {norm_text(o)} ") for o in (x, y)}
    found = [o for o in (x, y) if at[o] >= 0]
    return min(found, key=lambda o: at[o]) if found else None


def answers_agree(query: str, a: str | None, b: str | None, *,
                  observations: Sequence[Mapping[str, Any]] | None = None) -> bool | None:
    """True when answers `a` and `b` give the same answer to `query`, False when they give
    different ones, None when that cannot be told (an empty answer, nothing comparable).
    Symmetric in `a` and `b`."""
    if not a or not a.strip() or not b or not b.strip():
        return None
    if observations:
        by_obs = _by_observations(query, a, b, observations)
        if by_obs is not None:
            return by_obs
    ca, cb, cq = read_claims(a), read_claims(b), read_claims(query)
    ba, bb = _bound(query, a), _bound(query, b)
    if ba != a or bb != b:  # read the values of the clauses about what was asked
        ca.values, cb.values = read_claims(ba).values, read_claims(bb).values
    _drop_query_values(ca, cq)
    _drop_query_values(cb, cq)
    if _POLAR_Q.match(query) and ca.polarity is not None and cb.polarity is not None \
            and ca.polarity != cb.polarity:
        return False
    alt = _ALTERNATIVE.search(query)
    if alt:
        pa, pb = _picked(a, alt[1], alt[2]), _picked(b, alt[1], alt[2])
        if pa is not None and pb is not None:
            return pa == pb
    focus = query_focus(query)
    for kinds in (focus, tuple(k for k in _ALL_KINDS if k not in focus)):
        decisions = [d for k in kinds if (d := _kind_agrees(k, ca, cb)) is not None]
        if decisions:
            return all(decisions)
    if _POLAR_Q.match(query) and ca.polarity is not None and ca.polarity == cb.polarity:
        return True
    if _gives_up(a, ca, focus) != _gives_up(b, cb, focus):
        return False  # one answers, the other says it could not: not the same answer
    return None


def _gives_up(text: str, c: Claims, focus: tuple[str, ...]) -> bool:
    """The answer says it could not answer, and states nothing of what was asked."""
    asked = focus or _ALL_KINDS
    return bool(_GAVE_UP.search(text)) and not any(c.values.get(k) for k in asked)

