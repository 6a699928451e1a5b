"""Pulling numbers (with units), dates and times out of free text, for the facts judge.

Pure functions over the original text: every span is a position in it. Dates without a
year take the suite's reference year; relative words (today, tomorrow, in 3 days, this
Friday) are resolved against REFERENCE_DATE. The spellings read here are the table in
docs/judges.md ("Normalisation").
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta

from agentprop.core import REFERENCE_DATE
from agentprop.judges import _languages as lang

REF_DAY = date.fromisoformat(REFERENCE_DATE)

MONTHS: dict[str, int] = {}
for _i, _m in enumerate(["january", "february", "march", "april", "may", "june", "july",
                         "august", "september", "october", "november", "december"], start=1):
    MONTHS[_m] = _i
    MONTHS[_m[:3]] = _i
MONTHS["sept"] = 9
MONTHS.update(lang.MONTHS)
# a class of first letters ahead of the names: most positions fail before the alternation
_MONTH_RE = ("(?=[" + "".join(sorted({m[0] for m in MONTHS})) + "])(?:"
             + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")")
WEEKDAYS = ["monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday"]
_WD_RE = r"mon(?:day)?|tue(?:s|sday)?|wed(?:nesday)?|thu(?:r|rs|rsday)?|fri(?:day)?" \
         r"|sat(?:urday)?|sun(?:day)?"

Span = tuple[int, int]


@dataclass(frozen=True)
class Number:
    """A quantity in the text. `unit` is canonical (C, F, deg, USD, %, mm, km/h, minutes,
    days, events, units, people, members, km2, stars) or None for a bare number;
    `approx` when the text marks it as approximate ("about", "~", "roughly", "or so")."""

    value: float
    unit: str | None
    decimals: int
    span: Span
    approx: bool = False
    # the other reading of an ambiguous "35.146": a German/European thousands dot (35146)
    alt: float | None = None


@functools.lru_cache(maxsize=4096)
def _fold_char(c: str) -> str:
    if "\uac00" <= c <= "\ud7a3":
        return c  # a Hangul syllable decomposes into letters, none of them an accent
    base = next((x for x in unicodedata.normalize("NFKD", c) if not unicodedata.combining(x)),
                c)
    low = base.lower()
    return low if len(low) == 1 else (c.lower()[:1] or " ")


def fold(text: str) -> str:
    """Lower-case with accents stripped, one character for one: positions stay valid."""
    low = text.lower()
    if low.isascii() and len(low) == len(text):
        return low
    return "".join(_fold_char(c) for c in text)


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


# -- numbers ----------------------------------------------------------------------------------

_UNIT_ALIASES: dict[str, str] = {
    "c": "C", "°c": "C", "celsius": "C", "degc": "C", "degrees celsius": "C",
    "degree celsius": "C", "deg c": "C", "° c": "C", "degrees c": "C", "degree c": "C",
    "f": "F", "°f": "F", "fahrenheit": "F", "degf": "F", "degrees fahrenheit": "F",
    "degree fahrenheit": "F", "deg f": "F", "° f": "F", "degrees f": "F", "degree f": "F",
    "°": "deg", "degrees": "deg", "degree": "deg", "deg": "deg",
    "$": "USD", "usd": "USD", "dollar": "USD", "dollars": "USD", "us$": "USD", "bucks": "USD",
    "%": "%", "percent": "%", "per cent": "%", "pct": "%", "percentage": "%",
    "kph": "km/h", "kmh": "km/h", "km/hr": "km/h", "kmph": "km/h", "km/h": "km/h",
    "kilometres per hour": "km/h", "kilometers per hour": "km/h", "km per hour": "km/h",
    "mph": "mph", "miles per hour": "mph", "m/s": "m/s",
    "mi²": "mi2", "sq mi": "mi2", "square miles": "mi2", "square mile": "mi2",
    "km²": "km2", "km2": "km2", "sq km": "km2", "square kilometres": "km2",
    "square kilometers": "km2", "square km": "km2",
    "mm": "mm", "millimetres": "mm", "millimeters": "mm", "millimetre": "mm", "millimeter": "mm",
    "cm": "cm", "km": "km", "mg": "mg", "kg": "kg",
    "min": "minutes", "mins": "minutes", "minute": "minutes", "minutes": "minutes",
    "h": "hours", "hr": "hours", "hrs": "hours", "hour": "hours", "hours": "hours",
    "day": "days", "days": "days", "rainy days": "rainy days", "wet days": "rainy days",
    "rainy day": "rainy days", "rain days": "rainy days", "days of rain": "rainy days",
    "event": "events", "events": "events", "appointment": "events", "appointments": "events",
    "meeting": "events", "meetings": "events", "entries": "events", "entry": "events",
    "unit": "units", "units": "units", "item": "units", "items": "units", "piece": "units",
    "pieces": "units", "pcs": "units", "pieces in stock": "units",
    "people": "people", "residents": "people", "inhabitants": "people", "persons": "people",
    "einwohner": "people", "einwohnern": "people", "habitants": "people",
    "habitantes": "people", "abitanti": "people", "inwoners": "people", "人": "people",
    "quadratkilometer": "km2", "quadratkilometern": "km2", "kilometres carres": "km2",
    "kilometros cuadrados": "km2", "quilometros quadrados": "km2",
    "chilometri quadrati": "km2", "vierkante kilometer": "km2", "平方公里": "km2",
    "平方千米": "km2", "平方キロメートル": "km2",
    "member": "members", "members": "members",
    "star": "stars", "stars": "stars", "/5": "stars", "out of 5": "stars", "★": "stars",
    "-star": "stars", "-stars": "stars", "ドル": "USD", "美元": "USD", "dólares": "USD",
    "dolares": "USD", "dollari": "USD",
    "per order": "units", "left": "units", "left in stock": "units", "in stock": "units",
}

# a number's unit as written after it, longest spelling first
_UNIT_RE = "|".join(
    [r"°\s*[cf](?![a-z])", r"degrees?\s+(?:celsius|fahrenheit|c|f)(?![a-z])",
     r"deg\s*[cf](?![a-z])", r"[cf](?![a-z'’])", "°", r"degrees?(?![a-z])", "celsius",
     "fahrenheit", "%", "percent", r"per\s+cent", r"usd(?![a-z])", r"dollars?(?![a-z])",
     r"bucks(?![a-z])",
     r"(?:kilometres|kilometers|km)\s+per\s+hour", r"miles\s+per\s+hour",
     r"km/hr?(?![a-z])", r"kmph(?![a-z])", r"kph(?![a-z])", r"kmh(?![a-z])",
     r"mph(?![a-z])", r"m/s(?![a-z])",
     r"(?:mi²|sq\.?\s*mi(?![a-z])|square\s+miles?)", r"\$(?!\s*\d)", "ドル", "美元",
     r"d[oó]lares(?![a-z])", r"dollari(?![a-z])", "★", r"-stars?(?![a-z])",
     r"km[²2](?![a-z\d])", r"sq\.?\s*km(?![a-z])", r"square\s+(?:kilometres|kilometers|km)",
     r"millimet(?:re|er)s?(?![a-z])", r"mm(?![a-z])", r"cm(?![a-z])", r"mg(?![a-z])",
     r"kg(?![a-z])", r"km(?![a-z])",
     r"mins?(?![a-z])", r"minutes?(?![a-z])", r"hours?(?![a-z])", r"hrs?(?![a-z])",
     r"h(?![a-z])", r"(?:rainy|wet|rain)\s+days?(?![a-z])", r"days?\s+of\s+rain(?![a-z])",
     r"days?(?![a-z])",
     r"events?(?![a-z])", r"appointments?(?![a-z])", r"meetings?(?![a-z])",
     r"entries(?![a-z])", r"entry(?![a-z])",
     r"pieces\s+in\s+stock", r"units?(?![a-z])", r"items?(?![a-z])", r"pieces?(?![a-z])",
     r"pcs(?![a-z])", r"people(?![a-z])", r"residents(?![a-z])", r"inhabitants(?![a-z])",
     r"persons(?![a-z])", r"einwohnern?(?![a-z])", r"habitante?s(?![a-z])",
     r"abitanti(?![a-z])", r"inwoners(?![a-z])", r"quadratkilometern?(?![a-z])",
     r"kilom[eè]tres\s+carr[ée]s", r"kil[oó]metros\s+cuadrados", r"quil[oô]metros\s+quadrados",
     r"chilometri\s+quadrati", r"vierkante\s+kilometer", "平方公里", "平方千米", "平方キロメートル",
     r"members?(?![a-z])", r"stars?(?![a-z])", r"/\s*5(?![\d.])",
     r"per\s+order(?![a-z])", r"left\s+in\s+stock", r"in\s+stock", r"left(?![a-z])",
     r"out\s+of\s+5(?![\d.])"]
)


_LATIN_ACCENTS = str.maketrans("àâáèéêíóôúü", "aaaeeeioouu")


def canonical_unit(unit: str | None) -> str | None:
    if unit is None:
        return None
    u = " ".join(unit.strip().lower().replace("° ", "°").split()).translate(_LATIN_ACCENTS)
    if not u:
        return None
    if u.startswith("/"):
        u = "/" + u[1:].strip()
    u = re.sub(r"^sq\.\s*", "sq ", u)
    return _UNIT_ALIASES.get(u, u)


# thousands: "1,250"; a European "1.234,50" or "1.234.567"; a typographic space or an
# apostrophe ("35 146", "1'250"); a plain space only before a unit ("35 146 km²")
_INT_RE = (r"(?P<dotk>\d{1,3}(?:\.\d{3})+(?=,\d)|\d{1,3}(?:\.\d{3}){2,}(?![\d.]))"
           r"|\d{1,3}(?:,\d{3})+|\d{1,3}(?:[\u00a0\u202f\u2009']\d{3})+(?![\d'])"
           rf"|\d{{1,3}}(?: \d{{3}})+(?=(?:,\d{{1,2}})?\s*(?:{_UNIT_RE}|\u20ac))|\d+")
_NUM_RE = re.compile(
    r"(?<![A-Za-z0-9_.,/])(?P<sign>[-−–]|minus\s+)?(?P<cur>\$|us\$|usd\s*)?\s*"
    rf"(?P<int>{_INT_RE})(?:\.(?P<dec>\d+)|,(?P<cdec>\d{{1,2}})(?!\d)(?(cur)|(?(dotk)|"
    r"(?=\s*(?:°|%|\$|ドル|usd|d[oó]lar|dollar|mm\b|km)))))?(?![\d])"
    r"(?!(?:st|nd|rd|th)(?![a-z]))"
    rf"(?P<unit>\s*(?:{_UNIT_RE}))?",
    re.IGNORECASE,
)
_THOUSANDS = re.compile(r"[,.\s\u00a0\u202f\u2009']")
_APPROX_BEFORE = re.compile(
    r"(?:\babout|\baround|\bapproximately|\bapprox\.?|\broughly|~|≈|\bnearly|\balmost"
    r"|\bcirca|\bca\.|\bsome|\bclose to|\bjust (?:under|over|below|above)|\baround the"
    r"|\bin the region of|\bon the order of|\bor so|\bestimated|\ban estimated)\s*[-$]?\s*$",
    re.IGNORECASE,
)
_RATED = re.compile(r"(?:\brated|\brating(?:\s+of|:)?|\bscore(?:d|\s+of)?|\breviews?:?)\s*$",
                    re.I)
_APPROX_AFTER = re.compile(r"^\s*(?:-?ish\b|or so\b|give or take\b)", re.IGNORECASE)

_SMALL = {w: i for i, w in enumerate([
    "zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten",
    "eleven", "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen",
    "nineteen", "twenty"])}
_TENS = {"twenty": 20, "thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
         "eighty": 80, "ninety": 90}
_WORD_NUM = r"(?:(?:twenty|thirty|forty|fifty|sixty|seventy|eighty|ninety)(?:[-\s](?:one|two" \
            r"|three|four|five|six|seven|eight|nine))?|zero|one|two|three|four|five|six|seven" \
            r"|eight|nine|ten|eleven|twelve|thirteen|fourteen|fifteen|sixteen|seventeen" \
            r"|eighteen|nineteen|a single|a couple of|a dozen|no)"
_WORD_NUM_RE = re.compile(
    rf"\b(?P<w>{_WORD_NUM})\s+(?:(?:more|other|separate|scheduled|calendar|upcoming|new|rainy"
    rf"|wet)\s+)?(?P<unit>events?|appointments?|meetings?|entries|entry|units?|items?|pieces?"
    rf"|days?|minutes?|hours?|members?|dollars?|bucks)\b",
    re.IGNORECASE,
)
# durations spelled as words: "half an hour", "an hour and a half", "1.5 hours" (the numeral
# forms are read by _NUM_RE), "a quarter of an hour", "an hour"
_HM_DURATION = re.compile(
    r"\b(\d{1,2})\s*(?:h|hr|hrs|hours?)\s*(?:and\s+)?(\d{1,2})\s*(?:m|min|mins|minutes?)\b",
    re.I)
_DURATIONS = [
    (re.compile(r"\b(?:an?|one)\s+hour\s+and\s+a\s+half\b", re.I), 90.0),
    (re.compile(r"\b(?:one\s+and\s+a\s+half|1\s*½)\s+hours?\b", re.I), 90.0),
    (re.compile(r"\bthree[-\s]quarters\s+of\s+an\s+hour\b", re.I), 45.0),
    (re.compile(r"\bhalf\s+an\s+hour\b|\ba\s+half[-\s]hour\b|\bhalf[-\s]hour\b", re.I), 30.0),
    (re.compile(r"\ba\s+quarter\s+(?:of\s+an\s+)?hour\b", re.I), 15.0),
    (re.compile(r"\b(?:an|one)\s+hour\b|\ba\s+full\s+hour\b", re.I), 60.0),
    (re.compile(r"\btwo\s+hours\b", re.I), 120.0),
]


def _word_value(w: str) -> float:
    w = w.lower().replace("-", " ")
    if w in ("no", "zero"):
        return 0.0
    if w in ("a single", "one"):
        return 1.0
    if w == "a couple of":
        return 2.0
    if w == "a dozen":
        return 12.0
    parts = w.split()
    if parts[0] in _TENS:
        return float(_TENS[parts[0]] + (_SMALL.get(parts[1], 0) if len(parts) > 1 else 0))
    return float(_SMALL.get(w, 0))


def _approx_at(text: str, start: int, end: int) -> bool:
    return bool(_APPROX_BEFORE.search(text[max(0, start - 24):start])
                or _APPROX_AFTER.match(text[end:end + 12]))


def _to_canonical(value: float, unit: str | None) -> tuple[float, str | None]:
    """Convert units the suite states otherwise: hours to minutes, mph and m/s to km/h."""
    if unit == "hours":
        return value * 60.0, "minutes"
    if unit == "mph":
        return value * 1.609344, "km/h"
    if unit == "m/s":
        return value * 3.6, "km/h"
    if unit == "mi2":
        return value * 2.589988, "km2"
    return value, unit


def find_numbers(text: str, *, skip: list[Span] | None = None) -> list[Number]:
    """Numbers with their units ("14°C", "14 degrees C", "$74.97", "1,250", "-3 °F", "60%",
    "three events", "half an hour"), each marked approximate when the text says so. Spans
    in `skip` (dates, times) are blanked out first so "June 17" is not a number."""
    masked = list(text)
    for a, b in skip or []:
        masked[a:b] = " " * (b - a)
    s = "".join(masked)
    out: list[Number] = []
    taken: list[Span] = []
    for m in _HM_DURATION.finditer(s):
        out.append(Number(int(m[1]) * 60.0 + int(m[2]), "minutes", 0, m.span(),
                          _approx_at(text, m.start(), m.end())))
        taken.append(m.span())
    for rx, minutes in _DURATIONS:
        for m in rx.finditer(s):
            if not any(a < m.end() and m.start() < b for a, b in taken):
                out.append(Number(minutes, "minutes", 0, m.span(),
                                  _approx_at(text, m.start(), m.end())))
                taken.append(m.span())
    for m in _NUM_RE.finditer(s):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        dec = m.group("dec") or m.group("cdec") or ""  # "8,8 °C": a decimal comma
        value = float(_THOUSANDS.sub("", m.group("int")) + "." + (dec or "0"))
        # "35.146": a decimal point, or a European thousands dot (35146)
        alt = float(m.group("int") + dec) if m.group("dec") and len(dec) == 3 \
            and len(m.group("int")) <= 3 and m.group("int") != "0" and not m.group("cur") \
            else None
        if m.group("sign"):
            value = -value
        unit = None
        if m.group("cur"):
            unit = "USD"
        elif m.group("unit"):
            unit = canonical_unit(re.sub(r"\s+", " ", m.group("unit").strip()))
        if unit is None and _RATED.search(s[max(0, m.start() - 16):m.start()]):
            unit = "stars"
        if alt is not None:
            alt = _to_canonical(-alt if m.group("sign") else alt, unit)[0]
        value, unit = _to_canonical(value, unit)
        decimals = len(dec)
        start = next(m.start(g) for g in ("sign", "cur", "int") if m.group(g))
        out.append(Number(value, unit, decimals, (start, m.end()),
                          _approx_at(text, start, m.end()), alt))
    for m in _WORD_NUM_RE.finditer(s):
        if any(a < m.end() and m.start() < b for a, b in taken):
            continue
        value, unit = _to_canonical(_word_value(m["w"]), canonical_unit(m["unit"]))
        out.append(Number(value, unit, 0, m.span(), _approx_at(text, m.start(), m.end())))
    out.sort(key=lambda n: n.span)
    return out


# -- dates ------------------------------------------------------------------------------------


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


_ORD = r"(?:st|nd|rd|th)?"
_DASH = r"\s*(?:–|—|-|to|through|until|till)\s*"
_ISO_RE = re.compile(r"(?<!\d)(\d{4})[-/.](\d{1,2})[-/.](\d{1,2})(?!\d)")
_NUMERIC_RE = re.compile(
    r"(?<![\d/.,-])(\d{1,2})([/.-])(\d{1,2})\2(\d{4}|\d{2})(?![\d/]|\.\d)")
_SLASH_RE = re.compile(r"(?<![\d/.,$])(\d{1,2})/(\d{1,2})(?![\d/]|\.\d)")
_MD_RANGE_RE = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORD}{_DASH}(\d{{1,2}}){_ORD}\b"
    r"(?!\s*(?::\d|am|pm|a\.m|p\.m|°|%)|\.\d)"
    rf"(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE)
_DM_RANGE_RE = re.compile(
    rf"\b(\d{{1,2}}){_ORD}{_DASH}(\d{{1,2}}){_ORD}\s+(?:of\s+)?({_MONTH_RE})\b\.?"
    rf"(?:,?\s+(\d{{4}})\b)?", re.IGNORECASE)
_MD_RE = re.compile(
    rf"\b({_MONTH_RE})\.?\s+(\d{{1,2}}){_ORD}\b(?!\s*(?::\d|am\b|pm\b)|[.,]\d"
    r"|\s*(?:°|℃|%|mm\b|km|mph))"  # not "16. Juni 28,3 °C"
    rf"(?!\.?\s+(?:of\s+|de\s+)?(?:{_MONTH_RE})\b)"  # "mar. 17 juin" is a Tuesday in June
    r"(?:,?\s+(\d{4})\b)?",
    re.IGNORECASE,
)
_DM_RE = re.compile(  # "18 June", "the 18th of June", "26. Juni", "16 de junho de 2025"
    rf"\b(\d{{1,2}}){_ORD}\.?\s+(?:of\s+|de\s+)?({_MONTH_RE})\b\.?"
    rf"(?:,?\s+(?:de\s+)?(\d{{4}})\b)?",
    re.IGNORECASE,
)
# "16.06." (a German day and month) at a line's or list item's start or after a preposition
_DOT_DM_RE = re.compile(
    r"(?:^[ \t]*(?:[-*•][ \t]*)?|\b(?:am|vom|bis|zum|den|le|du|au|el|del|al|il|dal|op"
    r"|em|no|do|ao)\s+)(?P<d>\d{1,2})\.(?P<m>\d{1,2})\.(?![\d])", re.IGNORECASE | re.MULTILINE)
_CJK_RE = re.compile(r"(\d{1,2})\s*[月월]\s*(\d{1,2})\s*[日号일]")  # "6月18日", "6월 18일"
_FOREIGN_REL = re.compile(
    r"(?<![a-z0-9])(" + "|".join(re.escape(w) for w in sorted(lang.RELATIVE_DAYS, key=len,
                                                              reverse=True))
    + r")(?![a-z0-9])")
# no look-behind in front: the names' first letters let the scan skip ahead
_FOREIGN_WD = re.compile(
    "|".join(re.escape(w) for w in sorted(lang.WEEKDAY_NAMES, key=len, reverse=True))
    + r"(?![a-z])")
_SHIFT_BEFORE = re.compile(r"(?:" + "|".join(lang.WEEK_SHIFTS) + r")\s*$")
_SHIFT_AFTER = re.compile(r"\s*(?:" + "|".join(lang.WEEK_SHIFTS) + r")(?![a-z])")
_REL_RE = re.compile(r"\b(day after tomorrow|today|tonight|tomorrow|yesterday)\b", re.IGNORECASE)
_REL = {"today": 0, "tonight": 0, "tomorrow": 1, "yesterday": -1, "day after tomorrow": 2}
_DAY_COUNT = r"(\d{1,2}|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|thirteen" \
             r"|fourteen)"
_IN_DAYS_RE = re.compile(
    rf"\bin\s+{_DAY_COUNT}\s+days?\b|\b{_DAY_COUNT}\s+days?\s+(?:from\s+(?:today|now))\b"
    rf"|\b{_DAY_COUNT}\s+days?\s+ago\b|\ba\s+week\s+(?:from\s+today|from\s+now|ago)\b",
    re.IGNORECASE)
# "Tue 17", "Wednesday the 18th": a weekday and a day of the month (June or July)
_WD_DAY_RE = re.compile(
    rf"\b({_WD_RE})\.?,?\s+(?:the\s+)?(\d{{1,2}})(?:st|nd|rd|th)?\b"
    r"(?!\s*(?::\d|°|%|\.\d|am\b|pm\b|mm\b|km|[-–/]\d))",
    re.IGNORECASE)
_NTH_RE = re.compile(r"\b(?:on\s+)?the\s+(\d{1,2})(?:st|nd|rd|th)\b(?!\s+(?:of\s+)?(?:jan|feb|mar"
                     r"|apr|may|jun|jul|aug|sep|oct|nov|dec))", re.IGNORECASE)
_WEEKDAY_RE = re.compile(
    rf"\b(?:(this|next|last|coming)\s+)?({_WD_RE})\b\.?(?:\s+(next|last|this)\s+week)?",
    re.IGNORECASE,
)


def _count(word: str) -> float:
    return float(word) if word.isdigit() else _word_value(word)


def _weekday_index(word: str) -> int:
    w = word.lower()[:3]
    return [d[:3] for d in WEEKDAYS].index(w)


def _weekday_date(idx: int, before: str | None, after: str | None) -> date:
    """A weekday name relative to the reference Monday: plain or "this" = the coming one
    (today included), "next"/"... next week" = a week on, "last"/"... last week" = past."""
    ahead = (idx - REF_DAY.weekday()) % 7
    mod = (before or after or "").lower()
    if mod == "last":
        return REF_DAY - timedelta(days=(REF_DAY.weekday() - idx) % 7 or 7)
    if mod == "next" or (after or "").lower() == "next":
        return REF_DAY + timedelta(days=ahead + 7 if ahead else 7)
    return REF_DAY + timedelta(days=ahead)


def _foreign_dates(text: str, add: Callable[[Span, set[date | None]], None]) -> None:
    """Date forms of other languages: "16.06.", "6月18日", "morgen", "demain"."""
    for m in _DOT_DM_RE.finditer(text):
        add(m.span("d")[:1] + m.span("m")[1:], {_mk(REF_DAY.year, int(m["m"]), int(m["d"]))})
    for m in _CJK_RE.finditer(text):
        add(m.span(), {_mk(REF_DAY.year, int(m[1]), int(m[2]))})
    for m in _FOREIGN_REL.finditer(text):
        if m[1] == "morgen" and re.search(r"(?:heute|guten|jeden)\s+$", text[:m.start()]):
            continue  # "heute Morgen": this morning
        add(m.span(), {REF_DAY + timedelta(days=lang.RELATIVE_DAYS[m[1]])})


def _wrong_weekday(text: str, m: re.Match[str], found: list[tuple[Span, set[date]]]
                   ) -> date | None:
    """In "Saturday, June 22" (a Sunday), the day of that week the weekday names (June
    21): a second, false date the text states. None when the weekday fits the date right
    after it, or is part of a range ("Friday–Sunday, June 20–22")."""
    nxt = next((d for (a, _), d in found if 0 <= a - m.end() <= 3
                and re.fullmatch(r",?\s*", text[m.end():a])), None)
    if nxt is None or re.search(r"(?:–|—|-|to|through|until)\s*$", text[:m.start()], re.I):
        return None
    idx = _weekday_index(m[2])
    if any(d.weekday() == idx for d in nxt) or len(nxt) != 1:
        return None
    day = next(iter(nxt))
    return day + timedelta(days=idx - day.weekday())


def find_dates(text: str, *, weekdays: bool = True, low: str | None = None
               ) -> list[tuple[Span, set[date]]]:
    """Dates in any common format, each with the set of dates it may mean (06/07/2025 is
    ambiguous between June 7 and July 6, so both). A range ("June 16–22") gives both ends.
    A weekday name alone ("Friday") is read relative to the reference Monday."""
    # one character for one: spans stay valid (`low`: the caller's fold of it already)
    orig, text = text, fold(text) if low is None else low
    found: list[tuple[Span, set[date]]] = []
    taken: list[Span] = []

    def add(span: Span, days: set[date | None], claim: Span | None = None) -> None:
        zone = claim or span
        if any(a < zone[1] and zone[0] < b for a, b in taken):
            return
        good = {d for d in days if d is not None}
        if good:
            found.append((span, good))
            if claim is None:
                taken.append(span)

    for m in _ISO_RE.finditer(text):
        add(m.span(), {_mk(int(m[1]), int(m[2]), int(m[3]))})
    for m in _NUMERIC_RE.finditer(text):
        y = _year(m[4])
        add(m.span(), {_mk(y, int(m[1]), int(m[3])), _mk(y, int(m[3]), int(m[1]))})
    for m in _MD_RANGE_RE.finditer(text):
        mo, y = MONTHS[m[1].lower()], _year(m[4])
        add((m.start(), m.start(2) + len(m[2])), {_mk(y, mo, int(m[2]))}, m.span())
        add((m.start(3), m.end()), {_mk(y, mo, int(m[3]))}, m.span())
        taken.append(m.span())
    for m in _DM_RANGE_RE.finditer(text):
        mo, y = MONTHS[m[3].lower()], _year(m[4])
        add((m.start(), m.end(1)), {_mk(y, mo, int(m[1]))}, m.span())
        add((m.start(2), m.end()), {_mk(y, mo, int(m[2]))}, m.span())
        taken.append(m.span())
    for m in _MD_RE.finditer(text):
        add(m.span(), {_mk(_year(m[3]), MONTHS[m[1].lower()], int(m[2]))})
    for m in _DM_RE.finditer(text):
        add(m.span(), {_mk(_year(m[3]), MONTHS[m[2].lower()], int(m[1]))})
    for m in _SLASH_RE.finditer(text):
        a, b = int(m[1]), int(m[2])
        add(m.span(), {_mk(REF_DAY.year, b, a), _mk(REF_DAY.year, a, b)})
    for m in _IN_DAYS_RE.finditer(text):
        ahead = m[1] or m[2]
        if ahead:
            add(m.span(), {REF_DAY + timedelta(days=int(_count(ahead)))})
        elif m[3]:
            add(m.span(), {REF_DAY - timedelta(days=int(_count(m[3])))})
        else:
            add(m.span(), {REF_DAY + timedelta(days=-7 if "ago" in m[0].lower() else 7)})
    for m in _REL_RE.finditer(text):
        add(m.span(), {REF_DAY + timedelta(days=_REL[m[1].lower()])})
    _foreign_dates(text, add)
    for m in _WD_DAY_RE.finditer(text):
        wd, day = _weekday_index(m[1]), int(m[2])
        fits = {d for d in (_mk(REF_DAY.year, REF_DAY.month, day),
                            _mk(REF_DAY.year, REF_DAY.month + 1, day)) if d and d.weekday() == wd}
        add(m.span(), set(fits) or {_mk(REF_DAY.year, REF_DAY.month, day)})
    for m in _NTH_RE.finditer(text):
        day = int(m[1])
        add(m.span(), {_mk(REF_DAY.year, REF_DAY.month, day),
                       _mk(REF_DAY.year, REF_DAY.month + 1, day)})
    if weekdays:
        for m in _WEEKDAY_RE.finditer(text):
            word = orig[m.start(2):m.end(2)]
            if word.lower() in ("sun", "sat", "wed", "mon") and word.islower():
                continue  # "sun" the noun, not Sunday
            near = [d for (a, b), d in found if abs(a - m.end()) <= 3 or abs(m.start() - b) <= 3]
            if near:  # "Tuesday, June 17": the date says it, unless the weekday is wrong
                wrong = _wrong_weekday(text, m, found)
                if wrong is not None:
                    add(m.span(), {wrong})
                continue
            add(m.span(), {_weekday_date(_weekday_index(m[2]), m[1], m[3])})
        for m in _FOREIGN_WD.finditer(text):  # "am Mittwoch", "mercredi", "周三"
            a, b = m.span()
            if a and "a" <= text[a - 1] <= "z":
                continue  # inside a word
            if any(abs(x - b) <= 3 or abs(a - y) <= 3 for (x, y), _ in found):
                continue  # "mardi 17 juin", "6月17日（火）": the date says it
            wd_day = _weekday_date(lang.WEEKDAY_NAMES[m[0]], None, None)
            shifted = _SHIFT_BEFORE.search(text, max(0, a - 12), a) or _SHIFT_AFTER.match(
                text, b)
            add((a, b), {wd_day + timedelta(days=k) for k in (-7, 0, 7)} if shifted else {wd_day})
    found.sort(key=lambda x: x[0])
    return found


# -- times ------------------------------------------------------------------------------------

_AMPM = r"(?P<ampm>a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])"
_HM_RE = re.compile(
    rf"(?<![\d:])(?P<h>[01]?\d|2[0-3])(?P<sep>[:.]|\s?h\s?)(?P<m>[0-5]\d)(?::[0-5]\d)?(?!\d)"
    rf"(?!\s*min)(?:\s*{_AMPM})?",
    re.IGNORECASE,
)
_H_RE = re.compile(rf"(?<![\d:.])(?P<h>1[0-2]|0?[1-9])\s*{_AMPM}", re.IGNORECASE)
_RANGE_RE = re.compile(
    r"(?<![\d:.])(?P<h1>1[0-2]|0?[1-9])(?::(?P<m1>[0-5]\d))?\s*(?:–|—|-|to)\s*"
    r"(?P<h2>1[0-2]|0?[1-9])(?::(?P<m2>[0-5]\d))?\s*(?P<ampm>a\.?\s?m\.?|p\.?\s?m\.?)(?![a-z])",
    re.IGNORECASE,
)
_WORD_TIME_RE = re.compile(r"\b(noon|midday|midnight)\b", re.IGNORECASE)
_UHR_RE = re.compile(r"(?<![\d:])([01]?\d|2[0-3])\s*uhr\b", re.IGNORECASE)  # "14 Uhr"
# "à 17h", "de 9h à 10h": an hour with "h" and no minutes, only after a word that opens a
# time (a bare "3 h" is as often a duration)
_FR_H_RE = re.compile(r"(?<![\d:.,])([01]?\d|2[0-3])h(?![a-z0-9])", re.IGNORECASE)
_FR_H_BEFORE = re.compile(r"(?:(?:^|[\s(])(?:a|à|de|vers|des|dès|jusqu'à|las|alle|às)|[-–])"
                          r"\s*$")
# Chinese, Japanese and Korean clock times: "午前8時", "下午3点半", "8点30分", "오후 3시 30분";
# the end of a range without its own am/pm takes the start's ("午後2時から3時")
_CJK_PM = ("午後", "下午", "晚上", "傍晚", "夜", "오후", "저녁", "밤")
_CJK_AM = ("午前", "上午", "早上", "凌晨", "清晨", "오전", "아침", "中午")
_CJK_TIME_RE = re.compile(
    r"(?P<pre>" + "|".join(_CJK_PM + _CJK_AM) + r")?\s*"
    r"(?<![\d.,])(?P<h>[012]?\d)\s*[時时点點시](?![間间간])"
    r"(?:\s*(?:(?P<m>[0-5]?\d)\s*[分분]|(?P<half>半|반)))?")
_CJK_RANGE_GAP = re.compile(r"\s*(?:부터|から|到|至|~|〜|-|–|—)\s*")


def _cjk_times(text: str) -> list[tuple[Span, str]]:
    out: list[tuple[Span, str]] = []
    prev: tuple[int, str | None] | None = None  # the last time's end and its am/pm
    for m in _CJK_TIME_RE.finditer(text):
        h, mins = int(m["h"]), 30 if m["half"] else int(m["m"] or 0)
        pre = m["pre"]
        if pre is None and prev is not None and _CJK_RANGE_GAP.fullmatch(text, prev[0],
                                                                          m.start()):
            pre = prev[1]
        if (pre in _CJK_PM and 1 <= h < 12) or (pre == "中午" and h < 6):
            h += 12
        if h < 24:
            out.append((m.span(), f"{h:02d}:{mins:02d}"))
        prev = (m.end(), pre)
    return out


def _hm(h: int, m: int, ampm: str | None) -> str | None:
    if ampm:
        if not 1 <= h <= 12:
            return None
        pm = ampm.lower().startswith("p")
        h = (h % 12) + (12 if pm else 0)
    return f"{h:02d}:{m:02d}"


def find_times(text: str) -> list[tuple[Span, str]]:
    """Clock times as ``HH:MM`` ("14:00", "2 pm", "2:00 PM", "2 p.m.", "noon", and both
    ends of "8–9 am", where the am/pm of the end applies to the start)."""
    out: list[tuple[Span, str]] = []
    for m in _RANGE_RE.finditer(text):
        h1, h2 = int(m["h1"]), int(m["h2"])
        end = _hm(h2, int(m["m2"] or 0), m["ampm"])
        first_pm = m["ampm"].lower().startswith("p") and not (h1 > h2 and h1 != 12)
        start = _hm(h1, int(m["m1"] or 0), "pm" if first_pm else "am")
        if start and end:
            mid = m.start("h2")
            out.append(((m.start(), mid), start))
            out.append(((mid, m.end()), end))
    for m in _HM_RE.finditer(text):
        if any(a <= m.start() < b for (a, b), _ in out):
            continue
        # "2025.06" or a decimal like "14.50" is not a time unless am/pm follows
        if m["sep"] == "." and not m["ampm"]:
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
    frh = [m for m in _FR_H_RE.finditer(text)
           if _FR_H_BEFORE.search(text, max(0, m.start() - 10), m.start())]
    for m in (*_UHR_RE.finditer(text), *frh):
        if not any(a <= m.start() < b for (a, b), _ in out):
            out.append((m.span(), f"{int(m[1]):02d}:00"))
    if not text.isascii():
        out += [x for x in _cjk_times(text) if not any(a <= x[0][0] < b for (a, b), _ in out)]
    out.sort(key=lambda x: x[0])
    return out


@functools.lru_cache(maxsize=4096)
def canonical_time(value: str) -> str | None:
    found = find_times(str(value))
    return found[0][1] if found else None
