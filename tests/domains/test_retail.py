"""Retail domain: schemas, search ranking and filters, orders, stock, stable catalogue."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from agentprop.domains import is_error
from agentprop.domains.retail import RetailDomain


@pytest.fixture(scope="module")
def dom() -> RetailDomain:
    return RetailDomain()


VALID: dict[str, dict[str, Any]] = {
    "search_products": {"query": "electric kettle", "max_price": 100, "min_rating": 2.0,
                        "sort_by": "price_asc", "limit": 5, "category": "kitchen"},
    "get_product": {"product_id": "PRD1001"},
    "place_order": {"product_id": "PRD1001", "quantity": 2},
}

INVALID = [
    ("search_products", {"query": 5}, "query"),  # type
    ("search_products", {"query": ""}, "query"),  # minLength
    ("search_products", {"query": "lamp", "category": "groceries"}, "category"),  # enum
    ("search_products", {"query": "lamp", "limit": 0}, "limit"),  # range
    ("search_products", {"query": "lamp", "limit": 51}, "limit"),
    ("search_products", {"query": "lamp", "min_rating": 6}, "min_rating"),
    ("search_products", {"query": "lamp", "max_price": -1}, "max_price"),
    ("search_products", {"query": "lamp", "sort_by": "popularity"}, "sort_by"),
    ("search_products", {"category": "home"}, "query"),  # missing
    ("search_products", {"query": "lamp", "colour": "red"}, "colour"),  # extra
    ("get_product", {"product_id": "1001"}, "product_id"),  # pattern
    ("get_product", {"product_id": 1001}, "product_id"),
    ("get_product", {}, "product_id"),
    ("place_order", {"product_id": "PRD1001", "quantity": "2"}, "quantity"),
    ("place_order", {"product_id": "PRD1001", "quantity": 2.5}, "quantity"),
    ("place_order", {"product_id": "PRD1001", "quantity": 0}, "quantity"),
    ("place_order", {"product_id": "PRD1001", "quantity": 21}, "quantity"),
    ("place_order", {"product_id": "PRD1001"}, "quantity"),
    ("place_order", {"product_id": "PRD1001", "quantity": 1, "coupon": "X"}, "coupon"),
]


@pytest.mark.parametrize("tool", sorted(VALID))
def test_valid_call(dom: RetailDomain, tool: str) -> None:
    obs = dom.make_env(1).call(tool, VALID[tool])
    assert not is_error(obs), obs


@pytest.mark.parametrize(("tool", "args", "param"), INVALID)
def test_invalid_arguments_give_validation_errors(
    dom: RetailDomain, tool: str, args: dict[str, Any], param: str
) -> None:
    env = dom.make_env(1)
    obs = env.call(tool, args)
    assert obs["error"]["type"] == "validation"
    assert obs["error"]["param"] == param
    assert env.snapshot() == {"orders": [], "stock": {}}


def test_catalogue_is_stable_and_plausible(dom: RetailDomain) -> None:
    assert len(dom.products) == 200
    assert RetailDomain().products == dom.products  # same prices in every instance
    names = [p.name for p in dom.products.values()]
    assert len(set(names)) == 200
    for p in dom.products.values():
        assert re.fullmatch(r"PRD\d{4}", p.product_id)
        assert p.price > 0 and round(p.price, 2) == p.price
        assert 1.0 <= p.rating <= 5.0 and p.stock >= 0 and p.max_per_order >= 1
        assert p.brand in p.name
    assert any(p.stock == 0 for p in dom.products.values())
    assert any(round(p.price * 100) % 100 not in (0,) for p in dom.products.values())


def test_search_matches_query_tokens_and_ranks(dom: RetailDomain) -> None:
    env = dom.make_env(0)
    obs = env.call("search_products", {"query": "electric kettle", "limit": 50})
    assert obs["query"] == "electric kettle" and obs["match"] == "all"
    assert obs["results"] and all("Electric Kettle" in r["name"] for r in obs["results"])
    assert obs["total_matches"] == sum(
        1 for p in dom.products.values() if p.product_type == "electric kettle")
    # Plural queries match singular names; the brand alone finds that brand's products.
    lamps = env.call("search_products", {"query": "desk lamps"})
    assert lamps["results"] and all("Desk Lamp" in r["name"] for r in lamps["results"])
    brand = env.call("search_products", {"query": "Acme", "limit": 50})
    assert brand["results"] and all(r["brand"] == "Acme" for r in brand["results"])
    # Relevance: a name match outranks a category-only match in a partial search.
    partial = env.call("search_products", {"query": "kitchen toaster unicorn"})
    assert partial["match"] == "partial"
    assert "Toaster" in partial["results"][0]["name"]
    nothing = env.call("search_products", {"query": "zzzz"})
    assert nothing["results"] == [] and nothing["match"] == "none"


def test_search_filters_and_sort(dom: RetailDomain) -> None:
    env = dom.make_env(0)
    cheap = env.call("search_products", {"query": "yoga mat", "sort_by": "price_asc"})
    prices = [r["price"] for r in cheap["results"]]
    assert prices == sorted(prices)
    rated = env.call("search_products", {"query": "yoga mat", "sort_by": "rating"})
    ratings = [r["rating"] for r in rated["results"]]
    assert ratings == sorted(ratings, reverse=True)
    capped = env.call("search_products", {"query": "monitor", "max_price": 300,
                                          "min_rating": 3.0})
    assert capped["max_price"] == 300 and capped["min_rating"] == 3.0  # echoed
    assert all(r["price"] <= 300 and r["rating"] >= 3.0 for r in capped["results"])
    cat = env.call("search_products", {"query": "set", "category": "home", "limit": 50})
    assert cat["results"] and all(r["category"] == "home" for r in cat["results"])
    assert len(env.call("search_products", {"query": "a b c", "limit": 3})["results"]) <= 3


def test_order_total_stock_and_limits(dom: RetailDomain) -> None:
    env = dom.make_env(9)
    orderable = [p for p in dom.products.values() if p.stock >= 3 and p.max_per_order >= 3]
    for p in orderable[:30]:
        obs = env.call("place_order", {"product_id": p.product_id, "quantity": 3})
        assert obs["status"] == "placed"
        assert obs["product_id"] == p.product_id and obs["quantity"] == 3  # echoed
        assert obs["total"] == round(p.price * 3, 2)
        assert abs(obs["total"] - obs["unit_price"] * 3) < 0.005
        assert obs["remaining_stock"] == p.stock - 3
        assert env.call("get_product", {"product_id": p.product_id})["stock"] == p.stock - 3
    snap = env.snapshot()
    assert len(snap["orders"]) == 30
    assert len({o["order_id"] for o in env.state["orders"]}) == 30


def test_over_stock_limit_and_out_of_stock_are_refused(dom: RetailDomain) -> None:
    env = dom.make_env(2)
    low = min((p for p in dom.products.values() if p.stock > 0), key=lambda p: p.stock)
    limit = low.max_per_order
    # Buy the stock down in allowed chunks, then one more unit is refused.
    left = low.stock
    while left > 0:
        q = min(left, limit)
        assert env.call("place_order", {"product_id": low.product_id, "quantity": q})[
            "status"] == "placed"
        left -= q
    out = env.call("place_order", {"product_id": low.product_id, "quantity": 1})
    assert out["error"]["type"] == "out_of_stock"
    assert env.call("search_products", {"query": low.name, "limit": 1})["results"][0][
        "in_stock"] is False
    big = next(p for p in dom.products.values() if p.max_per_order < p.stock)
    over = env.call("place_order", {"product_id": big.product_id,
                                    "quantity": big.max_per_order + 1})
    assert over["error"]["type"] == "limit_exceeded"
    scarce = next(p for p in dom.products.values() if 0 < p.stock < p.max_per_order)
    short = dom.make_env(2).call("place_order", {"product_id": scarce.product_id,
                                     "quantity": scarce.stock + 1})
    assert short["error"]["type"] == "insufficient_stock"
    assert env.call("get_product", {"product_id": "PRD9999"})["error"]["type"] == "not_found"


def test_determinism_and_copy_independence(dom: RetailDomain) -> None:
    a, b = dom.make_env(5), dom.make_env(5)
    assert a.call("place_order", VALID["place_order"]) == b.call("place_order",
                                                                 VALID["place_order"])
    c = a.copy()
    c.call("place_order", VALID["place_order"])
    assert len(c.snapshot()["orders"]) == 2 and len(a.snapshot()["orders"]) == 1
    assert a.snapshot() == b.snapshot()
    assert a.snapshot()["stock"] == {"PRD1001": dom.products["PRD1001"].stock - 2}


@pytest.mark.parametrize(
    ("tool", "param"),
    [("search_products", "query"), ("search_products", "category"),
     ("search_products", "max_price"), ("search_products", "min_rating"),
     ("get_product", "product_id"), ("place_order", "product_id"),
     ("place_order", "quantity")],
)
def test_alternative_differs_and_is_schema_valid(dom: RetailDomain, tool: str, param: str
                                                 ) -> None:
    t = dom.tool(tool)
    assert t is not None
    kind = t.spec.critical_params[param]
    env = dom.make_env(0)
    rng = random.Random(3)
    for _ in range(25):
        original = VALID[tool][param]
        value = dom.alternative(kind, original, rng, env)
        assert value != original
        assert t.validate({**VALID[tool], param: value}) is None
        if kind == "product_id":
            assert value in dom.products


def test_order_ids_are_content_derived_not_counted(dom: RetailDomain) -> None:
    """A wrong order placed first must not shift the right order's id (retail_0007)."""
    right = {"product_id": "PRD1001", "quantity": 1}
    alone = dom.make_env(5).call("place_order", right)
    env = dom.make_env(5)
    wrong = env.call("place_order", {"product_id": "PRD1002", "quantity": 1})
    after = env.call("place_order", right)
    assert alone["status"] == wrong["status"] == after["status"] == "placed"
    assert after["order_id"] == alone["order_id"] != wrong["order_id"]
    assert re.fullmatch(r"ORD\d{6}", after["order_id"])
    again = env.call("place_order", right)  # the same order twice: a distinct, stable id
    assert again["order_id"] not in {alone["order_id"], wrong["order_id"]}
    twin = dom.make_env(5)
    twin.call("place_order", right)
    assert twin.call("place_order", right)["order_id"] == again["order_id"]
    assert dom.make_env(6).call("place_order", right)["order_id"] != alone["order_id"]
