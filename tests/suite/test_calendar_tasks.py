"""Calendar task generator: counts, determinism, grounded references, state, robust rendering."""

from __future__ import annotations

import random
from collections import Counter, defaultdict

import pytest

from agentprop.core import Task
from agentprop.domains import is_error
from agentprop.domains.calendar import CalendarDomain
from agentprop.suite._calendar import CalendarTaskGenerator
from agentprop.suite._check import fact_in_text, state_matches

N = 667
DOM = CalendarDomain()
GEN = CalendarTaskGenerator()
MUTATING = {"create_event", "find_and_book", "delete_by_title", "move_event",
            "book_or_next_free", "replace_event", "move_to_day"}


@pytest.fixture(scope="module")
def tasks() -> list[Task]:
    return GEN.generate(N, seed=11)


def test_count_ids_and_determinism(tasks: list[Task]) -> None:
    assert len(tasks) == N
    assert [t.id for t in tasks] == [f"calendar_{i:04d}" for i in range(1, N + 1)]
    again = GEN.generate(N, seed=11)
    assert [t.model_dump() for t in again] == [t.model_dump() for t in tasks]
    assert [t.query for t in GEN.generate(20, seed=12)] != [t.query for t in tasks[:20]]


def test_difficulty_mix_and_intents(tasks: list[Task]) -> None:
    diff = Counter(t.difficulty for t in tasks)
    assert abs(diff["easy"] / N - 0.40) < 0.02
    assert abs(diff["medium"] / N - 0.35) < 0.02
    assert abs(diff["hard"] / N - 0.25) < 0.02
    intents: dict[str, set[str]] = defaultdict(set)
    for t in tasks:
        intents[t.difficulty].add(t.intent)
        lo, hi = {"easy": (1, 1), "medium": (2, 2), "hard": (2, 3)}[t.difficulty]
        assert lo <= len(t.gold_plan) <= hi, t.id
    assert all(len(v) >= 3 for v in intents.values()), intents
    branches = Counter(t.meta["branch"] for t in tasks if t.intent == "book_or_next_free")
    assert branches["taken"] > 0 and branches["free"] > 0


def test_several_phrasings_and_relative_dates(tasks: list[Task]) -> None:
    openings: dict[str, set[str]] = defaultdict(set)
    for t in tasks:
        openings[t.intent].add(" ".join(t.query.split()[:2]))
    assert all(len(v) >= 3 for v in openings.values()), openings
    assert sum(t.meta["relative_date"] for t in tasks) > N * 0.4
    for t in tasks:
        if t.intent == "list_events" and t.meta["date_phrase"] == "tomorrow":
            assert t.gold_plan[0].arguments["date"] == "2025-06-17"
        if t.intent == "list_events" and t.meta["date_phrase"] == "next Monday":
            assert t.gold_plan[0].arguments["date"] == "2025-06-23"
        if t.meta.get("date_phrase") == "this week":
            assert t.gold_plan[0].arguments == {"date": "2025-06-16", "end_date": "2025-06-22"}
    for phrase in ("tomorrow", "next Monday", "this ", "in "):
        assert any(phrase in t.query for t in tasks), phrase


def test_gold_plans_replay_into_reference_and_state(tasks: list[Task]) -> None:
    for t in tasks:
        env = DOM.make_env(t.env_seed)
        obs = [env.call(c.name, c.arguments) for c in t.gold_plan]
        assert not any(is_error(o) for o in obs), (t.id, obs)
        assert GEN.render_answer(t, obs) == t.reference_answer
        assert t.expected_facts, t.id
        assert any(f.role == "asked" for f in t.expected_facts), t.id
        for f in t.expected_facts:  # what the query asks for, the reference states
            if f.role == "asked":
                assert fact_in_text(f, t.reference_answer), (t.id, f)
        if t.intent in MUTATING:
            assert t.expected_state is not None, t.id
            assert state_matches(t.expected_state, env.snapshot()), t.id
            # ...and the untouched calendar does not already satisfy it
            assert not state_matches(t.expected_state, DOM.make_env(t.env_seed).snapshot())
            # every leaf is echoed at the top level of the observation that caused it
            for part in t.expected_state.values():
                for item in part:
                    assert any(all(o.get(k) == v for k, v in item.items()) for o in obs), t.id
        else:
            assert t.expected_state is None


def test_first_call_critical_and_query_entities(tasks: list[Task]) -> None:
    for t in tasks:
        first = t.gold_plan[0]
        tool = DOM.tool(first.name)
        assert tool is not None
        assert set(tool.spec.critical_params) & set(first.arguments), t.id
        qe = t.query_entities
        assert "date" in qe
        for k, v in first.arguments.items():
            if k in qe:
                allowed = qe[k] if isinstance(qe[k], list) else [qe[k]]
                assert v in allowed, (t.id, k)
        title = t.meta.get("title")
        if title:
            assert title in t.query, t.id


def test_render_with_an_error_observation_says_so(tasks: list[Task]) -> None:
    t = next(x for x in tasks if x.intent == "delete_by_title")
    env = DOM.make_env(t.env_seed)
    obs = [env.call(t.gold_plan[0].name, t.gold_plan[0].arguments),
           env.call("delete_event", {"event_id": "EVT_000001"})]
    text = GEN.render_answer(t, obs)
    assert "failed" in text and "not_found" in text and "EVT_000001" in text
    assert GEN.expected_facts(t, obs) == []
    assert GEN.render_answer(t, [])


def test_a_listing_for_another_date_propagates(tasks: list[Task]) -> None:
    t = next(x for x in tasks if x.intent == "event_time_lookup")
    env = DOM.make_env(t.env_seed)
    day = t.gold_plan[0].arguments["date"]
    other = DOM.alternative("date", day, random.Random(0), env)
    obs = [env.call("get_events", {"date": other})]
    text = GEN.render_answer(t, obs)
    assert other in text and text != t.reference_answer
    listed = {e["title"] for e in obs[0]["events"]}
    if t.meta["title"] not in listed:
        assert f"There is no {t.meta['title']}" in text


def test_delete_after_a_listing_without_the_event_is_not_reported(tasks: list[Task]) -> None:
    for t in [x for x in tasks if x.intent == "delete_by_title"][:30]:
        env = DOM.make_env(t.env_seed)
        day = t.gold_plan[0].arguments["date"]
        other = DOM.alternative("date", day, random.Random(4), env)
        listing = env.call("get_events", {"date": other})
        if any(e["title"] == t.meta["title"] for e in listing["events"]):
            continue
        deleted = env.call(t.gold_plan[1].name, t.gold_plan[1].arguments)
        text = GEN.render_answer(t, [listing, deleted])
        assert "Deleted" not in text and f"There is no {t.meta['title']}" in text
        assert GEN.render_answer(t, [listing]) == text
