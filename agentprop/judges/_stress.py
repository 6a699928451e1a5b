"""Stress tests of every instrument, as the RAND Judge Reliability Harness runs them: each
labelled answer of the shipped validation sets perturbed (`judges/_perturb.py`), each
instrument run on the original and on every perturbation, and the share of verdicts that
moved, per perturbation.

- **judges** (facts, heuristic, LLM and ensemble judges; offline through the sim judges):
  the answers of tests/fixtures/judge_validation.jsonl. A meaning-preserving perturbation
  of any answer must leave the verdict as it was (`expect` "stable": the flip rate should
  be 0); a meaning-changing one of an answer labelled correct that the judge accepted must
  make it reject it (`expect` "flip": the rate should be 1).
- **fabricated**: the answers labelled correct, as traces that saw the gold plan's real
  observations (so nothing they state is unsupported: the rule says no). Preserving
  perturbations must keep it so; a changed number or date of a fact the tools report must
  make it yes. Entity swaps and negated decisions are not its question (it reads values,
  not whom they are stated for, and decisions are never checkable).
- **noticed**: the texts of tests/fixtures/noticed_*.jsonl. Every perturbation of wording,
  format and values must leave its verdict alone (a changed number does not change whether
  the agent noticed a problem); `notice` (a sentence naming a problem, added to a text
  that noticed nothing) must make it say yes.
- **retest**: each LLM judge judges every original answer k times with k seeds (the
  request's seed; no cache): the share of verdicts that differ from the first is its
  test–retest instability (0 for a deterministic judge).

Unscored verdicts (an LLM judge's unparseable reply) are left out of a flip's count.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentprop.core import FinalEvent, Task, ToolResultEvent, Trace
from agentprop.judges._perturb import BY_NAME, PERTURBATIONS, perturb, rivals_of
from agentprop.judges._validity import LabelledAnswer, ValidationSet, as_trace

if TYPE_CHECKING:
    from agentprop.suite import Suite

STRESS_FILE = Path(__file__).with_name("stress.json")
"""The measured flip rates (written by bench/bench_stress.py --write)."""
VALUE_CHANGES = ("number", "date")
"""The meaning-changing perturbations that change a value (what `fabricated` reads)."""


@dataclass(frozen=True)
class StressRow:
    """One instrument under one perturbation."""

    instrument: str
    perturbation: str
    expect: str
    """"stable" (the verdict must not move) or "flip" (it must)."""
    n: int
    """Answers the perturbation applied to (and the instrument scored both times)."""
    flips: int

    @property
    def rate(self) -> float:
        return self.flips / self.n if self.n else float("nan")


def _variant(item: LabelledAnswer, name: str, text: str) -> LabelledAnswer:
    return item.model_copy(update={"id": f"{item.id}~{name}", "answer": text})


def _variants(items: Sequence[LabelledAnswer], suite: Suite, names: Iterable[str],
              seed: int) -> dict[str, list[tuple[LabelledAnswer, LabelledAnswer]]]:
    """Per perturbation: (original, perturbed) of every answer it applies to."""
    rivals = rivals_of(suite.tasks)
    out: dict[str, list[tuple[LabelledAnswer, LabelledAnswer]]] = {}
    for name in names:
        pairs = []
        for item in items:
            text = perturb(name, item.answer, suite.get(item.task_id), seed=seed, rivals=rivals)
            if text is not None:
                pairs.append((item, _variant(item, name, text)))
        out[name] = pairs
    return out


async def _verdicts(judge: Any, items: Sequence[LabelledAnswer], suite: Suite
                    ) -> dict[str, bool | None]:
    out: dict[str, bool | None] = {}
    for item in items:
        task = suite.get(item.task_id)
        assert task is not None
        out[item.id] = (await judge.judge_many(as_trace(item, task), task))[0].correct
    return out


def _count(instrument: str, name: str, expect: str,
           pairs: Sequence[tuple[Any, Any]], before: dict[str, bool | None],
           after: dict[str, bool | None], *, must_start: bool | None = None) -> StressRow:
    """Flips of one perturbation: for "flip", only answers whose first verdict was
    `must_start` count (the move can only be seen from there)."""
    n = flips = 0
    for orig, new in pairs:
        a, b = before.get(orig.id), after.get(new.id)
        if a is None or b is None or (must_start is not None and a != must_start):
            continue
        n += 1
        flips += a != b
    return StressRow(instrument, name, expect, n, flips)


def stress_judges(vset: ValidationSet, suite: Suite, judges: Sequence[str], *,
                  seed: int = 0, limit: int | None = None) -> list[StressRow]:
    """Every judge under every perturbation of the validation answers."""
    from agentprop.judges._lookup import get_judge

    items = [i for i in vset.items if suite.get(i.task_id) is not None][:limit]
    names = [p.name for p in PERTURBATIONS if p.name != "notice"]
    variants = _variants(items, suite, names, seed)
    rows = []
    for name in judges:
        judge = get_judge(name, suite=suite)
        everything = [*items, *(v for pairs in variants.values() for _, v in pairs)]
        verdicts = asyncio.run(_verdicts(judge, everything, suite))
        for p in names:
            if BY_NAME[p].preserving:
                rows.append(_count(name, p, "stable", variants[p], verdicts, verdicts))
            else:  # answers labelled correct that the judge accepted
                right = [(o, v) for o, v in variants[p] if o.label == "correct"]
                rows.append(_count(name, p, "flip", right, verdicts, verdicts,
                                   must_start=True))
    return rows


def gold_trace(item: LabelledAnswer, task: Task) -> Trace:
    """The answer as a trace that saw the gold plan's real observations."""
    from agentprop.domains import get_domain

    env = get_domain(task.domain).make_env(task.env_seed)
    events: list[Any] = [
        ToolResultEvent(step=i, call_id=f"g{i}", name=c.name, arguments=dict(c.arguments),
                        observation=env.call(c.name, dict(c.arguments)))
        for i, c in enumerate(task.gold_plan)]
    events.append(FinalEvent(step=len(events), answer=item.answer))
    return Trace(id=item.id, run_id="stress", model="stress", task_id=task.id,
                 domain=task.domain, split=task.split, difficulty=task.difficulty,
                 events=events)


def stress_fabricated(vset: ValidationSet, suite: Suite, *, seed: int = 0,
                      limit: int | None = None) -> list[StressRow]:
    """The `fabricated` rule on the answers labelled correct, seen with the gold plan's
    observations; value changes touch only facts the tools report (checkable)."""
    from agentprop.judges._fabrication import UNCHECKABLE_KINDS, FabricationRule, _supports
    from agentprop.judges._facts import query_vocabulary

    rule = FabricationRule(query_vocabulary(suite.tasks))
    items = [i for i in vset.items if i.label == "correct" and suite.get(i.task_id)][:limit]
    rivals = rivals_of(suite.tasks)
    verdict: dict[str, bool | None] = {}
    rows = []
    names = [p.name for p in PERTURBATIONS if p.preserving] + list(VALUE_CHANGES)
    pairs: dict[str, list[tuple[LabelledAnswer, LabelledAnswer]]] = {n: [] for n in names}
    for item in items:
        task = suite.get(item.task_id)
        assert task is not None
        verdict[item.id] = rule(gold_trace(item, task), task)
        gold = rule.gold_values(task)
        checkable = task.model_copy(update={"expected_facts": [
            f for f in task.expected_facts
            if f.kind not in UNCHECKABLE_KINDS and _supports(gold, f, f.value)]})
        for name in names:
            text = perturb(name, item.answer, checkable if name in VALUE_CHANGES else task,
                           seed=seed, rivals=rivals)
            if text is None:
                continue
            new = _variant(item, name, text)
            verdict[new.id] = rule(gold_trace(new, task), task)
            pairs[name].append((item, new))
    for name in names:
        preserving = BY_NAME[name].preserving
        rows.append(_count("fabricated", name, "stable" if preserving else "flip",
                           pairs[name], verdict, verdict,
                           must_start=None if preserving else False))
    return rows


def stress_noticed(texts: Sequence[dict[str, Any]], *, seed: int = 0) -> list[StressRow]:
    """The `noticed` text rules on the labelled texts (`where`, `call`, `noticed`)."""
    from agentprop.analysis.noticing import classify_text

    def says(t: dict[str, Any], text: str) -> bool:
        return classify_text(text, t["where"], t.get("call")) is not None

    rows = []
    for p in PERTURBATIONS:
        if p.needs_task:
            continue
        n = flips = 0
        for i, t in enumerate(texts):
            before = says(t, t["text"])
            if p.name == "notice" and (bool(t["noticed"]) or before):
                continue  # a text that noticed nothing, and the rules agree
            new = perturb(p.name, t["text"], seed=seed + i)
            if new is None:
                continue
            n += 1
            flips += says(t, new) != before
        expect = "flip" if p.name == "notice" else "stable"
        rows.append(StressRow("noticed", p.name, expect, n, flips))
    return rows


def retest(vset: ValidationSet, suite: Suite, judges: Sequence[str], *, k: int = 5,
           limit: int | None = None) -> list[StressRow]:
    """Each LLM or ensemble judge re-judges every original answer k times (seeds 0..k-1,
    no cache): flips = verdicts that differ from the first repetition's."""
    from agentprop.judges._lookup import get_judge
    from agentprop.models import GenerateConfig

    items = [i for i in vset.items if suite.get(i.task_id) is not None][:limit]
    rows = []
    for name in judges:
        runs = []
        for r in range(k):
            judge = get_judge(name, suite=suite)
            for member in getattr(judge, "members", None) or [judge]:
                member.config = GenerateConfig(temperature=member.config.temperature,
                                               max_tokens=member.config.max_tokens, seed=r)
            runs.append(asyncio.run(_verdicts(judge, items, suite)))
        n = flips = 0
        for run in runs[1:]:
            for item in items:
                a, b = runs[0].get(item.id), run.get(item.id)
                if a is None or b is None:
                    continue
                n += 1
                flips += a != b
        rows.append(StressRow(name, "retest", "stable", n, flips))
    return rows


def write_stress(rows: Sequence[StressRow], meta: dict[str, Any], path: Path = STRESS_FILE
                 ) -> None:
    data = {**meta, "rows": [{**asdict(r), "rate": r.rate} for r in rows]}
    path.write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", encoding="utf-8")


def load_stress(path: Path = STRESS_FILE) -> dict[str, Any] | None:
    """The measured flip rates shipped with this version (None if absent or unreadable)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
