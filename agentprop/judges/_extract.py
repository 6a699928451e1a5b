"""Pulling numbers (with units), dates and times out of free text, for the facts judge.

Pure functions; dates without a year take the suite's reference year, and the relative
words today / tomorrow / yesterday are resolved against REFERENCE_DATE.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from datetime import date, timedelta

from agentprop.core import REFERENCE_DATE

REF_DAY = date.fromisoformat(REFERENCE_DATE)

MONTHS: dict[str, int] = {}
for _i, _m in enumerate(["january", "february", "march", "april", "may", "june", "july",
                         "august", "september", "october", "november", "december"], start=1):
    MONTHS[_m] = _i
    MONTHS[_m[:3]] = _i
MONTHS["sept"] = 9
_MONTH_RE = "|".join(sorted(MONTHS, key=len, reverse=True))

Span = tuple[int, int]


@dataclass(frozen=True)
class Number:
    value: float
    unit: str | None  # canonical: C, F, deg, USD, %, or a lower-cased unit token
    decimals: int
    span: Span


def norm_text(text: str) -> str:
    """Lower-case, strip accents, punctuation to spaces, collapse whitespace."""
    t = unicodedata.normalize("NFKD", text)
    t = "".join(c for c in t if not unicodedata.combining(c)).lower()
    t = re.sub(r"[^0-9a-z]+", " ", t)
    return " ".join(t.split())


# A word right before a phrase that changes what it states: "partly cloudy" does not say
# "cloudy", "no rain" does not say "rain", "not London" does not name London.
_QUALIFIERS = frozenset({"partly", "mostly", "no", "not", "without", "never", "t"})


def contains_phrase(haystack: str, needle: str) -> bool:
    """Whole-word, case- and punctuation-insensitive containment, not counting an
    occurrence that a qualifier or negation right before it changes (see _QUALIFIERS)."""
    n = norm_text(needle)
    if not n:
        return False
    hay = f" {norm_text(haystack)} "
    start = hay.find(f" {n} ")
    while start != -1:
        before = hay[:start].split()
        if not before or before[-1] not in _QUALIFIERS or n.split()[0] in _QUALIFIERS:
            return True
        start = hay.find(f" {n} ", start + 1)
    return False


_UNIT_ALIASES: dict[str, str] = {
    "c": "C", "°c": "C", "celsius": "C", "degc": "C", "degrees celsius": "C",
    "degree celsius": "C", "deg c": "C", "° c": "C",
    "f": "F", "°f": "F", "fahrenheit": "F", "degf": "F", "degrees fahrenheit": "F",
    "degree fahrenheit": "F", "deg f": "F", "° f": "F",
    "°": "deg", "degrees": "deg", "degree": "deg", "deg": "deg",
    "$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "us$": "USD",
    "%": "%", "percent": "%", "per cent": "%", "pct": "%", "percentage": "%",
    "kph": "km/h", "kmh": "km/h", "km/hr": "km/h", "kmph": "km/h", "km²": "km2",
}


def canonical_unit(unit: str | None) -> str | None:
    if unit is None:
        return None
    u = " ".join(unit.strip().lower().split())
    if not u:
        return None
    return _UNIT_ALIASES.get(u, u)


_NUM_RE = re.compile(
    r"(?<![\w.,])(?P<sign>[-−–]|minus\s+)?(?P<cur>\$|us\$|usd\s*)?\s*"
    r"(?P<int>\d{1,3}(?:,\d{3})+|\d+)(?:\.(?P<dec>\d+))?(?![\d])(?!(?:st|nd|rd|th)(?![a-z]))"
    r"(?P<unit>\s*(?:°\s*[cf](?![a-z])|degrees?\s+(?:celsius|fahrenheit|c|f)(?![a-z])"
    r"|[cf](?![a-z'])|°|degrees?(?![a-z])|celsius|fahrenheit|%|percent|per\s+cent|usd(?![a-z])"
    r"|dollars?(?![a-z])|[a-z]{1,4}/[a-z]{1,2}(?![a-z])|mm(?![a-z])|cm(?![a-z])|km[²2](?![a-z\d])"
    r"|mg(?![a-z])|kg(?![a-z])|km(?![a-z])|mph(?![a-z])|kph(?![a-z])|kmh(?![a-z])))?",
    re.IGNORECASE,
)


def find_numbers(text: str, *, skip: list[Span] | None = None) -> list[Number]:
    """Numbers with their units ("14°C", "14 degrees", "$74.97", "1,250", "-3 °F", "60%").
    Spans in `skip` (dates, times) are blanked out first so "June 17" is not a number."""
    masked = list(text)
    for a, b in skip or []:
        masked[a:b] = " " * (b - a)
    s = "".join(masked)
    out: list[Number] = []
    for m in _NUM_RE.finditer(s):
        value = float(m.group("int").replace(",", "") + "." + (m.group("dec") or "0"))
        if m.group("sign"):
            value = -value
        unit = None
        if m.group("cur"):
            unit = "USD"
        elif m.group("unit"):
            unit = canonical_unit(re.sub(r"\s+", " ", m.group("unit").strip().replace("° ", "°")))
        out.append(Number(value, unit, len(m.group("dec") or ""), m.span()))
    return out


def _mk(y: int, m: int, d: int) -> date | None:
    try:
        return date(y, m, d)
    except ValueError:
        return None


def _year(y: str | None) -> int:
    if not y:
        return REF_DAY.year
    n = int(y)
    return n + 2000 if n < 100 else n


_ISO_RE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_NUMERIC_RE = re.compile(r"(?<![\d/.-])(\d{1,2})[/.-](\d{1,2})[/.-](\d{4}|\d{2})(?![\d/])")
_MD_RE = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}})(?:st|nd|rd|th)?\b(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE
)
_DM_RE = re.compile(
    rf"\b(\d{{1,2}})(?:st|nd|rd|th)?\s+(?:of\s+)?({_MONTH_RE})\b\.?(?:,?\s+(\d{{4}})\b)?",
    re.IGNORECASE,
)
_REL_RE = re.compile(r"\b(day after tomorrow|today|tonight|tomorrow|yesterday)\b", re.IGNORECASE)
_REL = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1, "day after tomorrow": 2}


def find_dates(text: str) -> list[tuple[Span, set[date]]]:
    """Dates in any common format, each with the set of dates it may mean (06/07/2025 is
    ambiguous between June 7 and July 6, so both)."""
    found: list[tuple[Span, set[date]]] = []
    taken: list[Span] = []

    def add(span: Span, days: set[date | None]) -> None:
        if any(a < span[1] and span[0] < b for a, b in taken):
            return
        good = {d for d in days if d is not None}
        if good:
            found.append((span, good))
            taken.append(span)

    for m in _ISO_RE.finditer(text):
        add(m.span(), {_mk(int(m[1]), int(m[2]), int(m[3]))})
    for m in _NUMERIC_RE.finditer(text):
        y = _year(m[3])
        add(m.span(), {_mk(y, int(m[1]), int(m[2])), _mk(y, int(m[2]), int(m[1]))})
    for m in _MD_RE.finditer(text):
        add(m.span(), {_mk(_year(m[3]), MONTHS[m[1].lower()], int(m[2]))})
    for m in _DM_RE.finditer(text):
        add(m.span(), {_mk(_year(m[3]), MONTHS[m[2].lower()], int(m[1]))})
    for m in _REL_RE.finditer(text):
        add(m.span(), {REF_DAY + timedelta(days=_REL[m[1].lower()])})
    return found


_AMPM = r"(?P<ampm>a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])"
_HM_RE = re.compile(
    rf"(?<![\d:])(?P<h>[01]?\d|2[0-3])[:.h](?P<m>[0-5]\d)(?::[0-5]\d)?(?!\d)(?:\s*{_AMPM})?",
    re.IGNORECASE,
)
_H_RE = re.compile(rf"(?<![\d:.])(?P<h>1[0-2]|0?[1-9])\s*{_AMPM}", re.IGNORECASE)
_WORD_TIME_RE = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)


def _hm(h: int, m: int, ampm: str | None) -> str | None:
    if ampm:
        if not 1 <= h <= 12:
            return None
        pm = ampm.lower().startswith("p")
        h = (h % 12) + (12 if pm else 0)
    return f"{h:02d}:{m:02d}"


def find_times(text: str) -> list[tuple[Span, str]]:
    """Clock times as ``HH:MM`` ("14:00", "2 pm", "2:00 PM", "2 p.m.", "noon")."""
    out: list[tuple[Span, str]] = []
    for m in _HM_RE.finditer(text):
        # "2025.06" or a decimal like "14.50" is not a time unless am/pm follows
        if m.group(0)[len(m["h"])] == "." and not m["ampm"]:
            continue
        t = _hm(int(m["h"]), int(m["m"]), m["ampm"])
        if t:
            out.append((m.span(), t))
    for m in _H_RE.finditer(text):
        if any(a <= m.start() < b for (a, b), _ in out):
            continue
        t = _hm(int(m["h"]), 0, m["ampm"])
        if t:
            out.append((m.span(), t))
    for m in _WORD_TIME_RE.finditer(text):
        out.append((m.span(), "00:00" if m[1].lower() == "midnight" else "12:00"))
    return out


def canonical_time(value: str) -> str | None:
    found = find_times(str(value))
    return found[0][1] if found else None
