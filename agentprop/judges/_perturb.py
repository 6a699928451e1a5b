"""Deterministic, seeded perturbations of an answer's text, for the instruments' stress
tests (`judges/_stress.py`, as the RAND Judge Reliability Harness runs them).

Two families. **Meaning-preserving** ones change how an answer says something, never what
it says (the labelling rule accepts every one of them: paraphrase, order, units and date
formats, padding, markdown), so a sound judge's verdict must not move. **Meaning-changing**
ones change one fact the answer states (a number, an entity, a date, a decision), so an
answer that was right is now wrong and the verdict must move. Each function returns the
new text, or None when it does not apply to this answer (no second sentence to move, no
number of the task's facts in the text...). The randomness of a perturbation comes from a
`random.Random` seeded by the perturbation, the text and the run's seed
(`perturb`), so the same answer always gets the same perturbation.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta

from agentprop.core import Fact, Task, stable_hash

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
YEAR = 2025  # the suite's year (core.REFERENCE_DATE)

Rivals = Mapping[str, Sequence[str]]
"""Anchor category (``city``, ``patient``...) → names of that category across the suite
(an entity swap takes another one)."""


@dataclass(frozen=True)
class Perturbation:
    """One perturbation: its name, whether it preserves the meaning, and the function."""

    name: str
    preserving: bool
    apply: Callable[[str, Task | None, random.Random, Rivals], str | None]
    needs_task: bool = False


# -- meaning-preserving ------------------------------------------------------------------

_LEAD_INS = ("Here is what I found: ", "According to the tools, ", "Sure. ",
             "Based on the lookup, ")
_SWAPS = ((r"\bIt is\b", "It's"), (r"\bit is\b", "it's"), (r"\bI have\b", "I've"),
          (r"\bdo not\b", "don't"), (r"\bdoes not\b", "doesn't"), (r"\bis not\b", "isn't"),
          (r"\bapproximately\b", "about"), (r"\bcurrently\b", "at the moment"),
          (r"\bcheaper\b", "less expensive"), (r"\bwarmer\b", "hotter"),
          (r"\bcolder\b", "cooler"))


def paraphrase(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str:
    """A lead-in and the contractions and synonyms the labelling rule accepts."""
    out = text
    for pattern, repl in _SWAPS:
        out = re.sub(pattern, repl, out)
    lead = rng.choice(_LEAD_INS)
    first = out.split(" ", 1)[0]
    if not lead.endswith(". ") and first in _COMMON_OPENERS:
        out = out[:1].lower() + out[1:]
    return lead + out


_COMMON_OPENERS = frozenset({"The", "Your", "You", "Next", "It", "It's", "There", "This",
                             "On", "In", "Today", "Tomorrow", "Yes", "No", "Here", "That",
                             "Both", "All", "Go", "Take", "Scheduled", "Booked", "Done"})


_SENTENCE = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")
_ANAPHOR = re.compile(r"^(It|Its|It's|This|That|They|Their|These|Those|He|She|His|Her|So|But|"
                      r"However|Also|And|Then|There|Which|Both|Each|Neither|Either)\b")


def reorder(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str | None:
    """The sentences in another order, when none leans on the one before it."""
    if "\n" in text:
        return None
    parts = _SENTENCE.split(text.strip())
    if len(parts) < 2 or any(_ANAPHOR.match(p) for p in parts[1:]):
        return None
    order = list(range(len(parts)))
    while order == sorted(order):
        rng.shuffle(order)
    return " ".join(parts[i] for i in order)


_ISO = re.compile(r"\b(20\d\d)-(\d\d)-(\d\d)\b")
_CLOCK = re.compile(r"(?<![\d:.])([01]?\d|2[0-3]):([0-5]\d)(?![\d:]|\s*(?:[ap]\.?m\b))",
                    re.IGNORECASE)
_MONEY = re.compile(r"\$(\d[\d,]*(?:\.\d+)?)")


def _clock12(m: re.Match[str]) -> str:
    h, mm = int(m.group(1)), m.group(2)
    suffix = "am" if h < 12 else "pm"
    return f"{(h % 12) or 12}:{mm} {suffix}"


def units_dates(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str | None:
    """ISO dates as "June 18, 2025", 24-hour times as "2:30 pm", °C as "degrees Celsius",
    $12 as "12 dollars": the formats the labelling rule accepts."""
    out = _ISO.sub(lambda m: f"{MONTHS[int(m.group(2)) - 1]} {int(m.group(3))}, {m.group(1)}",
                   text)
    out = _CLOCK.sub(_clock12, out)
    out = re.sub(r"\s?°\s?C\b", " degrees Celsius", out)
    out = re.sub(r"\s?°\s?F\b", " degrees Fahrenheit", out)
    out = _MONEY.sub(lambda m: f"{m.group(1)} dollars", out)
    return out if out != text else None


_OPENERS = ("I looked this up for you.", "Thanks for your question.",
            "I checked the available information.")
_CLOSERS = ("I hope this helps!", "Let me know if there is anything else I can do.",
            "Have a great day.")


def verbosity(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str:
    """Padding around the answer: a courtesy opener and closer."""
    return f"{rng.choice(_OPENERS)} {text.strip()} {rng.choice(_CLOSERS)}"


_FIGURE = re.compile(r"(?<![\w*/:.,$-])([$]?\d[\d,]*(?:\.\d+)?(?:\s?(?:°C|°F|%))?)"
                     r"(?![\w/:*-])")
_DATE_WORD = re.compile(r"(?:" + "|".join(m[:3] for m in MONTHS) + r")[a-z]*\.?\s*$")


def markdown(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str:
    """A heading, one bullet per sentence, the first figure that is not part of a date
    in bold."""
    parts = _SENTENCE.split(text.strip()) if "\n" not in text else text.strip().splitlines()
    bullets = "\n".join(f"- {p.strip()}" for p in parts if p.strip())
    for m in _FIGURE.finditer(bullets):
        if _DATE_WORD.search(bullets[:m.start()]):
            continue
        bullets = bullets[:m.start()] + f"**{m.group(1)}**" + bullets[m.end():]
        break
    return f"**Answer**\n\n{bullets}"


# -- meaning-changing -------------------------------------------------------------------

_NUMBER = re.compile(r"(?<![\w.:/-])(\d+(?:\.\d+)?)(?![\d:/-]|\.\d)")
_ENUMERATOR = re.compile(r"(?:^|\n)\s*$")  # a list's "1." or "2)" at the start of a line


def _facts(task: Task | None, kinds: Sequence[str]) -> list[Fact]:
    return [f for f in (task.expected_facts if task else []) if f.kind in kinds]


def _other_number(v: float, tol: float, text_value: str, rng: random.Random) -> str:
    step = max(3.0, 4 * tol, 0.25 * abs(v))
    new = v + step if rng.random() < 0.5 or v - step < 0 else v - step
    decimals = len(text_value.split(".")[1]) if "." in text_value else 0
    return f"{new:.{decimals}f}"


def number(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str | None:
    """One figure of the task's facts stated in the answer, moved far outside its
    tolerance (or any first figure, for a text without a task)."""
    facts = [f for f in _facts(task, ("number",)) if isinstance(f.value, int | float)]
    hits = []
    for m in _NUMBER.finditer(text):
        if _ENUMERATOR.search(text[:m.start()]) and text[m.end():m.end() + 1] in ".)":
            continue
        x = float(m.group(1))
        if task is None:
            hits.append((m, x, 0.0))
            continue
        for f in facts:
            tol = max(f.tolerance or 0.0, 1e-9)
            if abs(x - float(f.value)) <= tol:
                hits.append((m, x, tol))
                break
    if not hits:
        return None
    m, x, tol = hits[0] if task is None else rng.choice(hits)
    return text[:m.start()] + _other_number(x, tol, m.group(1), rng) + text[m.end():]


def _date_forms(d: date) -> list[str]:
    month = MONTHS[d.month - 1]
    return [d.isoformat(), f"{month} {d.day}", f"{d.day} {month}", f"{month[:3]} {d.day}"]


def _render_like(form_index: int, d: date) -> str:
    return _date_forms(d)[form_index]


def date_shift(text: str, task: Task | None, rng: random.Random,
               rivals: Rivals) -> str | None:
    """One date of the task's facts (or, without a task, the first date) stated in the
    answer, moved by two to five days, in the same format."""
    days: list[date] = []
    for f in _facts(task, ("date",)):
        try:
            days.append(date.fromisoformat(str(f.value)))
        except ValueError:
            continue
    if task is None:
        m = _ISO.search(text)
        if m:
            days.append(date(int(m.group(1)), int(m.group(2)), int(m.group(3))))
        for i, month in enumerate(MONTHS):
            for m2 in re.finditer(rf"\b{month}\s+(\d{{1,2}})\b", text):
                days.append(date(YEAR, i + 1, int(m2.group(1))))
    for d in days:
        for k, form in enumerate(_date_forms(d)):
            hit = re.search(rf"(?<![\w-]){re.escape(form)}(?![\w-])", text)
            if hit:
                new = d + timedelta(days=rng.randint(2, 5))
                return text[:hit.start()] + _render_like(k, new) + text[hit.end():]
    return None


def entity(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str | None:
    """Every mention of one entity the task's facts are about (a city, patient, product,
    drug, event) replaced by another of its category, so its values are stated for the
    wrong one."""
    low = text.lower()
    facts = task.expected_facts if task else []
    for f in facts:
        for cat, names in f.about.items():
            words = [n for n in names if not _ID.match(n) and len(n) > 2 and n.lower() in low]
            if cat in ("date",) or not words:
                continue
            # the entity: one name, with the ids listed beside it anywhere in the facts
            # (several plain names under one category are alternatives: each its own)
            name = words[0]
            alias = {name} | {n for g in facts for n in g.about.get(cat, ())
                              if _ID.match(n) and name in g.about.get(cat, ())}
            present = [n for n in alias if n.lower() in low]
            others = [r for r in rivals.get(cat, ()) if r.lower() not in
                      {n.lower() for n in alias} and r.lower() not in low]
            if present and others:
                new = rng.choice(sorted(others))
                out = text
                for name in sorted(present, key=len, reverse=True):
                    out = re.sub(rf"(?<!\w){re.escape(name)}(?!\w)", new, out,
                                 flags=re.IGNORECASE)
                return out
    return None


_CUES = {
    "created": ("added", "created", "booked", "scheduled", "on your calendar", "set up"),
    "booked": ("booked", "scheduled", "reserved"),
    "deleted": ("deleted", "removed", "cancelled", "canceled", "gone"),
    "moved": ("moved", "rescheduled"),
    "ordered": ("ordered", "placed", "purchased"),
    "rain": ("rain", "raining", "wet"),
}
_AUX = r"(is|are|was|were|will be|has been|have been|will|does|do)"


def negation(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str | None:
    """The answer's decision reversed: the two options of a choice swapped (every mention),
    a yes/no answer's leading word flipped, or the verb of the asked outcome negated ("is
    booked" → "is not booked")."""
    for f in _facts(task, ("decision",)):
        winner = str(f.value)
        losers = [o for o in f.options if o != winner and o.lower() in text.lower()]
        if winner.lower() in text.lower() and losers:
            other = losers[0]
            marker = "\x00"
            out = re.sub(re.escape(winner), marker, text, flags=re.IGNORECASE)
            out = re.sub(re.escape(other), winner, out, flags=re.IGNORECASE)
            return out.replace(marker, other)
    asked = [f for f in _facts(task, ("polar", "decision")) if f.role == "asked"]
    if not asked:
        return None
    lead = re.match(r"\s*(Yes|No)\b", text)
    if lead:
        flipped = "No" if lead.group(1) == "Yes" else "Yes"
        return text[:lead.start(1)] + flipped + text[lead.end(1):]
    for f in asked:
        for cue in _CUES.get(f.relation or "", ()):
            m = re.search(rf"\b{_AUX}\s+(?:\w+ly\s+)?{re.escape(cue)}\b", text, re.IGNORECASE)
            if m and not re.match(r"\s*not\b", text[m.end(1):]):
                return text[:m.end(1)] + " not" + text[m.end(1):]
    return None


_NOTICES = (
    "Note that the tool returned data for a different {thing} than the one you asked about.",
    "The lookup failed with an error, so I could not confirm this.",
    "I am not sure this is right: the result does not match your request.",
    "Sorry, the first call came back with the wrong record, so treat this with care.",
)


def notice(text: str, task: Task | None, rng: random.Random, rivals: Rivals) -> str:
    """A sentence in which the agent names a problem with a tool's result (for the
    `noticed` detector: an answer that noticed nothing now notices)."""
    sentence = rng.choice(_NOTICES).format(thing=rng.choice(("city", "date", "record")))
    return f"{text.strip()} {sentence}"


PERTURBATIONS: tuple[Perturbation, ...] = (
    Perturbation("paraphrase", True, paraphrase),
    Perturbation("reorder", True, reorder),
    Perturbation("units_dates", True, units_dates),
    Perturbation("verbosity", True, verbosity),
    Perturbation("markdown", True, markdown),
    Perturbation("number", False, number),
    Perturbation("entity", False, entity, needs_task=True),
    Perturbation("date", False, date_shift),
    Perturbation("negation", False, negation, needs_task=True),
    Perturbation("notice", False, notice),
)
"""Every perturbation, meaning-preserving first."""
BY_NAME = {p.name: p for p in PERTURBATIONS}


def perturb(name: str, text: str, task: Task | None = None, *, seed: int = 0,
            rivals: Rivals | None = None) -> str | None:
    """`text` perturbed by `name` (None: not applicable), the same every time for the same
    (name, text, task, seed)."""
    p = BY_NAME[name]
    if p.needs_task and task is None:
        return None
    rng = random.Random(stable_hash([name, text, task.id if task else "", seed]))
    out = p.apply(text, task, rng, rivals or {})
    return None if out is None or out == text else out


def rivals_of(tasks: Sequence[Task]) -> dict[str, list[str]]:
    """Every entity name of each anchor category in `tasks`' facts (for `entity`)."""
    out: dict[str, set[str]] = {}
    for t in tasks:
        for f in t.expected_facts:
            for cat, names in f.about.items():
                words = [n for n in names if not _ID.match(n)]
                if cat != "date" and words:
                    out.setdefault(cat, set()).add(max(words, key=len))
    return {k: sorted(v) for k, v in out.items()}


_ID = re.compile(r"^[A-Z]{1,4}_?\d+$")
