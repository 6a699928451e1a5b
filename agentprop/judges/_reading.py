"""A reading of one answer: its clauses, sentences and lines, the entities it names, and who
each value is said of.

Entity binding (docs/judges.md): a value at position p is attributed, per anchor category
(city, date, event, drug, product, patient, doctor, subject), to the nearest mention of
that category before p in the same clause, else the nearest after p in the clause; else
the same in its sentence; else the last mention before p anywhere (a table row or list
item under a heading inherits the heading's entity). The clause splits at ";", ", ",
" and ", " but ", " while ", " vs ", " than ", " compared with ", "|" and the like, so
"Madrid is 25 °C and Sydney 14 °C" gives each city its own number.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from datetime import date
from itertools import pairwise

from agentprop.judges import _languages as lang
from agentprop.judges._extract import Number, find_dates, find_numbers, find_times, fold
from agentprop.judges._lexicon import HEDGES, NEGATIONS, NOT_ASSERTED

Span = tuple[int, int]

_ABBREV = re.compile(r"(?:\b(?:dr|mr|mrs|ms|st|mt|no|vs|approx|ca|e\.g|i\.e|etc|jan|feb|mar"
                     r"|apr|jun|jul|aug|sep|sept|oct|nov|dec|mon|tue|tues|wed|thu|thur|thurs"
                     r"|fri|sat|sun|a\.m|p\.m))\.$", re.IGNORECASE)
# CJK full stops end a sentence and CJK commas a clause without a space after them
_SENTENCE_END = re.compile(r"[.!?]+(?=\s)|[。！？]+|;\s|\n+|\s*\|\s*\n")
_CLAUSE_SEP = re.compile(
    r";|,\s|[，；：]|(?=比)|\s+(?:and|but|while|whereas|vs\.?|versus|than|compared (?:with|to)"
    r"|unlike"
    r"|whilst|however|instead|" + "|".join(lang.VERSUS) + r")\s+|\s*\|\s*|\s+[–—-]\s+|:\s+",
    re.IGNORECASE,
)
_WORD = re.compile(r"[a-z0-9'а-я]+")  # Cyrillic too: "не", "нет" negate
# the gap between two coordinated names ("X or Y", "X, Y and Z", "X and with Y")
_COORD_GAP = re.compile(r"\s*(?:,\s*|\s(?:and|or|nor|as well as|plus|"
                        + "|".join(lang.AND_OR) + r")\s+|\s*[/&]\s*|,\s*(?:and|or)\s+)"
                        r"(?:(?:with|to|on|for|of|the|your|her|his|their|"
                        + "|".join(w for w in lang.NAME_OPENERS if not w.endswith("'"))
                        + r")\s+|l')?(?:(?:the|" + "|".join(
                            w for w in lang.NAME_OPENERS if not w.endswith("'")) + r")\s+)?")
# "no" as a determiner, the words that end its scope, and words after it that are no noun
_DETERMINER_NEG = frozenset({"no", "none", "without"}) | lang.DETERMINER_NEGATIONS
_SCOPE_ENDS = frozenset({"in", "at", "between", "with", "for", "during", "from", "on", "across",
                         "among", "throughout"}) | lang.SCOPE_ENDS
# words that may stand between a claim and its negation after it ("rain is not expected
# today", "es regnet heute nicht")
_AUX_AFTER = frozenset({"is", "was", "are", "will", "be", "expected", "forecast", "es", "heute",
                        "morgen", "today", "tomorrow", "currently", "right", "now", "ne",
                        "il", "va", "do", "does", "did"})
_NOT_NOUN = frozenset({"longer", "more", "one", "other"})
_HEDGE_RX = re.compile(r"\b(?:" + "|".join(HEDGES) + r")\b")
_PRONOUN = re.compile(r"\b(?:it|its|it's|it’s|that one|this one|the latter|the former)\b")
_PAIR_GAP = re.compile(r"\s*\(?\s*(?:vs\.?|versus|against|compared (?:with|to)|"
                       + "|".join(lang.VERSUS + lang.CJK_VERSUS) + r")\s*")
_VERSUS = re.compile(r"\b(?:vs\.?|versus|" + "|".join(lang.VERSUS) + r")\b|"
                     + "|".join(lang.CJK_VERSUS))
_CONTRAST = re.compile(r"\b(?:vs\.?|versus|than|compared (?:with|to)|unlike|whereas|while|"
                       + "|".join(lang.VERSUS) + r")\b")
# a line holding a measured value is a data row, not a heading
_VALUE = re.compile(r"\d\s*(?:°|%|\$|mm\b|km|mph|units?\b|events?\b)|\$\s*\d", re.IGNORECASE)


@dataclass(frozen=True)
class Mention:
    """A span naming an entity of a category (`ent` is its canonical name, or ISO date)."""

    cat: str
    ent: str
    start: int
    end: int


def _segments(text: str, sep: re.Pattern[str], within: list[Span]) -> list[Span]:
    out: list[Span] = []
    for a, b in within:
        start = a
        for m in sep.finditer(text, a, b):
            if sep is _SENTENCE_END and m.group(0).startswith(".") and _ABBREV.search(
                    text[max(a, m.start() - 6):m.start() + 1]) and not (
                    text[max(a, m.start() - 2):m.start()].lower() == "no"
                    and not text[m.end():m.end() + 1].isdigit()):
                continue
            if m.start() > start:
                out.append((start, m.start()))
            start = m.end()
        if b > start:
            out.append((start, b))
    return out or [(0, len(text))]


@dataclass
class Reading:
    """One answer, read once; mentions are added per category by the judge."""

    text: str
    low: str = ""
    sentences: list[Span] = field(default_factory=list)
    clauses: list[Span] = field(default_factory=list)
    dates: list[tuple[Span, set[date]]] = field(default_factory=list)
    times: list[tuple[Span, str]] = field(default_factory=list)
    numbers: list[Number] = field(default_factory=list)
    mentions: dict[str, list[Mention]] = field(default_factory=dict)
    ranged: frozenset[int] = frozenset()  # starts of dates that end a range ("9–15 June")
    _clause_starts: list[int] = field(default_factory=list)
    _sentence_starts: list[int] = field(default_factory=list)

    @classmethod
    def of(cls, text: str) -> Reading:
        r = cls(text=text, low=fold(text))
        r.sentences = _segments(text, _SENTENCE_END, [(0, len(text))])
        r.clauses = _segments(text, _CLAUSE_SEP, r.sentences)
        r.dates = find_dates(text, low=r.low)
        r.ranged = frozenset(x for ((a, b), _), ((c, _), _) in pairwise(r.dates)
                             if _DATE_RANGE_GAP.fullmatch(text[b:c]) for x in (a, c))
        r.times = find_times(text)
        skip = [s for s, _ in r.dates] + [s for s, _ in r.times]
        r.numbers = find_numbers(text, skip=skip)
        r._clause_starts = [a for a, _ in r.clauses]
        r._sentence_starts = [a for a, _ in r.sentences]
        return r

    # -- segments --------------------------------------------------------------------------
    def clause(self, pos: int) -> Span:
        return self.clauses[max(0, bisect.bisect_right(self._clause_starts, pos) - 1)]

    def sentence(self, pos: int) -> Span:
        return self.sentences[max(0, bisect.bisect_right(self._sentence_starts, pos) - 1)]

    # -- mentions --------------------------------------------------------------------------
    def add(self, cat: str, found: Iterable[tuple[int, int, tuple[str, ...]]],
            *, keep: bool = False) -> None:
        """Record mentions of `cat` (spans and the entities each names); a span another
        mention already holds is skipped unless `keep`."""
        taken = [] if keep else [(m.start, m.end) for ms in self.mentions.values() for m in ms]
        dst = self.mentions.setdefault(cat, [])
        held = [(m.start, m.end) for m in dst]
        for a, b, ents in found:
            if any(x < b and a < y for x, y in taken) or any(
                    x < b and a < y and (x, y) != (a, b) for x, y in held):
                continue
            dst += [Mention(cat, e, a, b) for e in ents]
        dst.sort(key=lambda x: x.start)

    def add_dates(self, resolve: Mapping[date, str] | None = None) -> None:
        """Date mentions as the ``date`` category (an ambiguous date names each reading)."""
        found = self.mentions.setdefault("date", [])
        for (a, b), days in self.dates:
            for d in sorted(days):
                found.append(Mention("date", d.isoformat(), a, b))
        found.sort(key=lambda x: x.start)

    def attribute(self, cat: str, pos: int, *, skip: frozenset[str] = frozenset(),
                  local: bool = False) -> list[Mention]:
        """The mention(s) of `cat` a value at `pos` is said of (several only when one span
        names several entities, e.g. a title two events share); [] when it cannot be told.

        The nearest mention in the value's clause (before it, else after it); else the
        nearest before it in its sentence ("In Madrid, it is 25 °C"); else, across lines,
        the entity of the last heading-like line above it (a short line naming one entity:
        "**Madrid**", "Day 2 — June 17:"). Prose does not carry an entity into the next
        sentence: "it" and "them" are not resolved. With `local`, no heading either."""
        ms = [m for m in self.mentions.get(cat, ()) if m.ent not in skip]
        if not ms:
            return []
        lo, hi = self.clause(pos)
        paired = self._paired(pos)
        if paired is not None:  # "(X 14 vs Y 13)": only a name inside, before the value
            lo, hi = max(lo, paired[0]), min(hi, pos)
        inside = [m for m in ms if lo <= m.start < hi and not (m.start <= pos < m.end)]
        if inside:
            return self._nearest(inside, pos)
        slot = self._pair_slot(pos)
        if slot is not None:  # "Madrid is warmer than Sydney (14.9 vs 13.7 °C)"
            return self._in_named_order(ms, *slot)
        if self._contrasted(pos) or paired is not None:
            return []  # "14.9 °C vs 13.7 °C": the value after "vs" is the other one's
        back = self._antecedent(ms, lo, pos)  # "Madrid and Sydney: the former is at 14.9"
        if back:
            return back
        lo, hi = self.sentence(pos)
        inside = [m for m in ms if lo <= m.start < hi and m.end <= pos]
        # in "A比B便宜，已下单" what follows is said of A, not of the B compared with it
        inside = [m for m in inside if not self.low.startswith("比", self.clause(m.start)[0])
                  ] or inside
        if inside:
            return self._nearest(inside, pos)
        back = self._antecedent(ms, lo, pos)
        if back:
            return back
        if local:
            return []
        return self._heading(ms, pos)

    def _antecedent(self, ms: list[Mention], lo: int, pos: int) -> list[Mention]:
        """What a pronoun between `lo` and the value refers back to ("It's 14 °C", "the
        latter costs $40"): the last entity named before the pronoun; "the former" the
        one before that."""
        hits = list(_PRONOUN.finditer(self.low, lo, pos))
        if not hits:
            return []
        p = hits[-1]
        before = [m for m in ms if m.end <= p.start()]
        if not before:
            return []
        starts = sorted({m.start for m in before}, reverse=True)
        k = 1 if p.group(0) == "the former" else 0
        if k >= len(starts):
            return []
        return [m for m in before if m.start == starts[k]]

    def coordinated(self, cat: str, picked: list[Mention], *,
                    skip: frozenset[str] = frozenset()) -> list[Mention]:
        """`picked` with the mentions of `cat` coordinated with it ("with insulin glargine
        or atorvastatin", "X, Y and Z:"): a claim said of one of them is said of each."""
        ms = [m for m in self.mentions.get(cat, ()) if m.ent not in skip]
        starts = sorted({m.start for m in ms})
        at = {a: [m for m in ms if m.start == a] for a in starts}
        i = starts.index(picked[0].start) if picked[0].start in at else -1
        if i < 0:
            return picked
        out = list(picked)
        for step in (-1, 1):
            j = i
            while 0 <= j + step < len(starts):
                a, b = sorted((starts[j], starts[j + step]))
                if not _COORD_GAP.fullmatch(self.low[max(m.end for m in at[a]):b]):
                    break
                j += step
                out += at[starts[j]]
        return out

    def _pair_slot(self, pos: int) -> tuple[int, int] | None:
        """(0 or 1, where the pair starts) when the number at `pos` is one of two values
        set against each other ("13.7 °C vs 14.9 °C", "$135.95 versus $159.00")."""
        i = next((k for k, n in enumerate(self.numbers) if n.span[0] == pos), None)
        if i is None:
            return None
        if i > 0 and _PAIR_GAP.fullmatch(self.low[self.numbers[i - 1].span[1]:pos]):
            return 1, self.numbers[i - 1].span[0]
        if i + 1 < len(self.numbers) and _PAIR_GAP.fullmatch(
                self.low[self.numbers[i].span[1]:self.numbers[i + 1].span[0]]):
            return 0, pos
        return None

    def _in_named_order(self, ms: list[Mention], slot: int, start: int) -> list[Mention]:
        """The pair's values follow the order its sentence named two entities in before
        it: the first value is the first-named one's; with one name, only the first value
        is said of it."""
        lo, _ = self.sentence(start)
        firsts: list[list[Mention]] = []
        seen: set[str] = set()
        for m in ms:
            if lo <= m.start and m.end <= start and m.ent not in seen:
                same = [x for x in ms if x.start == m.start]
                seen |= {x.ent for x in same}
                firsts.append(same)
        if len(firsts) > 2:
            return []  # more names than values: cannot tell
        return firsts[slot] if slot < len(firsts) else []

    def _paired(self, pos: int) -> Span | None:
        """The span of a "(… vs …)" around `pos`: the pair follows the order the entities
        were named in, which this reading does not track, so a value there is attributed
        only to a name before it inside the parenthesis, else to none."""
        open_ = self.low.rfind("(", 0, pos)  # folded: "（" is "("
        if open_ < 0 or self.low.rfind(")", open_, pos) >= 0:
            return None
        close = self.low.find(")", pos)
        span = (open_, close if close >= 0 else len(self.low))
        return span if _VERSUS.search(self.low[span[0]:span[1]]) else None

    def _contrasted(self, pos: int) -> bool:
        """The value's clause opens with a contrast ("vs", "than", "compared with")."""
        i = max(0, bisect.bisect_right(self._clause_starts, pos) - 1)
        if i == 0:
            return False
        gap = self.low[self.clauses[i - 1][1]:self.clauses[i][0]]
        return bool(_CONTRAST.search(gap))

    @staticmethod
    def _nearest(inside: list[Mention], pos: int) -> list[Mention]:
        before = [m for m in inside if m.end <= pos]
        pick = before[-1] if before else min(inside, key=lambda m: m.start)
        return [m for m in inside if m.start == pick.start]

    def _heading(self, ms: list[Mention], pos: int) -> list[Mention]:
        line_start = self.text.rfind("\n", 0, pos) + 1
        best: list[Mention] = []
        for m in ms:
            if m.end > line_start:
                break
            a = self.text.rfind("\n", 0, m.start) + 1
            b = self.text.find("\n", m.end)
            line = self.text[a:len(self.text) if b < 0 else b]
            words = _WORD.findall(fold(line))
            same_line = [x for x in ms if a <= x.start < (b if b >= 0 else len(self.text))]
            if len(words) <= 8 and "|" not in line and not _VALUE.search(line) and len(
                    {x.ent for x in same_line}) == len(
                    {x.ent for x in same_line if x.start == m.start}):
                best = [x for x in same_line if x.start == m.start]
        return best

    # -- what a clause does to a claim -----------------------------------------------------
    def _words_before(self, pos: int, n: int = 6) -> list[str]:
        lo, _ = self.clause(pos)
        return _WORD.findall(self.low[lo:pos].replace("’", "'"))[-n:]

    def negated(self, pos: int, window: int = 6) -> bool:
        """A negation among the few words before `pos` in its clause ("not allergic to").
        A determiner "no" negates its own noun phrase only: in "no rain in Beijing" or "no
        interaction between X and Y" the preposition ends its scope before the name."""
        words = self._words_before(pos, window)
        hits = [i for i, w in enumerate(words) if w in NEGATIONS or w.endswith("n't")]
        if not hits:
            return False
        i = hits[-1]
        rest = words[i + 1:]
        return not (words[i] in _DETERMINER_NEG and rest and rest[0] not in _NOT_NOUN
                    and any(w in _SCOPE_ENDS for w in rest))

    def negated_after(self, end: int) -> bool:
        """A negation right after a claim in its clause, with nothing but auxiliaries
        between ("rain is not expected", "regnet es heute nicht")."""
        _, hi = self.clause(max(0, end - 1))
        for w in _WORD.findall(self.low[end:hi].replace("’", "'"))[:4]:
            if w in NEGATIONS or w.endswith("n't"):
                return True
            if w not in _AUX_AFTER:
                return False
        return False

    def hedged(self, pos: int) -> bool:
        """The clause offers the claim as a possibility ("a chance of rain", "might be").
        A hedge inside a parenthesis hedges only what the parenthesis holds ("a minor
        interaction (possible low potassium)" is not hedged)."""
        lo, hi = self.clause(pos)
        seg = self.low[lo:hi]
        rel = pos - lo
        kept = re.sub(r"\([^()]*\)", lambda m: m.group(0) if m.start() <= rel < m.end()
                      else " " * len(m.group(0)), seg)
        return bool(_HEDGE_RX.search(kept))

    def asserted(self, pos: int) -> bool:
        """The clause states something (not a question, offer or hypothesis)."""
        lo, hi = self.clause(pos)
        seg = f" {self.low[lo:hi]} "
        return not any(k in seg for k in NOT_ASSERTED) and "?" not in self.text[lo:hi]


_DATE_RANGE_GAP = re.compile(r"\s*(?:–|—|-|to|through|until|till)\s*", re.IGNORECASE)
_ALT_GAP = re.compile(r"^\s*(?:,\s*)?(?:or(?:\s+(?:maybe|possibly|perhaps|even))?|/|either|,"
                      r"|(?:maybe|possibly|perhaps|probably)(?:\s+even)?)\s*$")
_RANGE_GAP = re.compile(r"^\s*(?:–|—|-|to|and)\s*$")


def chains(text: str, spans: list[Span]) -> list[tuple[list[int], bool]]:
    """Groups of values (indices into `spans`, in text order) joined as alternatives: a run
    joined by commas and "or" / "/" with at least one "or" ("1771, 1777 or 1787"), or a
    range ("12–16", "between 12 and 16"). Each group: (indices, is_range)."""
    low = text.lower()
    out: list[tuple[list[int], bool]] = []
    i = 0
    order = sorted(range(len(spans)), key=lambda k: spans[k])
    while i < len(order) - 1:
        run, has_or, rng = [order[i]], False, False
        j = i
        while j < len(order) - 1:
            gap = low[spans[order[j]][1]:spans[order[j + 1]][0]]
            if _ALT_GAP.match(gap):
                has_or = has_or or "or" in gap or "/" in gap
            elif _RANGE_GAP.match(gap) and len(run) == 1:
                before = low[max(0, spans[order[j]][0] - 9):spans[order[j]][0]]
                if gap.strip() == "and" and "between" not in before:
                    break
                rng = True
                run.append(order[j + 1])
                j += 1
                break
            else:
                break
            run.append(order[j + 1])
            j += 1
        if len(run) > 1 and (has_or or rng):
            out.append((run, rng and not has_or))
        i = j + 1 if len(run) > 1 else i + 1
    return out


def either_start(text: str, span: Span) -> bool:
    """`either` right before a value: "either Madrid or Sydney"."""
    return text.lower()[max(0, span[0] - 8):span[0]].strip().endswith("either")
