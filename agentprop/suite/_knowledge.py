"""Knowledge task generator (ablation, never injected): questions about a fictional world.

Intents (difficulty):
- ``snippet_fact`` (easy): search_knowledge → the fact stated by the article's first
  sentence (a place's region, a person's birth year/birthplace/occupation, an
  organisation's founding year/founder, a region's capital).
- ``article_fact`` (medium): search_knowledge → get_article → a fact from the article
  (population, founding year, notable work, headquarters, members...).
- ``two_hop`` (hard): search_knowledge → get_article → get_article of a linked article →
  a fact of the linked entity (where the founder of X was born, the population of Y's
  birthplace, the region of X's headquarters...).

Facts: ``number`` (years with unit ``year``, ``population`` unit ``people``, ``area_km2``
unit ``km2``, ``members`` unit ``members``; tolerance 0) or ``entity`` keyed by the
infobox field; two-hop tasks also state the bridge entity (key ``bridge_<linking field>``).
No task changes state. ``Task.query_entities`` = ``{"query": <title searched>}``;
``meta``: ``answer_field`` (infobox key answered), ``bridge_field`` (two-hop only).

Each intent is one class below (`KnowledgeIntent`: which fields it asks, how its question is
phrased, its target and lookups in `build` — no two tasks ask the same field of the same
article, `Draft.taken` —, whether the snippet answers, which article is the bridge, its
facts), registered in `INTENTS` in the order of the intent mix; `KnowledgeGenerator` states
each observation by kind.
"""

from __future__ import annotations

import random
from typing import Any, ClassVar

from agentprop.core import Fact, Task
from agentprop.domains import Observation, get_domain, is_error
from agentprop.domains._knowledge_data import Article
from agentprop.domains.knowledge import KnowledgeDomain
from agentprop.suite._draw import (
    Draft,
    draw_tasks,
    schedule,
    shared_attempts,
)
from agentprop.suite._generator import GENERATORS
from agentprop.suite._intent import Intent, IntentGenerator, Intents
from agentprop.suite._phrasing import failure_sentence, tool_at

# article type -> fields answerable from the first sentence
SNIPPET_FIELDS = {
    "place": ["region"],
    "person": ["born", "birthplace", "occupation"],
    "organisation": ["founded", "founder"],
    "region": ["capital"],
}
ARTICLE_FIELDS = {
    "place": ["population", "founded"],
    "person": ["notable_work", "died"],
    "organisation": ["headquarters", "members", "founded"],
    "region": ["area_km2"],
}
# (article type, linking field, linked field)
HOPS = [
    ("organisation", "founder", "birthplace"),
    ("organisation", "founder", "born"),
    ("person", "birthplace", "population"),
    ("person", "birthplace", "region"),
    ("organisation", "headquarters", "region"),
    ("person", "founded", "founded"),
    ("place", "region", "capital"),
]
UNITS = {"born": "year", "died": "year", "founded": "year", "population": "people",
         "area_km2": "km2", "members": "members"}

QUESTIONS: dict[str, list[str]] = {
    "region": ["In which region is {t}?", "Which region does {t} belong to?",
               "Look up {t} in the encyclopedia: what region is it in?"],
    "born": ["In what year was {t} born?", "When was {t} born?",
             "Look up {t}: what is their year of birth?"],
    "birthplace": ["Where was {t} born?", "What is the birthplace of {t}?",
                   "In which town or city was {t} born?"],
    "occupation": ["What was {t}'s profession?", "What did {t} do for a living?",
                   "Look up {t}: what was their occupation?"],
    "founded": ["When was {t} founded?", "In what year was {t} founded?",
                "Look up {t}: what is its founding year?"],
    "founder": ["Who founded {t}?", "Who is the founder of {t}?",
                "Look up {t}: by whom was it founded?"],
    "capital": ["What is the capital of {t}?", "Which town is the capital of {t}?",
                "Look up the region {t}: what is its capital?"],
    "population": ["What is the population of {t}?", "How many people live in {t}?",
                   "Look up {t}: how large is its population?"],
    "notable_work": ["What is {t} best known for?", "Which work is {t} famous for?",
                     "Look up {t}: what is their best-known work?"],
    "died": ["In what year did {t} die?", "When did {t} die?",
             "Look up {t}: what year did they pass away?"],
    "headquarters": ["Where is {t} headquartered?", "In which town is {t} based?",
                     "Look up {t}: where are its headquarters?"],
    "members": ["How many members does {t} have?", "What is the membership of {t}?",
                "Look up {t}: how many members are listed?"],
    "area_km2": ["How large is the region {t} in square kilometres?",
                 "What area does {t} cover?", "Look up {t}: what is its area?"],
}
HOP_QUESTIONS: dict[tuple[str, str], list[str]] = {
    ("founder", "birthplace"): ["Where was the founder of {t} born?",
                                "In which town was the person who founded {t} born?",
                                "Who founded {t}, and where was that person born?"],
    ("founder", "born"): ["In what year was the founder of {t} born?",
                          "When was the person who founded {t} born?",
                          "Who founded {t}, and in which year was the founder born?"],
    ("birthplace", "population"): ["What is the population of the place where {t} was born?",
                                   "How many people live in {t}'s birthplace?",
                                   "Where was {t} born, and what is its population?"],
    ("birthplace", "region"): ["In which region was {t} born?",
                               "Which region is {t}'s birthplace in?",
                               "Where was {t} born, and in which region is that?"],
    ("headquarters", "region"): ["In which region is {t} headquartered?",
                                 "Which region is the headquarters of {t} in?",
                                 "Where is {t} based, and in which region is that town?"],
    ("founded", "founded"): ["In what year was the organisation founded by {t} established?",
                             "{t} founded an organisation. When was it founded?",
                             "Which organisation did {t} found, and in what year?"],
    ("region", "capital"): ["What is the capital of the region {t} lies in?",
                            "{t} is in a region: which town is that region's capital?",
                            "Which region is {t} in, and what is its capital?"],
}
PHRASES = {
    "region": "{t} is in the {v} region.",
    "born": "{t} was born in {v}.",
    "died": "{t} died in {v}.",
    "birthplace": "{t} was born in {v}.",
    "occupation": "{t}'s occupation: {v}.",
    "founded": "{t} was founded in {v}.",
    "founder": "{t} was founded by {v}.",
    "capital": "The capital of {t} is {v}.",
    "population": "{t} has a population of {v}.",
    "notable_work": "{t} is best known for {v}.",
    "headquarters": "{t} is headquartered in {v}.",
    "members": "{t} has {v} members.",
    "area_km2": "{t} covers {v} square kilometres.",
}

BRIDGE_PHRASES = {
    "founder": "{t} was founded by {v}.",
    "birthplace": "{t} was born in {v}.",
    "headquarters": "{t} is headquartered in {v}.",
    "founded": "{t} founded the {v}.",
    "region": "{t} is in the {v} region.",
}


def _named(article: Article) -> str:
    return f"the {article.title}" if article.type == "organisation" else article.title


def _fact(field: str, value: object, subject: str, key: str | None = None) -> Fact:
    """A fact of `subject`'s infobox; a year is needed exactly ("circa 2005" is not it)."""
    about = {"subject": [subject]}
    if field in UNITS and isinstance(value, int):
        return Fact(kind="number", key=key or field, value=value, unit=UNITS[field],
                    tolerance=0, about=about, exact=UNITS[field] == "year")
    return Fact(kind="entity", key=key or field, value=str(value), about=about)


def _infobox_facts(title: str, infobox: dict[str, Any], skip: set[str]) -> list[Fact]:
    """The rest of an article's infobox, as context: true, not asked."""
    return [_fact(k, v, title, f"{title}.{k}").model_copy(update={"role": "context"})
            for k, v in infobox.items()
            if k not in skip and v is not None and isinstance(v, str | int)]


# -- rendering ------------------------------------------------------------------------------


def _kind(o: Observation) -> str:
    """What an observation is, in the order the checks have always been made."""
    if is_error(o):
        return "error"
    if "results" in o:
        return "search"
    if "infobox" in o:
        return "article"
    return "unknown"


def _hit(task: Task, o: Observation) -> dict[str, Any] | None:
    """The search result for the title the query names (else the first; None if none)."""
    results = list(o.get("results") or [])
    if not results:
        return None
    wanted = str(task.query_entities.get("query", ""))
    return next((r for r in results if r.get("title") == wanted), results[0])


def _sentence(task: Task, i: int, o: Observation) -> str:
    """What observation `i` says, by its kind (an article by the field the query asks)."""
    tool = tool_at(task, i) or "tool"
    k = _kind(o)
    if k == "error":
        return failure_sentence(tool, o, noun="call", unknown="")
    if k == "search":
        hit = _hit(task, o)
        if hit is None:
            return f"The encyclopedia has no article matching '{o.get('query')}'."
        return f"The article on {hit.get('title')} is {hit.get('article_id')}."
    if k == "article":
        return _article(o, _answer(task))[0]
    return f"The {tool} call returned an unexpected result."


def _answer(task: Task) -> str:
    """The infobox field the query asks."""
    return str(task.meta.get("answer_field", ""))


def _article(o: Observation, field: str, bridge: bool = False) -> tuple[str, list[Fact]]:
    """What an article says of `field` (as the bridge of a two-hop question): the sentence
    and the facts (the field's, then the rest of the infobox as context)."""
    info = o.get("infobox") or {}
    title = str(o.get("title"))
    named = f"The {title}" if o.get("type") == "organisation" else title
    value = info.get(field)
    if value is None:
        return (f"The article {o.get('article_id')} ({title}) does not state its "
                f"{field.replace('_', ' ')}.", [])
    phrases = BRIDGE_PHRASES if bridge else PHRASES
    fact = _fact(field, value, title, f"bridge_{field}" if bridge else None)
    return (phrases.get(field, "{t}: {v}.").format(t=named, v=value),
            [fact, *_infobox_facts(title, info, {field})])


# -- the intents ------------------------------------------------------------------------------
# Registered in the order of the intent mix (the schedule depends on it).


class KnowledgeIntent(Intent):
    """A knowledge intent: the fields it asks of which kind of article (`fields`), its
    question (`question`), the target and gold plan that looks the answer up (`build`) and
    the facts each article it reads states (`facts`, `article_facts`)."""

    table: ClassVar[dict[str, list[str]]] = ARTICLE_FIELDS
    """Article type → the fields a one-hop question asks."""
    reads_article: ClassVar[bool] = True
    """The gold plan opens the article (else the search snippet answers)."""

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        facts: list[Fact] = []
        articles = 0
        for o in obs:
            k = _kind(o)
            if k == "search":
                facts += self.search_facts(task, o)
            elif k == "article":
                articles += 1
                facts += self.article_facts(task, o, first=articles == 1)
        return facts

    def search_facts(self, task: Task, o: Observation) -> list[Fact]:
        """What a search result states (nothing: the article answers)."""
        return []

    def article_facts(self, task: Task, o: Observation, first: bool) -> list[Fact]:
        """What an article (`first`: the first one read) states."""
        return _article(o, _answer(task))[1]

    def fields(self, rng: random.Random) -> tuple[str, str, str | None]:
        """(article type, answered field, linking field or None)."""
        atype = rng.choice(["place", "person", "person", "organisation", "region"])
        return atype, rng.choice(self.table[atype]), None

    def question(self, rng: random.Random, target: Article, answer: str,
                 bridge: str | None) -> str:
        return rng.choice(QUESTIONS[answer]).format(t=_named(target))

    def build(self, d: Draft, rng: random.Random) -> None:
        """Draw a target no earlier task asked this of (`Draft.taken`), phrase the
        question, then search the target, read its article and follow the bridge link.
        The environment (and its seed) is opened by the first call, after these draws."""
        target, answer, bridge = self.target(rng, d.taken)
        query = self.question(rng, target, answer, bridge)
        d.query = query[0].upper() + query[1:]
        found = d("search_knowledge", query=target.title)
        hit = next(r for r in found["results"] if r["title"] == target.title)
        if self.reads_article:
            article = d("get_article", article_id=hit["article_id"])
        if bridge is not None:
            linked = str(article["infobox"][bridge])
            link = next(x for x in article["links"] if x["title"] == linked)
            d("get_article", article_id=link["article_id"])
        d.meta = {"query_entities": {"query": target.title}, "answer_field": answer}
        d.asks = [answer]
        if bridge is not None:
            d.meta["bridge_field"] = bridge

    def target(self, rng: random.Random, taken: set[str]
               ) -> tuple[Article, str, str | None]:
        """(target article, answered field, linking field or None), not yet in `taken`
        (no two tasks ask the same field of the same article), which it then joins."""
        dom = get_domain("knowledge")
        assert isinstance(dom, KnowledgeDomain)
        while True:
            atype, answer, bridge = self.fields(rng)
            target = rng.choice([a for a in dom.articles if a.type == atype])
            if target.infobox.get(bridge or answer) is None:
                continue
            key = repr((target.article_id, answer, bridge or ""))
            if key not in taken:
                taken.add(key)
                return target, answer, bridge


INTENTS: Intents[Intent] = Intents("knowledge", KnowledgeIntent)


@INTENTS.register
class SnippetFact(KnowledgeIntent):
    """A fact the article's first sentence states: the search snippet answers it."""

    name, difficulty, weight = "snippet_fact", "easy", 0.20
    table = SNIPPET_FIELDS
    reads_article = False

    def sentence(self, task: Task, seen: list[Observation], o: Observation) -> str | None:
        """A search is stated by the found article's snippet."""
        hit = _hit(task, o) if _kind(o) == "search" else None
        return None if hit is None else str(hit.get("snippet", ""))

    def search_facts(self, task: Task, o: Observation) -> list[Fact]:
        """The snippet states the asked field; the article's infobox is context."""
        hit = _hit(task, o)
        if hit is None:
            return []
        dom = get_domain("knowledge")
        assert isinstance(dom, KnowledgeDomain)
        art = dom.by_id.get(str(hit.get("article_id")))
        answer = _answer(task)
        if art is None or art.infobox.get(answer) is None:
            return []
        return [_fact(answer, art.infobox[answer], art.title),
                *_infobox_facts(art.title, art.infobox, {answer})]


@INTENTS.register
class ArticleFact(KnowledgeIntent):
    """A fact of the article's infobox: search, then read the article."""

    name, difficulty, weight = "article_fact", "medium", 0.50


@INTENTS.register
class TwoHop(KnowledgeIntent):
    """A fact of the entity the target links to (search, article, linked article)."""

    name, difficulty, weight = "two_hop", "hard", 0.30

    def fields(self, rng: random.Random) -> tuple[str, str, str | None]:
        atype, bridge, answer = rng.choice(HOPS)
        return atype, answer, bridge

    def question(self, rng: random.Random, target: Article, answer: str,
                 bridge: str | None) -> str:
        assert bridge is not None
        return rng.choice(HOP_QUESTIONS[(bridge, answer)]).format(t=_named(target))

    def sentence(self, task: Task, seen: list[Observation], o: Observation) -> str | None:
        """The first article read is the bridge: it is stated by the linking field."""
        if _kind(o) != "article" or any(_kind(p) == "article" for p in seen):
            return None
        return _article(o, str(task.meta.get("bridge_field")), bridge=True)[0]

    def article_facts(self, task: Task, o: Observation, first: bool) -> list[Fact]:
        if first:
            return _article(o, str(task.meta.get("bridge_field")), bridge=True)[1]
        return super().article_facts(task, o, first)


# -- the generator ----------------------------------------------------------------------------


@GENERATORS.register("knowledge")
class KnowledgeGenerator(IntentGenerator):
    """See the module docstring for intents, facts and meta. Each observation is stated on
    its own (no chain is cut short) and states its facts even when another call failed."""

    domain = "knowledge"
    intents = INTENTS
    nothing = "I could not retrieve the information needed to answer."
    whole_chain = False

    @property
    def world(self) -> KnowledgeDomain:
        dom = get_domain(self.domain)
        assert isinstance(dom, KnowledgeDomain)
        return dom

    def generate(self, n: int, seed: int) -> list[Task]:
        rng = random.Random(seed)
        dom = self.world
        # one attempt: the target and query are drawn first, so a failed gold plan is not
        # redrawn; the environment seed is drawn after them
        return draw_tasks(
            domain=self.domain, plan=schedule(n, INTENTS.mix(), rng),
            builders=INTENTS.builders(), tools=[t.name for t in dom.tools],
            make_env=dom.make_env, render=self.render_answer, facts=self.expected_facts,
            attempts=shared_attempts(rng, 1, seed_first=False),
        )

    def sentence(self, task: Task, i: int, o: Observation) -> str:
        return _sentence(task, i, o)

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        return True
