"""The programmatic judge: checks the final answer against the task's expected facts.

The rule (documented in docs/judges.md):
- no final answer, an abstention or an empty answer → incorrect (not unscored);
- a task with neither expected facts nor expected state → unscored;
- otherwise correct ⇔ every *required* fact is stated by the answer, where
  * number: some number in the answer equals the value within max(tolerance, the rounding
    of the answer's own precision); units are respected: °C/°F are converted, "degrees"
    or a bare number take the fact's unit, a different explicit unit never matches; USD
    amounts need the cent unless a tolerance is given; a percentage fact ≤ 1 also
    matches value × 100 %;
  * entity / id / text: the value or an alias appears as whole words, case-, accent- and
    punctuation-insensitive;
  * date: some date in the answer (ISO, 06/17/2025, June 17, 17 June 2025,
    "Tuesday, June 17", today / tomorrow) is the value;
  * time: some clock time (14:00, 2 pm, 2:00 PM, noon) is the value;
  * state: a successful tool observation in the trace holds the value under the key
    (the last dotted segment); without tool observations the answer must state the value;
- an entity, id, date or time fact that the query itself already states is *optional*
  (the answer need not repeat the city the user asked about), except that a date or time
  fact becomes required again when the answer names some date (time): it must then be the
  right one; all other facts are required.
- the answer must not be about another entity than the query's: for each entity the query
  names (``task.meta["query_entities"]``, e.g. city, patient_id, title), if the answer does
  not name it but names another value of the same key from the suite's vocabulary (every
  task's query entities), the answer is incorrect ("In Paris: 14 °C" for London).
  This check needs the suite (`get_judge("facts", suite=...)`); without it it is skipped.
- expected_state (when the task has it and the trace is given): the episode's actual
  final world state — a fresh environment from the task's seed with the trace's executed
  tool calls replayed in order (the simulators are deterministic) — must match it: every
  expected key/item present and equal, and an expected empty list means the actual one is
  empty ("nothing booked"). One check per top-level key. Skipped for a domain that is not
  simulated here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from agentprop.core import Fact, Task, ToolResultEvent, Trace, Verdict
from agentprop.judges._base import JUDGES, Judge
from agentprop.judges._extract import (
    canonical_time,
    canonical_unit,
    contains_phrase,
    find_dates,
    find_numbers,
    find_times,
    norm_text,
)
from agentprop.judges._state import replay_state, state_checks

_CONTEXT_KINDS = {"entity", "id", "date", "time"}


def _f_to_c(x: float) -> float:
    return (x - 32.0) * 5.0 / 9.0


def _c_to_f(x: float) -> float:
    return x * 9.0 / 5.0 + 32.0


def _number_ok(fact: Fact, text: str, skip: list[tuple[int, int]]) -> bool:
    try:
        target = float(fact.value)
    except (TypeError, ValueError):
        return False
    funit = canonical_unit(fact.unit)
    tol = float(fact.tolerance or 0.0)
    for num in find_numbers(text, skip=skip):
        value, unit = num.value, num.unit
        slack = 0.0 if funit == "USD" else 0.5 * 10.0 ** (-num.decimals)
        candidates: list[tuple[float, float]] = []
        if funit in ("C", "F"):
            if unit in (None, "deg", funit):
                candidates.append((value, slack))
            elif unit == "F":
                candidates.append((_f_to_c(value), slack * 5 / 9))
            elif unit == "C":
                candidates.append((_c_to_f(value), slack * 9 / 5))
        elif funit == "%":
            if unit in (None, "%"):
                candidates.append((value, slack))
                if unit == "%" and abs(target) <= 1.0:
                    candidates.append((value / 100.0, slack / 100.0))
        elif funit is None or unit is None or unit == funit:
            candidates.append((value, slack))
        for v, s in candidates:
            if abs(v - target) <= max(tol, s) + 1e-9:
                return True
    return False


def _names(fact: Fact) -> list[str]:
    return [str(fact.value), *fact.aliases]


def _date_ok(fact: Fact, text: str) -> bool:
    want = find_dates(str(fact.value))
    targets = set().union(*(d for _, d in want)) if want else set()
    return any(days & targets for _, days in find_dates(text)) or any(
        contains_phrase(text, a) for a in fact.aliases
    )


def _time_ok(fact: Fact, text: str) -> bool:
    want = canonical_time(str(fact.value))
    return (want is not None and any(t == want for _, t in find_times(text))) or any(
        contains_phrase(text, a) for a in fact.aliases
    )


def _leaves(obj: Any, path: tuple[str, ...] = ()) -> Iterable[tuple[tuple[str, ...], Any]]:
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaves(v, (*path, str(k)))
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaves(v, (*path, str(i)))
    else:
        yield path, obj


def _same(a: Any, b: Any) -> bool:
    if isinstance(a, bool) or isinstance(b, bool):
        return a is b or str(a).lower() == str(b).lower()
    if isinstance(a, int | float) and isinstance(b, int | float):
        return abs(float(a) - float(b)) < 1e-9
    return norm_text(str(a)) == norm_text(str(b))


def _observations(trace: Trace | None) -> list[dict[str, Any]]:
    if trace is None:
        return []
    return [
        ev.observation for ev in trace.events
        if isinstance(ev, ToolResultEvent) and not isinstance(ev.observation.get("error"), dict)
    ]


def _state_ok(key: str, value: Any, observations: list[dict[str, Any]]) -> bool:
    last = key.split(".")[-1]
    return any(
        path and path[-1] == last and _same(v, value)
        for obs in observations for path, v in _leaves(obs)
    )


def fact_stated(fact: Fact, text: str, *, observations: list[dict[str, Any]] | None = None,
                skip: list[tuple[int, int]] | None = None) -> bool:
    """Whether `text` (or, for state facts, the observations) states `fact`."""
    if fact.kind == "number":
        if skip is None:
            skip = [s for s, _ in find_dates(text)] + [s for s, _ in find_times(text)]
        return _number_ok(fact, text, skip)
    if fact.kind == "date":
        return _date_ok(fact, text)
    if fact.kind == "time":
        return _time_ok(fact, text)
    if fact.kind == "state" and observations:
        return _state_ok(fact.key, fact.value, observations)
    return any(contains_phrase(text, n) for n in _names(fact))


_SKIP_VOCAB_KEYS = {"unit"}


def query_vocabulary(tasks: Iterable[Task]) -> dict[str, frozenset[str]]:
    """Key → every normalised value the suite's queries name under that key (dates and
    numbers excluded: the date and number rules handle those)."""
    vocab: dict[str, set[str]] = {}
    for t in tasks:
        for k, v in (t.meta.get("query_entities") or {}).items():
            if k in _SKIP_VOCAB_KEYS or not isinstance(v, str) or find_dates(v):
                continue
            n = norm_text(v)
            if len(n) >= 3:
                vocab.setdefault(k, set()).add(n)
    return {k: frozenset(v) for k, v in vocab.items()}


def _wrong_entities(task: Task, answer: str,
                    vocabulary: Mapping[str, frozenset[str]]) -> list[dict[str, Any]]:
    text = f" {norm_text(answer)} "
    out = []
    for k, v in (task.meta.get("query_entities") or {}).items():
        if k not in vocabulary or not isinstance(v, str):
            continue
        want = norm_text(v)
        if f" {want} " in text:
            continue
        others = sorted(o for o in vocabulary[k]
                        if o != want and f" {o} " in text and f" {o} " not in f" {want} ")
        if others:
            out.append({"key": f"query.{k}", "kind": "query_entity", "value": v, "ok": False,
                        "optional": False, "found": others[0]})
    return out


def check_answer(task: Task, answer: str | None, *, abstained: bool = False,
                 trace: Trace | None = None,
                 vocabulary: Mapping[str, frozenset[str]] | None = None,
                 ) -> tuple[bool | None, dict[str, Any]]:
    """The facts rule on one answer: (correct or None if unscorable, details)."""
    if abstained or answer is None or not answer.strip():
        return False, {"reason": "abstained" if abstained else "no answer"}
    if not task.expected_facts and not task.expected_state:
        return None, {"reason": "task has no expected facts"}
    observations = _observations(trace)
    skip = [s for s, _ in find_dates(answer)] + [s for s, _ in find_times(answer)]
    checks: list[dict[str, Any]] = []
    for fact in task.expected_facts:
        optional = fact.kind in _CONTEXT_KINDS and fact_stated(fact, task.query)
        if optional and fact.kind == "date" and find_dates(answer):
            optional = False  # the answer names a date: it must be the right one
        if optional and fact.kind == "time" and find_times(answer):
            optional = False
        ok = fact_stated(fact, answer, observations=observations, skip=skip)
        checks.append({"key": fact.key, "kind": fact.kind, "value": fact.value,
                       "ok": ok, "optional": optional})
    if task.expected_state and trace is not None:
        actual = replay_state(task, trace)
        if actual is not None:
            checks.extend(state_checks(task.expected_state, actual))
    if vocabulary:
        checks.extend(_wrong_entities(task, answer, vocabulary))
    correct = all(c["ok"] or c["optional"] for c in checks)
    return correct, {"checks": checks}


class FactsJudge(Judge):
    kind = "facts"

    def __init__(self, suite: Any = None) -> None:
        self.name = "facts"
        self._suite = suite
        self._vocab: dict[str, frozenset[str]] | None = None

    def vocabulary(self) -> dict[str, frozenset[str]]:
        if self._vocab is None:
            self._vocab = query_vocabulary(self._suite.tasks) if self._suite is not None else {}
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
    return FactsJudge(options.get("suite"))
