"""The retail domain (held out): a 200-product catalogue with search, details and ordering.

The catalogue (names, brands, prices, ratings, starting stock, order limits) is drawn once
from `CATALOGUE_SEED`, so a product id has the same price in every episode and every run.
Per-episode state is what ordering changes: ``{"seed": int, "sold": {product_id: units},
"orders": [...]}`` (stock = catalogue stock − sold). Order ids are content-derived, not
counted: ``ORD`` + 6 digits hashed from (episode seed, product_id, quantity, k), k = the
number of earlier orders with the same product and quantity; so the right order gets the
same id whatever wrong orders preceded it (a recovered episode matches the reference), and
repeated identical orders still get distinct ids (a collision bumps to the next free id).

``snapshot(state)`` returns ``{"orders": [{"product_id", "quantity", "unit_price",
"total"}, ...], "stock": {product_id: remaining units}}`` for the products ordered during
the episode (orders in the order they were placed; no order ids, which depend on retries).
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from typing import Any

from agentprop.core import ToolSpec
from agentprop.domains._base import DOMAINS, Domain, DomainError, Environment, Observation, Tool
from agentprop.domains._retail_data import BRANDS, PRODUCT_TYPES, STOPWORDS, VARIANTS

CATALOGUE_SEED = 7301
N_PRODUCTS = 200
PRODUCT_ID_PATTERN = r"^PRD\d{4}$"
MAX_QUANTITY = 20
SORT_ORDERS = ["relevance", "price_asc", "price_desc", "rating"]
CATEGORIES = sorted(PRODUCT_TYPES)

_TOKEN = re.compile(r"[a-z0-9]+")
_ORDER_BASE, _ORDER_SPAN = 100000, 900000


def order_id(state: dict[str, Any], product_id: str, quantity: int) -> str:
    """The id of a new order: a hash of its content and its repeat count (see module doc)."""
    k = sum(1 for o in state["orders"]
            if o["product_id"] == product_id and o["quantity"] == quantity)
    key = f"retail:{state['seed']}:{product_id}:{quantity}:{k}".encode()
    n = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % _ORDER_SPAN
    taken = {o["order_id"] for o in state["orders"]}
    while f"ORD{_ORDER_BASE + n}" in taken:
        n = (n + 1) % _ORDER_SPAN
    return f"ORD{_ORDER_BASE + n}"


def tokenize(text: str) -> list[str]:
    """Lower-case word tokens with a light plural stemmer, stopwords and 1-letter words out."""
    out = []
    for tok in _TOKEN.findall(text.lower()):
        if len(tok) > 3 and tok.endswith("s") and not tok.endswith("ss"):
            tok = tok[:-1]
        if tok in STOPWORDS or (len(tok) == 1 and not tok.isdigit()):
            continue
        out.append(tok)
    return out


def _title(ptype: str) -> str:
    special = {"usb-c": "USB-C", "chef's": "Chef's"}
    return " ".join(special.get(w, w.capitalize()) for w in ptype.split())


@dataclass(frozen=True)
class Product:
    product_id: str
    name: str
    brand: str
    category: str
    product_type: str
    price: float
    rating: float
    stock: int
    max_per_order: int

    def summary(self) -> dict[str, Any]:
        return {
            "product_id": self.product_id,
            "name": self.name,
            "brand": self.brand,
            "category": self.category,
            "price": self.price,
            "rating": self.rating,
        }


def _price(rng: random.Random, lo: float, hi: float) -> float:
    whole = rng.randint(int(lo), int(hi))
    cents = rng.choice([99, 99, 95, 49, 0, rng.randint(1, 98)])
    return round(whole + cents / 100, 2)


def _make_catalogue(seed: int) -> list[Product]:
    rng = random.Random(seed)
    types = [(c, t, lo, hi, mx) for c in CATEGORIES for (t, lo, hi, mx) in PRODUCT_TYPES[c]]
    per_type = {t[1]: N_PRODUCTS // len(types) for t in types}
    for _cat, t, *_ in rng.sample(types, N_PRODUCTS - sum(per_type.values())):
        per_type[t] += 1
    drafts: list[dict[str, Any]] = []
    for cat, ptype, lo, hi, mx in types:
        for brand in rng.sample(BRANDS, per_type[ptype]):
            variant = rng.choice(VARIANTS) + " " if rng.random() < 0.6 else ""
            stock = 0 if rng.random() < 0.06 else rng.randint(3, 120)
            drafts.append(
                {
                    "name": f"{brand} {variant}{_title(ptype)}",
                    "brand": brand,
                    "category": cat,
                    "product_type": ptype,
                    "price": _price(rng, lo, hi),
                    "rating": round(rng.uniform(2.6, 4.9), 1),
                    "stock": stock,
                    "max_per_order": rng.randint(max(2, mx // 2), max(2, mx)),
                }
            )
    rng.shuffle(drafts)
    return [Product(product_id=f"PRD{1001 + i}", **d) for i, d in enumerate(drafts)]


@DOMAINS.register("retail")
class RetailDomain(Domain):
    """An online shop; see the module docstring for the state and snapshot formats."""

    name = "retail"
    description = "An online shop: search the catalogue, look up products, place orders."

    def __init__(self) -> None:
        self.products: dict[str, Product] = {
            p.product_id: p for p in _make_catalogue(CATALOGUE_SEED)
        }
        # Search index, built once: per product, weighted tokens of name, brand, category.
        self._index: dict[str, dict[str, float]] = {}
        for p in self.products.values():
            weights: dict[str, float] = {}
            for field, w in ((p.category, 1.0), (p.brand, 2.0), (p.name, 3.0)):
                for tok in tokenize(field):
                    weights[tok] = max(weights.get(tok, 0.0), w)
            self._index[p.product_id] = weights
        self.vocabulary: list[str] = sorted({p.product_type for p in self.products.values()})
        super().__init__()

    # -- world queries ----------------------------------------------------------------------
    def stock_of(self, state: Any, product_id: str) -> int:
        return self.products[product_id].stock - int(state["sold"].get(product_id, 0))

    def search(
        self,
        query: str,
        category: str | None = None,
        max_price: float | None = None,
        min_rating: float | None = None,
        sort_by: str = "relevance",
    ) -> tuple[list[Product], str]:
        """Products matching every query token (else any token: match "partial"), filtered
        and ordered; ties broken by rating, price, id."""
        terms = tokenize(query)
        pool = [
            p
            for p in self.products.values()
            if (category is None or p.category == category)
            and (max_price is None or p.price <= max_price)
            and (min_rating is None or p.rating >= min_rating)
        ]
        scored: list[tuple[float, Product]] = []
        match = "all"
        if terms:
            for p in pool:
                idx = self._index[p.product_id]
                if all(t in idx for t in terms):
                    scored.append((sum(idx[t] for t in terms), p))
            if not scored:
                match = "partial"
                for p in pool:
                    idx = self._index[p.product_id]
                    s = sum(idx.get(t, 0.0) for t in terms)
                    if s > 0:
                        scored.append((s, p))
        else:
            scored = [(0.0, p) for p in pool]
        key = {
            "relevance": lambda sp: (-sp[0], -sp[1].rating, sp[1].price, sp[1].product_id),
            "price_asc": lambda sp: (sp[1].price, -sp[1].rating, sp[1].product_id),
            "price_desc": lambda sp: (-sp[1].price, -sp[1].rating, sp[1].product_id),
            "rating": lambda sp: (-sp[1].rating, sp[1].price, sp[1].product_id),
        }[sort_by]
        scored.sort(key=key)
        return [p for _, p in scored], match

    # -- per-episode state ------------------------------------------------------------------
    def initial_state(self, seed: int) -> dict[str, Any]:
        return {"seed": seed, "sold": {}, "orders": []}

    def snapshot(self, state: Any) -> dict[str, Any]:
        orders = [
            {k: o[k] for k in ("product_id", "quantity", "unit_price", "total")}
            for o in state["orders"]
        ]
        stock = {o["product_id"]: self.stock_of(state, o["product_id"]) for o in orders}
        return {"orders": orders, "stock": dict(sorted(stock.items()))}

    def alternative(self, kind: str, value: Any, rng: random.Random, env: Environment) -> Any:
        """Another real value of `kind`: product_id (same category when possible),
        quantity, query, category, price, rating."""
        pool: list[Any]
        if kind == "product_id":
            cur = self.products.get(value) if isinstance(value, str) else None
            pool = [
                pid for pid, p in self.products.items()
                if pid != value and (cur is None or p.category == cur.category)
            ]
        elif kind == "quantity":
            pool = [q for q in range(1, 6) if q != value]
        elif kind == "query":
            pool = [t for t in self.vocabulary if t != value]
        elif kind == "category":
            pool = [c for c in CATEGORIES if c != value]
        elif kind == "price":
            base = float(value) if isinstance(value, int | float) else 50.0
            pool = [round(base * f, 2) for f in (0.25, 0.5, 0.75, 1.5, 2.0)]
        elif kind == "rating":
            pool = [r / 2 for r in range(2, 10) if r / 2 != value]
        else:
            raise KeyError(kind)
        return rng.choice(pool)

    # -- tools ------------------------------------------------------------------------------
    def build_tools(self) -> list[Tool]:
        pid = {"type": "string", "pattern": PRODUCT_ID_PATTERN, "description": "e.g. PRD1042"}
        return [
            Tool(
                ToolSpec(
                    name="search_products",
                    description=(
                        "Search the catalogue by words of the product name, brand or "
                        "category, with optional filters and sort order."
                    ),
                    parameters={
                        "type": "object",
                        "properties": {
                            "query": {"type": "string", "minLength": 1, "maxLength": 100},
                            "category": {"type": "string", "enum": CATEGORIES},
                            "max_price": {"type": "number", "minimum": 0},
                            "min_rating": {"type": "number", "minimum": 0, "maximum": 5},
                            "sort_by": {"type": "string", "enum": SORT_ORDERS},
                            "limit": {"type": "integer", "minimum": 1, "maximum": 50},
                        },
                        "required": ["query"],
                        "additionalProperties": False,
                    },
                    critical_params={
                        "query": "query",
                        "category": "category",
                        "max_price": "price",
                        "min_rating": "rating",
                    },
                ),
                self._search_products,
            ),
            Tool(
                ToolSpec(
                    name="get_product",
                    description="Get a product's details: price, rating, stock, order limit.",
                    parameters={
                        "type": "object",
                        "properties": {"product_id": pid},
                        "required": ["product_id"],
                        "additionalProperties": False,
                    },
                    critical_params={"product_id": "product_id"},
                ),
                self._get_product,
            ),
            Tool(
                ToolSpec(
                    name="place_order",
                    description=(
                        "Order a quantity of a product; fails if out of stock or above the "
                        "product's per-order limit. Returns the order id and total."
                    ),
                    parameters={
                        "type": "object",
                        "properties": {
                            "product_id": pid,
                            "quantity": {"type": "integer", "minimum": 1,
                                         "maximum": MAX_QUANTITY},
                        },
                        "required": ["product_id", "quantity"],
                        "additionalProperties": False,
                    },
                    critical_params={"product_id": "product_id", "quantity": "quantity"},
                    mutates=True,
                ),
                self._place_order,
            ),
        ]

    def _product(self, product_id: str) -> Product:
        p = self.products.get(product_id)
        if p is None:
            raise DomainError("not_found", f"no product with id {product_id}", "product_id")
        return p

    def _search_products(self, state: Any, args: dict[str, Any]) -> Observation:
        found, match = self.search(
            args["query"],
            args.get("category"),
            args.get("max_price"),
            args.get("min_rating"),
            args.get("sort_by", "relevance"),
        )
        limit = args.get("limit", 10)
        results = []
        for p in found[:limit]:
            item = p.summary()
            item["in_stock"] = self.stock_of(state, p.product_id) > 0
            results.append(item)
        obs: Observation = {"query": args["query"]}
        for k in ("category", "max_price", "min_rating", "sort_by"):
            if k in args:
                obs[k] = args[k]
        obs.update({"match": match if found else "none", "total_matches": len(found),
                    "results": results})
        return obs

    def _get_product(self, state: Any, args: dict[str, Any]) -> Observation:
        p = self._product(args["product_id"])
        return {
            **p.summary(),
            "stock": self.stock_of(state, p.product_id),
            "max_per_order": p.max_per_order,
        }

    def _place_order(self, state: Any, args: dict[str, Any]) -> Observation:
        p = self._product(args["product_id"])
        qty = int(args["quantity"])
        stock = self.stock_of(state, p.product_id)
        if stock == 0:
            raise DomainError("out_of_stock", f"{p.name} ({p.product_id}) is out of stock",
                              "product_id")
        if qty > p.max_per_order:
            raise DomainError(
                "limit_exceeded",
                f"at most {p.max_per_order} units of {p.name} ({p.product_id}) per order",
                "quantity",
            )
        if qty > stock:
            raise DomainError(
                "insufficient_stock",
                f"only {stock} units of {p.name} ({p.product_id}) in stock",
                "quantity",
            )
        total = round(p.price * 100) * qty / 100  # exact in cents
        order = {
            "order_id": order_id(state, p.product_id, qty),
            "product_id": p.product_id,
            "quantity": qty,
            "unit_price": p.price,
            "total": total,
        }
        state["sold"][p.product_id] = int(state["sold"].get(p.product_id, 0)) + qty
        state["orders"].append(order)
        return {
            "status": "placed",
            **order,
            "name": p.name,
            "remaining_stock": stock - qty,
        }
