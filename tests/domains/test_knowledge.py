"""Knowledge domain: BM25 ranking, schemas, a consistent fictional world, determinism."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest

from agentprop.domains import is_error
from agentprop.domains.knowledge import BM25, KnowledgeDomain, tokenize


@pytest.fixture(scope="module")
def dom() -> KnowledgeDomain:
    return KnowledgeDomain()


INVALID = [
    ("search_knowledge", {"query": 3}, "query"),
    ("search_knowledge", {"query": ""}, "query"),
    ("search_knowledge", {"query": "x", "limit": 0}, "limit"),
    ("search_knowledge", {"query": "x", "limit": 21}, "limit"),
    ("search_knowledge", {"query": "x", "limit": "5"}, "limit"),
    ("search_knowledge", {}, "query"),
    ("search_knowledge", {"query": "x", "lang": "en"}, "lang"),
    ("get_article", {"article_id": "42"}, "article_id"),
    ("get_article", {"article_id": 42}, "article_id"),
    ("get_article", {}, "article_id"),
    ("get_article", {"article_id": "KB0001", "full": True}, "full"),
]


def test_never_injected(dom: KnowledgeDomain) -> None:
    assert dom.injectable is False


@pytest.mark.parametrize(("tool", "args", "param"), INVALID)
def test_invalid_arguments_give_validation_errors(
    dom: KnowledgeDomain, tool: str, args: dict[str, Any], param: str
) -> None:
    obs = dom.make_env(0).call(tool, args)
    assert obs["error"]["type"] == "validation" and obs["error"]["param"] == param


def test_valid_calls_echo_and_link(dom: KnowledgeDomain) -> None:
    env = dom.make_env(0)
    target = dom.articles[10]
    found = env.call("search_knowledge", {"query": target.title, "limit": 3})
    assert found["query"] == target.title and len(found["results"]) == 3
    top = found["results"][0]
    assert top["article_id"] == target.article_id and top["title"] == target.title
    assert target.text.startswith(top["snippet"])
    art = env.call("get_article", {"article_id": target.article_id})
    assert art["article_id"] == target.article_id and art["text"] == target.text
    for link in art["links"]:
        linked = env.call("get_article", {"article_id": link["article_id"]})
        assert not is_error(linked) and linked["title"] == link["title"]
    missing = env.call("get_article", {"article_id": "KB9999"})
    assert missing["error"]["type"] == "not_found" and missing["error"]["param"] == "article_id"


def test_bm25_ranks_documents_with_the_query_terms_first() -> None:
    docs = [tokenize(t) for t in [
        "the quick brown fox",
        "a lazy dog sleeps all day in the sun and the fox is not around today at all",
        "lazy dog",
        "nothing relevant here",
    ]]
    index = BM25(docs)
    ranked = [i for i, _ in index.top(tokenize("lazy dog"), 4)]
    assert ranked[:2] == [2, 1]  # both terms; the shorter document wins
    assert 3 not in ranked  # no term in common: not returned
    assert [i for i, _ in index.top(["fox"], 4)] == [0, 1]
    # Rare terms weigh more than common ones.
    assert index.idf["sun"] > index.idf["the"]


def test_search_finds_every_article_by_title_and_by_a_unique_fact(dom: KnowledgeDomain) -> None:
    for art in dom.articles:
        assert dom.search(art.title, 1)[0][0] is art
    place = next(a for a in dom.articles if a.type == "place")
    pop = str(place.infobox["population"])
    assert sum(pop in tokenize(a.text) for a in dom.articles) == 1
    assert dom.search(f"population {pop}", 1)[0][0] is place


def test_world_is_consistent(dom: KnowledgeDomain) -> None:
    assert 250 <= len(dom.articles) <= 400
    assert len({a.title for a in dom.articles}) == len(dom.articles)
    assert all(re.fullmatch(r"KB\d{4}", a.article_id) for a in dom.articles)
    by_title = dom.by_title
    for a in dom.articles:
        assert all(i in dom.by_id for i in a.links)
        if a.type == "organisation":
            founder = by_title[a.infobox["founder"]]
            died = founder.infobox["died"] or 2020
            assert founder.infobox["born"] + 20 <= a.infobox["founded"] <= died
            assert by_title[a.infobox["headquarters"]].type == "place"
            assert founder.infobox["founded"] == a.title
        if a.type == "region":
            assert by_title[a.infobox["capital"]].infobox["region"] == a.title
        if a.type == "person":
            assert by_title[a.infobox["birthplace"]].type == "place"
    kinds = {a.type for a in dom.articles}
    assert kinds == {"region", "place", "person", "organisation"}


def test_deterministic(dom: KnowledgeDomain) -> None:
    other = KnowledgeDomain()
    assert [(a.article_id, a.text) for a in other.articles] == [
        (a.article_id, a.text) for a in dom.articles]
    env = dom.make_env(1)
    assert env.copy().call("search_knowledge", {"query": "river city"}) == env.call(
        "search_knowledge", {"query": "river city"})
    assert env.snapshot() == {}


def test_alternative(dom: KnowledgeDomain) -> None:
    rng = random.Random(0)
    env = dom.make_env(0)
    value = dom.alternative("article_id", "KB0001", rng, env)
    assert value != "KB0001" and value in dom.by_id
    with pytest.raises(KeyError):
        dom.alternative("patient_id", "P001", rng, env)
