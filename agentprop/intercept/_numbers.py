"""L3's number check: which numbers an answer states, and which of them observations support.

The paper's L3 compared raw digit strings and so flagged years, clock times, ids, list
numbering and "30." at the end of a sentence. Here an answer's text is first cleared of
what is not a quantity claim (dates, times, years, ids, ordinals, list markers), the rest
is parsed as numbers, and a number counts as supported when an observation (or the
question / system prompt) holds it up to rounding or truncation at the precision the
answer states: as is, after a common unit conversion to the unit the answer names
(°C/°F, km/mi, mm/in, kg/lb, km/h and m/s, fraction/percent), as a list length, as a
per-field total over a list, as a difference between two values of the same field, or as
a duration between two clock times of the same observation.
"""

from __future__ import annotations

import bisect
import math
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

_MONTHS = (
    r"(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|"
    r"sep(?:t(?:ember)?)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)"
)

# Spans that state no quantity, masked (in this order) before numbers are read.
_NOT_QUANTITIES: tuple[re.Pattern[str], ...] = (
    # ISO dates and datetimes: 2025-06-17, 2025-06-17T14:30:00
    re.compile(r"\b\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2})?(?:Z|[+-]\d{2}:?\d{2})?)?"),
    # slash and dot dates: 17/06/2025, 6/17, 17.06.2025
    re.compile(r"\b\d{1,4}/\d{1,2}(?:/\d{2,4})?\b"),
    re.compile(r"\b\d{1,2}\.\d{1,2}\.\d{4}\b"),
    # month-name dates: June 17, 2025 / 17th of June 2025 / Jun 17th
    re.compile(
        rf"\b{_MONTHS}\.?\s+\d{{1,2}}(?:st|nd|rd|th)?\b(?:,?\s+\d{{4}}\b)?", re.IGNORECASE
    ),
    re.compile(
        rf"\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTHS}\b\.?(?:,?\s+\d{{4}}\b)?",
        re.IGNORECASE,
    ),
    # clock times: 14:30, 2:30 pm, 9am, 9 a.m.
    re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s*[ap]\.?\s?m\b\.?)?", re.IGNORECASE),
    re.compile(r"\b\d{1,2}\s*[ap]\.?\s?m\b\.?", re.IGNORECASE),
    # ids: EVT_0042, P1234, ORD-1234, #1234, abc123def
    re.compile(r"#\d+\b"),
    re.compile(r"\b[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*\d[A-Za-z0-9_-]*"),
    re.compile(r"\b[A-Z][A-Z0-9]*-\d[A-Za-z0-9_-]*"),
    re.compile(r"\b[A-Za-z]+\d[A-Za-z0-9_-]*"),
    # ordinals: 1st, 2nd, 23rd, 4th
    re.compile(r"\b\d+(?:st|nd|rd|th)\b", re.IGNORECASE),
    # list numbering at the start of a line: "1. ", "2) ", "- 3. "
    re.compile(r"(?m)^[ \t]*(?:[-*•][ \t]*)?\(?\d{1,2}[.)](?=\s)"),
    re.compile(r"\(\d{1,2}\)"),
    # years: a standalone 4-digit 1900–2100 that is not a price or part of a decimal
    re.compile(r"(?<![$€£\d.,])\b(?:19\d{2}|20\d{2}|2100)\b(?![.,]\d)"),
)

# A number: 1,234.5 / 30 / 0.25 / .5 ; "30." at a sentence end reads as 30.
_NUMBER = re.compile(r"(?<![\w.])(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?|(?<![\w.])\.\d+")
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\b")

# Conversions an agent commonly applies to an observed value before stating it, keyed by
# the unit the answer states. A conversion is only tried when the answer names that unit
# right after the number, so conversions do not make every small number "supported".
_CONVERSIONS: dict[str, tuple[float, float]] = {
    "c_to_f": (9 / 5, 32.0),
    "f_to_c": (5 / 9, -32.0 * 5 / 9),
    "km_to_mi": (0.621371, 0.0),
    "mi_to_km": (1.609344, 0.0),
    "mm_to_in": (1 / 25.4, 0.0),
    "in_to_mm": (25.4, 0.0),
    "kg_to_lb": (2.20462, 0.0),
    "lb_to_kg": (1 / 2.20462, 0.0),
    "kmh_to_ms": (1 / 3.6, 0.0),
    "ms_to_kmh": (3.6, 0.0),
    "frac_to_pct": (100.0, 0.0),
}
_UNITS: tuple[tuple[re.Pattern[str], tuple[str, ...]], ...] = tuple(
    (re.compile(rf"\s*(?:{pat})", re.IGNORECASE), keys)
    for pat, keys in (
        (r"°\s*F\b|degrees?\s+F(?:ahrenheit)?\b|F\b|fahrenheit\b", ("c_to_f",)),
        (r"°\s*C\b|degrees?\s+C(?:elsius)?\b|C\b|celsius\b", ("f_to_c",)),
        (r"mph\b|miles?\b|mi\b", ("km_to_mi",)),
        (r"km\s*/\s*h\b|kmh\b|kph\b", ("mi_to_km", "ms_to_kmh")),
        (r"km\b|kilomet(?:er|re)s?\b", ("mi_to_km",)),
        (r"mm\b|millimet(?:er|re)s?\b", ("in_to_mm",)),
        (r"inch(?:es)?\b", ("mm_to_in",)),
        (r"lbs?\b|pounds?\b", ("kg_to_lb",)),
        (r"kg\b|kilograms?\b", ("lb_to_kg",)),
        (r"m\s*/\s*s\b", ("kmh_to_ms",)),
        (r"%|percent\b", ("frac_to_pct",)),
    )
)
_CONVERSION_REL_TOL = 0.015
_MAX_TIMES_PER_OBSERVATION = 24
_MAX_VALUES_PER_KEY = 40


@dataclass(frozen=True)
class Stated:
    """A number stated in an answer: its value, how many decimals it was written with, and
    the conversions its unit (if the answer names one) makes plausible."""

    text: str
    value: float
    decimals: int
    conversions: tuple[str, ...] = ()


def mask_non_quantities(text: str) -> str:
    """The text with dates, times, years, ids, ordinals and list markers blanked out."""
    for pattern in _NOT_QUANTITIES:
        text = pattern.sub(lambda m: " " * len(m.group(0)), text)
    return text


def stated_numbers(answer: str) -> list[Stated]:
    """The quantities an answer states (see the module docstring for what is left out)."""
    text = answer.replace("\u2212", "-").replace("\u00a0", " ").replace("\u202f", " ")
    out: list[Stated] = []
    masked = mask_non_quantities(text)
    for m in _NUMBER.finditer(masked):
        raw = m.group(0)
        digits = raw.replace(",", "")
        decimals = len(digits.partition(".")[2])
        keys: tuple[str, ...] = ()
        for pattern, unit_keys in _UNITS:
            if pattern.match(masked, m.end()):
                keys = unit_keys
                break
        sign = -1.0 if _negative(masked, m.start()) else 1.0
        out.append(Stated(raw, sign * float(digits), decimals, keys))
    return out


def _negative(text: str, start: int) -> bool:
    """A minus sign right before the number ("-5", "minus 5"), not a range ("3-5")."""
    before = text[max(0, start - 6) : start]
    if before.lower().endswith("minus "):
        return True
    return before.endswith("-") and (len(before) < 2 or not before[-2].isalnum())


def _numbers_in(text: str) -> Iterator[float]:
    """The numbers in a text, dates, times and ids left out (as in answers)."""
    masked = mask_non_quantities(text)
    for m in _NUMBER.finditer(masked):
        sign = -1.0 if _negative(masked, m.start()) else 1.0
        yield sign * float(m.group(0).replace(",", ""))


def _walk(value: Any) -> Iterator[Any]:
    yield value
    if isinstance(value, dict):
        for v in value.values():
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)


class Support:
    """The numbers a set of observations and context texts support, for fast lookup.

    Values match up to the stated precision; a unit conversion of a value (tried only for
    the unit the answer names) also within a small relative tolerance, since agents round
    conversions.
    """

    def __init__(self) -> None:
        self._direct: list[float] = []
        self._converted: dict[str, list[float]] = {k: [] for k in _CONVERSIONS}
        self._by_key: dict[str, set[float]] = {}
        self._sorted = True

    def add_text(self, text: str) -> None:
        self._add_values(_numbers_in(text))

    def add_observation(self, observation: Any) -> None:
        values: list[float] = []
        times: list[int] = []
        for key, leaf in _numeric_leaves(observation):
            self._by_key.setdefault(key, set()).add(leaf)
        for node in _walk(observation):
            if isinstance(node, bool) or node is None:
                continue
            if isinstance(node, int | float):
                if math.isfinite(node):
                    values.append(float(node))
            elif isinstance(node, str):
                values.extend(_numbers_in(node))
                times.extend(int(h) * 60 + int(m) for h, m in _TIME.findall(node))
            elif isinstance(node, list):
                values.append(float(len(node)))
                values.extend(_column_totals(node))
        times = sorted(set(times))[:_MAX_TIMES_PER_OBSERVATION]
        for i, a in enumerate(times):
            for b in times[i + 1 :]:
                values.extend((float(b - a), (b - a) / 60))
        self._add_values(values)

    def _add_values(self, values: Iterable[float]) -> None:
        for v in values:
            self._direct.append(abs(v))
            for key, (f, c) in _CONVERSIONS.items():
                self._converted[key].append(v * f + c)
        self._sorted = False

    def _sort(self) -> None:
        if not self._sorted:
            # Differences between values of the same field, across observations too
            # ("0.4 °C cooler than normal", "15.5 °C warmer in Cairo than in Madrid").
            for vals in self._by_key.values():
                vs = sorted(vals)[:_MAX_VALUES_PER_KEY]
                self._direct.extend(abs(b - a) for i, a in enumerate(vs) for b in vs[i + 1 :])
            self._by_key = {}
            self._direct.sort()
            for values in self._converted.values():
                values.sort()
            self._sorted = True

    def supports(self, number: Stated) -> bool:
        """Whether `number` matches a direct value (rounded or truncated at its precision)
        or a conversion to the unit it names (rounded, or within 1.5 %)."""
        self._sort()
        a, step = abs(number.value), 10.0 ** -number.decimals
        eps = 1e-9 * max(1.0, a)
        # Direct values compare by magnitude ("5 below zero" states -5): rounding is
        # |a - s| <= step/2, truncation a <= s < a + step.
        if _any_in(self._direct, a - step / 2 - eps, a + step - eps):
            return True
        # Conversions keep the sign: 3 °F is -16.1 °C, not 16.1 °C.
        v = number.value
        half = max(step / 2, _CONVERSION_REL_TOL * a)
        return any(
            _any_in(self._converted[key], v - half - eps, v + half + eps)
            for key in number.conversions
        )

    def unsupported(self, numbers: Iterable[Stated]) -> list[Stated]:
        return [n for n in numbers if not self.supports(n)]


def _numeric_leaves(value: Any, key: str = "") -> Iterator[tuple[str, float]]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield from _numeric_leaves(v, str(k))
    elif isinstance(value, list):
        for v in value:
            yield from _numeric_leaves(v, key)
    elif (isinstance(value, int | float) and not isinstance(value, bool) and key
          and math.isfinite(value)):
        yield key, float(value)


def _any_in(values: list[float], lo: float, hi: float) -> bool:
    i = bisect.bisect_left(values, lo)
    return i < len(values) and values[i] <= hi


def _column_totals(items: list[Any]) -> list[float]:
    """Per-key sums over a list of records (an order total, total rainfall of a week)."""
    totals: dict[str, float] = {}
    for item in items:
        if isinstance(item, dict):
            for k, v in item.items():
                if isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v):
                    totals[k] = totals.get(k, 0.0) + float(v)
    return list(totals.values()) if len(items) > 1 else []
