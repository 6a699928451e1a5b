"""The knowledge domain (ablation, never injected): search and read a fictional encyclopedia.

The ~280 articles (regions, places, people, organisations with cross-references) are
generated from `WORLD_SEED` with invented names, so answers cannot come from memory.
Search is BM25 over title (weighted) and text; the index is built once per domain
instance. The world is read-only: the per-episode state is empty and `snapshot` is {}.
"""

from __future__ import annotations

import math
import random
import re
from collections import Counter
from typing import Any

from agentprop.core import ToolSpec
from agentprop.domains._base import DOMAINS, Domain, DomainError, Environment, Observation, Tool
from agentprop.domains._knowledge_data import Article, build_articles

WORLD_SEED = 4242
ARTICLE_ID_PATTERN = r"^KB\d{4}$"
TITLE_WEIGHT = 3  # title tokens count this many times in a document
BM25_K1 = 1.5
BM25_B = 0.75

_TOKEN = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


class BM25:
    """Okapi BM25 over a fixed corpus; postings are precomputed once."""

    def __init__(self, docs: list[list[str]], k1: float = BM25_K1, b: float = BM25_B) -> None:
        self.k1, self.b = k1, b
        self.tf = [Counter(d) for d in docs]
        self.lengths = [len(d) for d in docs]
        self.avgdl = sum(self.lengths) / max(1, len(docs))
        self.postings: dict[str, list[int]] = {}
        for i, tf in enumerate(self.tf):
            for term in tf:
                self.postings.setdefault(term, []).append(i)
        n = len(docs)
        self.idf = {
            t: math.log((n - len(p) + 0.5) / (len(p) + 0.5) + 1.0)
            for t, p in self.postings.items()
        }

    def scores(self, query: list[str]) -> dict[int, float]:
        out: dict[int, float] = {}
        for term in set(query):
            for i in self.postings.get(term, ()):
                f = self.tf[i][term]
                norm = f + self.k1 * (1 - self.b + self.b * self.lengths[i] / self.avgdl)
                out[i] = out.get(i, 0.0) + self.idf[term] * f * (self.k1 + 1) / norm
        return out

    def top(self, query: list[str], k: int) -> list[tuple[int, float]]:
        ranked = sorted(self.scores(query).items(), key=lambda x: (-x[1], x[0]))
        return ranked[:k]


def snippet(text: str) -> str:
    """The article's first sentence."""
    end = text.find(". ")
    return text if end < 0 else text[: end + 1]


@DOMAINS.register("knowledge")
class KnowledgeDomain(Domain):
    """A read-only fictional encyclopedia with BM25 search."""

    name = "knowledge"
    description = "Search and read articles of an encyclopedia of a fictional world."
    injectable = False

    def __init__(self) -> None:
        self.articles: list[Article] = build_articles(WORLD_SEED)
        self.by_id: dict[str, Article] = {a.article_id: a for a in self.articles}
        self.by_title: dict[str, Article] = {a.title: a for a in self.articles}
        self.index = BM25(
            [tokenize(a.title) * TITLE_WEIGHT + tokenize(a.text) for a in self.articles]
        )
        super().__init__()

    def search(self, query: str, limit: int = 5) -> list[tuple[Article, float]]:
        return [(self.articles[i], s) for i, s in self.index.top(tokenize(query), limit)]

    def alternative(self, kind: str, value: Any, rng: random.Random, env: Environment) -> Any:
        """Another article id or title (the domain is never injected; kept for symmetry)."""
        if kind == "article_id":
            pool = [a.article_id for a in self.articles if a.article_id != value]
        elif kind == "query":
            pool = [a.title for a in self.articles if a.title != value]
        else:
            raise KeyError(kind)
        return rng.choice(pool)

    def build_tools(self) -> list[Tool]:
        return [
            Tool(
                ToolSpec(
                    name="search_knowledge",
                    description=(
                        "Full-text search of the encyclopedia. Returns the best-matching "
                        "articles (id, title, first sentence), best first."
                    ),
                    parameters={
                        "type": "object",
                        "properties": {
                            "query": {"type": "string", "minLength": 1, "maxLength": 200},
                            "limit": {"type": "integer", "minimum": 1, "maximum": 20},
                        },
                        "required": ["query"],
                        "additionalProperties": False,
                    },
                    critical_params={"query": "query"},
                ),
                self._search_knowledge,
            ),
            Tool(
                ToolSpec(
                    name="get_article",
                    description="Read an article: full text, key facts and linked articles.",
                    parameters={
                        "type": "object",
                        "properties": {
                            "article_id": {
                                "type": "string",
                                "pattern": ARTICLE_ID_PATTERN,
                                "description": "e.g. KB0042",
                            }
                        },
                        "required": ["article_id"],
                        "additionalProperties": False,
                    },
                    critical_params={"article_id": "article_id"},
                ),
                self._get_article,
            ),
        ]

    def _search_knowledge(self, state: Any, args: dict[str, Any]) -> Observation:
        hits = self.search(args["query"], args.get("limit", 5))
        return {
            "query": args["query"],
            "results": [
                {
                    "article_id": a.article_id,
                    "title": a.title,
                    "snippet": snippet(a.text),
                    "score": round(s, 3),
                }
                for a, s in hits
            ],
        }

    def _get_article(self, state: Any, args: dict[str, Any]) -> Observation:
        a = self.by_id.get(args["article_id"])
        if a is None:
            raise DomainError("not_found", f"no article with id {args['article_id']}",
                              "article_id")
        return {
            "article_id": a.article_id,
            "title": a.title,
            "type": a.type,
            "text": a.text,
            "infobox": dict(a.infobox),
            "links": [{"article_id": i, "title": self.by_id[i].title} for i in a.links],
        }
