"""The programmatic judge: grades the final answer against the task's facts as a careful
human grader would (the rule, its tables and its measured validity: docs/judges.md).

Correct ⇔
1. every **asked** fact (the decision, the values requested, the outcome of the requested
   action) is stated and committed to — attributed to its own entity (city, day, drug pair,
   patient, product, event), not offered as one of several alternatives;
2. no fact, asked or context, is contradicted: no value stated for one of the task's
   entities that none of its true values matches, no scale word (severity, weather
   condition, trend) or list item (medication, allergy, event, doctor) that is false of it,
   no negation of a true fact, no id the task does not know, no decision for the wrong
   option;
3. the episode's actual final world state matches `expected_state` (replayed from the
   trace's executed calls).
No answer, an abstention or an empty answer is incorrect; a task with neither facts nor
expected state is unscored.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any

from agentprop.core import REFERENCE_DATE, Fact, Task, ToolResultEvent, Trace, Verdict
from agentprop.domains import observation_leaves
from agentprop.judges import _languages as lang
from agentprop.judges._base import JUDGES, Judge
from agentprop.judges._entities import (
    MEMBER_CATEGORIES,
    TaskEntities,
    Vocabulary,
    folded,
    key_family,
    query_vocabulary,
    tokens,
)
from agentprop.judges._extract import (
    Number,
    canonical_time,
    canonical_unit,
    find_dates,
    find_numbers,
    find_times,
    fold,
)
from agentprop.judges._lexicon import (
    ACTION_VERBS,
    CONDITION_NEIGHBOURS,
    DECISION_CUES,
    FREE_NOUNS,
    GROUP_CUES,
    NO_DECISION,
    POLAR_CUES,
    REPLACE_CUES,
    SCALES,
    SEVERITY_CONTEXT,
    SEVERITY_VAGUE,
    TOPIC_WORDS,
    TRANSITIVE_CUES,
    TREND_VAGUE,
)
from agentprop.judges._reading import Mention, Reading, chains
from agentprop.judges._state import replay_state, state_checks

if TYPE_CHECKING:
    from agentprop.suite import Suite

__all__ = ["FactsJudge", "answer_claims", "check_answer", "fact_stated", "query_vocabulary"]

# approximate figures ("about $30") are accepted within this much of the truth, by unit
_APPROX = {"USD": (0.5, 0.025), "C": (0.6, 0.0), "F": (1.1, 0.0), "%": (5.0, 0.0),
           "mm": (1.0, 0.1), "km/h": (2.0, 0.1), "people": (0.0, 0.01), "members": (0.0, 0.01),
           "km2": (0.0, 0.01), "days": (1.0, 0.0), "rainy days": (1.0, 0.0),
           "minutes": (5.0, 0.0), None: (0.1, 0.0)}
_ID_RE = re.compile(r"(?<![a-z0-9])(?:evt[_\s-]?\d{3,}|apt\d{3,}|ord\d{3,}|prd\d{3,}"
                    r"|p\d{2,4}|d\d{3}|kb\d{3,4})(?![a-z0-9])")
_YES_NO = re.compile(r"^\W*(yes|yeah|yep|no|nope|" + "|".join(lang.YES + lang.NO) + r")(?!\w)",
                     re.IGNORECASE)
_YES = frozenset(("yes", "yeah", "yep", *lang.YES))
_POLAR_QUERY = re.compile(r"^\s*(is|are|will|was|were|do|does|did|can|should|has|have)\b",
                          re.IGNORECASE)


# -- one answer in context --------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _unit_class(unit: str | None) -> str | None:
    u = canonical_unit(unit)
    return {"deg": "C"}.get(u or "", u) if u else None


@dataclass
class _Ctx:
    task: Task
    r: Reading
    ents: TaskEntities
    vocab: Vocabulary | None
    query_numbers: list[float]
    query_times: set[str]
    query_days: set[str]
    _memo: dict[tuple[str, int], list[Mention]] = field(default_factory=dict)
    cache: dict[Any, Any] = field(default_factory=dict)  # per-answer results reused by facts

    def canon(self, cat: str, names: list[str]) -> set[str]:
        """The entity ids a fact's `about` names under `cat` (its canonical name; under a
        member category, its distinctive members)."""
        if cat not in MEMBER_CATEGORIES:
            return {names[0]}
        own = set(names) - self.ents.shared.get(cat, frozenset())
        return own or set(names)

    def attributions(self, cat: str, pos: int) -> list[Mention]:
        key = (cat, pos)
        hit = self._memo.get(key)
        if hit is None:
            skip = self.ents.shared.get(cat, frozenset())
            hit = self.r.attribute(cat, pos, skip=skip)
            if hit and cat in MEMBER_CATEGORIES and skip:
                # one drug against several: "no interaction with X or Y" is said of both
                # pairs (with one pair, "X and Y: none" names the pair itself)
                hit = self.r.coordinated(cat, hit, skip=skip)
            self._memo[key] = hit
        return hit

    def bound(self, f: Fact, pos: int) -> bool:
        """The value at `pos` is said of `f`'s entity under every category it names (or of
        no entity of that category at all)."""
        for cat, names in f.about.items():
            if not names or cat == "time":
                continue
            atts = self.attributions(cat, pos)
            if atts and not any(m.ent in self.canon(cat, names) for m in atts):
                return False
        return True

    def bound_strict(self, f: Fact, pos: int) -> bool:
        """Said of `f`'s entity for sure: attributed to it, or unattributed where the task
        has only one entity of that category (used before calling a value false)."""
        for cat, names in f.about.items():
            if not names or cat == "time":
                continue
            atts = self.attributions(cat, pos)
            if cat == "date" and atts and all(m.start in self.r.ranged for m in atts):
                return False  # said of a period ("9–15 June"), not surely of one day
            if atts:
                if not any(m.ent in self.canon(cat, names) for m in atts):
                    return False
            elif not set(self.ents.own.get(cat, {})) <= set(names):
                return False  # several entities of this kind: cannot tell which
        return True

    def bound_to_own(self, cat: str, pos: int) -> str | None:
        """The task's own entity of `cat` the value at `pos` is said of, if any (an
        unattributed value belongs to the task's only entity of that category)."""
        atts = self.attributions(cat, pos)
        if atts:
            own = [m.ent for m in atts if self.ents.owns(cat, m.ent)]
            return own[0] if own else None
        table = self.ents.own.get(cat, {})
        return next(iter(table)) if len(table) == 1 else None


def _context(task: Task, answer: str, vocab: Vocabulary | None) -> _Ctx:
    r = Reading.of(answer)
    ents = vocab.task_entities(task) if vocab is not None else TaskEntities.of(task)
    if ents.ids is None:
        ents.ids = known_ids(task)
    toks = tokens(r.low)
    for cat, m in sorted(ents.matchers.items(), key=lambda kv: kv[0] != "option"):
        if cat != "date":
            r.add(cat, m.find(r.low, toks, r.text), keep=True)
    if vocab:
        # another task's entity that is a true value here ("a historian from Tambi", the
        # birthplace) is a value of this task, not an entity it speaks of
        values = ents.memo.get("true values")
        if values is None:
            values = ents.memo["true values"] = _true_values(task)
        for cat in vocab.entities:
            if cat == "date":
                continue
            own = ents.own.get(cat, {})
            r.add(cat, [(a, b, e) for a, b, e in vocab.matcher(cat).find(r.low, toks, r.text)
                        if not any(x in own for x in e)
                        and " ".join(r.low[a:b].split()) not in values])
    r.add_dates()
    _resolve_weekdays(r, ents)
    if ents.query is None:
        q_dates, q_times = find_dates(task.query), find_times(task.query)
        # a day of month or hour of the query ("on 25 June") is no quantity the answer may
        # repeat unchecked: "(roughly 25 °C)" is still checked
        inside = [s for s, _ in q_dates] + [s for s, _ in q_times]
        ents.query = ([n.value for n in find_numbers(task.query)
                       if not any(a <= n.span[0] < b for a, b in inside)],
                      {t for _, t in q_times},
                      {d.isoformat() for _, ds in q_dates for d in ds})
    qn, qt, qd = ents.query
    return _Ctx(task, r, ents, vocab, query_numbers=qn, query_times=qt, query_days=qd)


def _true_values(task: Task) -> frozenset[str]:
    """Every string value of the task's facts and its aliases, folded."""
    return folded(x for g in task.expected_facts if isinstance(g.value, str)
                  for x in (g.value, *g.aliases, *lang.VALUE_FORMS.get(g.value, ())))


def _per_task(ctx: _Ctx, key: str, make: Callable[[], Any]) -> Any:
    """`make()` once per task (the task's entities are kept across its answers)."""
    hit = ctx.ents.memo.get(key)
    if hit is None:
        hit = ctx.ents.memo[key] = make()
    return hit


def _own_names(ctx: _Ctx) -> frozenset[str]:
    """Every surface form of the task's own entities, folded."""
    return _per_task(ctx, "own names", lambda: folded(
        n for table in ctx.ents.own.values() for forms in table.values() for n in forms))


def _task_values(ctx: _Ctx) -> frozenset[str]:
    return _per_task(ctx, "true values", lambda: _true_values(ctx.task))


@functools.lru_cache(maxsize=256)
def _folded_cues(cues: tuple[str, ...]) -> frozenset[str]:
    return folded(cues)


_BARE_WEEKDAY = re.compile(r"^(?:(?:this|next|last|coming)\s+)?[a-z]{3,9}\.?$", re.I)


def _resolve_weekdays(r: Reading, ents: TaskEntities) -> None:
    """A weekday named alone ("Tuesday: 23 °C") means the task's date with that weekday,
    when the task has exactly one."""
    own = [d for d in ents.own.get("date", {}) if re.fullmatch(r"\d{4}-\d{2}-\d{2}", d)]
    if not own:
        return
    from datetime import date as _date

    ms = r.mentions.get("date", [])
    for i, m in enumerate(ms):
        if not _BARE_WEEKDAY.match(r.text[m.start:m.end].strip()):
            continue
        wd = _date.fromisoformat(m.ent).weekday()
        same = [d for d in own if _date.fromisoformat(d).weekday() == wd]
        if len(same) == 1 and same[0] != m.ent:
            ms[i] = Mention("date", same[0], m.start, m.end)


# -- numbers ----------------------------------------------------------------------------------


def _unit_ok(f: Fact, n: Number, *, explicit: bool = False) -> bool:
    fu, nu = _unit_class(f.unit), n.unit
    if nu is None:
        return not explicit
    if fu in ("C", "F"):
        return nu in ("C", "F", "deg")
    if fu is None:
        return nu == "stars"
    if fu == "rainy days":
        return nu == fu or (nu == "days" and not explicit)
    return nu == fu


def _targets(f: Fact) -> list[float]:
    out = []
    for v in [f.value, *f.accepts]:
        try:
            out.append(float(v))
        except (TypeError, ValueError):
            continue
    return out


def _value_ok(f: Fact, n: Number) -> bool:
    if n.alt is not None and _value_ok(f, replace(n, value=n.alt, decimals=0, alt=None)):
        return True  # "35.146 km²" read as 35146
    fu = _unit_class(f.unit)
    if n.approx and f.exact:
        return False
    slack = 0.5 * 10.0 ** (-n.decimals)
    if fu == "USD" and not n.approx:
        slack = 0.0
    tol = max(float(f.tolerance or 0.0), slack)
    value = n.value
    if fu in ("C", "F") and n.unit in ("C", "F") and n.unit != fu:
        value = (value - 32.0) * 5 / 9 if fu == "C" else value * 9 / 5 + 32.0
        tol = max(float(f.tolerance or 0.0), slack * (5 / 9 if fu == "C" else 9 / 5))
    for t in _targets(f):
        extra = 0.0
        if n.approx:
            absolute, rel = _APPROX.get(fu, (0.0, 0.0))
            extra = max(absolute, rel * abs(t))
        if abs(value - t) <= max(tol, extra) + 1e-9:
            return True
        if fu == "%" and n.unit == "%" and abs(t) <= 1.0 and abs(value / 100 - t) <= tol / 100:
            return True
    return False


def _numbers_of(ctx: _Ctx, f: Fact) -> list[Number]:
    key = ("numbers", _unit_class(f.unit))
    hit = ctx.cache.get(key)
    if hit is None:
        hit = ctx.cache[key] = [n for n in ctx.r.numbers if _unit_ok(f, n)]
    return hit


def _alternative_groups(ctx: _Ctx, items: list[tuple[int, int]]) -> list[tuple[list[int], bool]]:
    key = ("groups", tuple(items))
    hit = ctx.cache.get(key)
    if hit is None:
        hit = ctx.cache[key] = _groups(ctx, items)
    return hit


def _groups(ctx: _Ctx, items: list[tuple[int, int]]) -> list[tuple[list[int], bool]]:
    out: list[tuple[list[int], bool]] = []
    by_sentence: dict[tuple[int, int], list[int]] = {}
    for i, (a, _) in enumerate(items):
        by_sentence.setdefault(ctx.r.sentence(a), []).append(i)
    for idx in by_sentence.values():
        for run, rng in chains(ctx.r.text, [items[i] for i in idx]):
            out.append(([idx[k] for k in run], rng))
    return out


def _number_status(ctx: _Ctx, f: Fact) -> tuple[str, str | None]:
    nums = _numbers_of(ctx, f)
    hits = [i for i, n in enumerate(nums) if _value_ok(f, n) and ctx.bound(f, n.span[0])]
    if not hits:
        if _unit_class(f.unit) == "minutes" and _duration_from_times(ctx, f):
            return "stated", "start and end time"
        if _targets(f) == [0.0] and _zero_stated(ctx, f):
            return "stated", "none"
        return "missing", None
    groups = _alternative_groups(ctx, [n.span for n in nums])
    for i in hits:
        if _mean_of_high(ctx, f, nums[i]):
            continue
        group = next((g for g, rng in groups if i in g and not rng), None)
        if group is not None and not all(_value_ok(f, nums[j]) for j in group):
            continue
        a, b = nums[i].span
        rivals = [n for n in nums if n is not nums[i] and ctx.r.sentence(n.span[0])
                  == ctx.r.sentence(a) and ctx.bound(f, n.span[0]) and not _value_ok(f, n)
                  and not _true_elsewhere(ctx, f, n)]
        if rivals and _doubtful(ctx, a):
            continue
        return "stated", ctx.r.text[a:b]
    return "uncommitted", None


_MEAN_WORD = re.compile(r"(?<![a-z])(?:average[sd]?|averaging|avg|mean|durchschnitt\w*|mittel\w*"
                        r"|moyenne?s?|promedi\w+|medi[ao]|gemiddeld\w*|среднем|средн\w+)"
                        r"(?![a-z])|平均|평균")
_HIGH_WORD = re.compile(r"(?<![a-z])(?:highs?|max\w*|peak\w*|daytime|hoch\w*|hochst\w*|"
                        r"tageshoch\w*|haute|elevee|alta|maxim\w*|hoogste|максим\w*)(?![a-z])"
                        r"|最高|최고")


def _mean_of_high(ctx: _Ctx, f: Fact, n: Number) -> bool:
    """`n` is a value `f` accepts in its stead (a day's high for "how warm") but the
    answer calls it the mean ("averages around 14 °C" when 14 is the high and the mean
    9.9): a high stated as the mean is a false claim, not an answer."""
    if not f.accepts or _value_ok(f.model_copy(update={"accepts": []}), n):
        return False
    lo, hi = ctx.r.clause(n.span[0])
    seg = ctx.r.low[lo:hi]
    return bool(_MEAN_WORD.search(seg)) and not _HIGH_WORD.search(seg)


_DOUBT = re.compile(r"\bor\b|\beither\b|\bone of\b|\bmaybe\b|\bperhaps\b|\bprobably\b"
                    r"|\blikely\b|\bpossibly\b|\bmight\b|\bcould\b|\bnot sure\b"
                    r"|\bunclear\b|\bunsure\b|\bdepending\b|\bshould be\b|(?<![a-z])(?:"
                    + "|".join(w for w in (*lang.ALTERNATIVES, *lang.HEDGES) if len(w) > 1)
                    + r")(?![a-z])", re.I)
# words offering alternatives ("Madrid or Sydney", "Madrid oder Sydney")
_OR = re.compile(r"(?<![a-z])(?:or|either|" + "|".join(lang.ALTERNATIVES) + r")(?![a-z])")


def _doubtful(ctx: _Ctx, pos: int) -> bool:
    """The sentence offers alternatives or doubt ("10:30, or 11:45 if it was busy")."""
    lo, hi = ctx.r.sentence(pos)
    return bool(_DOUBT.search(ctx.r.low[lo:hi]))


def _true_elsewhere(ctx: _Ctx, f: Fact, n: Number) -> bool:
    """`n` is another true value of `f`'s entity in the same unit (a high beside a mean)."""
    return any(g is not f and g.kind == "number" and g.about == f.about and _unit_ok(g, n)
               and _value_ok(g, n) for g in ctx.task.expected_facts)


_ZERO = {"mm": ("dry", "no rain", "no precipitation", "rain-free", "without rain",
                "no rainfall", "zero rain", "didn't rain", "did not rain"),
         "events": ("no events", "nothing scheduled", "nothing on", "completely clear",
                    "completely free", "free all day", "clear all day", "no appointments",
                    "no meetings", "nothing planned", "empty", "nothing booked",
                    "no entries", "wide open"),
         "days": ("no rainy days", "no rain", "dry")}


def _zero_stated(ctx: _Ctx, f: Fact) -> bool:
    """A zero amount said in words ("completely dry", "nothing scheduled")."""
    phrases = _ZERO.get(_unit_class(f.unit) or "", ())
    return any(ctx.bound(f, a) and not ctx.r.hedged(a) for a, _, _ in
               _occurrences(ctx.r.low, phrases))


def _duration_from_times(ctx: _Ctx, f: Fact) -> bool:
    """A duration is stated by the right start and end times of its entity."""
    sib = {key_family(g.key): g for g in ctx.task.expected_facts
           if g.kind == "time" and g.about == f.about and g.key.rpartition(".")[0]
           == f.key.rpartition(".")[0]}  # same prefix: "" for "start_time", "duration"
    start, end = sib.get("start_time"), sib.get("end_time")
    return bool(start and end and _time_status(ctx, start)[0] == "stated"
                and _time_status(ctx, end)[0] == "stated")


# -- dates and times --------------------------------------------------------------------------


def _date_status(ctx: _Ctx, f: Fact) -> tuple[str, str | None]:
    want = str(f.value)
    spans = [(a, b) for (a, b), _ in ctx.r.dates]
    groups = _alternative_groups(ctx, spans)
    for i, ((a, b), days) in enumerate(ctx.r.dates):
        if want not in {d.isoformat() for d in days} and not _weekday_means(ctx, (a, b), want):
            continue
        if not ctx.bound(_without(f, "date"), a):
            continue
        group = next((g for g, rng in groups if i in g and not rng), None)
        if group is None or all(_date_is(ctx, j, want) for j in group):
            return "stated", ctx.r.text[a:b]
    if any(fold(a) in ctx.r.low for a in f.aliases if len(a) > 2):
        return "stated", None
    return "missing", None


def _weekday_means(ctx: _Ctx, span: tuple[int, int], iso: str) -> bool:
    return any(m.start == span[0] and m.ent == iso for m in ctx.r.mentions.get("date", []))


def _date_is(ctx: _Ctx, i: int, iso: str) -> bool:
    (a, b), days = ctx.r.dates[i]
    return iso in {d.isoformat() for d in days} or _weekday_means(ctx, (a, b), iso)


def _without(f: Fact, cat: str) -> Fact:
    if cat not in f.about:
        return f
    return f.model_copy(update={"about": {k: v for k, v in f.about.items() if k != cat}})


_TIME_RANGE_GAP = re.compile(r"\s*(?:–|—|-|to|until|till|→|->|"
                             + "|".join(lang.RANGE_WORDS) + r")\s*")


def _time_roles(ctx: _Ctx) -> list[str]:
    """Each time's role: ``start`` or ``end`` of a range ("14:00–15:30", "8-9 am",
    "from 2 to 3 pm"), else ``single``."""
    roles = ["single"] * len(ctx.r.times)
    for i in range(len(ctx.r.times) - 1):
        gap = ctx.r.low[ctx.r.times[i][0][1]:ctx.r.times[i + 1][0][0]]
        if roles[i] == "single" and _TIME_RANGE_GAP.fullmatch(gap):
            roles[i], roles[i + 1] = "start", "end"
    return roles


def _time_status(ctx: _Ctx, f: Fact) -> tuple[str, str | None]:
    want = canonical_time(str(f.value))
    spans = [s for s, _ in ctx.r.times]
    groups = _alternative_groups(ctx, spans)
    roles = _time_roles(ctx)
    avoid = {"start_time": "end", "time": "end", "end_time": "start"}.get(key_family(f.key))
    for i, ((a, b), t) in enumerate(ctx.r.times):
        if t != want or roles[i] == avoid or not ctx.bound(f, a):
            continue
        group = next((g for g, rng in groups if i in g and not rng), None)
        if group is not None and not all(ctx.r.times[j][1] == want for j in group):
            continue
        truth = {canonical_time(str(g.value)) for g in ctx.task.expected_facts
                 if g.kind == "time" and g.about == f.about}
        rivals = [t for (x, _), t in ctx.r.times if ctx.r.sentence(x) == ctx.r.sentence(a)
                  and t not in truth and t not in ctx.query_times]
        if rivals and _doubtful(ctx, a):
            continue
        return "stated", ctx.r.text[a:b]
    return "missing", None


# -- words: entities, scales, lists -----------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _phrase_rx(phrases: frozenset[str]) -> re.Pattern[str] | None:
    parts = folded(p for p in phrases if p.strip())
    if not parts:
        return None
    def body(p: str) -> str:
        return r"\s+".join(re.escape(w) for w in p.split())
    ordered = sorted(parts, key=len, reverse=True)
    def wordy(p: str) -> bool:  # Latin or Cyrillic at both ends: a whole word
        return _WORDY.match(p[0]) is not None and _WORDY.match(p[-1]) is not None
    def first(ps: list[str]) -> str:  # a class of first letters: most positions fail fast
        return "(?=[" + "".join(sorted({re.escape(p[0]) for p in ps})) + "])"
    plain = [p for p in ordered if wordy(p)]
    # a CJK end needs no word boundary: "已下单2个"
    other = [p for p in ordered if not wordy(p)]
    cjk = "|".join((r"(?<![a-z0-9])" if p[0].isascii() else "") + body(p)
                   + (r"(?![a-z0-9])" if p[-1].isascii() else "") for p in other)
    rx = (rf"{first(plain)}(?<![a-z0-9а-я])(?:{'|'.join(body(p) for p in plain)})"
          r"(?![a-z0-9а-я])") if plain else ""
    return re.compile("|".join(x for x in (rx, f"{first(other)}(?:{cjk})" if cjk else "")
                               if x))


_WORDY = re.compile(r"[a-z0-9'а-я]")


def _occurrences(low: str, phrases: Iterable[str]) -> list[tuple[int, int, str]]:
    """Non-overlapping whole-word occurrences of `phrases` (folded), longest first."""
    rx = _phrase_rx(phrases if isinstance(phrases, frozenset) else frozenset(phrases))
    if rx is None:
        return []
    return [(m.start(), m.end(), " ".join(m.group(0).split())) for m in rx.finditer(low)]


def _occurrences_except(low: str, pool: frozenset[str], but: frozenset[str]
                        ) -> list[tuple[int, int, str]]:
    """The occurrences of `pool`'s phrases other than those in `but` (folded): the whole
    pool's pattern is compiled once, not one pattern per task's exclusions (a name in
    `but` also hides the shorter pool phrases inside it: "insulin" in "insulin glargine")."""
    return [o for o in _occurrences(low, pool) if o[2] not in but]


_SELF_NEGATIVE = frozenset(("no", "not", "none", "do", "does", "don't", "doesn't"))


def _positive(ctx: _Ctx, start: int, phrase: str, *, window: int = 6,
              after: bool = False) -> bool:
    """Not negated (with `after`, also not right after it: "rain is not expected") — a
    phrase that is itself negative ("no known allergies") counts as stated, not as its
    own negation. A name is not checked after: in "X and Y don't interact" the
    negation is the interaction's."""
    first = phrase.split()[0]
    if first in _SELF_NEGATIVE or first in lang.NEGATIONS or first[:1] in lang.CJK_NEGATIONS:
        return True  # negative concord: "n'a aucune interaction", "no hay ninguna", "没有"

    return not (ctx.r.negated(start, window)
                or (after and ctx.r.negated_after(start + len(phrase))))


# the noun or verb of an interaction with any ending ("interazioni", "Wechselwirkungen")
_INTERACTION_WORD = re.compile(r"\b(?:interact\w*|react\w*|clash\w*|" + "|".join(
    w[:-1] + r"\w*" if w.isascii() else w for w in lang.INTERACTS) + r")(?!\w)")


def _name_positive(ctx: _Ctx, start: int, phrase: str, *, window: int = 6) -> bool:
    """A name not negated: in "it doesn't interact with X" the negation is the
    interaction's, not X's (X is still said to be taken)."""
    if _positive(ctx, start, phrase, window=window):
        return True
    lo = max(ctx.r.clause(start)[0], start - 40)
    seg = ctx.r.low[lo:start]
    neg = max((m.end() for m in re.finditer(r"\b(?:not|no|never|without|nor|none|neither)\b"
                                             r"|n't\b", seg)), default=0)
    if neg and _WITH_GAP.fullmatch(seg, neg):
        return True  # "nor with X", "none with X": the elided interaction is negated
    return bool(_INTERACTION_WORD.search(seg, neg))


_WITH_GAP = re.compile(r"\s+(?:either\s+)?(?:with|against|mit|avec|con|com|met)\s+"
                       r"(?:(?:the|" + "|".join(w for w in lang.NAME_OPENERS if "'" not in w)
                       + r")\s+)?")


# "no allergies" in other languages: a negation a few words before an allergy word ("não
# tem alergias registradas", "hat keine bekannten Allergien", "n'a aucune allergie"), or
# the Chinese and Japanese forms
_NO_ALLERGY = re.compile(
    r"(?<![a-z])(?:no|not|nao|kein\w*|aucune?|n'a|sin|sem|nessuna|nessun|geen|none|nenhuma)"
    r"(?:\s+[\w'-]+){0,3}?\s+[\w'-]*(?:allergi|alergi|alerg)\w*"
    r"|(?:没有|无|沒有)(?:任何|已知的?|记录的?)?过敏|过敏史[:：]?\s*无|"
    + fold("アレルギー(?:は|が)?(?:ありません|なし|ない)"))  # the answer is read folded


def _no_allergy_stated(ctx: _Ctx, f: Fact) -> tuple[int, int] | None:
    for m in _NO_ALLERGY.finditer(ctx.r.low):
        if ctx.bound(f, m.start()) and ctx.r.asserted(m.start()):
            return m.span()
    return None


def _entity_status(ctx: _Ctx, f: Fact) -> tuple[str, str | None]:
    if f.group == "allergies" and f.value == "no known allergies":
        span = _no_allergy_stated(ctx, f)
        if span is not None:
            return "stated", ctx.r.text[span[0]:span[1]]
    forms = [str(f.value), *f.aliases, *lang.VALUE_FORMS.get(str(f.value), ())]
    if f.group in ("medications", "allergies"):
        forms += lang.drug_spellings(str(f.value))  # "Morphin", "morfina"
    window = 6
    for anchor, names in f.about.items():
        if set(forms) & set(names):  # the value names its own anchor: bound by itself
            forms += ctx.ents.own.get(anchor, {}).get(names[0], [])
            f = _without(f, anchor)
            window = 2  # "not in Beijing" denies it; "rain is not expected in Beijing" not
    cat = ctx.ents.category_of(str(f.value))
    if cat is not None:
        forms += ctx.ents.own[cat][str(f.value)]
    occ = _occurrences(ctx.r.low, forms)
    pos = [(a, b) for a, b, p in occ
           if _name_positive(ctx, a, p, window=window) and ctx.bound(f, a)]
    if pos:
        committed = [(a, b) for a, b in pos if not (_doubtful(ctx, a) and _rival_names(ctx, f, a))]
        if not committed:
            return "uncommitted", None
        a, b = committed[0]
        return "stated", ctx.r.text[a:b]
    if any(ctx.bound_strict(f, a) for a, _, _ in occ):
        return "contradicted", "negated"
    return "missing", None


def _rival_names(ctx: _Ctx, f: Fact, pos: int) -> bool:
    """Another item of `f`'s list or key, not true, in the sentence at `pos` ("likely
    losartan or lisinopril")."""
    if not ctx.vocab:
        return False
    pool = ctx.vocab.groups.get(f.group, frozenset()) if f.group else \
        ctx.vocab.keys.get(key_family(f.key), frozenset())
    truth = _per_task(ctx, "string values", lambda: folded(
        str(g.value) for g in ctx.task.expected_facts if isinstance(g.value, str)))
    lo, hi = ctx.r.sentence(pos)
    return any(lo <= a < hi for a, _, _ in _occurrences_except(ctx.r.low, pool, truth))


_Hit = tuple[int, int, str, frozenset[str], bool, bool, bool]


def _scale_hits(ctx: _Ctx, f: Fact) -> list[_Hit]:
    """(start, end, term, values, negated, surely-of-f, hedged) of every term of `f`'s
    scale said of `f`'s entity (or of no entity in particular)."""
    terms = SCALES[str(f.relation)]
    out = []
    for a, b, term in _occurrences(ctx.r.low, terms):
        if f.relation == "severity" and " " not in term and term not in SEVERITY_VAGUE:
            lo, hi = ctx.r.sentence(a)
            if not any(c in ctx.r.low[lo:hi] for c in SEVERITY_CONTEXT):
                continue
            if ctx.r.low[max(0, a - 4):a].strip() == "how":
                continue  # "how severe it is depends on the dose"
        if not terms[term]:
            continue
        every = _said_of_every(ctx, f, a, b) or _every_day(ctx, f, a, b)
        if not (every or ctx.bound(f, a)):
            continue
        neg = not _positive(ctx, a, term, after=True)
        out.append((a, b, term, terms[term], neg, every or ctx.bound_strict(f, a),
                    ctx.r.hedged(a)))
    return out


_EVERY = re.compile(r"\b(?:any|all|each|every|either|both|none of)\b")
# "all sunny", "sunny every day", "alle sonnig", "tous ensoleillés", "都是晴", "いずれも晴れ"
_ALL_BEFORE = re.compile(r"(?:\b(?:all|each|every day|every one|all three|all of them|alle|allesamt"
                         r"|tous|toutes|todos|todas|tutti|tutte|durchweg|jeden tag|chaque jour"
                         r"|cada dia|ogni giorno|todos os dias|elke dag|telkens)\b"
                         r"|都是|全部|均为|都|いずれも|全て|すべて|모두|все)\s*$")
_ALL_AFTER = re.compile(r"^\s*(?:all (?:three |five |seven |the )?days?|every day|each day"
                        r"|throughout|all week|on all|on each)\b")
_EXCEPT = re.compile(r"\b(?:except|but|apart from|other than|ausser|sauf|excepto|salvo|tranne"
                     r"|eccetto|exceto|behalve)\b|除了|以外|除")


def _every_day(ctx: _Ctx, f: Fact, pos: int, end: int) -> bool:
    """A condition said of every day listed ("Jun 16 30.1 °C, Jun 17 33.1 °C — all sunny"):
    true of each day its sentence names, unless the sentence makes an exception."""
    if f.relation != "condition" or not f.about.get("date"):
        return False
    lo, hi = ctx.r.sentence(pos)
    if not (_ALL_BEFORE.search(ctx.r.low, max(lo, pos - 16), pos)
            or _ALL_AFTER.match(ctx.r.low[end:hi])) or _EXCEPT.search(ctx.r.low, lo, hi):
        return False
    days = {m.ent for m in ctx.r.mentions.get("date", []) if lo <= m.start < hi}
    return f.about["date"][0] in days
_LIST_NOUNS = re.compile(r"\b(?:medications?|meds|drugs|prescriptions|medicines)\b")


def _said_of_every(ctx: _Ctx, f: Fact, pos: int, end: int) -> bool:
    """A severity term (`pos`..`end`) said, with a quantifier after it, of every drug of a
    list ("no known interaction with any of her medications (a, b and c)"): true of each
    pair whose drug the sentence names or, unnamed, of the list it speaks of — only where
    every drug the sentence names is one of the task's."""
    if f.relation != "severity" or "drug" not in f.about:
        return False
    lo, hi = ctx.r.sentence(pos)
    after = ctx.r.low[end:hi]
    if not _EVERY.search(after):
        return False
    named = {m.ent for m in ctx.r.mentions.get("drug", []) if lo <= m.start < hi}
    if not named <= set(ctx.ents.own.get("drug", {})):
        return False  # another drug is named: the list is not the task's
    return bool(named & ctx.canon("drug", f.about["drug"])) or (
        not named - set(f.about["drug"]) and bool(_LIST_NOUNS.search(after)))


_VAGUE = SEVERITY_VAGUE | TREND_VAGUE  # terms that bound a scale value without stating it
_CONDITIONS = frozenset({"sunny", "partly cloudy", "cloudy", "light rain", "rain",
                         "heavy rain", "thunderstorms", "light snow", "snow"})


def _scale_truth(f: Fact) -> frozenset[str]:
    """The scale values true of `f`: its value, or for a description ("often cloudy with
    rain") every value its terms state."""
    v = str(f.value).lower()
    if f.relation != "condition" or v in _CONDITIONS:
        return frozenset({v})
    terms = SCALES["condition"]
    return frozenset().union(*(terms[t] for _, _, t in _occurrences(fold(v), terms)))


def _scale_status(ctx: _Ctx, f: Fact) -> tuple[str, str | None]:
    truth = _scale_truth(f)
    near = CONDITION_NEIGHBOURS.get(next(iter(truth)), frozenset()) \
        if f.relation == "condition" and len(truth) == 1 else frozenset()
    stated = None
    hits = _scale_hits(ctx, f)
    positive = [h for h in hits if not h[4]]  # hedged too: "could be moderate or high"
    for run, rng in _alternative_groups(ctx, [(a, b) for a, b, *_ in positive]):
        if not rng and len({positive[i][3] for i in run}) > 1 and any(
                truth & positive[i][3] for i in run):
            said = " / ".join(positive[i][2] for i in run)
            if f.role == "context" and any(
                    not truth & positive[i][3] and positive[i][2] not in _VAGUE for i in run):
                return "contradicted", said  # a false value offered as one of the options
            return "uncommitted", said
    for a, b, term, values, neg, sure, hedged in hits:
        if hedged:
            continue
        if neg:
            if truth <= values and term not in _VAGUE and sure:
                return "contradicted", ctx.r.text[a:b]
            continue
        if truth & values:
            if term not in _VAGUE and stated is None:
                stated = ctx.r.text[a:b]
        elif not values & near and sure:
            return "contradicted", ctx.r.text[a:b]
    return ("stated", stated) if stated is not None else ("missing", None)


# -- decisions and yes/no facts ---------------------------------------------------------------


def _cue_hits(ctx: _Ctx, positive: Iterable[str], negative: Iterable[str]
              ) -> list[tuple[int, bool, str]]:
    """(position, asserts-the-positive, term) of each cue, negation applied (before it,
    or right after it: "rain is not expected", "regnet es heute nicht")."""
    pos_set = _folded_cues(tuple(positive))
    out = []
    for a, b, term in _occurrences(ctx.r.low, [*positive, *negative]):
        negated = ctx.r.negated(a) or ctx.r.negated_after(b)
        out.append((a, (term in pos_set) != negated, term))
    return out


def _leading_yes(ctx: _Ctx, about: str | None = None) -> bool | None:
    """A leading Yes/No answering the query's first question (only if that question is
    about `about`: "Is it safe ...?" is not "Do they interact?")."""
    if not _POLAR_QUERY.match(ctx.task.query):
        return None
    first = ctx.task.query.split("?")[0]
    if about is not None and not re.search(about, first, re.I):
        return None
    m = _YES_NO.match(ctx.r.low)
    return None if m is None else fold(m.group(1)) in _YES


def _decision_status(ctx: _Ctx, f: Fact) -> tuple[str, str | None]:
    winners = {str(f.value), *f.aliases}
    options = set(f.options)
    cat = ctx.ents.category_of(f.options[0]) if f.options else None
    cat = cat or "date"
    pos_cues, neg_cues = DECISION_CUES.get(str(f.relation), ((), ()))
    votes: list[tuple[str, bool]] = []
    for p, winner, term in _cue_hits(ctx, pos_cues, neg_cues):
        lo, hi = ctx.r.clause(p)
        if "?" in ctx.r.text[lo:hi] or ctx.r.low.startswith("比", lo) \
                or _THAN_AFTER.search(ctx.r.low, max(0, p - 4), p):
            continue  # "A比B更便宜": read by _than_votes
        subject = _decision_subject(ctx, cat, options, p)
        if subject is not None and term in TRANSITIVE_CUES and _named_after(ctx, cat, subject, p):
            winner = not winner  # "Madrid beats Sydney": the name after the verb lost
        if subject is not None:
            votes.append((subject, winner))
            slo, shi = ctx.r.sentence(p)  # "Madrid is warmer, or maybe Sydney"
            named = {m.ent for m in ctx.r.mentions.get(cat, []) if m.ent in options
                     and slo <= m.start < shi}
            if len(named) > 1 and _OR.search(ctx.r.low[slo:shi]):
                return "uncommitted", ctx.r.text[slo:shi].strip()
    votes += _than_votes(ctx, str(f.relation), cat, options)
    yes = _leading_yes(ctx)
    if yes is not None and f.yes_option:
        votes.append((f.yes_option, yes))
    if not votes and len(_WORD_RE.findall(ctx.r.text)) <= _TERSE:
        named = {m.ent for m in ctx.r.mentions.get(cat, []) if m.ent in options}
        if len(named) == 1:
            votes.append((named.pop(), True))
    if not votes:
        if _occurrences(ctx.r.low, NO_DECISION):
            return "uncommitted", None  # "hard to say": the values do not decide for it
        return ("stated", "values") if _implied_by_values(ctx, f, cat) else ("missing", None)
    others = options - winners
    bad = [o for o, w in votes if (w and o not in winners)
           or (not w and o in winners and len(winners) == 1)]
    if bad:
        return "contradicted", bad[0]
    good = any(w and o in winners for o, w in votes) or (
        len(others) == 1 and any(not w and o in others for o, w in votes))
    return ("stated", str(f.value)) if good else ("missing", None)


_THAN_AFTER = re.compile(r"より|보다")
_THAN_KIND = {"warmer": "warmer", "warmest": "warmer", "cheaper": "cheaper",
              "cheapest": "cheaper"}


def _than_votes(ctx: _Ctx, relation: str, cat: str, options: set[str]
                ) -> list[tuple[str, bool]]:
    """Votes of a CJK comparison, whose "than" sits before the compared option in Chinese
    ("A比B便宜") and after it in Japanese and Korean ("AはBより安い", "A는 B보다 싸다"): the
    adjective after it decides for A, the first of the two named."""
    adjs = lang.THAN_ADJECTIVES.get(_THAN_KIND.get(relation, ""))
    if adjs is None or ctx.r.low.isascii():
        return []
    out: list[tuple[str, bool]] = []
    for m in re.finditer(r"比|より|보다", ctx.r.low):
        lo, hi = ctx.r.sentence(m.start())
        names = [x for x in ctx.r.mentions.get(cat, []) if x.ent in options and lo <= x.start < hi]
        before = [x for x in names if x.end <= m.start()]
        if m.group(0) == "比":
            after = [x for x in names if x.start >= m.end()]
            if not before or not after:
                continue
            a, rest = before[-1].ent, after[0].end
        else:
            if len(before) < 2:
                continue
            a, rest = before[-2].ent, m.end()
        seg = ctx.r.low[rest:rest + 12]
        found = sorted((seg.find(w), favours) for favours, words in ((True, adjs[0]),
                                                                     (False, adjs[1]))
                       for w in words if w in seg)
        if found:
            out.append((a, found[0][1]))
    return out


def _named_after(ctx: _Ctx, cat: str, subject: str, pos: int) -> bool:
    """`subject` was picked from after the cue at `pos`, in its clause (its object)."""
    lo, hi = ctx.r.clause(pos)
    return not any(m.ent == subject and lo <= m.start < pos for m in ctx.r.mentions.get(cat, [])
                   ) and any(m.ent == subject and pos < m.start < hi
                             for m in ctx.r.mentions.get(cat, []))


_WORD_RE = re.compile(r"\w+")
_TERSE = 25  # words: an answer this short may name its choice without a comparative


def _decision_subject(ctx: _Ctx, cat: str, options: set[str], pos: int) -> str | None:
    """The option a comparative at `pos` is said of: the nearest one in its clause (the
    clause ends at "than"), else the sentence's first, its subject ("PRD1123, the Lumora
    knife, is less expensive: ... — $18.05 cheaper")."""
    ms = [m for m in ctx.r.mentions.get(cat, []) if m.ent in options]
    lo, hi = ctx.r.clause(pos)
    inside = [m for m in ms if lo <= m.start < hi]
    if inside:
        return ctx.r._nearest(inside, pos)[0].ent
    lo, hi = ctx.r.sentence(pos)
    inside = [m for m in ms if lo <= m.start < hi]
    return inside[0].ent if inside else None


_VALUE_KEY = {"warmer": "temperature", "warmest": "temperature", "cheaper": "price",
              "cheapest": "price"}


def _implied_by_values(ctx: _Ctx, f: Fact, cat: str) -> bool:
    """The decision follows from the options' values, each stated right."""
    key = _VALUE_KEY.get(str(f.relation))
    if key is None:
        return False
    for opt in f.options:
        g = next((g for g in ctx.task.expected_facts if g.kind == "number"
                  and key_family(g.key) == key and opt in g.about.get(cat, [])
                  and not g.key.startswith(("forecast.", "result.", "day."))), None)
        if g is None or _number_status(ctx, g)[0] != "stated":
            return False
    return True


def _in_superlative(ctx: _Ctx, pos: int) -> bool:
    """The cue at `pos` is part of "the driest day" in another language ("o dia mais seco",
    "le plus sec"): it picks a day, it says nothing of rain on the day asked."""
    hit = ctx.cache.get("driest spans")
    if hit is None:
        hit = ctx.cache["driest spans"] = [(a, b) for a, b, _ in
                                           _occurrences(ctx.r.low, lang.DRIEST)]
    return any(a <= pos < b for a, b in hit)


def _polar_status(ctx: _Ctx, f: Fact) -> tuple[str, str | None]:
    pos_cues, neg_cues = POLAR_CUES.get(str(f.relation), ((), ()))
    votes: list[bool] = []
    for p, says, _ in _cue_hits(ctx, pos_cues, neg_cues):
        before = _WORD_RE.findall(ctx.r.low[max(0, p - 24):p])[-2:]
        if f.relation in ("interacts", "free") and set(before) & TOPIC_WORDS:
            continue
        if f.relation == "free":
            after = _WORD_RE.findall(ctx.r.low[p:p + 40])[1:4]
            if set(after) & FREE_NOUNS or not _at_time(ctx, f, p):
                continue
        elif f.relation == "rain":
            if ctx.r.hedged(p) or _in_superlative(ctx, p):
                continue
        elif not ctx.r.asserted(p):
            continue
        if ctx.bound(f, p):
            votes.append(says)
    if f.relation in ("created", "deleted") and _replaced(ctx, f):
        votes.append(True)
    if f.relation == "rain":
        for n in ctx.r.numbers:
            if n.unit == "mm" and ctx.bound(f, n.span[0]) and not ctx.r.hedged(n.span[0]):
                votes.append(n.value > 0)
        yes = _leading_yes(ctx, r"rain|umbrella|precipitation")
        if yes is not None:
            votes.append(yes)
    if f.relation in ("interacts", "high_severity"):
        probe = f.model_copy(update={"relation": "severity", "value": "none"})
        for _, _, term, values, neg, _, hedged in _scale_hits(ctx, probe):
            if hedged:
                continue
            if f.relation == "interacts" and not neg and term not in SEVERITY_VAGUE:
                votes.append("none" not in values)
            elif f.relation == "high_severity" and term not in SEVERITY_VAGUE:
                votes.append(values == {"high"} and not neg)
        # the leading Yes answers the first question: whether they interact, not whether
        # the interaction is high-severity (unless that is what it asks)
        yes = _leading_yes(ctx, r"interact" if f.relation == "interacts"
                           else r"\b(?:high|severe|serious|major)")
        if yes is not None:
            votes.append(yes)
    if not votes:
        return "missing", None
    if any(v != bool(f.value) for v in votes):
        return "contradicted", "says " + ("yes" if not f.value else "no")
    other = _other_target(ctx, f) if f.value is True else None
    if other is not None:
        return "contradicted", f"done to {other}"
    return "stated", "yes" if f.value else "no"


def _replaced(ctx: _Ctx, f: Fact) -> bool:
    """A replacement ("Replaced A with B", "swapped A for B") deletes and creates: it
    votes for the action on `f`'s event when its sentence names that event."""
    mine = ctx.canon("event", f.about.get("event", [])) if f.about.get("event") else set()
    for a, _, _ in _occurrences(ctx.r.low, REPLACE_CUES):
        lo, hi = ctx.r.sentence(a)
        if ctx.r.asserted(a) and not ctx.r.negated(a) and any(
                m.ent in mine and lo <= m.start < hi for m in ctx.r.mentions.get("event", [])):
            return True
    return False


_FOREIGN_ACTS = {"deleted": lang.DELETED, "moved": lang.MOVED, "created": lang.CREATED,
                 "booked": lang.BOOKED, "ordered": lang.ORDERED}


def _other_target(ctx: _Ctx, f: Fact) -> str | None:
    """The action said done to another entity ("I removed the Parent-teacher meeting"
    when the Project sync was to go), where the answer never names `f`'s own: the
    name it acted on, else None."""
    verbs = (*ACTION_VERBS.get(str(f.relation), ()), *_FOREIGN_ACTS.get(str(f.relation), ()))
    for cat in ("event", "product"):
        names = f.about.get(cat)
        if not names or not verbs:
            continue
        mine = ctx.canon(cat, names) | set(names)
        if any(m.ent in mine for m in ctx.r.mentions.get(cat, [])):
            return _also_acted_on(ctx, cat, mine, verbs)
        for a, _, _ in _occurrences(ctx.r.low, verbs):
            if ctx.r.negated(a) or not ctx.r.asserted(a):
                continue
            hi = ctx.r.sentence(a)[1]
            atts = ctx.r.attribute(cat, a, local=True) or [
                m for m in ctx.r.mentions.get(cat, []) if a < m.start < hi][:1]
            if atts and not any(m.ent in mine for m in atts):
                return ctx.r.text[atts[0].start:atts[0].end]
        if cat == "event":
            return _other_time(ctx, f, mine, verbs)
    return None


def _other_time(ctx: _Ctx, f: Fact, mine: set[str], verbs: Iterable[str]) -> str | None:
    """With the asked event never named (its title in another language, "a sua aula de
    yoga"), a clock time in the action's sentence that is none of the asked event's times
    says the action was done to another: the time, else None."""
    truth = {canonical_time(str(g.value)) for g in ctx.task.expected_facts
             if g.kind == "time" and set(g.about.get("event", [])) & mine}
    if not truth:
        return None
    for a, _, _ in _occurrences(ctx.r.low, verbs):
        if ctx.r.negated(a) or not ctx.r.asserted(a):
            continue
        lo, hi = ctx.r.sentence(a)
        for (x, y), t in ctx.r.times:
            if lo <= x < hi and t not in truth and t not in ctx.query_times:
                return ctx.r.text[x:y]
    return None


_STILL = re.compile(r"\s*(?:is|was|stays|remains|will|still|isn't|wasn't|stay|remain|"
                    r"keeps|kept|unchanged|untouched|as is|are|were)\b")


def _also_acted_on(ctx: _Ctx, cat: str, mine: set[str], verbs: Iterable[str]) -> str | None:
    """Another of the task's own entities joined to the asked one as the object of the
    action ("I deleted the Gym session and the Vet appointment"): the name, else None."""
    for a, b, _ in _occurrences(ctx.r.low, verbs):
        if ctx.r.negated(a) or not ctx.r.asserted(a):
            continue
        hi = ctx.r.sentence(a)[1]
        first = [m for m in ctx.r.mentions.get(cat, []) if b <= m.start < hi][:1]
        if not first or not _OBJECT_GAP.fullmatch(ctx.r.low, b, first[0].start):
            continue  # the verb's object only: "deleted the X and the Y"
        chain = ctx.r.coordinated(cat, first)
        if not any(m.ent in mine for m in chain):
            continue
        for m in chain:
            if m.ent not in mine and ctx.ents.owns(cat, m.ent) and m.start > b \
                    and not _STILL.match(ctx.r.low, m.end):
                return ctx.r.text[m.start:m.end]
    return None


_OBJECT_GAP = re.compile(r"\s*(?:(?:the|your|both|my|his|her|their)\s+){0,2}['\"‘“]?")


def _at_time(ctx: _Ctx, f: Fact, pos: int) -> bool:
    """A cue about a slot speaks of the asked time only with that time in its clause."""
    want = set(f.about.get("time", []))
    lo, hi = ctx.r.clause(pos)
    return any(lo <= a < hi and t in want for (a, _), t in ctx.r.times)


# -- the facts --------------------------------------------------------------------------------


def _status(ctx: _Ctx, f: Fact, observations: list[dict[str, Any]]) -> tuple[str, str | None]:
    if f.kind == "number":
        return _number_status(ctx, f)
    if f.kind == "date":
        return _date_status(ctx, f)
    if f.kind == "time":
        return _time_status(ctx, f)
    if f.kind == "decision":
        return _decision_status(ctx, f)
    if f.kind == "polar":
        return _polar_status(ctx, f)
    if f.kind == "state":
        if observations:
            return _status_from_observations(f, observations), None
        return _entity_status(ctx, f)
    if f.relation in SCALES:
        return _scale_status(ctx, f)
    if f.kind == "id":
        return _id_status(ctx, f)
    return _entity_status(ctx, f)


def _status_from_observations(f: Fact, observations: list[dict[str, Any]]) -> str:
    """A `state` fact, when the trace has observations: stated if one of them holds it."""
    return "stated" if _state_ok(f.key, f.value, observations) else "missing"


def _id_norm(s: str) -> str:
    return re.sub(r"[\s_-]", "", fold(s))


def _id_status(ctx: _Ctx, f: Fact) -> tuple[str, str | None]:
    want = _id_norm(str(f.value))
    for m in _ID_RE.finditer(ctx.r.low):
        if _id_norm(m.group(0)) == want:
            return "stated", m.group(0)
    return "missing", None


# -- contradictions found by scanning the answer ----------------------------------------------


def _number_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    by_class: dict[str | None, list[Fact]] = {}
    for g in ctx.task.expected_facts:
        if g.kind == "number":
            by_class.setdefault(_unit_class(g.unit), []).append(g)
    out = []
    after = _count_after(ctx)
    for n in ctx.r.numbers:
        if n.unit in (None, "minutes", "days"):
            continue  # durations and day counts describe too many things to check
        if n.unit == "events" and after is not None and abs(n.value - after) < 1e-9:
            continue  # the day's count after the delete or create
        if any(abs(n.value - q) < 1e-9 for q in ctx.query_numbers):
            continue
        pool = by_class.get("C", []) + by_class.get("F", []) if n.unit in ("C", "F", "deg") \
            else by_class.get(None if n.unit == "stars" else n.unit, [])
        totals = _total_facts(ctx, n)
        if totals is not None:  # "total $313.98": the order's total, whichever name is near
            if not any(_value_ok(g.model_copy(update={"exact": False}), n) for g in totals):
                out.append({"key": totals[0].key, "kind": "number",
                            "found": ctx.r.text[n.span[0]:n.span[1]],
                            "why": "not the order's total"})
            continue
        same = [g for g in pool if ctx.bound(g, n.span[0])]
        a, b = n.span
        if same and not any(_value_ok(g.model_copy(update={"exact": False}), n) for g in same) \
                and not _derived(ctx, pool, n):
            out.append({"key": same[0].key, "kind": "number", "found": ctx.r.text[a:b],
                        "why": "no true value of this entity matches it"})
        elif not pool and n.unit not in ("stars",) and _unlike_reference(ctx, n):
            out.append({"key": f"reference:{n.unit}", "kind": "number",
                        "found": ctx.r.text[a:b], "why": "the reference gives another value"})
    return out + _lifetime_contradictions(ctx) + _count_after_action(ctx)


_TOTAL_WORD = re.compile(r"(?<![a-z])(?:total|totals|totalling|totaling|altogether|in all"
                         r"|insgesamt|gesamt\w*|summe|au total|totale|totaal|en total|"
                         r"no total|итого|всего)(?![a-z])|合计|总计|共计|总价|总额|合計|총")


def _total_facts(ctx: _Ctx, n: Number) -> list[Fact] | None:
    """The task's order totals when the money value at `n` is called a total (in its
    clause, before it), else None."""
    if n.unit != "USD":
        return None
    totals = [g for g in ctx.task.expected_facts if g.kind == "number"
              and key_family(g.key) == "total"]
    if not totals:
        return None
    lo = max(ctx.r.clause(n.span[0])[0], n.span[0] - 30)
    return totals if _TOTAL_WORD.search(ctx.r.low, lo, n.span[0]) else None


_LEFT = re.compile(r"\b(?:left|remaining|remain|remains|still|now)\b")


def _count_after(ctx: _Ctx) -> float | None:
    """The day's count of events after the asked delete or create (the listed count less
    or plus one), if the task lists the day."""
    step = {"deleted": -1, "created": 1}
    asked = [step[g.key] for g in ctx.task.expected_facts
             if g.role == "asked" and g.key in step and g.value is True]
    counts = [g for g in ctx.task.expected_facts if g.key == "list.count"]
    if len(asked) != 1 or len(counts) != 1:
        return None
    try:
        return float(counts[0].value) + asked[0]
    except (TypeError, ValueError):
        return None


def _count_after_action(ctx: _Ctx) -> list[dict[str, Any]]:
    """A count of the day's events "left" or "now" after a delete or create is the listed
    count less or plus one: "3 events left" when 3 were listed before one was deleted is
    false."""
    after = _count_after(ctx)
    if after is None:
        return []
    out = []
    for n in ctx.r.numbers:
        if n.unit != "events" or abs(n.value - after) < 1e-9:
            continue
        lo, hi = ctx.r.clause(n.span[0])
        if _LEFT.search(ctx.r.low, lo, hi):
            out.append({"key": "list.count", "kind": "number",
                        "found": ctx.r.text[n.span[0]:n.span[1]],
                        "why": "not the count after the action"})
    return out


def _unlike_reference(ctx: _Ctx, n: Number) -> bool:
    """A quantity no fact covers, in a unit the reference answer states values in (a dose
    in mg), that matches none of them: "limit it to 40 mg" when the truth says 20 mg."""
    key = ("reference numbers", n.unit)
    ref = ctx.cache.get(key)
    if ref is None:
        ref = ctx.cache[key] = [m.value for m in find_numbers(ctx.task.reference_answer)
                                if m.unit == n.unit]
    slack = 0.5 * 10.0 ** (-n.decimals)
    return bool(ref) and not any(abs(v - n.value) <= slack + 1e-9 for v in ref)


_YEAR = re.compile(r"(?<![\d.,$])(1[0-9]{3}|20[0-9]{2})(?!\d|[.,]\d|\s*(?:°|%|\$))")


def _lifetime_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    """A year said of a person outside their life (a work "published in 1790" by someone
    who died in 1760): the task knows when they were born and died."""
    life: dict[str, dict[str, float]] = {}
    for g in ctx.task.expected_facts:
        fam = key_family(g.key)
        if g.kind == "number" and fam in ("born", "died") and g.about.get("subject"):
            life.setdefault(g.about["subject"][0], {})[fam] = float(g.value)
    if not life:
        return []
    out = []
    for m in _YEAR.finditer(ctx.r.text):
        who = ctx.bound_to_own("subject", m.start())
        span = life.get(who or "")
        if not span or len(span) < 2:
            continue
        if not span["born"] <= float(m.group(1)) <= span["died"]:
            out.append({"key": f"{who}.years", "kind": "number", "found": m.group(0),
                        "why": "outside the subject's life"})
    return out


def _derived(ctx: _Ctx, pool: list[Fact], n: Number) -> bool:
    """`n` follows from true values by the arithmetic an answer shows: a signed change
    ("−0.3 °F") that is a difference the task states, or a value after the query's own
    quantity of units is taken off or added ("50 in stock; I ordered 2 (48 left)")."""
    text = ctx.r.text[n.span[0]:n.span[1]]
    if text[:1] in "+-−–" and any("difference" in g.key or "change" in g.key for g in pool) \
            and any(_value_ok(g, replace(n, value=abs(n.value))) for g in pool
                    if "difference" in g.key or "change" in g.key):
        return True
    if n.unit != "units":
        return False
    return any(abs(abs(t - n.value) - q) < 1e-9 for g in pool for t in _targets(g)
               for q in ctx.query_numbers if q > 0)


def _clock_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    """Times and dates said, in their own clause or sentence, of one of the task's events
    or bookings that none of its true times and dates match (a time the query names may
    fall inside the event: "13:30 is taken by the Vet appointment, 13:00–14:00")."""
    out: list[dict[str, Any]] = []
    cats = [c for c in ("event", "patient") if c in ctx.ents.own]
    facts = [g for g in ctx.task.expected_facts if g.kind in ("time", "date")]
    for kind, items in (("time", [(s, {t}) for s, t in ctx.r.times]),
                        ("date", [(s, {d.isoformat() for d in ds}) for s, ds in ctx.r.dates])):
        asked = ctx.query_times if kind == "time" else ctx.query_days
        for (a, b), values in items:
            lo, hi = ctx.r.clause(a)
            if kind == "time" and _FREE_TIME.search(ctx.r.low[lo:hi]):
                continue  # "the gap before Team standup (08:45–09:00)": free time's bounds
            for cat in cats:
                own = {m.ent for m in ctx.r.attribute(cat, a, local=True)
                       if ctx.ents.owns(cat, m.ent)}
                if not own and cat == "patient" and len(ctx.ents.own[cat]) == 1:
                    own = set(ctx.ents.own[cat])  # a booking answer speaks of its patient
                mine = [g for g in facts if g.kind == kind and own & set(g.about.get(cat, []))]
                if cat == "event" and own & _moved_events(ctx) and not _said_as_old(ctx, a):
                    # a moved event's times and day are the new ones: its listing before the
                    # move is true only of what it was ("from 17:00", "instead of Tuesday")
                    mine = [g for g in mine if not g.key.startswith("list.")]
                truth = {canonical_time(str(g.value)) if kind == "time" else str(g.value)
                         for g in mine}
                if kind == "date":  # a listed event's day is in its facts' about
                    truth |= {d for g in ctx.task.expected_facts
                              if own & set(g.about.get(cat, [])) for d in g.about.get("date", [])
                              if not (g.key.startswith("list.") and own & _moved_events(ctx)
                                      and not _said_as_old(ctx, a))}
                if not truth or values & truth:
                    continue
                if values & asked and (kind == "date" or _within(values, mine)):
                    continue
                out.append({"key": f"{cat}:{'/'.join(sorted(own))}", "kind": kind,
                            "found": ctx.r.text[a:b], "why": f"not a true {kind} of it"})
    return out


_FREE_TIME = re.compile(r"\b(?:gap|gaps|slot|slots|window|opening|free|break|open)\b")


def _moved_events(ctx: _Ctx) -> set[str]:
    """The events the task asks to move (their entity ids)."""
    hit = ctx.cache.get("moved")
    if hit is None:
        hit = {e for g in ctx.task.expected_facts if g.role == "asked" and g.key == "moved"
               for e in g.about.get("event", [])}
        ctx.cache["moved"] = hit
    return hit


# words before a time or day that mark it as what an event was before it moved
_OLD_BEFORE = re.compile(r"(?:\b(?:from|was|were|previously|originally|formerly|instead of|"
                         r"rather than|no longer|used to be|old|earlier|"
                         + "|".join(lang.WAS_BEFORE) + r")\b|从|原)[\s:,]*"
                         r"(?:(?:at|on|the|its|\w+day,?|\d{4}-\d\d-\d\d)\s+)*$")


_MOVE_CUE = re.compile(r"\b(?:" + "|".join((*ACTION_VERBS["moved"], *lang.MOVED, "now",
                                              "new", r"reschedul\w*")) + r")\b|改到|移到|调整")


_ARROW = re.compile(r"→|->|⇒|=>")


def _said_as_old(ctx: _Ctx, pos: int) -> bool:
    """The time or day at `pos` is what the event was: said in a sentence that does not
    speak of the move ("you had Yoga 17:00–18:00"), or marked as old ("moved from 17:00 to
    16:45", "no longer on Tuesday"), or the end of a range that starts so."""
    lo, hi = ctx.r.sentence(pos)  # not the clause: "instead of" opens one
    if not _MOVE_CUE.search(ctx.r.low, lo, hi):
        return True
    if _ARROW.search(ctx.r.low, pos, hi):  # "17:00–18:00 → 18:30–19:30"
        return True
    before = ctx.r.low[max(lo, pos - 40):pos]
    if _OLD_BEFORE.search(before):
        return True
    for (a, b), _ in ctx.r.times:  # the end of a range whose start is said as old
        if b <= pos and a >= lo and _TIME_RANGE_GAP.fullmatch(ctx.r.low[b:pos]):
            return _said_as_old(ctx, a)
    return False


def _event_day_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    """An event of the task said to be on a day none of its facts puts it on ("Wednesday,
    when you also have the Car service" for a Tuesday event): the day the event's
    mention is attributed to in its sentence (a day the query names aside)."""
    days: dict[str, set[str]] = {}
    for g in ctx.task.expected_facts:
        for ent in g.about.get("event", []):
            got = days.setdefault(ent, set())
            got |= set(g.about.get("date", []))
            if g.kind == "date":
                got.add(str(g.value))
    spans: dict[int, tuple[set[str], set[str]]] = {}  # a span may name several (a title)
    for m in ctx.r.mentions.get("event", []):
        ents, truth = spans.setdefault(m.start, (set(), set()))
        ents.add(m.ent)
        truth |= days.get(m.ent, set())
    out = []
    for start, (ents, truth) in spans.items():
        if not truth:
            continue
        for d in ctx.r.attribute("date", start, local=True):
            if d.ent not in truth and d.ent not in ctx.query_days and d.start not in \
                    ctx.r.ranged and not _same_span_names(ctx, d, truth):
                out.append({"key": f"event:{'/'.join(sorted(ents))}", "kind": "date",
                            "found": ctx.r.text[d.start:d.end], "why": "not a day of it"})
    return out


def _same_span_names(ctx: _Ctx, d: Mention, truth: set[str]) -> bool:
    """The date's span also reads as one of `truth` (an ambiguous 06/07)."""
    return any(x.start == d.start and x.ent in truth for x in ctx.r.mentions.get("date", []))


def _time_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    """A clock time no fact or query of the task has (a slot "08:00–08:15" when it is
    08:00–08:30), in a task about times."""
    known = {canonical_time(str(g.value)) for g in ctx.task.expected_facts if g.kind == "time"}
    if not known:
        return []
    known |= ctx.query_times
    return [{"key": "time", "kind": "time", "found": ctx.r.text[a:b],
             "why": "a time this task does not have"}
            for (a, b), t in ctx.r.times if t not in known]


def _date_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    """A date no fact, anchor or query of the task has ("ten days from today is June 25"
    when it is June 26): the answer speaks of a day the task is not about."""
    known = set(ctx.query_days) | {REFERENCE_DATE}
    for g in ctx.task.expected_facts:
        known |= set(g.about.get("date", []))
        if g.kind == "date":
            known.add(str(g.value))
        if g.kind == "decision":
            known |= {o for o in g.options if _ISO.fullmatch(o)}
    if not any(g.kind == "date" or g.about.get("date") for g in ctx.task.expected_facts):
        return []  # the task is not about dates
    out = []
    for (a, b), days in ctx.r.dates:
        iso = {d.isoformat() for d in days}
        resolved = {m.ent for m in ctx.r.mentions.get("date", []) if m.start == a}
        if not (iso | resolved) & known:
            out.append({"key": "date", "kind": "date", "found": ctx.r.text[a:b],
                        "why": "a day this task is not about"})
    return out


_ISO = re.compile(r"\d{4}-\d{2}-\d{2}")


def _within(values: set[str], facts: list[Fact]) -> bool:
    times = sorted(str(canonical_time(str(g.value))) for g in facts if g.kind == "time")
    return bool(times) and any(times[0] <= v <= times[-1] for v in values)


def _group_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    """A complete list (medications, allergies, events, doctors): an item said of its
    entity that is not on it, or a true item negated."""
    out: list[dict[str, Any]] = []
    groups: dict[str, list[Fact]] = {}
    for g in ctx.task.expected_facts:
        if g.group:
            groups.setdefault(g.group, []).append(g)
    own_names = _own_names(ctx)
    for name, members in groups.items():
        truth = folded(x for g in members for x in [str(g.value), *g.aliases])
        others = (ctx.vocab.groups.get(name, frozenset()) if ctx.vocab else frozenset())
        about = members[0].about if all(g.about == members[0].about for g in members) else {}
        probe = Fact(kind="entity", key=name, value="", about=about)
        cues = GROUP_CUES.get(name, ())
        for a, b, phrase in _occurrences_except(ctx.r.low, others, truth | own_names):
            lo, hi = ctx.r.sentence(a)
            if cues and not any(c in ctx.r.low[lo:hi] for c in cues):
                continue
            if _positive(ctx, a, phrase) and ctx.r.asserted(a) and ctx.bound_strict(probe, a):
                out.append({"key": name, "kind": "list", "found": ctx.r.text[a:b],
                            "why": f"not in the {name}"})
        for g in members:
            if _entity_status(ctx, g)[0] == "contradicted":
                out.append({"key": g.key, "kind": "list", "found": str(g.value),
                            "why": "a true item negated"})
    return out + _cross_group(ctx, groups) + _unknown_tail(ctx, groups)


# the last item of a list, after its coordinator: up to three words closing the clause
_TAIL = re.compile(r"\s*,?\s+(?:and|or|plus|" + "|".join(lang.AND_OR) + r")\s+"
                   r"((?:[^\W\d_][\w'-]*\s*){1,3}?)\s*(?:[.;!)\n]|$)")
_TAIL_STOP = frozenset((
    "the", "a", "an", "it", "is", "that", "that's", "this", "nothing", "else", "more", "other",
    "others", "daily", "both", "all", "none", "too", "also", "only", "currently", "regularly",
    "needed", "so", "on", "as", "well", "etc", "others", "no", "not", "there", "those",
    "these", "them", "they", "her", "his", "their", "with", "lithium", "medication",
    "medications", "meds", "drugs", "allergies", "allergy", "known")) | lang.NEGATIONS


def _unknown_tail(ctx: _Ctx, groups: dict[str, list[Fact]]) -> list[dict[str, Any]]:
    """A complete list closed by a name no fact knows ("takes methotrexate, trimethoprim
    and folic acid" for a patient on the first two): an invented extra item, whatever its
    language. Only after a true item, in a sentence with the list's cues."""
    out: list[dict[str, Any]] = []
    known = _own_names(ctx) | folded(lang.NAME_OPENERS)
    for name in ("medications", "allergies"):
        members = groups.get(name)
        if not members:
            continue
        truth = folded(x for g in members for x in [str(g.value), *g.aliases])
        truth |= _spellings(members)
        for a, b, _ in _occurrences(ctx.r.low, truth):
            m = _TAIL.match(ctx.r.low, b)
            if m is None:
                continue
            words = m.group(1).split()
            while words and words[0] in known:  # an article: "et de la metformine"
                words = words[1:]
            words[:1] = [re.sub(r"^\w{1,4}['’]", "", w) for w in words[:1]]  # "l'amlodipine"
            if not words:
                continue
            seg = ctx.r.low[slice(*ctx.r.sentence(a))]
            if any(w in _TAIL_STOP for w in words) or " ".join(words) in known | truth \
                    or not any(c in seg for c in GROUP_CUES[name]):
                continue
            out.append({"key": name, "kind": "list", "found": ctx.r.text[m.start(1):m.end(1)],
                        "why": f"not in the {name}"})
    return out


def _spellings(members: list[Fact]) -> frozenset[str]:
    return folded(x for g in members for x in lang.drug_spellings(str(g.value)))


def _cross_group(ctx: _Ctx, groups: dict[str, list[Fact]]) -> list[dict[str, Any]]:
    """An item of one of the task's lists said as one of another (an allergy among the
    current medications: "her current meds: no interaction with X" where X is the allergy):
    in a sentence with the other list's cues and none of its own. A name the query or a
    checked pair names may be spoken of anywhere."""
    if len(groups) < 2:
        return []
    free = folded([ctx.task.query, *(x for g in ctx.task.expected_facts
                                      for x in g.about.get("drug", []))])
    qlow = " ".join(free)
    out: list[dict[str, Any]] = []
    for name in groups:
        cues = GROUP_CUES.get(name, ())
        if not cues:
            continue
        for other, items in groups.items():
            own_cues = GROUP_CUES.get(other, ())
            if other == name or not own_cues:
                continue
            names = folded(x for g in items for x in [str(g.value), *g.aliases]
                           if fold(str(x)) not in qlow)
            for a, b, phrase in _occurrences(ctx.r.low, names):
                seg = ctx.r.low[slice(*ctx.r.sentence(a))]
                if any(c in seg for c in cues) and not any(c in seg for c in own_cues) \
                        and _name_positive(ctx, a, phrase) and ctx.r.asserted(a):
                    out.append({"key": name, "kind": "list", "found": ctx.r.text[a:b],
                                "why": f"one of the {other}, not of the {name}"})
    return out


def _key_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    """Another value of an entity fact's key ("sculptor" for a painter) said of it."""
    if not ctx.vocab:
        return []
    out: list[dict[str, Any]] = []
    own = _own_names(ctx)
    true_values = _task_values(ctx)
    for f in ctx.task.expected_facts:
        if f.kind != "entity" or f.group or f.relation or not isinstance(f.value, str):
            continue
        if any(f.value in names for names in f.about.values()):
            continue  # the fact names its own anchor: binding handles another one
        others = ctx.vocab.keys.get(key_family(f.key), frozenset())
        for a, b, phrase in _occurrences_except(ctx.r.low, others, true_values | own):
            if _positive(ctx, a, phrase) and ctx.r.asserted(a) and ctx.bound_strict(f, a):
                out.append({"key": f.key, "kind": "entity", "found": ctx.r.text[a:b],
                            "why": "another value of this key"})
    return out


def known_ids(task: Task) -> frozenset[str]:
    """Every id the task's query, facts and gold plan name."""
    texts = [task.query, *(str(v) for c in task.gold_plan for v in c.arguments.values())]
    for g in task.expected_facts:
        texts += [str(g.value), *g.aliases, *(n for ns in g.about.values() for n in ns),
                  *g.options]
    return frozenset(_id_norm(m.group(0)) for x in texts for m in _ID_RE.finditer(fold(x)))


def _id_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    known = ctx.ents.ids if ctx.ents.ids is not None else known_ids(ctx.task)
    out = []
    for m in _ID_RE.finditer(ctx.r.low):
        if _id_norm(m.group(0)) not in known:
            out.append({"key": "id", "kind": "id", "found": ctx.r.text[m.start():m.end()],
                        "why": "an id this task does not have"})
    return out


def _scale_contradictions(ctx: _Ctx) -> list[dict[str, Any]]:
    out = []
    for g in ctx.task.expected_facts:
        if g.role == "context" and g.relation in SCALES and g.kind in ("entity", "text"):
            st, found = _scale_status(ctx, g)
            if st == "contradicted":
                out.append({"key": g.key, "kind": "scale", "found": found,
                            "why": f"not {g.value}"})
    return out


# -- the verdict ------------------------------------------------------------------------------


def _observations(trace: Trace | None) -> list[dict[str, Any]]:
    if trace is None:
        return []
    return [
        ev.observation for ev in trace.events
        if isinstance(ev, ToolResultEvent) and not isinstance(ev.observation.get("error"), dict)
    ]


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or str(a).lower() == str(b).lower()
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(float(a) - float(b)) < 1e-9
    return " ".join(fold(str(a)).split()) == " ".join(fold(str(b)).split())


def _state_ok(key: str, value: Any, observations: list[dict[str, Any]]) -> bool:
    last = key.split(".")[-1]
    return any(path and str(path[-1]) == last and _same(v, value)
               for obs in observations for path, v in observation_leaves(obs))


@dataclass(frozen=True)
class _AnswerReading:
    """What the rule reads in one answer to one task, the trace aside: each expected fact's
    status as the text gives it, and the text's contradictions. The same (task, answer)
    recurs across traces and across judges (the sim judges read it from their prompt), so
    a vocabulary keeps it (`Vocabulary.reading`)."""

    statuses: tuple[tuple[str, str | None], ...]
    families: tuple[tuple[str, tuple[dict[str, Any], ...]], ...]
    """The contradictions the text holds, by the check that found them, in check order."""

    @property
    def contradictions(self) -> tuple[dict[str, Any], ...]:
        return tuple(r for _, rows in self.families for r in rows)


_CLAIM_FAMILIES = ("number", "clock", "date", "time", "scale")
"""The contradiction checks whose rows are claims of a value (`answer_claims`)."""


def _read_answer(task: Task, answer: str, vocabulary: Vocabulary | None) -> _AnswerReading:
    ctx = _context(task, answer, vocabulary)
    statuses = tuple(_status(ctx, f, []) for f in task.expected_facts)
    checks = (("number", _number_contradictions), ("clock", _clock_contradictions),
              ("date", _date_contradictions), ("time", _time_contradictions),
              ("event_day", _event_day_contradictions),
              ("group", _group_contradictions), ("key", _key_contradictions),
              ("id", _id_contradictions), ("scale", _scale_contradictions))
    return _AnswerReading(statuses, tuple((name, tuple(check(ctx))) for name, check in checks))


def _reading(task: Task, answer: str, vocabulary: Vocabulary | None) -> _AnswerReading:
    """`_read_answer`, once per (task, answer) when a vocabulary keeps the readings: the
    facts judge, the sim judges and the `fabricated` rule read one answer once between
    them."""
    if vocabulary is None:
        return _read_answer(task, answer, None)
    return vocabulary.reading(task, answer, lambda: _read_answer(task, answer, vocabulary))


def check_answer(task: Task, answer: str | None, *, abstained: bool = False,
                 trace: Trace | None = None, vocabulary: Vocabulary | None = None,
                 ) -> tuple[bool | None, dict[str, Any]]:
    """The facts rule on one answer: (correct, or None if unscorable; the rationale)."""
    if abstained or answer is None or not answer.strip():
        return False, {"reason": "abstained" if abstained else "no answer"}
    if not task.expected_facts and not task.expected_state:
        return None, {"reason": "task has no expected facts"}
    reading = _reading(task, answer, vocabulary)
    observations = _observations(trace)
    asked: list[dict[str, Any]] = []
    contradicted: list[dict[str, Any]] = []
    for f, (status, found) in zip(task.expected_facts, reading.statuses, strict=True):
        if f.kind == "state" and observations:  # the trace's observations decide it
            status, found = _status_from_observations(f, observations), None
        row = {"key": f.key, "kind": f.kind, "value": f.value, "status": status}
        if found is not None:
            row["found"] = found
        if f.role == "asked":
            asked.append(row)
        if status == "contradicted":
            contradicted.append(row)
    contradicted += [dict(r) for r in reading.contradictions]
    state: list[dict[str, Any]] = []
    if task.expected_state and trace is not None:
        actual = replay_state(task, trace)
        if actual is not None:
            state = state_checks(task.expected_state, actual)
    contradicted = _dedupe(contradicted)
    correct = (all(a["status"] == "stated" for a in asked) and not contradicted
               and all(s["ok"] for s in state))
    raw: dict[str, Any] = {"asked": asked, "contradicted": contradicted, "state": state,
                           "summary": _summary(asked, contradicted, state)}
    return correct, raw


def _dedupe(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    seen, out = set(), []
    for r in rows:
        k = (r["key"], str(r.get("found")))
        if k not in seen:
            seen.add(k)
            out.append(r)
    return out


def _summary(asked: list[dict[str, Any]], contradicted: list[dict[str, Any]],
             state: list[dict[str, Any]]) -> str:
    """One line a person reads first: what was found, missing, contradicted."""
    found = [f"{a['key']}={a.get('found', a['value'])}" for a in asked if a["status"] == "stated"]
    missing = [f"{a['key']} ({a['status']})" for a in asked if a["status"] != "stated"]
    parts = [f"asked facts found: {', '.join(found) or 'none'}"]
    if missing:
        parts.append(f"missing: {', '.join(missing)}")
    if contradicted:
        parts.append("contradicted: " + ", ".join(
            f"{c['key']} ({c.get('found', '')})" for c in contradicted))
    bad_state = [s["key"] for s in state if not s["ok"]]
    if bad_state:
        parts.append(f"state not reached: {', '.join(bad_state)}")
    return "; ".join(parts)


def answer_claims(task: Task, answer: str, *, vocabulary: Vocabulary | None = None,
                  keys: Iterable[str] | None = None) -> list[tuple[Fact, Any]]:
    """(fact, the value the answer gives it) for every graded fact, asked or context, the
    answer commits to under this judge's entity binding: a fact it states (its true value)
    or one a value of the answer contradicts (the value found); `keys` limits it to those
    facts. The `fabricated` indicator (agentprop.analysis.fabrication) reads answers
    through this, from the same reading as the facts judge (`_reading`)."""
    reading = _reading(task, answer, vocabulary)
    status_of = {id(f): s for f, s in zip(task.expected_facts, reading.statuses, strict=True)}
    wanted = None if keys is None else set(keys)
    by_key = {f.key: f for f in task.expected_facts if wanted is None or f.key in wanted}
    out: list[tuple[Fact, Any]] = []
    for f in by_key.values():
        status, found = status_of[id(f)]
        if status == "stated":
            out.append((f, f.value))
        elif status == "contradicted" and found:
            out.append((f, found))
    for row in (r for name, rows in reading.families if name in _CLAIM_FAMILIES
                for r in rows):
        hit = by_key.get(row.get("key", ""))
        if hit is not None and row.get("found"):
            out.append((hit, row["found"]))
    return out


def fact_stated(fact: Fact, text: str, *, observations: list[dict[str, Any]] | None = None,
                **_: Any) -> bool:
    """Whether `text` states `fact` (in a task of its own: no entities to bind to)."""
    task = Task(id="_", domain="_", split="test", difficulty="easy", intent="_", query="",
                tools=[], env_seed=0, gold_plan=[], reference_answer="",
                expected_facts=[fact])
    ctx = _context(task, text, None)
    return _status(ctx, fact, observations or [])[0] == "stated"


class FactsJudge(Judge):
    kind = "facts"

    def __init__(self, suite: Suite | None = None, *,
                 vocabulary: Callable[[], Vocabulary] | None = None) -> None:
        """`vocabulary` gives the suite's vocabulary shared with other judges of the same
        run (`judge_workspace`: the sim judges then reuse this judge's answer readings)."""
        self.name = "facts"
        self._suite = suite
        self._vocab_source = vocabulary
        self._vocab: Vocabulary | None = None

    def vocabulary(self) -> Vocabulary:
        if self._vocab is None:
            if self._vocab_source is not None:
                self._vocab = self._vocab_source()
            else:
                self._vocab = query_vocabulary(self._suite.tasks) if self._suite is not None \
                    else Vocabulary()
        return self._vocab

    async def judge(self, trace: Trace, task: Task) -> Verdict:
        fin = trace.final
        correct, raw = check_answer(task, fin.answer if fin else None,
                                    abstained=bool(fin and fin.abstained), trace=trace,
                                    vocabulary=self.vocabulary())
        return Verdict(trace_id=trace.id, judge=self.name, correct=correct, raw=raw)


@JUDGES.register("facts")
def _make(arg: str, **options: Any) -> Judge:
    from agentprop.core import UnknownNameError

    if arg:
        raise UnknownNameError(f"judge 'facts' takes no argument (got 'facts:{arg}')")
    return FactsJudge(options.get("suite"), vocabulary=options.get("vocabulary"))

