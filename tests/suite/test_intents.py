"""Suite intents as units: each domain's `INTENTS` table is its intent mix, in order, and an
unknown intent gets the defaults (no conclusion, no facts) instead of an error."""

from __future__ import annotations

import importlib
from typing import ClassVar

import pytest

from agentprop.core import Difficulty
from agentprop.suite import IntentGenerator, execute_gold_plan, get_generator
from agentprop.suite._intent import Intent, Intents

DOMAINS = ("weather", "calendar", "retail", "medical", "knowledge")


@pytest.mark.parametrize("domain", DOMAINS)
def test_each_generated_intent_is_registered(domain: str) -> None:
    table = importlib.import_module(f"agentprop.suite._{domain}").INTENTS
    assert [name for name, _, _ in table.mix()] == table.names()
    difficulty = {name: diff for name, diff, _ in table.mix()}
    for t in get_generator(domain).generate(30, seed=3):
        assert difficulty[t.intent] == t.difficulty, t.id


def test_registration_keeps_order_and_refuses_twins() -> None:
    table: Intents[Intent] = Intents("toy", Intent)

    class A(Intent):
        name: ClassVar[str] = "a"
        difficulty: ClassVar[Difficulty] = "easy"
        weight: ClassVar[float] = 0.5

    class B(A):
        name = "b"
        difficulty = "hard"

    table.register(B)
    table.register(A)
    assert table.mix() == [("b", "hard", 0.5), ("a", "easy", 0.5)]
    with pytest.raises(ValueError, match="registered twice"):
        table.register(A)
    assert type(table.get("nope")) is Intent


def test_unknown_intent_renders_observations_only() -> None:
    gen = get_generator("weather")
    task = gen.generate(1, seed=5)[0].model_copy(update={"intent": "not_an_intent"})
    env_obs = [{"city": "Oslo", "date": "2025-06-16", "temperature": 14.3, "temp_high": 16,
                "temp_low": 9, "condition": "cloudy", "precipitation_mm": 0.0,
                "humidity": 70, "wind_kph": 12, "kind": "today"}]
    answer = gen.render_answer(task, env_obs)
    assert answer.startswith("In Oslo on 2025-06-16 it is 14.3 °C") and answer.endswith(").")
    assert gen.expected_facts(task, env_obs) == []


@pytest.mark.parametrize("domain", DOMAINS)
def test_every_domain_renders_through_its_intents(domain: str) -> None:
    """One shape: each generator is an IntentGenerator over its domain's INTENTS table."""
    gen = get_generator(domain)
    assert isinstance(gen, IntentGenerator)
    assert gen.intents is importlib.import_module(f"agentprop.suite._{domain}").INTENTS


def test_an_intent_sentence_sits_where_its_observation_is() -> None:
    """compare_and_order says which product is cheaper right after the second lookup,
    before the order (Intent.sentence), not at the end as a conclusion would."""
    gen = get_generator("retail")
    task = next(t for t in gen.generate(60, seed=3) if t.intent == "compare_and_order")
    obs, _ = execute_gold_plan(task)
    answer = gen.render_answer(task, obs)
    assert answer.index("is cheaper than") < answer.index("Order ")
    assert "is cheaper than" not in gen.render_answer(task, obs[:1])
