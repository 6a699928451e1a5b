"""`fabricated`: the final answer states a graded fact that no observation in the trace
supports.

The rule, defined once here (docs/injection.md, "fabricated"); it lives with the judges because
it reads answers through their binding, and `analysis.stages.stage_table` takes it as a
`FabricationCheck`:

1. The answer's **claims** are what the facts judge binds to the task's graded facts: every
   asked fact the answer states (its value is the truth) and every value the judge finds
   contradicting a fact (the value the answer gives instead). The binding is the judge's
   own (`agentprop.judges.check_answer`: a value counts only when the answer attributes it
   to the fact's entity).
2. A claim is **checkable** when its fact is one the tools report directly: its true value
   appears in the observations of the task's gold plan (run on a fresh copy of the world).
   Derived facts (a decision, a yes/no, a sum, the final state) are never checkable, since
   no single observed value supports them.
3. A checkable claim is **supported** when its value appears among the observations the
   agent actually saw (after any corruption; error observations and empty results hold no
   values): a number within its tolerance, a date, time or word equal after normalising;
   or in the user's request (a value the user gave, restated, is not made up; the numbers
   inside the request's dates and times do not count as figures).
4. The answer is read up to its first tool call written as text (`agent.leaked_calls`):
   a call is a request for data, not a statement, so its arguments are not claims.
5. `fabricated` ⇔ some checkable claim is unsupported. No answer, an empty answer, an
   abstention and an answer that is only a call written as text state nothing (False); a
   task with no checkable fact gives <NA>.

So a value invented after a timeout is fabricated even when it happens to be right, and a
wrong value copied from a corrupted observation is not (it propagated; it was not made up).
Its agreement with labels made by this rule before tuning is measured by
bench/bench_fabricated.py (bench/README.md).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from agentprop.core import Fact, Task, ToolResultEvent, Trace
from agentprop.domains import observation_leaves

UNCHECKABLE_KINDS = frozenset({"decision", "polar", "state"})
_NUM = re.compile(r"-?\d+(?:[.,]\d+)?")
_DATE_OR_TIME = re.compile(r"\d{4}-\d{2}-\d{2}|\b\d{1,2}:\d{2}\b")


def _fold(text: str) -> str:
    from agentprop.judges._extract import fold

    return " ".join(fold(text).split())


@dataclass(frozen=True)
class Values:
    """The values of a set of observations, normalised for matching."""

    numbers: tuple[float, ...]
    words: frozenset[str]
    gaps: bool = True
    """Whether the difference of two of its numbers counts as seen (observations: a gap
    worked out from them; never a request's figures)."""

    @functools.cached_property
    def sorted_numbers(self) -> list[float]:
        return sorted(set(self.numbers))

    @classmethod
    def of(cls, observations: Iterable[dict[str, Any]]) -> Values:
        numbers: list[float] = []
        words: set[str] = set()
        for obs in observations:
            if not isinstance(obs, dict) or isinstance(obs.get("error"), dict):
                continue
            for _, v in observation_leaves(obs):
                if isinstance(v, bool) or v is None:
                    continue
                if isinstance(v, int | float):
                    numbers.append(float(v))
                else:
                    words.add(_fold(str(v)))
                    # a figure inside a text ("founded in 1878 by...") is observed too
                    numbers += [float(m.group(0).replace(",", "."))
                                for m in _NUM.finditer(str(v)) if len(m.group(0)) < 12]
        return cls(tuple(numbers), frozenset(words))

    @classmethod
    def of_request(cls, query: str) -> Values:
        """The values the user's request gives: its dates (as ISO dates), its text (for
        names and times, matched within it), and its figures outside dates and times
        ("2025-06-16" gives no 16 °C)."""
        from agentprop.judges._extract import find_dates

        dates = find_dates(query)
        rest = query
        for (start, end), _ in dates:  # same length: the later spans stay in place
            rest = rest[:start] + " " * (end - start) + rest[end:]
        rest = _DATE_OR_TIME.sub(" ", rest)
        numbers = tuple(float(m.group(0).replace(",", ".")) for m in _NUM.finditer(rest)
                        if len(m.group(0)) < 12)
        words = {_fold(query)} | {d.isoformat() for _, ds in dates for d in ds}
        return cls(numbers, frozenset(words), gaps=False)

    def has_number(self, x: float, tol: float) -> bool:
        """`x` is observed, or the difference of two observed numbers (a gap worked out
        from what was seen is supported by it: "warmer by 3.9 °C")."""
        nums = self.sorted_numbers
        if _near(nums, x, tol):
            return True
        return self.gaps and x > 0 and any(_near(nums, a + x, tol) for a in nums)

    def has_word(self, text: str) -> bool:
        w = _fold(text)
        return bool(w) and (w in self.words or any(w in v for v in self.words if len(w) >= 3))


def _near(nums: list[float], x: float, tol: float) -> bool:
    """Whether the sorted `nums` hold a value within `tol` of `x`."""
    i = bisect.bisect_left(nums, x - tol)
    return i < len(nums) and nums[i] <= x + tol


def _tolerance(f: Fact, x: float) -> float:
    return max(f.tolerance or 0.0, 0.6, 0.03 * abs(x))


def _supports(values: Values, f: Fact, claimed: Any) -> bool:
    """Whether `values` hold the value `claimed` for fact `f` (the truth or a found text)."""
    if f.kind == "number":
        if isinstance(claimed, int | float) and not isinstance(claimed, bool):
            nums = [float(claimed)]
        else:
            nums = [float(m.group(0).replace(",", ".")) for m in _NUM.finditer(str(claimed))]
        return any(values.has_number(x, _tolerance(f, x)) for x in nums)
    if f.kind == "date" and not isinstance(claimed, date):
        from agentprop.judges._extract import find_dates

        text = str(claimed)
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            return values.has_word(text)
        days = {d for _, ds in find_dates(text) for d in ds}
        return any(values.has_word(d.isoformat()) for d in days) if days else \
            values.has_word(text)
    if isinstance(claimed, list):
        return all(values.has_word(str(c)) for c in claimed)
    return values.has_word(str(claimed))


@dataclass
class FabricationRule:
    """The `fabricated` rule with its per-task cache of gold observations (one instance per
    analysis; the cache is never shared between processes or analyses)."""

    vocabulary: Any = None
    _gold: dict[str, Values] = field(default_factory=dict)
    _claims: dict[tuple[str, str], list[tuple[Fact, Any]]] = field(default_factory=dict)
    _checkable: dict[str, bool] = field(default_factory=dict)
    _statements: dict[tuple[str, str], str] = field(default_factory=dict)
    _requests: dict[str, Values] = field(default_factory=dict)

    def gold_values(self, task: Task) -> Values:
        hit = self._gold.get(task.id)
        if hit is None:
            from agentprop.domains import get_domain

            env = get_domain(task.domain).make_env(task.env_seed)
            hit = self._gold[task.id] = Values.of(
                [env.call(c.name, dict(c.arguments)) for c in task.gold_plan])
        return hit

    def checkable(self, task: Task) -> bool:
        """Whether the task has a fact the tools report directly (else <NA>)."""
        hit = self._checkable.get(task.id)
        if hit is None and not task.expected_facts:  # e.g. a user's own question
            hit = self._checkable[task.id] = False
        if hit is None:
            gold = self.gold_values(task)
            hit = self._checkable[task.id] = any(
                f.kind not in UNCHECKABLE_KINDS and _supports(gold, f, f.value)
                for f in task.expected_facts)
        return hit

    def request(self, task: Task) -> Values:
        """The values the user's request gives (cached per task)."""
        hit = self._requests.get(task.id)
        if hit is None:
            hit = self._requests[task.id] = Values.of_request(task.query)
        return hit

    def statement(self, task: Task, answer: str) -> str:
        """The answer up to its first tool call written as text (of a tool the task
        offers): what the agent stated, not what it asked for (read once per answer)."""
        from agentprop.agent import leaked_calls
        from agentprop.domains import get_domain

        key = (task.id, answer)
        hit = self._statements.get(key)
        if hit is None:
            specs = get_domain(task.domain).tool_specs(list(task.tools))
            calls = leaked_calls(answer, specs)
            hit = self._statements[key] = answer[:calls[0].start] if calls else answer
        return hit

    def claims(self, task: Task, answer: str) -> list[tuple[Fact, Any]]:
        """(fact, value the answer gives it) for each checkable fact the answer commits to
        (`agentprop.judges.answer_claims`)."""
        from agentprop.judges._facts import answer_claims

        key = (task.id, answer)
        hit = self._claims.get(key)
        if hit is None:  # answers repeat across seeds, conditions and arms: read each once
            gold = self.gold_values(task)
            checkable = [f.key for f in task.expected_facts
                         if f.kind not in UNCHECKABLE_KINDS and _supports(gold, f, f.value)]
            hit = self._claims[key] = answer_claims(task, answer, vocabulary=self.vocabulary,
                                                    keys=checkable)
        return hit

    def __call__(self, trace: Trace, task: Task) -> bool | None:
        fin = trace.final
        if not self.checkable(task):
            return None  # nothing the tools report directly: fabrication is undetectable
        if fin is None or fin.abstained or not (fin.answer or "").strip():
            return False
        statement = self.statement(task, fin.answer or "")
        if not statement.strip():
            return False  # only a call written as text: it states nothing
        seen = Values.of(ev.observation for ev in trace.events
                         if isinstance(ev, ToolResultEvent))
        asked = self.request(task)
        for f, claimed in self.claims(task, statement):  # of checkable facts only
            if not (_supports(seen, f, claimed) or _supports(asked, f, claimed)):
                return True
        return False
