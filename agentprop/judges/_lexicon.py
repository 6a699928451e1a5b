"""The words the facts judge reads meaning from: scales, cue families, negation and hedges.

Data only (docs/judges.md shows the same tables). Every phrase is matched as whole words
on folded text (lower-case, accents stripped), longest phrase first.
"""

from __future__ import annotations

from agentprop.judges import _languages as lang

# -- closed scales: a term states one value (or is compatible with several) ------------------

# severity of a drug interaction: none < low (minor, mild) < moderate < high (major, severe)
SEVERITY_TERMS: dict[str, frozenset[str]] = {
    **{t: frozenset({"none"}) for t in (
        "no interaction", "no interactions", "no known interaction", "no known interactions",
        "no significant interaction", "no clinically significant interaction",
        "no clinically relevant interaction", "no relevant interaction", "do not interact",
        "don't interact", "does not interact", "doesn't interact", "not interact",
        "no drug interaction", "no documented interaction", "no recorded interaction",
        "no listed interaction", "severity none", "severity: none", "severity is none",
        "severity of none", "severity level: none", "severity level none",
        "no interaction risk", "free of interactions", "interaction-free", "none known",
        "none reported", "none documented", "none listed",
        # elliptical after a first "no interaction with X": "... and none with Y"
        "none with", "nor with", "neither with", "none either with",
        *lang.NO_INTERACTION)},
    **{t: frozenset({v}) for w, v in lang.SEVERITY.items() for t in lang.inflected(w)},
    **{t: frozenset({"low"}) for t in ("minor", "mild", "low", "slight", "minimal")},
    **{t: frozenset({"moderate"}) for t in ("moderate", "moderately", "medium",
                                            "intermediate")},
    **{t: frozenset({"high"}) for t in (
        "high", "major", "severe", "severely", "serious", "seriously", "dangerous",
        "contraindicated", "life-threatening", "life threatening", "potentially fatal",
        "high-severity", "high severity", "highly dangerous", "critical")},
    # yes/no safety words: compatible with a range of levels, state none of them
    **{t: frozenset({"none", "low"}) for t in ("safe to combine", "safe to take together",
                                                "safe together", "safe to use together")},
    **{t: frozenset({"moderate", "high"}) for t in (
        "not safe", "unsafe", "avoid combining", "should not be combined",
        "should not be taken together", "do not combine", "use with caution", "caution")},
    **{t: frozenset({"low", "moderate", "high"}) for t in (
        "a concern", "also a concern", "concerning", "monitoring is advised",
        "monitor closely", "worth monitoring")},
}
# the terms that only bound the level (they neither state it nor name one value)
SEVERITY_VAGUE = frozenset(t for t, v in SEVERITY_TERMS.items() if len(v) > 1)
# a bare level word speaks of the interaction only next to one of these ("high blood
# pressure" is not a severity)
SEVERITY_CONTEXT = ("interact", "severity", "risk", "combin", "together", "caution", "warn",
                    "concern", "danger", *lang.SEVERITY_CONTEXT)

# weather conditions: what each term states, by the domain's conditions
_RAIN = ("light rain", "rain", "heavy rain", "thunderstorms")
# a word for rain or snow in general states any intensity of it
_FAMILY = {"rain": frozenset(_RAIN), "snow": frozenset({"light snow", "snow"})}
CONDITION_TERMS: dict[str, frozenset[str]] = {
    "sunny": frozenset({"sunny"}), "sunshine": frozenset({"sunny"}),
    "clear skies": frozenset({"sunny"}), "clear sky": frozenset({"sunny"}),
    "clear weather": frozenset({"sunny"}),
    "mostly sunny": frozenset({"sunny", "partly cloudy"}),
    "partly cloudy": frozenset({"partly cloudy"}), "partly sunny": frozenset({"partly cloudy"}),
    "partially cloudy": frozenset({"partly cloudy"}), "mixed sun and cloud":
        frozenset({"partly cloudy"}), "sun and clouds": frozenset({"partly cloudy"}),
    "some clouds": frozenset({"partly cloudy"}),
    "mostly cloudy": frozenset({"cloudy", "partly cloudy"}),
    "cloudy": frozenset({"cloudy"}), "overcast": frozenset({"cloudy"}),
    "grey skies": frozenset({"cloudy"}), "gray skies": frozenset({"cloudy"}),
    "clouds": frozenset({"cloudy"}),
    "light rain": frozenset({"light rain"}), "drizzle": frozenset({"light rain"}),
    "light showers": frozenset({"light rain"}), "showers": frozenset({"light rain", "rain"}),
    "shower": frozenset({"light rain", "rain"}), "light shower": frozenset({"light rain"}),
    "rain": frozenset(_RAIN), "rainy": frozenset(_RAIN), "raining": frozenset(_RAIN),
    "wet": frozenset(_RAIN),
    "heavy rain": frozenset({"heavy rain", "thunderstorms"}), "downpour": frozenset(
        {"heavy rain", "thunderstorms"}), "downpours": frozenset({"heavy rain", "thunderstorms"}),
    "torrential": frozenset({"heavy rain", "thunderstorms"}),
    "thunderstorms": frozenset({"thunderstorms"}), "thunderstorm": frozenset({"thunderstorms"}),
    "storms": frozenset({"thunderstorms"}), "stormy": frozenset({"thunderstorms"}),
    "thunder": frozenset({"thunderstorms"}),
    "light snow": frozenset({"light snow"}), "flurries": frozenset({"light snow"}),
    "snow": frozenset({"light snow", "snow"}), "snowy": frozenset({"light snow", "snow"}),
    "snowfall": frozenset({"light snow", "snow"}), "snowing": frozenset({"light snow", "snow"}),
    **{t: _FAMILY.get(v, frozenset({v})) for w, v in lang.CONDITIONS.items()
       for t in lang.inflected(w)},
    **{t: _FAMILY["rain"] for t in lang.RAIN_VERBS},
    # "不会下雨" (it will not rain): no condition, though it holds the word for rain
    **{t: frozenset() for t in lang.NO_RAIN if not t.isascii()},
    # counts of days, not a day's condition
    **{t: frozenset() for t in ("rainy days", "rainy day", "wet days", "rain days",
                                "snowy days", "sunny days", "dry days")},
}
# a term states the condition when the truth is one of its values; it is still compatible
# (not a contradiction) when the truth is a neighbour (rain vs thunderstorms, snow family)
CONDITION_NEIGHBOURS: dict[str, frozenset[str]] = {
    "sunny": frozenset({"partly cloudy"}),
    "partly cloudy": frozenset({"sunny", "cloudy"}),
    "cloudy": frozenset({"partly cloudy"}),
    "light rain": frozenset({"rain"}),
    "rain": frozenset({"light rain", "heavy rain", "thunderstorms"}),
    "heavy rain": frozenset({"rain", "thunderstorms"}),
    "thunderstorms": frozenset({"rain", "heavy rain"}),
    "light snow": frozenset({"snow"}),
    "snow": frozenset({"light snow"}),
}

# a period compared with its climate normal
TREND_TERMS: dict[str, frozenset[str]] = {
    **{t: frozenset({"warmer"}) for t in ("warmer", "hotter", "milder", "above normal",
                                          "above average", "above the normal",
                                          "above the average", "higher than normal",
                                          "higher than the normal", "warmer than usual")},
    **{t: frozenset({"cooler"}) for t in ("cooler", "colder", "chillier", "below normal",
                                          "below average", "below the normal",
                                          "below the average", "lower than normal",
                                          "lower than the normal", "cooler than usual")},
    **{t: frozenset({"same"}) for t in ("in line with", "on par with",
                                        "no different from", "same as normal",
                                        "right at normal", "right on average")},
    **{t: frozenset({v}) for t, v in lang.TREND.items()},
    # near the normal: true of a small difference either way, so no trend is stated
    **{t: frozenset({"same", "warmer", "cooler"}) for t in (
        "about the same", "close to normal", "near normal", "roughly normal",
        "close to the normal", "close to average", "near average", "typical for",
        "pretty typical", "fairly typical")},
}
# the terms that only bound the trend (a small difference either way)
TREND_VAGUE = frozenset(t for t, v in TREND_TERMS.items() if len(v) > 1)

SCALES: dict[str, dict[str, frozenset[str]]] = {
    "severity": SEVERITY_TERMS,
    "condition": CONDITION_TERMS,
    "trend": TREND_TERMS,
}

# -- decisions: cue words naming the winner (positive) or a loser (negative) ----------------

_DECISION_EN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    "warmer": (("warmer", "hotter", "the warm one", "higher temperature", "higher temperatures",
                "beats", "wins", "comes out ahead", "comes out on top", "the winner",
                "warmest", "hottest", "milder"),
               ("cooler", "colder", "chillier", "lower temperature", "lower temperatures",
                "less warm", "coolest", "coldest")),
    "warmest": (("warmest", "hottest", "highest temperature", "the winner", "comes out on top",
                 "wins", "warmer", "hotter", "pick", "beats"),
                ("coolest", "coldest")),
    "cheaper": (("cheaper", "less expensive", "lower price", "lower-priced", "costs less",
                 "cost less", "more affordable", "better deal", "cheapest", "lowest price",
                 "least expensive", "less costly", "less than", "go with", "the better buy",
                 "saves you"),
                ("more expensive", "pricier", "costs more", "cost more", "higher price",
                 "dearer", "most expensive", "more costly")),
    "cheapest": (("cheapest", "lowest-priced", "lowest priced", "lowest price", "least expensive",
                  "costs the least", "cost the least", "most affordable", "lowest-cost",
                  "lowest cost", "best price", "cheaper", "least costly", "go with"),
                 ("most expensive", "priciest")),
    "best_rated": (("highest-rated", "highest rated", "best-rated", "best rated", "top-rated",
                    "top rated", "highest rating", "best rating", "best reviewed",
                    "best-reviewed", "top pick", "best pick", "best choice", "top choice",
                    "best option", "top result", "best match"),
                   ("lowest-rated", "lowest rated", "worst-rated")),
    "driest": (("driest", "least rain", "least rainy", "least precipitation", "lowest chance",
                "best day", "least wet"),
               ("wettest", "rainiest")),
}

# phrases that decline to pick an option ("hard to say", "roughly comparable"): values
# stated beside them do not imply the decision
NO_DECISION = (*lang.NO_DECISION, "hard to say", "difficult to say", "impossible to say",
               "can't say",
               "cannot say", "hard to tell", "can't tell", "too close to call",
               "roughly comparable", "about the same", "no clear winner", "toss-up",
               "toss up", "neck and neck", "roughly equal", "essentially the same",
               "basically the same", "practically the same", "pretty much the same")

# -- polar facts: cue words asserting (or, negated, denying) a proposition -------------------

_POLAR_EN: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    # (asserting cues, cues that assert the opposite)
    "rain": (("rain", "raining", "rainy", "showers", "shower", "drizzle", "thunderstorms",
              "thunderstorm", "downpour", "downpours", "wet", "umbrella", "precipitation is",
              "precipitation expected", "rainfall"),
             ("dry", "no rain", "no precipitation", "stays dry", "stay dry", "rain-free",
              "without rain", "leave the umbrella", "won't need an umbrella",
              "don't need an umbrella", "no need for an umbrella", "not need an umbrella")),
    "created": (("created", "added", "scheduled", "booked", "put", "set up", "blocked",
                 "reserved", "on your calendar", "in your calendar", "to your calendar",
                 "now on", "is set", "all set", "done", "confirmed", "placed", "in its place",
                 "takes its place", "now sits", "replaced", "swapped in", "is in",
                 # the new event holding its slot: "X now occupies 10:30–11:30"
                 "now occupies", "occupies", "now fills", "now holds", "now takes"), ()),
    "deleted": (("deleted", "removed", "cancelled", "canceled", "taken off", "cleared",
                 "no longer on", "is gone", "done", "all set"), ()),
    "moved": (("moved", "rescheduled", "shifted", "pushed", "changed", "updated", "now starts",
               "now runs", "now at", "now from", "now on", "is now", "has been set",
               "done", "all set", "confirmed"), ()),
    "booked": (("booked", "scheduled", "made an appointment", "set up", "confirmed",
                "reserved", "arranged", "appointment is", "done", "all set"), ()),
    "ordered": (("ordered", "placed", "purchased", "bought", "order is confirmed",
                 "order confirmed", "order has been", "order number", "done", "all set",
                 "order is in", "order's in", "order is placed", "order went through"), ()),
    # the two drugs interact (at any severity but none)
    "interacts": (("interact", "interacts", "interacting", "do interact", "does interact",
                   "there is an interaction", "there's an interaction",
                   "has an interaction", "have an interaction", "is an interaction"),
                  ("no interaction", "no interactions", "no known interaction",
                   "no known interactions", "no significant interaction",
                   "no clinically significant interaction", "safe to combine",
                   "safe to take together", "severity none", "severity: none")),
    # the requested time was free (the branch of "if it's free ... otherwise ...")
    "free": (("free", "available", "open", "clear", "unbooked"),
             ("taken", "busy", "blocked", "occupied", "clash", "clashes",
              "conflict", "conflicts", "overlaps", "not free", "unavailable")),
}
_POLAR_EN["found"] = (
    ("free", "available", "open", "you can fit", "fits", "can fit"),
    ("fully booked", "no free", "no gap", "no gaps", "no slot", "no slots", "no opening",
     "nothing free", "booked solid", "no availability", "couldn't find", "could not find",
     "completely booked", "no room"))


def _merged(english: dict[str, tuple[tuple[str, ...], tuple[str, ...]]],
            other: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]
            ) -> dict[str, tuple[tuple[str, ...], tuple[str, ...]]]:
    """The English cues with those of other languages (`_languages`) after them."""
    return {k: (pos + other.get(k, ((), ()))[0], neg + other.get(k, ((), ()))[1])
            for k, (pos, neg) in english.items()}


# comparatives that are verbs: the option after them lost ("Madrid beats Sydney")
TRANSITIVE_CUES = frozenset({"beats", "edges out", "tops", "outdoes", "wins over",
                             "undercuts"})
_DECISION_EN["warmer"] = (_DECISION_EN["warmer"][0] + ("edges out", "tops", "outdoes"),
                          _DECISION_EN["warmer"][1])
_DECISION_EN["cheaper"] = (_DECISION_EN["cheaper"][0] + ("undercuts",),
                           _DECISION_EN["cheaper"][1])
DECISION_CUES = _merged(_DECISION_EN, {
    "warmer": (lang.WARMER, lang.COOLER), "warmest": (lang.WARMER, lang.COOLER),
    "cheaper": (lang.CHEAPER, lang.DEARER), "cheapest": (lang.CHEAPER, lang.DEARER),
    "best_rated": (lang.BEST_RATED, ()), "driest": (lang.DRIEST, ())})
POLAR_CUES = _merged(_POLAR_EN, {
    # every word for a rainy condition, in any language, says it rains ("temporali")
    "rain": (lang.RAIN + lang.RAIN_VERBS + tuple(
        w for w, v in lang.CONDITIONS.items()
        if v in ("light rain", "rain", "heavy rain", "thunderstorms")),
             lang.NO_RAIN),
    "created": (lang.CREATED + lang.DONE, ()), "deleted": (lang.DELETED + lang.DONE, ()),
    "moved": (lang.MOVED + lang.DONE, ()), "booked": (lang.BOOKED + lang.DONE, ()),
    "ordered": (lang.ORDERED + lang.DONE, ()),
    "interacts": (lang.INTERACTS, lang.NO_INTERACTION)})
# the verbs of an action that name what it was done to ("removed the Dentist"), and of a
# replacement, which deletes one event and creates another ("Replaced A with B", "A → B")
ACTION_VERBS: dict[str, tuple[str, ...]] = {
    "deleted": ("deleted", "removed", "cancelled", "canceled", "taken off", "cleared"),
    "moved": ("moved", "rescheduled", "shifted", "pushed"),
    "created": ("created", "added", "scheduled", "booked", "put"),
    "booked": ("booked", "scheduled", "made an appointment"),
    "ordered": ("ordered", "purchased", "bought"),
}
REPLACE_CUES = ("replaced", "swapped", "switched", "substituted", "exchanged")
# a cue right after these words names the topic, not a claim ("I checked for interactions")
TOPIC_WORDS = frozenset({"check", "checked", "checking", "for", "any", "about", "possible",
                         "potential", "whether", "known"})
# "free slot", "open window": a noun phrase about free time, not a claim about the slot asked
FREE_NOUNS = frozenset({"slot", "slots", "time", "times", "window", "windows", "spot", "spots",
                        "opening", "openings", "interval", "intervals", "period", "gap", "gaps",
                        "block", "blocks"})

# a group's items are claimed only in a sentence that speaks of the list
GROUP_CUES: dict[str, tuple[str, ...]] = {
    "medications": ("take", "taking", "takes", "on ", "prescri", "medication", "meds", "drug",
                    "current", "regimen", *lang.MEDICATION_CUES),
    "allergies": ("allerg", "nkda", "intoleran", "reaction", *lang.ALLERGY_CUES),
    "doctors": ("dr", "doctor", "available", "working", "on duty", "specialist", "physician",
                "cardiolog", "neurolog", "dermatolog", "practice", "gp", "see "),
    "events": (),
}

# -- words that change what a nearby claim says --------------------------------------------

NEGATIONS = frozenset({
    "not", "no", "never", "without", "neither", "nor", "none", "isn't", "aren't", "wasn't",
    "weren't", "won't", "doesn't", "don't", "didn't", "can't", "cannot", "couldn't",
    "shouldn't", "wouldn't", "hasn't", "haven't", "hadn't", "unable", "failed", "fails",
    "nothing", "nobody", "isnt", "doesnt", "dont", "didnt", "cant", "couldnt", "wasnt",
    "hasnt", "havent", "wont",
}) | lang.NEGATIONS
# words that make a clause a question, an offer or a hypothesis rather than a statement
NOT_ASSERTED = (
    "would you like", "shall i", "should i", "do you want", "want me to", "i can ", "i could",
    "i will", "i'll", "i am going to", "i'm going to", "let me know", "if you'd like",
    "if you want", "would ", "could you", "please confirm", "can you confirm", " if ",
    "whether", "once you", "before i",
)
# hedges that make a mention a possibility, not a statement ("a chance of rain")
HEDGES = ("chance", "chances", "possible", "possibly", "might", "may", "could", "perhaps",
          "maybe", "probability", "likelihood", "potential", *lang.HEDGES)
