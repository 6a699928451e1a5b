"""Stress tests of the instruments (judges/_perturb.py, judges/_stress.py): perturbations
are deterministic and do what their family says, the harness counts flips the way its
docstring says, and the shipped agentprop/judges/stress.json is what the code measures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from agentprop.judges import ValidationSet
from agentprop.judges._perturb import BY_NAME, PERTURBATIONS, perturb, rivals_of
from agentprop.judges._stress import (
    load_stress,
    retest,
    stress_fabricated,
    stress_judges,
    stress_noticed,
)
from agentprop.suite import load_suite

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
NUM = re.compile(r"\d+(?:\.\d+)?")


@pytest.fixture(scope="module")
def suite():  # type: ignore[no-untyped-def]
    return load_suite()


@pytest.fixture(scope="module")
def vset() -> ValidationSet:
    return ValidationSet.load(FIXTURES / "judge_validation.jsonl")


def _numbers(text: str) -> list[float]:
    return sorted(float(x) for x in NUM.findall(text))


def test_perturbations_are_deterministic_and_leave_the_original_alone(vset, suite) -> None:  # type: ignore[no-untyped-def]
    rivals = rivals_of(suite.tasks)
    for item in vset.items[:80]:
        task = suite.get(item.task_id)
        for p in PERTURBATIONS:
            a = perturb(p.name, item.answer, task, seed=3, rivals=rivals)
            assert a == perturb(p.name, item.answer, task, seed=3, rivals=rivals)
            assert a != item.answer


def test_wording_perturbations_keep_every_figure(vset, suite) -> None:  # type: ignore[no-untyped-def]
    for item in vset.items[:150]:
        task = suite.get(item.task_id)
        for name in ("paraphrase", "reorder", "verbosity", "markdown"):
            out = perturb(name, item.answer, task)
            if out is not None:
                assert _numbers(out) == _numbers(item.answer), (name, item.id)


def test_formats_are_the_ones_the_labelling_rule_accepts() -> None:
    out = perturb("units_dates", "On 2025-06-18 at 14:30 it is 21 °C; the fee is $12.50.")
    assert out == "On June 18, 2025 at 2:30 pm it is 21 degrees Celsius; the fee is 12.50 dollars."
    assert perturb("units_dates", "Nothing to convert here.") is None
    assert perturb("reorder", "It rains. It pours.") is None  # the second leans on the first
    md = perturb("markdown", "Berlin is warmest on June 18. It is 18.9 °C there.")
    assert md is not None and "**18.9 °C**" in md and "- Berlin" in md


def test_meaning_changing_perturbations_change_one_fact(vset, suite) -> None:  # type: ignore[no-untyped-def]
    rivals = rivals_of(suite.tasks)
    changed = {"number": 0, "date": 0, "entity": 0, "negation": 0}
    for item in vset.items[:200]:
        task = suite.get(item.task_id)
        out = perturb("number", item.answer, task)
        if out is not None:
            before, after = NUM.findall(item.answer), NUM.findall(out)
            assert len(before) == len(after)
            assert sum(a != b for a, b in zip(before, after, strict=True)) == 1
            old = next(float(a) for a, b in zip(before, after, strict=True) if a != b)
            new = next(float(b) for a, b in zip(before, after, strict=True) if a != b)
            facts = [f for f in task.expected_facts if f.kind == "number"]
            hit = [f for f in facts  # a figure of the task's facts, within its tolerance
                   if abs(old - float(f.value)) <= max(f.tolerance or 0, 1e-9)]
            assert hit and all(abs(new - float(f.value)) > max(f.tolerance or 0, 1e-9)
                               for f in hit)
            changed["number"] += 1
        for name in ("date", "entity", "negation"):
            if perturb(name, item.answer, task, rivals=rivals) is not None:
                changed[name] += 1
    assert all(v >= 20 for v in changed.values()), changed
    q = suite.tasks[0]
    assert perturb("entity", "anything", None) is None and perturb("negation", "x", None) is None
    assert BY_NAME["notice"].preserving is False and q is not None


def test_the_harness_counts_flips_as_it_says(vset, suite) -> None:  # type: ignore[no-untyped-def]
    """The exact sim judge decides as the facts judge: the same flips; preserving rows
    count every answer the perturbation applied to, changing rows only answers labelled
    correct that the judge accepted."""
    facts = {(r.instrument, r.perturbation): r
             for r in stress_judges(vset, suite, ["facts", "llm:sim-judge/exact"], limit=60)}
    for p in PERTURBATIONS:
        if p.name == "notice":
            continue
        a, b = facts[("facts", p.name)], facts[("llm:sim-judge/exact", p.name)]
        assert (a.n, a.flips) == (b.n, b.flips)
        assert a.expect == ("stable" if p.preserving else "flip")
    para = facts[("facts", "paraphrase")]
    assert para.n == 60  # paraphrase applies to every answer
    right = sum(1 for i in vset.items[:60] if i.label == "correct")
    assert facts[("facts", "number")].n <= right


def test_retest_is_zero_for_a_deterministic_judge_and_not_for_a_noisy_one(vset, suite) -> None:  # type: ignore[no-untyped-def]
    rows = {r.instrument: r for r in retest(vset, suite, ["llm:sim-judge/exact",
                                                          "llm:sim-judge/noisy"], k=3,
                                            limit=40)}
    exact, noisy = rows["llm:sim-judge/exact"], rows["llm:sim-judge/noisy"]
    assert exact.n > 0 and exact.flips == 0
    assert noisy.flips > 0 and noisy.perturbation == "retest"


def _noticed_texts() -> list[dict[str, object]]:
    out = []
    for name in ("noticed_validation.jsonl", "noticed_holdout.jsonl", "noticed_holdout2.jsonl"):
        for line in (FIXTURES / name).read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                out.append(json.loads(line))
    return out


def test_the_shipped_stress_file_is_what_the_code_measures(vset, suite) -> None:  # type: ignore[no-untyped-def]
    """agentprop/judges/stress.json (bench/bench_stress.py --write) for the detectors,
    recomputed here; every judge of the file has every perturbation."""
    shipped = load_stress()
    assert shipped is not None, "run: python bench/bench_stress.py --write"
    rows = {(r["instrument"], r["perturbation"]): (r["n"], r["flips"])
            for r in shipped["rows"]}
    seed = int(shipped["seed"])
    for r in [*stress_noticed(_noticed_texts(), seed=seed),
              *stress_fabricated(vset, suite, seed=seed)]:
        assert rows[(r.instrument, r.perturbation)] == (r.n, r.flips), r
    for judge in ("facts", "heuristic"):
        assert {p for i, p in rows if i == judge} == {
            p.name for p in PERTURBATIONS if p.name != "notice"}


def test_the_cards_gather_every_shipped_file() -> None:
    """judges/_cards.py: the judges' set (not held out, its graders), the detectors' held-out
    figures (noticed recomputed here from its fixture) and the stress rows."""
    from agentprop.analysis import cohen_kappa
    from agentprop.analysis.noticing import classify_text
    from agentprop.judges._cards import load_instrument_validity

    cards = load_instrument_validity()
    assert cards is not None
    # the facts judge's card is its one scoring on facts_heldout2026c (held out for v5);
    # the other judges' cards are the validation set's (not held out, two graders)
    assert cards["held_out"]["facts"] is True and cards["held_out"]["noticed"] is True
    assert cards["held_out"]["heuristic"] is False
    assert "two independent graders" in cards["labels"]["heuristic"]
    assert cards["labels"]["facts"].startswith("facts_heldout2026c.jsonl")
    assert cards["judges"]["facts"]["n"] == 200
    assert "without reading the detector" in cards["labels"]["noticed"]
    assert cards["held_out"]["fabricated"] is True
    assert cards["stress"]["facts"]["paraphrase"]["expect"] == "stable"
    assert cards["stress"]["noticed"]["notice"]["expect"] == "flip"
    # The card is the v4 rules' one scoring of noticed_heldout2026c, a set written and
    # labelled before and without the rules (bench_noticed.py --labels PATH --write).
    rows = [json.loads(x) for x in (FIXTURES / "noticed_heldout2026c.jsonl").read_text(
        encoding="utf-8").splitlines() if x.strip() and not x.startswith("#")]
    said = [classify_text(r["text"], r["where"], r["call"]) is not None for r in rows]
    k = cohen_kappa(said, [bool(r["noticed"]) for r in rows], n_resamples=1000, rng=42)
    noticed = cards["judges"]["noticed"]
    assert noticed["n"] == len(rows) and noticed["set"].endswith("noticed_heldout2026c.jsonl")
    assert noticed["kappa_lo"] <= noticed["kappa"] <= noticed["kappa_hi"]
    assert k.kappa == pytest.approx(noticed["kappa"])
