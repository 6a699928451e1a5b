"""Generation of the fictional encyclopedia behind the knowledge domain.

Every name is built from syllables and every fact is drawn from a fixed seed, so no answer
can come from a language model's memory, while the world stays internally consistent:
a person founds organisations during their lifetime, towns have populations that fit
their kind, capitals lie in their region, and articles link to each other.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

ONSETS = ["b", "br", "d", "dr", "f", "g", "gr", "k", "kr", "l", "m", "n", "p", "r", "s",
          "st", "t", "th", "v", "z", "h", "j", "sk", "tr"]
VOWELS = ["a", "e", "i", "o", "u", "ae", "ai", "ei", "ou", "y"]
CODAS = ["", "", "n", "r", "l", "s", "th", "m", "nd", "rk", "lt", "sh"]

TERRAINS = ["coastal", "highland", "river valley", "forested", "steppe", "lake"]
PLACE_KINDS: dict[str, tuple[int, int]] = {
    "port city": (40_000, 900_000),
    "river city": (30_000, 600_000),
    "market town": (3_000, 60_000),
    "university town": (8_000, 90_000),
    "mining town": (2_000, 30_000),
    "mountain village": (150, 3_000),
}
OCCUPATIONS = ["cartographer", "engineer", "poet", "botanist", "shipbuilder", "astronomer",
               "composer", "physician", "architect", "merchant", "painter", "historian"]
WORK_ADJ = ["Silent", "Northern", "Copper", "Hidden", "Seventh", "Amber", "Distant", "Iron",
            "Winter", "Glass", "Ninth", "Salt"]
WORK_NOUN = ["Atlas", "Harbour", "Lantern", "Chronicle", "Garden", "Sonata", "Bridge",
             "Compass", "Almanac", "Tower", "Orchard", "Ledger"]
ORG_KINDS: dict[str, str] = {
    "Institute": "research institute",
    "Shipping Company": "shipping company",
    "Observatory": "observatory",
    "University": "university",
    "Guild of Cartographers": "guild of mapmakers",
    "Botanical Society": "botanical society",
    "Ironworks": "ironworks",
    "Conservatory": "music conservatory",
    "Savings Bank": "bank",
    "Public Library": "library",
}

N_REGIONS = 12
N_PLACES = 70
N_PEOPLE = 130
N_ORGS = 70


@dataclass
class Article:
    article_id: str
    title: str
    type: str
    text: str
    infobox: dict[str, Any]
    links: list[str] = field(default_factory=list)  # article ids


def _a(noun: str) -> str:
    """The noun with its indefinite article ("an astronomer", "a university town")."""
    return ("an " if noun[0] in "aeio" else "a ") + noun


class _Names:
    """Unique pronounceable invented names."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.used: set[str] = set()

    def make(self, syllables: tuple[int, int] = (2, 3)) -> str:
        while True:
            n = self.rng.randint(*syllables)
            parts = [
                self.rng.choice(ONSETS) + self.rng.choice(VOWELS) + self.rng.choice(CODAS)
                for _ in range(n)
            ]
            name = "".join(parts).capitalize()
            if 4 <= len(name) <= 11 and name.lower() not in self.used:
                self.used.add(name.lower())
                return name


def build_articles(seed: int) -> list[Article]:
    """The encyclopedia for `seed`: regions, places, people and organisations."""
    rng = random.Random(seed)
    names = _Names(rng)

    regions: list[dict[str, Any]] = [{"name": names.make(), "terrain": rng.choice(TERRAINS),
                "area": rng.randint(2_000, 60_000), "places": []} for _ in range(N_REGIONS)]
    places: list[dict[str, Any]] = []
    for i in range(N_PLACES):
        region = regions[i % N_REGIONS] if i < N_REGIONS else rng.choice(regions)
        kind = rng.choice(list(PLACE_KINDS))
        lo, hi = PLACE_KINDS[kind]
        place: dict[str, Any] = {"name": names.make(), "kind": kind, "region": region,
                 "founded": rng.randint(780, 1850), "population": rng.randint(lo, hi),
                 "natives": [], "orgs": []}
        region["places"].append(place)
        places.append(place)
    for region in regions:
        region["capital"] = max(region["places"], key=lambda p: p["population"])

    people: list[dict[str, Any]] = []
    for _ in range(N_PEOPLE):
        born = rng.randint(1650, 1965)
        died = born + rng.randint(38, 96)
        person: dict[str, Any] = {
            "name": f"{names.make((1, 2))} {names.make((2, 3))}",
            "born": born,
            "died": died if died <= 2020 else None,
            "birthplace": rng.choice(places),
            "occupation": rng.choice(OCCUPATIONS),
            "work": f"The {rng.choice(WORK_ADJ)} {rng.choice(WORK_NOUN)}",
            "founded": None,
        }
        person["birthplace"]["natives"].append(person)
        people.append(person)

    orgs: list[dict[str, Any]] = []
    for founder in rng.sample(people, N_ORGS):
        suffix = rng.choice(list(ORG_KINDS))
        end = founder["died"] if founder["died"] is not None else 2015
        org: dict[str, Any] = {
            "name": f"{names.make()} {suffix}",
            "kind": ORG_KINDS[suffix],
            "founded": rng.randint(founder["born"] + 22, max(founder["born"] + 23, end - 1)),
            "founder": founder,
            "hq": rng.choice(places),
            "members": rng.randint(12, 4_000),
        }
        founder["founded"] = org
        org["hq"]["orgs"].append(org)
        orgs.append(org)

    # Stable, shuffled ids so an id says nothing about the kind of article.
    entities: list[tuple[str, dict[str, Any]]] = (
        [("region", r) for r in regions] + [("place", p) for p in places]
        + [("person", p) for p in people] + [("organisation", o) for o in orgs]
    )
    order = list(range(len(entities)))
    rng.shuffle(order)
    ids: dict[int, str] = {}
    for rank, i in enumerate(order):
        ids[id(entities[i][1])] = f"KB{rank + 1:04d}"

    def ref(e: dict[str, Any]) -> str:
        return ids[id(e)]

    articles: list[Article] = []
    for kind, e in entities:
        if kind == "region":
            cap = e["capital"]
            text = (f"{e['name']} is a {e['terrain']} region whose capital is {cap['name']}. "
                    f"It covers {e['area']} square kilometres and has {len(e['places'])} "
                    f"towns and cities with articles in this encyclopedia.")
            info = {"terrain": e["terrain"], "capital": cap["name"], "area_km2": e["area"]}
            links = [ref(cap)]
        elif kind == "place":
            text = (f"{e['name']} is {_a(e['kind'])} in the {e['region']['name']} region. "
                    f"It was founded in {e['founded']} and has a population of "
                    f"{e['population']}.")
            if e["region"]["capital"] is e:
                text += f" It is the capital of {e['region']['name']}."
            natives = e["natives"][:2]
            if natives:
                text += " Notable people born here include " + " and ".join(
                    p["name"] for p in natives) + "."
            info = {"kind": e["kind"], "region": e["region"]["name"],
                    "founded": e["founded"], "population": e["population"]}
            links = [ref(e["region"])] + [ref(p) for p in natives]
        elif kind == "person":
            life = (f"{e['born']}–{e['died']}" if e["died"] is not None
                    else f"born {e['born']}")
            verb = "was" if e["died"] is not None else "is"
            surname = e["name"].split()[-1]
            text = (f"{e['name']} ({life}) {verb} {_a(e['occupation'])} born in "
                    f"{e['birthplace']['name']}. {surname} is best known for "
                    f"{e['work']}.")
            info = {"born": e["born"], "died": e["died"], "birthplace": e["birthplace"]["name"],
                    "occupation": e["occupation"], "notable_work": e["work"]}
            links = [ref(e["birthplace"])]
            if e["founded"] is not None:
                text += f" {surname} founded the {e['founded']['name']}."
                info["founded"] = e["founded"]["name"]
                links.append(ref(e["founded"]))
        else:
            text = (f"The {e['name']} is {_a(e['kind'])} founded in {e['founded']} by "
                    f"{e['founder']['name']}. It is headquartered in {e['hq']['name']} and "
                    f"has {e['members']} members.")
            info = {"kind": e["kind"], "founded": e["founded"], "founder": e["founder"]["name"],
                    "headquarters": e["hq"]["name"], "members": e["members"]}
            links = [ref(e["founder"]), ref(e["hq"])]
        articles.append(Article(ref(e), e["name"], kind, text, info, links))
    articles.sort(key=lambda a: a.article_id)
    return articles
