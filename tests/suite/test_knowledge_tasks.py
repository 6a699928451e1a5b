"""Knowledge task generator: contract, grounded references, two-hop chains."""

from __future__ import annotations

from collections import Counter

import pytest

from agentprop.core import Task
from agentprop.domains import error_observation, get_domain, is_error
from agentprop.suite._check import fact_in_text
from agentprop.suite._knowledge import KnowledgeGenerator

N = 100
SEED = 5


@pytest.fixture(scope="module")
def gen() -> KnowledgeGenerator:
    return KnowledgeGenerator()


@pytest.fixture(scope="module")
def tasks(gen: KnowledgeGenerator) -> list[Task]:
    return gen.generate(N, SEED)


def _replay(task: Task) -> list[dict]:
    env = get_domain(task.domain).make_env(task.env_seed)
    return [env.call(c.name, c.arguments) for c in task.gold_plan]


def test_counts_ids_determinism_and_mix(gen: KnowledgeGenerator, tasks: list[Task]) -> None:
    assert len(tasks) == N
    assert [t.id for t in tasks] == [f"knowledge_{k:04d}" for k in range(1, N + 1)]
    assert [t.model_dump() for t in gen.generate(N, SEED)] == [t.model_dump() for t in tasks]
    assert Counter(t.difficulty for t in tasks) == {"easy": 20, "medium": 50, "hard": 30}
    assert len({t.query for t in tasks}) == N
    for t in tasks:
        assert len(t.gold_plan) == {"easy": 1, "medium": 2, "hard": 3}[t.difficulty]
        assert t.expected_state is None


def test_gold_plans_replay_and_references_are_grounded(gen: KnowledgeGenerator,
                                                       tasks: list[Task]) -> None:
    for t in tasks:
        obs = _replay(t)
        assert not any(is_error(o) for o in obs), t.id
        assert gen.render_answer(t, obs) == t.reference_answer
        assert t.expected_facts and gen.expected_facts(t, obs) == t.expected_facts
        assert any(f.role == "asked" for f in t.expected_facts), t.id
        for f in t.expected_facts:  # what the query asks for, the reference states
            if f.role == "asked":
                assert fact_in_text(f, t.reference_answer), (t.id, f)
        assert t.query_entities["query"] == t.gold_plan[0].arguments["query"]


def test_answers_match_the_world(tasks: list[Task]) -> None:
    dom = get_domain("knowledge")
    for t in tasks:
        target = dom.by_title[t.query_entities["query"]]
        answer = t.meta["answer_field"]
        final = next(f for f in t.expected_facts if f.key == answer)
        if t.intent == "two_hop":
            bridge_name = target.infobox[t.meta["bridge_field"]]
            assert dom.by_title[bridge_name].infobox[answer] == final.value
            assert any(f.value == bridge_name for f in t.expected_facts)
            assert t.gold_plan[2].arguments["article_id"] == dom.by_title[bridge_name].article_id
        else:
            assert target.infobox[answer] == final.value


def test_render_answer_accepts_any_observations(gen: KnowledgeGenerator,
                                                tasks: list[Task]) -> None:
    t = next(t for t in tasks if t.intent == "two_hop")
    obs = _replay(t)
    assert gen.render_answer(t, []) and gen.expected_facts(t, []) == []
    # the bridge and the rest of its article's infobox, never the answer
    partial = gen.expected_facts(t, obs[:2])
    assert any(f.key.startswith("bridge_") for f in partial)
    assert not any(f.key == t.meta["answer_field"] for f in partial)
    err = error_observation("not_found", "no article with id KB9999", "article_id")
    assert "no article with id KB9999" in gen.render_answer(t, [obs[0], err])
    # Reading the wrong linked article gives that article's answer, not the gold one.
    wrong = get_domain("knowledge").make_env(0).call("get_article", {"article_id": "KB0001"})
    facts = gen.expected_facts(t, [obs[0], obs[1], wrong])
    gold = {f.key: f.value for f in t.expected_facts}
    got = {f.key: f.value for f in facts}
    assert got.get(t.meta["answer_field"]) != gold[t.meta["answer_field"]] or \
        wrong["title"] == t.expected_facts[0].value
