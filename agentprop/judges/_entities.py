"""The entities a task involves, and the suite's vocabulary of every entity and value.

A task's facts name their entities in `Fact.about` (category → names). Under every
category but ``drug`` the names designate one entity (its canonical name first, then its
aliases); under ``drug`` they are the two drugs of an interacting pair, each its own
entity. The suite vocabulary holds every entity of every task, so the judge can tell an
answer that speaks of another city, patient or product from one that names ours.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, TypeVar

from agentprop.core import Fact, Task
from agentprop.judges import _languages as lang
from agentprop.judges._extract import find_dates, fold

_T = TypeVar("_T")

MEMBER_CATEGORIES = frozenset({"drug"})
_SHORTENED = frozenset({"product", "option"})
# the part of a product name shared by its kind ("... Tennis Racket") is not distinctive
_MIN_SHORT = 4


def _fact_entities(facts: Iterable[Fact]) -> dict[str, dict[str, list[str]]]:
    out: dict[str, dict[str, list[str]]] = {}
    for f in facts:
        for cat, names in f.about.items():
            if not names or cat == "time":
                continue
            table = out.setdefault(cat, {})
            if cat in MEMBER_CATEGORIES:
                for n in names:
                    table.setdefault(n, [n, *lang.drug_spellings(n)])
            else:
                forms = table.setdefault(names[0], [names[0]])
                extra = lang.CITY_NAMES.get(names[0], ()) if cat == "city" else ()
                forms += [n for n in (*names[1:], *extra) if n not in forms]
    return out


def _short_forms(names: list[str]) -> dict[str, list[str]]:
    """Distinctive short forms of sibling product names: "Lumora Compact" and "Lumora" for
    "Lumora Compact Tennis Racket" beside "Pinecrest Deluxe Tennis Racket" (the words all
    share are the kind, not the product)."""
    out: dict[str, list[str]] = {n: [] for n in names}
    if len(names) < 2:
        return out
    words = [n.split() for n in names]
    k = 0
    while all(len(w) > k + 1 for w in words) and len({tuple(w[-(k + 1):]) for w in words}) == 1:
        k += 1
    for n, w in zip(names, words, strict=True):
        if k:
            out[n].append(" ".join(w[:-k]))
        if len(w[0]) >= _MIN_SHORT and sum(x[0].lower() == w[0].lower() for x in words) == 1:
            out[n].append(w[0])
    return out


def _key(form: str) -> str:
    return " ".join(fold(form).split())


_LATIN = re.compile(r"[a-z0-9]")
# a possessive "'s" is not part of the name ("Brightline's" names Brightline)
_TOKEN = re.compile(r"[a-z0-9]+(?:[_.-][a-z0-9]+|['’](?!s\b)[a-z0-9]+)*")


# an elided article or preposition is not part of the name after it ("l'oméprazole",
# "dell'amlodipina", "d'Amsterdam")
_ELISION = re.compile(r"(?:l|d|dell|all|nell|dall|sull|un|qu)['’](?=[a-z])")


def tokens(text: str) -> list[tuple[str, int, int]]:
    out = []
    for m in _TOKEN.finditer(text):
        w, a = m.group(0), m.start()
        e = _ELISION.match(w) if "'" in w or "’" in w else None
        if e:
            w, a = w[e.end():], a + e.end()
        out.append((w, a, m.end()))
    return out


@dataclass(frozen=True)
class Matcher:
    """Finds the surface forms of a set of entities in folded text (whole words, longest
    first); one form may name several entities (a title two events share). Forms are
    indexed by their first word, so a scan costs one dictionary lookup per word."""

    index: Mapping[str, tuple[tuple[tuple[str, ...], tuple[str, ...]], ...]]
    # short capitals ("LA", "NYC") that name an entity only in capitals: "la" is an article
    caps: frozenset[tuple[str, ...]] = frozenset()
    # forms in a script without Latin words ("北京", "イスタンブール", "Москва"): found as
    # substrings, since such text has no spaces or no [a-z] words to index
    script: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @classmethod
    def of(cls, names: Mapping[str, Iterable[str]]) -> Matcher:
        ents: dict[tuple[str, ...], list[str]] = {}
        caps: set[tuple[str, ...]] = set()
        lower: set[tuple[str, ...]] = set()
        script: dict[str, list[str]] = {}
        for ent, forms in names.items():
            for f in forms:
                if not f.isascii() and not _LATIN.search(_key(f)):
                    if ent not in script.setdefault(_key(f), []):
                        script[_key(f)].append(ent)
                    continue
                words = tuple(w for w, _, _ in tokens(_key(f)))
                (caps if len(f) <= 3 and f.isupper() else lower).add(words)
                if words and len(" ".join(words)) >= 2 and ent not in ents.setdefault(words, []):
                    ents[words].append(ent)
        index: dict[str, list[tuple[tuple[str, ...], tuple[str, ...]]]] = {}
        for words, es in ents.items():
            index.setdefault(words[0], []).append((words, tuple(es)))
        return cls({k: tuple(sorted(v, key=lambda x: -len(x[0]))) for k, v in index.items()},
                   frozenset(caps - lower),
                   tuple(sorted(((k, tuple(v)) for k, v in script.items()),
                                key=lambda x: -len(x[0]))))

    def find(self, low: str, toks: list[tuple[str, int, int]] | None = None,
             text: str | None = None) -> list[tuple[int, int, tuple[str, ...]]]:
        """Every mention in `low` (its tokens, if the caller has them already); with the
        unfolded `text`, a short capitals-only form counts only in capitals."""
        if not self.index and not self.script:
            return []
        toks = toks if toks is not None else tokens(low)
        out: list[tuple[int, int, tuple[str, ...]]] = []
        i = 0
        while i < len(toks):
            hit = None
            for words, es in self.index.get(toks[i][0], ()):
                n = len(words)
                if tuple(t[0] for t in toks[i:i + n]) == words:
                    a, b = toks[i][1], toks[i + n - 1][2]
                    if text is not None and words in self.caps and not text[a:b].isupper():
                        continue
                    hit = (a, b, es, n)
                    break
            if hit is None:
                i += 1
                continue
            out.append(hit[:3])
            i += hit[3]
        if self.script and not low.isascii():
            out = self._in_script(low, out)
        return out

    def _in_script(self, low: str, out: list[tuple[int, int, tuple[str, ...]]]
                   ) -> list[tuple[int, int, tuple[str, ...]]]:
        for form, es in self.script:  # longest first: a shorter form inside is skipped
            i = low.find(form)
            while i >= 0:
                b = i + len(form)
                if not any(x < b and i < y for x, y, _ in out):
                    out.append((i, b, es))
                i = low.find(form, b)
        return sorted(out)


def _event_short_forms(table: dict[str, list[str]]) -> None:
    """An event called by its title's first word ("the Dentist" for "Dentist appointment"),
    when that word is distinctive among the task's events."""
    firsts: dict[str, set[str]] = {}
    for canon, forms in table.items():
        for f in forms:
            words = f.split()
            if len(words) >= 2 and len(words[0]) >= 5:
                firsts.setdefault(words[0].lower(), set()).add(canon)
    for word, owners in firsts.items():
        if len(owners) == 1:
            canon = next(iter(owners))
            if word not in {f.lower() for f in table[canon]}:
                table[canon].append(word)


@dataclass
class Vocabulary:
    """Every entity the suite's tasks involve (category → canonical → forms), every item
    of every complete list (group → items) and every value each entity key takes. Also
    caches what the judge derives from it per category, per task and per answer."""

    entities: Mapping[str, Mapping[str, tuple[str, ...]]] = field(default_factory=dict)
    groups: Mapping[str, frozenset[str]] = field(default_factory=dict)
    keys: Mapping[str, frozenset[str]] = field(default_factory=dict)
    _matchers: dict[str, Matcher] = field(default_factory=dict, repr=False, compare=False)
    _tasks: dict[str, tuple[Task, TaskEntities]] = field(default_factory=dict, repr=False,
                                                          compare=False)
    _readings: dict[tuple[str, str], tuple[Task, Any]] = field(default_factory=dict,
                                                               repr=False, compare=False)

    def __bool__(self) -> bool:
        return bool(self.entities or self.groups or self.keys)

    def matcher(self, cat: str) -> Matcher:
        """Every entity of `cat` in the suite."""
        if cat not in self._matchers:
            self._matchers[cat] = Matcher.of(self.entities.get(cat, {}))
        return self._matchers[cat]

    def task_entities(self, task: Task) -> TaskEntities:
        hit = self._tasks.get(task.id)
        if hit is not None and hit[0] is task:
            return hit[1]
        ents = TaskEntities.of(task)
        if len(self._tasks) > 20_000:
            self._tasks.clear()
        self._tasks[task.id] = (task, ents)
        return ents

    def reading(self, task: Task, answer: str, read: Callable[[], _T]) -> _T:
        """`read()` once per (task, answer): what the judge reads in an answer under this
        vocabulary depends on nothing else, and one answer recurs across traces and judges."""
        key = (task.id, answer)
        hit = self._readings.get(key)
        if hit is not None and hit[0] is task:
            value: _T = hit[1]
            return value
        value = read()
        if len(self._readings) > 10_000:
            self._readings.clear()
        self._readings[key] = (task, value)
        return value


def key_family(key: str) -> str:
    """The key without its prefixes and list index: ``a.city`` → ``city``,
    ``medication_2`` → ``medication``."""
    last = key.rsplit(".", 1)[-1]
    head, _, tail = last.rpartition("_")
    return head if tail.isdigit() and head else last


def query_vocabulary(tasks: Iterable[Task]) -> Vocabulary:
    """The suite's vocabulary, built once per suite (see `Vocabulary`)."""
    ents: dict[str, dict[str, set[str]]] = {}
    groups: dict[str, set[str]] = {}
    keys: dict[str, set[str]] = {}
    for t in tasks:
        for cat, table in _fact_entities(t.expected_facts).items():
            dst = ents.setdefault(cat, {})
            for canon, forms in table.items():
                dst.setdefault(canon, set()).update(forms)
        for f in t.expected_facts:
            if f.kind != "entity" or not isinstance(f.value, str):
                continue
            if f.group:  # one-word aliases (a surname, an id) are too loose to scan for
                groups.setdefault(f.group, set()).update(
                    [f.value, *(a for a in f.aliases if " " in a.strip())])
            elif not f.relation:
                keys.setdefault(key_family(f.key), set()).update([f.value, *(
                    a for a in f.aliases if " " in a or a.islower()),  # not a bare surname
                    *lang.VALUE_FORMS.get(f.value, ())])
    return Vocabulary(
        entities={c: {k: tuple(sorted(v)) for k, v in d.items()} for c, d in ents.items()},
        groups={g: frozenset(v) for g, v in groups.items()},
        keys={k: frozenset(v) for k, v in keys.items()},
    )


@dataclass
class TaskEntities:
    """The task's own entities by category (canonical → surface forms), the names every
    fact of a member category shares (not distinctive: the new drug checked against each
    current one), and which categories are the task's."""

    own: dict[str, dict[str, list[str]]]
    shared: dict[str, frozenset[str]]
    matchers: dict[str, Matcher] = field(default_factory=dict)
    ids: frozenset[str] | None = None  # every id the task knows (set by the judge)
    query: tuple[list[float], set[str], set[str]] | None = None  # its numbers, times, days
    memo: dict[str, Any] = field(default_factory=dict)  # what the judge derives per task

    @classmethod
    def of(cls, task: Task) -> TaskEntities:
        own = _fact_entities(task.expected_facts)
        for f in task.expected_facts:
            if f.kind == "decision":
                for opt in f.options:
                    if find_dates(opt, weekdays=False):
                        continue
                    if not any(opt in table for table in own.values()):
                        own.setdefault("option", {}).setdefault(opt, [opt])
        for cat, table in own.items():
            if cat in _SHORTENED:
                for canon, extra in _short_forms(list(table)).items():
                    table[canon] += [e for e in extra if e not in table[canon]]
            elif cat == "event":
                _event_short_forms(table)
        shared: dict[str, frozenset[str]] = {}
        for cat in MEMBER_CATEGORIES & own.keys():
            lists = [set(f.about[cat]) for f in task.expected_facts if f.about.get(cat)]
            common = set.intersection(*lists) if lists else set()
            shared[cat] = frozenset(common) if any(lst - common for lst in lists) else frozenset()
        return cls(own, shared, {c: Matcher.of(t) for c, t in own.items()})

    def category_of(self, name: str) -> str | None:
        for cat, table in self.own.items():
            if name in table:
                return cat
        return None

    def owns(self, cat: str, ent: str) -> bool:
        return ent in self.own.get(cat, {})


def folded(values: Iterable[str]) -> frozenset[str]:
    return frozenset(" ".join(fold(v).split()) for v in values)
