"""Retail task generator: contract, grounded references, orders and expected state."""

from __future__ import annotations

import re
from collections import Counter

import pytest

from agentprop.core import Task
from agentprop.domains import error_observation, get_domain, is_error
from agentprop.suite._check import fact_in_text
from agentprop.suite._retail import RetailGenerator

N = 300
SEED = 77


@pytest.fixture(scope="module")
def gen() -> RetailGenerator:
    return RetailGenerator()


@pytest.fixture(scope="module")
def tasks(gen: RetailGenerator) -> list[Task]:
    return gen.generate(N, SEED)


def _replay(task: Task) -> tuple[list[dict], dict]:
    env = get_domain(task.domain).make_env(task.env_seed)
    obs = [env.call(c.name, c.arguments) for c in task.gold_plan]
    return obs, env.snapshot()


def test_counts_ids_determinism_and_mix(gen: RetailGenerator, tasks: list[Task]) -> None:
    assert len(tasks) == N
    assert [t.id for t in tasks] == [f"retail_{k:04d}" for k in range(1, N + 1)]
    assert [t.model_dump() for t in gen.generate(30, SEED)] == [
        t.model_dump() for t in gen.generate(30, SEED)]
    share = {d: c / N for d, c in Counter(t.difficulty for t in tasks).items()}
    assert share["easy"] == pytest.approx(0.40, abs=0.03)
    assert share["medium"] == pytest.approx(0.35, abs=0.03)
    assert share["hard"] == pytest.approx(0.25, abs=0.03)
    assert len({t.intent for t in tasks}) == 8
    for t in tasks:
        assert len(t.gold_plan) == {"easy": 1, "medium": 2, "hard": 3}[t.difficulty]


def test_several_phrasings_per_intent(tasks: list[Task]) -> None:
    shapes: dict[str, set[str]] = {}
    for t in tasks:
        q = re.sub(r"PRD\d{4}|\d+", "X", t.query)
        shapes.setdefault(t.intent, set()).add(" ".join(q.split()[:3]))
    assert all(len(s) >= 3 for s in shapes.values()), shapes


def test_gold_plans_replay_and_references_are_grounded(gen: RetailGenerator,
                                                       tasks: list[Task]) -> None:
    domain = get_domain("retail")
    for t in tasks:
        obs, state = _replay(t)
        assert not any(is_error(o) for o in obs), t.id
        assert gen.render_answer(t, obs) == t.reference_answer
        assert gen.expected_facts(t, obs) == t.expected_facts
        assert t.expected_facts
        assert any(f.role == "asked" for f in t.expected_facts), t.id
        for f in t.expected_facts:  # what the query asks for, the reference states
            if f.role == "asked":
                assert fact_in_text(f, t.reference_answer), (t.id, f)
        first = t.gold_plan[0]
        tool = domain.tool(first.name)
        assert tool is not None and set(tool.spec.critical_params) & set(first.arguments)
        assert t.query_entities
        ordered = any(c.name == "place_order" for c in t.gold_plan)
        assert (t.expected_state is not None) == ordered
        if ordered:
            assert state == t.expected_state


def test_order_totals_equal_price_times_quantity(tasks: list[Task]) -> None:
    products = get_domain("retail").products
    orders = 0
    for t in tasks:
        if t.expected_state is None:
            continue
        (order,) = t.expected_state["orders"]
        p = products[order["product_id"]]
        assert order["unit_price"] == p.price
        assert order["total"] == round(p.price * order["quantity"], 2)
        assert t.expected_state["stock"] == {p.product_id: p.stock - order["quantity"]}
        assert f"= ${order['total']:.2f}" in t.reference_answer
        assert f"{order['quantity']} × " in t.reference_answer
        if "quantity" in t.query_entities:
            assert order["quantity"] == t.query_entities["quantity"]
        orders += 1
    assert orders > 100


def test_cheapest_and_compare_are_right(tasks: list[Task]) -> None:
    products = get_domain("retail").products
    for t in tasks:
        if t.intent == "cheapest_search":
            ptype = t.query_entities["query"]
            floor = t.query_entities.get("min_rating", 0)
            cheapest = min((p for p in products.values()
                            if p.product_type == ptype and p.rating >= floor),
                           key=lambda p: p.price)
            pick = next(f for f in t.expected_facts if f.key == "cheapest")
            assert pick.role == "asked" and pick.value in {cheapest.name, *pick.aliases}
            price = next(f.value for f in t.expected_facts
                         if f.key.endswith(".price") and cheapest.name in f.about["product"])
            assert price == cheapest.price
        if t.intent in ("compare_products", "compare_and_order"):
            a, b = (products[i] for i in t.query_entities["product_id"])
            cheaper = next(f.value for f in t.expected_facts if f.key == "cheaper")
            assert cheaper == min(a, b, key=lambda p: p.price).name
            if t.intent == "compare_products":
                diff = next(f.value for f in t.expected_facts if f.key == "difference")
                assert diff == pytest.approx(abs(a.price - b.price), abs=0.005)


def test_render_answer_accepts_any_observations(gen: RetailGenerator,
                                                tasks: list[Task]) -> None:
    t = next(t for t in tasks if t.intent == "compare_and_order")
    obs, _ = _replay(t)
    assert gen.render_answer(t, []) and gen.expected_facts(t, []) == []
    partial = gen.render_answer(t, obs[:1])
    assert "cheaper" not in partial and "Order" not in partial
    err = error_observation("insufficient_stock", "only 1 units of X in stock", "quantity")
    failed = gen.render_answer(t, [*obs[:2], err])
    assert "failed" in failed and "only 1 units" in failed
    # A wrong product's details propagate into the answer.
    d = next(t for t in tasks if t.intent == "product_details")
    pid = d.query_entities["product_id"]
    env = get_domain("retail").make_env(d.env_seed)
    other = env.call("get_product", {"product_id": "PRD1002" if pid != "PRD1002" else "PRD1003"})
    wrong = gen.render_answer(d, [other])
    assert other["name"] in wrong and pid not in wrong
    assert {f.key: f.value for f in gen.expected_facts(d, [other])}["price"] == other["price"]
