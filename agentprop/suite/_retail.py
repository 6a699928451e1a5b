"""Retail task generator (held-out domain): search, product details, orders, comparisons.

Intents (difficulty):
- ``product_details`` (easy): get_product → name, price, stock.
- ``cheapest_search`` (easy): search_products(sort_by=price_asc) → the cheapest match.
- ``order_total`` (easy): place_order → order id and total (state-changing).
- ``search_then_order`` (medium): search (sort_by=rating) → order the top result.
- ``search_then_details`` (medium): search (sort_by=price_asc) → get_product of the cheapest.
- ``compare_products`` (medium): get_product × 2 → which is cheaper and by how much.
- ``compare_and_order`` (hard): get_product × 2 → order the cheaper one.
- ``filtered_search_order`` (hard): search with max_price/min_rating → get_product →
  place_order of the top result.

Each intent is one class below (`RetailIntent`: phrasing and gold plan, facts; the comparing
intents also say which product is cheaper, right after the second lookup), registered in
`INTENTS` in the order of the intent mix; `RetailGenerator` states each observation by kind.

Facts: ``entity`` (``product`` name with its id as alias, ``cheaper``), ``number`` with
unit ``USD`` and tolerance 0.005 (``price``, ``total``, ``difference``, ``price_<id>``) or
unit ``units`` (``stock``, ``quantity``), ``id`` (``order_id``).
Expected state (ordering intents): ``{"orders": [{"product_id", "quantity", "unit_price",
"total"}], "stock": {product_id: remaining}}``, compared with `RetailDomain.snapshot`.
``Task.query_entities`` (set via the draft's ``meta``) maps
tool parameter names to what the query names
(``product_id`` — a list when the query names two products —, ``quantity``, ``query``,
``max_price``, ``min_rating``).
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from agentprop.core import Fact, Task
from agentprop.domains import Observation, is_error
from agentprop.domains.retail import Product, RetailDomain
from agentprop.suite._draw import (
    Draft,
    GoldError,
    draw_tasks,
    schedule,
    shared_attempts,
)
from agentprop.suite._generator import GENERATORS
from agentprop.suite._intent import Intent, IntentGenerator, Intents
from agentprop.suite._phrasing import failure_sentence, tool_at

_SORT_WORD = {"price_asc": "cheapest", "price_desc": "most expensive",
              "rating": "highest-rated", "relevance": "best-matching"}


def units(qty: int) -> str:
    return f"{qty} unit{'s' if qty != 1 else ''}"


def usd(value: Any) -> str:
    """A price as printed; `value` is an observation's raw JSON value."""
    return f"${float(value):.2f}"


# -- drawing helpers --------------------------------------------------------------------------


def _world(d: Draft) -> RetailDomain:
    dom = d.env.domain
    assert isinstance(dom, RetailDomain)
    return dom


def _orderable(rng: random.Random, p: Product) -> int:
    """A quantity of `p` the shop accepts (GoldError if none)."""
    top = min(p.max_per_order, p.stock, 5)
    if top < 1:
        raise GoldError(f"{p.product_id} cannot be ordered")
    return rng.randint(min(2, top), top)


def _product(dom: RetailDomain, rng: random.Random) -> Product:
    return dom.products[rng.choice(sorted(dom.products))]


def _pair(dom: RetailDomain, rng: random.Random) -> tuple[Product, Product]:
    ptype = rng.choice(dom.vocabulary)
    same = sorted((p for p in dom.products.values() if p.product_type == ptype),
                  key=lambda p: p.product_id)
    a, b = rng.sample(same, 2)
    if a.price == b.price:
        raise GoldError("equal prices")
    return a, b


# -- rendering ------------------------------------------------------------------------------


def _kind(o: Observation) -> str:
    """What an observation is, in the order the checks have always been made."""
    if is_error(o):
        return "error"
    if "results" in o:
        return "search"
    if o.get("status") == "placed":
        return "order"
    if "stock" in o:
        return "details"
    return "unknown"


def _sentence(task: Task, i: int, o: Observation) -> str:
    """What observation `i` says, by its kind."""
    tool = tool_at(task, i) or "tool"
    k = _kind(o)
    if k == "error":
        return failure_sentence(tool, o, noun="call", unknown="")
    if k == "search":
        return _search_sentence(o)
    if k == "order":
        return (f"Order {o['order_id']} placed: {o['quantity']} × {o.get('name')} "
                f"({o['product_id']}) at {usd(o['unit_price'])} = {usd(o['total'])}.")
    if k == "details":
        return _details_sentence(o)
    return f"The {tool} call returned an unexpected result."


def _search_sentence(o: Observation) -> str:
    results = list(o.get("results") or [])
    if not results:
        return f"No products matched '{o.get('query')}'."
    top = results[0]
    word = _SORT_WORD.get(str(o.get("sort_by", "relevance")), "best-matching")
    return (f"The {word} match for '{o.get('query')}' is the {top['name']} "
            f"({top['product_id']}) at {usd(top['price'])}, rated {top['rating']}"
            f"{'' if top.get('in_stock', True) else ' (out of stock)'}.")


def _details_sentence(o: Observation) -> str:
    return (f"The {o.get('name')} ({o.get('product_id')}) costs {usd(o.get('price'))}, "
            f"is rated {o.get('rating')} and has {o.get('stock')} units in stock "
            f"(at most {o.get('max_per_order')} per order).")


def _search_facts(o: Observation) -> list[Fact]:
    results = list(o.get("results") or [])
    if not results:
        return []
    top = results[0]
    facts: list[Fact] = []
    relation = _RANKING.get(str(o.get("sort_by")))
    if relation is not None:
        field_ = "price" if relation == "cheapest" else "rating"
        ties = [str(r["name"]) for r in results[1:] if r[field_] == top[field_]]
        facts.append(Fact(kind="decision", key=relation, value=str(top["name"]),
                          options=[str(r["name"]) for r in results], relation=relation,
                          aliases=ties))
    for r in results:
        facts += _product_facts(r, f"result.{r['product_id']}.")
    return facts


def _order_facts(o: Observation) -> list[Fact]:
    about = {"product": [str(o.get("name")), str(o["product_id"])]}
    return [
        Fact(kind="polar", key="ordered", value=True, relation="ordered", about=about),
        Fact(kind="id", key="order_id", value=str(o["order_id"]), about=about),
        Fact(kind="number", key="quantity", value=int(o["quantity"]), unit="units",
             tolerance=0, about=about),
        Fact(kind="number", key="unit_price", value=float(o["unit_price"]), unit="USD",
             tolerance=0.005, about=about),
        Fact(kind="number", key="total", value=float(o["total"]), unit="USD",
             tolerance=0.005, about=about, exact=True),
    ]


def _compared(a: Observation, b: Observation) -> tuple[str, list[Fact]]:
    """Which of two products is cheaper and by how much: the sentence and its facts."""
    pa, pb = float(a.get("price") or 0), float(b.get("price") or 0)
    if pa == pb:
        return f"Both cost the same, {usd(pa)}.", []
    cheap, dear = (a, b) if pa < pb else (b, a)
    diff = (round(max(pa, pb) * 100) - round(min(pa, pb) * 100)) / 100
    return (
        f"The {cheap.get('name')} ({cheap.get('product_id')}) is cheaper than the "
        f"{dear.get('name')} ({dear.get('product_id')}) by {usd(diff)}.",
        [Fact(kind="decision", key="cheaper", value=str(cheap.get("name")),
              options=[str(a.get("name")), str(b.get("name"))], relation="cheaper"),
         Fact(kind="number", key="difference", value=diff, unit="USD", tolerance=0.005)],
    )


# the ranking a search's sort order decides (the decision key and its cue family)
_RANKING = {"price_asc": "cheapest", "rating": "best_rated"}


def _product_facts(p: Observation, prefix: str) -> list[Fact]:
    """What a product observation (details or a search result) says, about that product."""
    about = {"product": [str(p.get("name")), str(p.get("product_id"))]}
    out = [
        Fact(kind="entity", key=f"{prefix}product", value=str(p.get("name")),
             aliases=[str(p.get("product_id"))], about=about),
        Fact(kind="number", key=f"{prefix}price", value=float(p.get("price") or 0),
             unit="USD", tolerance=0.005, about=about),
        Fact(kind="number", key=f"{prefix}rating", value=float(p.get("rating") or 0),
             tolerance=0.05, about=about),
    ]
    if p.get("stock") is not None:
        out.append(Fact(kind="number", key=f"{prefix}stock", value=int(p["stock"]),
                        unit="units", tolerance=0, about=about, exact=True))
    if p.get("max_per_order") is not None:
        out.append(Fact(kind="number", key=f"{prefix}max_per_order",
                        value=int(p["max_per_order"]), unit="units", tolerance=0,
                        about=about))
    return out


# -- the intents ------------------------------------------------------------------------------
# Registered in the order of the intent mix (the schedule depends on it).


class RetailIntent(Intent):
    """A retail intent: `draw` phrases the query and runs the gold plan, returning what the
    query names (`query_entities`); an order's final state is the expected state. Its facts
    are what each observation that did not fail says (`facts`, `compared`)."""

    keyed: ClassVar[bool] = True
    """Product facts keyed by the product's id (the task looks at several products)."""

    def build(self, d: Draft, rng: random.Random) -> None:
        d.meta = {"query_entities": self.draw(_world(d), rng, d)}
        if any(c.name == "place_order" for c in d.calls):
            d.expected_state = d.env.snapshot()

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        raise NotImplementedError

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        facts: list[Fact] = []
        details: list[Observation] = []
        for o in obs:
            k = _kind(o)
            if k == "search":
                facts += _search_facts(o)
            elif k == "order":
                facts += _order_facts(o)
            elif k == "details":
                if o.get("price") is None:  # as ever, details without a price are not stated
                    raise TypeError("product details without a price")
                details.append(o)
                facts += _product_facts(o, f"{o.get('product_id')}." if self.keyed else "")
                facts += self.compared(details)
        return facts

    def compared(self, details: list[Observation]) -> list[Fact]:
        """What the intent adds once it has seen these product details (none)."""
        return []


class _Compares(RetailIntent):
    """Compares the first two products it looks up on price, right after the second."""

    def sentence(self, task: Task, seen: list[Observation], o: Observation) -> str | None:
        if _kind(o) != "details":
            return None
        earlier = [p for p in seen if _kind(p) == "details"]
        if len(earlier) != 1:
            return None
        return _details_sentence(o) + " " + _compared(earlier[0], o)[0]

    def compared(self, details: list[Observation]) -> list[Fact]:
        return _compared(details[0], details[1])[1] if len(details) == 2 else []


INTENTS: Intents[Intent] = Intents("retail", RetailIntent)


@INTENTS.register
class ProductDetails(RetailIntent):
    """A product's price and stock."""

    name, difficulty, weight = "product_details", "easy", 0.14
    keyed = False

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        p = _product(dom, rng)
        run.ask(rng, [(q, ["price", "stock"]) for q in (
            f"What does product {p.product_id} cost, and how many are in stock?",
            f"Look up the {p.name} ({p.product_id}): what is its price and stock level?",
            f"Give me the price and the number of units in stock for {p.product_id}.",
        )])
        run("get_product", product_id=p.product_id)
        return {"product_id": p.product_id}


@INTENTS.register
class CheapestSearch(RetailIntent):
    """The cheapest product of a type (optionally with a minimum rating)."""

    name, difficulty, weight = "cheapest_search", "easy", 0.13

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        ptype = rng.choice(dom.vocabulary)
        args: dict[str, Any] = {"query": ptype, "sort_by": "price_asc", "limit": 5}
        if rng.random() < 0.35:
            args["min_rating"] = rng.choice([3.5, 4.0, 4.5])
            rated = f" with a rating of at least {args['min_rating']}"
            run.ask(rng, [(q, ["cheapest"]) for q in (
                f"What's the cheapest {ptype}{rated}?",
                f"Find me the lowest-priced {ptype}{rated}.",
                f"I need a {ptype}{rated}. Which one costs the least?",
            )])
        else:
            run.ask(rng, [(q, ["cheapest"]) for q in (
                f"What's the cheapest {ptype} you sell?",
                f"Find me the lowest-priced {ptype} in the shop.",
                f"I need a {ptype}. Which one costs the least?",
            )])
        obs = run("search_products", **args)
        if obs["match"] != "all":
            raise GoldError("no product of that type passes the filters")
        return {k: v for k, v in args.items() if k in ("query", "min_rating")}


@INTENTS.register
class OrderTotal(RetailIntent):
    """Order a quantity of a product and state the total."""

    name, difficulty, weight = "order_total", "easy", 0.13

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        p = _product(dom, rng)
        qty = _orderable(rng, p)
        run.ask(rng, [(q, ["ordered", "total"]) for q in (
            f"Order {units(qty)} of {p.product_id} and tell me the total.",
            f"Please buy {qty} × {p.name} ({p.product_id}). What's the total?",
            f"I'd like {qty} of product {p.product_id}: place the order and confirm the "
            "total price.",
        )])
        run("place_order", product_id=p.product_id, quantity=qty)
        return {"product_id": p.product_id, "quantity": qty}


@INTENTS.register
class SearchThenOrder(RetailIntent):
    """Search by rating, then order the top result (chained)."""

    name, difficulty, weight = "search_then_order", "medium", 0.12

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        ptype = rng.choice(dom.vocabulary)
        obs = run("search_products", query=ptype, sort_by="rating", limit=5)
        top = dom.products[obs["results"][0]["product_id"]]
        qty = _orderable(rng, top)
        run.ask(rng, [
            (f"Order {qty} of the highest-rated {ptype} and tell me the total.",
             ["ordered", "total", "best_rated"]),
            (f"Find the best-rated {ptype} in the shop and buy {qty}. What did it cost?",
             ["ordered", "total", "best_rated"]),
            (f"I want {units(qty)} of your top-rated {ptype}. Please place the order.",
             ["ordered", "best_rated"]),
        ])
        run("place_order", product_id=top.product_id, quantity=qty)
        return {"query": ptype, "quantity": qty}


@INTENTS.register
class SearchThenDetails(RetailIntent):
    """Search by price, then the cheapest result's details (chained)."""

    name, difficulty, weight = "search_then_details", "medium", 0.12
    keyed = False

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        ptype = rng.choice(dom.vocabulary)
        run.ask(rng, [
            (f"How many units of the cheapest {ptype} are in stock?", ["stock"]),
            (f"Find the least expensive {ptype} and check its stock level.",
             ["cheapest", "stock"]),
            (f"What's the cheapest {ptype}, and is it in stock? How many units?",
             ["cheapest", "stock"]),
        ])
        obs = run("search_products", query=ptype, sort_by="price_asc", limit=5)
        run("get_product", product_id=obs["results"][0]["product_id"])
        return {"query": ptype}


@INTENTS.register
class CompareProducts(_Compares):
    """Which of two products is cheaper, and by how much."""

    name, difficulty, weight = "compare_products", "medium", 0.11

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        a, b = _pair(dom, rng)
        run.ask(rng, [(q, ["cheaper", "difference"]) for q in (
            f"Which is cheaper, {a.product_id} or {b.product_id}, and by how much?",
            f"Compare the prices of the {a.name} ({a.product_id}) and the {b.name} "
            f"({b.product_id}). Which one costs less, and what is the difference?",
            f"I'm choosing between products {a.product_id} and {b.product_id}. "
            "Which is less expensive, and by how many dollars?",
        )])
        run("get_product", product_id=a.product_id)
        run("get_product", product_id=b.product_id)
        return {"product_id": [a.product_id, b.product_id]}


@INTENTS.register
class CompareAndOrder(_Compares):
    """Compare two products, then order the cheaper one (a branch)."""

    name, difficulty, weight = "compare_and_order", "hard", 0.13

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        a, b = _pair(dom, rng)
        cheaper = a if a.price < b.price else b
        qty = _orderable(rng, cheaper)
        run.ask(rng, [
            (f"Compare {a.product_id} and {b.product_id} and order {qty} of whichever is "
             "cheaper. What's the total?", ["ordered", "total", "cheaper"]),
            (f"Between the {a.name} ({a.product_id}) and the {b.name} ({b.product_id}), "
             f"buy {units(qty)} of the less expensive one.", ["ordered", "cheaper"]),
            (f"Check the prices of {a.product_id} and {b.product_id}, then place an order "
             f"for {qty} of the cheaper product.", ["ordered", "cheaper"]),
        ])
        run("get_product", product_id=a.product_id)
        run("get_product", product_id=b.product_id)
        run("place_order", product_id=cheaper.product_id, quantity=qty)
        return {"product_id": [a.product_id, b.product_id], "quantity": qty}


@INTENTS.register
class FilteredSearchOrder(RetailIntent):
    """Search with a price cap and minimum rating, check the top result, order it."""

    name, difficulty, weight = "filtered_search_order", "hard", 0.12

    def draw(self, dom: RetailDomain, rng: random.Random, run: Draft) -> dict[str, Any]:
        ptype = rng.choice(dom.vocabulary)
        prices = sorted(p.price for p in dom.products.values() if p.product_type == ptype)
        max_price = float(int(prices[len(prices) // 2]) + 1)
        min_rating = rng.choice([3.0, 3.5, 4.0])
        obs = run("search_products", query=ptype, max_price=max_price, min_rating=min_rating,
                  sort_by="rating", limit=5)
        if obs["match"] != "all":
            raise GoldError("no product of that type passes the filters")
        top = dom.products[obs["results"][0]["product_id"]]
        qty = _orderable(rng, top)
        cap = f"${max_price:.0f}"
        run.ask(rng, [
            (f"Find the best-rated {ptype} under {cap} with a rating of at least "
             f"{min_rating}, check its stock, and order {qty}.",
             ["ordered", "stock", "best_rated"]),
            (f"I need {qty} × {ptype}: at most {cap} each and rated {min_rating} or better. "
             "Pick the highest-rated one, confirm it's in stock and place the order.",
             ["ordered", "best_rated"]),
            (f"Search for a {ptype} costing no more than {cap}, rating {min_rating}+, take "
             f"the top-rated result, look up its stock, then order {qty}.",
             ["ordered", "stock", "best_rated"]),
        ])
        run("get_product", product_id=top.product_id)
        run("place_order", product_id=top.product_id, quantity=qty)
        return {"query": ptype, "max_price": max_price, "min_rating": min_rating,
                "quantity": qty}


# -- the generator ----------------------------------------------------------------------------


@GENERATORS.register("retail")
class RetailGenerator(IntentGenerator):
    """See the module docstring for intents, facts, state and meta. Each observation is
    stated on its own (no chain is cut short) and states its facts even when another
    call failed."""

    domain = "retail"
    intents = INTENTS
    nothing = "I could not retrieve the information needed to answer."
    whole_chain = False

    def generate(self, n: int, seed: int) -> list[Task]:
        rng = random.Random(seed)
        dom = RetailDomain()
        return draw_tasks(
            domain=self.domain, plan=schedule(n, INTENTS.mix(), rng),
            builders=INTENTS.builders(), tools=[t.name for t in dom.tools],
            make_env=dom.make_env, render=self.render_answer, facts=self.expected_facts,
            attempts=shared_attempts(rng, 200),
        )

    def sentence(self, task: Task, i: int, o: Observation) -> str:
        return _sentence(task, i, o)

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        return True
