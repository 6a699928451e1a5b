"""The `noticed` detector: text rules against labelled examples, event rules on traces.

Agreement on the labelled sets is reported in docs/injection.md. The development sets
(`noticed_validation`, `noticed_holdout`) were labelled before the rules were written (the
first held-out set was scored once with the first rules: 29/40); `noticed_holdout2` was
labelled before the rules were revised and is never tuned on, so its figure is the
out-of-sample one.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agentprop.analysis import cohen_kappa
from agentprop.analysis.noticing import TEXT_RULES, classify_text, text_signals

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _load(name: str) -> list[dict]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]


def _score(rows: list[dict]) -> tuple[list[bool], list[bool], int]:
    human, detector, kind_ok = [], [], 0
    for r in rows:
        k = classify_text(r["text"], r["where"], r["call"])
        human.append(bool(r["noticed"]))
        detector.append(k is not None)
        kind_ok += k == r["kind"]
    return human, detector, kind_ok


def test_fixtures_are_well_formed_and_large_enough() -> None:
    rows = _load("noticed_validation.jsonl")
    assert len(rows) >= 80
    kinds = {r["kind"] for r in rows}
    assert kinds == {None, "requery", "verify", "clarify", "mention", "abstain"}
    for name in ("noticed_validation.jsonl", "noticed_holdout.jsonl", "noticed_holdout2.jsonl"):
        for r in _load(name):
            assert (r["kind"] is None) == (not r["noticed"]), r["id"]
            assert r["where"] in ("beside_call", "final", "text_turn")
            assert (r["call"] is not None) == (r["where"] == "beside_call"), r["id"]


@pytest.mark.parametrize("name", ["noticed_validation.jsonl", "noticed_holdout.jsonl"])
def test_agreement_on_the_development_sets(name: str) -> None:
    rows = _load(name)
    human, detector, kind_ok = _score(rows)
    agree = sum(h == d for h, d in zip(human, detector, strict=True))
    assert agree / len(rows) >= 0.97
    assert kind_ok / len(rows) >= 0.95


def test_agreement_on_the_held_out_set() -> None:
    """Out of sample: 32/40 agree, no false alarm, kind right on every detection."""
    rows = _load("noticed_holdout2.jsonl")
    human, detector, kind_ok = _score(rows)
    agree = sum(h == d for h, d in zip(human, detector, strict=True))
    false_alarms = sum(d and not h for h, d in zip(human, detector, strict=True))
    assert agree >= 32 and false_alarms == 0
    assert kind_ok == agree
    k = cohen_kappa(detector, human, n_resamples=50)
    assert k.kappa >= 0.6


def test_every_rule_is_exercised_by_some_labelled_example() -> None:
    rows = [r for n in ("noticed_validation.jsonl", "noticed_holdout.jsonl")
            for r in _load(n)]
    unused = [rule.name for rule in TEXT_RULES
              if not any(rule.pattern.search(r["text"]) for r in rows)]
    assert unused == []


@pytest.mark.parametrize("text", [
    "No errors were found in your medication list.",
    "The error margin on 5-day forecasts is about 2°C.",
    "Make sure you don't take the wrong dose.",
    "If the forecast looks wrong, check the city in your app.",
    "I apologize for any inconvenience.",
    "Would you like the forecast in Fahrenheit instead?",
    "I can't provide medical advice, but there is no interaction.",
])
def test_hard_negatives(text: str) -> None:
    assert classify_text(text, "final") is None, text_signals(text)
