"""Weather task generator: counts, determinism, grounded references, robust rendering."""

from __future__ import annotations

import random
import re
from collections import Counter, defaultdict

import pytest

from agentprop.core import REFERENCE_DATE, Task
from agentprop.domains import is_error
from agentprop.domains.weather import WeatherDomain
from agentprop.suite._check import fact_in_text
from agentprop.suite._weather import WeatherTaskGenerator

N = 674
DOM = WeatherDomain()
GEN = WeatherTaskGenerator()


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return GEN.generate(N, seed=11)


def _replay(task: Task) -> list[dict]:
    env = DOM.make_env(task.env_seed)
    return [env.call(c.name, c.arguments) for c in task.gold_plan]


def test_count_ids_and_determinism(tasks: list[Task]) -> None:
    assert len(tasks) == N
    assert [t.id for t in tasks] == [f"weather_{i:04d}" for i in range(1, N + 1)]
    again = GEN.generate(N, seed=11)
    assert [t.model_dump() for t in again] == [t.model_dump() for t in tasks]
    other = GEN.generate(20, seed=12)
    assert [t.query for t in other] != [t.query for t in tasks[:20]]


def test_difficulty_mix_and_intents(tasks: list[Task]) -> None:
    diff = Counter(t.difficulty for t in tasks)
    assert abs(diff["easy"] / N - 0.40) < 0.02
    assert abs(diff["medium"] / N - 0.35) < 0.02
    assert abs(diff["hard"] / N - 0.25) < 0.02
    intents: dict[str, set[str]] = defaultdict(set)
    for t in tasks:
        intents[t.difficulty].add(t.intent)
        expected_calls = {"easy": (1, 1), "medium": (2, 2), "hard": (1, 4)}[t.difficulty]
        assert expected_calls[0] <= len(t.gold_plan) <= expected_calls[1], t.id
    assert all(len(v) >= 3 for v in intents.values()), intents


def test_several_phrasings_per_intent(tasks: list[Task]) -> None:
    openings: dict[str, set[str]] = defaultdict(set)
    for t in tasks:
        openings[t.intent].add(" ".join(t.query.split()[:2]))
    assert all(len(v) >= 3 for v in openings.values()), openings


def test_relative_dates_are_anchored_on_the_reference_date(tasks: list[Task]) -> None:
    rel = [t for t in tasks if t.meta["relative_date"]]
    assert len(rel) > N * 0.4
    tomorrow = [t for t in tasks if "tomorrow" in t.query and t.intent == "weather_on_date"]
    assert tomorrow
    for t in tomorrow:
        if "day after" not in t.query:
            assert t.gold_plan[0].arguments["date"] == "2025-06-17"
    today = [t for t in tasks if t.intent == "current_conditions"]
    assert all(t.gold_plan[0].arguments["date"] == REFERENCE_DATE for t in today)
    for phrase in ("next Monday", "this ", " days"):
        assert any(phrase in t.query for t in tasks), phrase


def test_gold_plans_replay_into_the_reference(tasks: list[Task]) -> None:
    for t in tasks:
        obs = _replay(t)
        assert not any(is_error(o) for o in obs), t.id
        assert GEN.render_answer(t, obs) == t.reference_answer
        assert t.expected_facts, t.id
        assert any(f.role == "asked" for f in t.expected_facts), t.id
        for f in t.expected_facts:  # what the query asks for, the reference states
            if f.role == "asked":
                assert fact_in_text(f, t.reference_answer), (t.id, f)
        for f in t.expected_facts:
            if f.kind == "date":
                assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", str(f.value))
        assert t.expected_state is None


def test_first_call_has_a_critical_param_and_query_entities(tasks: list[Task]) -> None:
    for t in tasks:
        first = t.gold_plan[0]
        tool = DOM.tool(first.name)
        assert tool is not None
        assert set(tool.spec.critical_params) & set(first.arguments), t.id
        qe = t.query_entities
        assert qe and set(first.arguments) - {"unit"} <= set(qe), (t.id, qe)
        for k, v in first.arguments.items():
            allowed = qe[k] if isinstance(qe[k], list) else [qe[k]]
            assert v in allowed, (t.id, k)
        assert set(t.tools) == {tool.name for tool in DOM.tools}


def test_query_names_the_gold_city(tasks: list[Task]) -> None:
    for t in tasks:
        args = t.gold_plan[0].arguments
        city = args.get("city") or args.get("city_a")
        assert city in t.query, t.id
        if args.get("unit") == "fahrenheit":
            assert "Fahrenheit" in t.query or "°F" in t.query


def test_render_with_an_error_observation_says_so(tasks: list[Task]) -> None:
    t = next(x for x in tasks if x.intent == "weather_on_date")
    err = DOM.make_env(0).call(t.gold_plan[0].name, {**t.gold_plan[0].arguments,
                                                     "city": "Atlantis"})
    text = GEN.render_answer(t, [err])
    assert "failed" in text and "Atlantis" in text
    assert GEN.expected_facts(t, [err]) == []
    assert GEN.render_answer(t, [])  # no observation at all still renders a sentence


def test_a_corrupted_observation_propagates_into_the_answer(tasks: list[Task]) -> None:
    rng = random.Random(0)
    for t in [x for x in tasks if x.intent in ("weather_on_date", "compare_cities",
                                                "warmest_of_three", "conditional_forecast")][:40]:
        env = DOM.make_env(t.env_seed)
        first = t.gold_plan[0]
        wrong = DOM.alternative("city", first.arguments["city"], rng, env)
        obs = [env.call(first.name, {**first.arguments, "city": wrong})]
        obs += [env.call(c.name, c.arguments) for c in t.gold_plan[1:]]
        text = GEN.render_answer(t, obs)
        assert wrong in text and text != t.reference_answer
        if t.intent in ("weather_on_date", "compare_cities"):
            # (with three cities a corrupted non-winner may leave the facts unchanged)
            assert GEN.expected_facts(t, obs) != t.expected_facts


def test_fewer_observations_render_without_the_conclusion(tasks: list[Task]) -> None:
    for t in [x for x in tasks if len(x.gold_plan) > 1][:50]:
        obs = _replay(t)[:1]
        text = GEN.render_answer(t, obs)
        assert text and text != t.reference_answer


def test_chained_lookups_that_no_longer_follow_are_not_reported(tasks: list[Task]) -> None:
    """After a corrupted forecast, the gold detail lookup (for the true warmest day) is not
    what a faithful agent would have asked: the answer rests on the corrupted chain."""
    t = next(x for x in tasks if x.intent == "forecast_then_detail")
    env = DOM.make_env(t.env_seed)
    first, second = t.gold_plan
    city = first.arguments["city"]
    wrong = DOM.alternative("city", city, random.Random(2), env)
    obs = [env.call(first.name, {**first.arguments, "city": wrong}),
           env.call(second.name, second.arguments)]
    text = GEN.render_answer(t, obs)
    assert wrong in text and city not in text
