"""Weather tasks: current conditions, forecasts, history, climate, comparisons and branches.

Intents (difficulty): ``current_conditions``, ``weather_on_date``, ``forecast``,
``historical_summary``, ``climate_normal``, ``compare_direct`` (easy, one call);
``compare_cities``, ``forecast_then_detail``, ``historical_vs_climate`` (medium, two calls,
the second chained on the first's observation or the query); ``conditional_forecast``,
``rain_contingency``, ``warmest_of_three`` (hard: three or more calls, or a branch on an
observation). Each intent is one class below (`Intent`: phrasing and gold plan, conclusion,
chained steps, facts), registered in `INTENTS` in the order of the intent mix.

Facts: ``entity`` (city, warmer/winning city), ``date`` (ISO), ``text`` (condition),
``number`` (temperatures in "°C"/"°F" with tolerance 0.5/1.0, humidity "%", precipitation
"mm", rainy days "days", wind "km/h"). Numbers are printed with at most one decimal.

``Task.query_entities`` (set via the draft's ``meta``) maps
an observation echo key (``city``, ``date``,
``days``, ``start_date``, ``end_date``, ``month``, ``city_a``, ``city_b``, ``unit``) to the
value the query asked for, or to a list of acceptable values when the task looks up several
(e.g. ``{"city": ["Oslo", "Madrid"], "date": "2025-06-17", "unit": "celsius"}``); an
observation echoing another value under that key reveals a wrong argument.
``date_phrase`` is the date expression used in the query (``relative_date`` True when it is
relative to REFERENCE_DATE). Weather tasks never change state (``expected_state`` None).
"""

from __future__ import annotations

import random
from datetime import date
from typing import Any

from agentprop.core import REFERENCE_DATE, Fact, Task
from agentprop.domains import Observation, is_error
from agentprop.domains.weather import (
    MONTH_NAMES,
    UNIT_SYMBOL,
    WeatherDomain,
    city_aliases,
    city_names,
)
from agentprop.suite._draw import (
    Draft,
    GoldError,
    draw_tasks,
    fresh_attempts,
    schedule,
)
from agentprop.suite._generator import GENERATORS
from agentprop.suite._intent import Intent, IntentGenerator, Intents
from agentprop.suite._phrasing import (
    date_phrase,
    failure_sentence,
    iso,
    num,
    number_fact,
    tool_at,
)

TODAY = date.fromisoformat(REFERENCE_DATE)

# what the query phrasings ask for (fact key patterns)
_WEATHER = ["temperature", "condition"]
_WARMTH = ["temperature"]
_FORECAST = ["*.temperature", "*.condition"]
_BOTH = ["a.temperature", "b.temperature"]
_COND_NOUN = {"sunny": "sunny skies", "partly cloudy": "partly cloudy skies",
              "cloudy": "cloudy skies"}


# -- drawing queries --------------------------------------------------------------------------


def _unit(
    rng: random.Random, draft: Draft, sentence: bool = False
) -> tuple[dict[str, Any], str]:
    """Unit argument and query suffix: mostly the default, sometimes explicit. With
    `sentence` the suffix is its own sentence (for queries that end in a clause)."""
    r = rng.random()
    if r < 0.18:
        unit, args = "fahrenheit", {"unit": "fahrenheit"}
        suffix = rng.choice(
            [" Please give temperatures in Fahrenheit.", " Use °F."] if sentence
            else [" in Fahrenheit", " in °F", " (in Fahrenheit, please)"]
        )
    elif r < 0.26:
        unit, args = "celsius", {"unit": "celsius"}
        suffix = rng.choice(
            [" Please give temperatures in Celsius.", " Use °C."] if sentence
            else [" in Celsius", " in °C"]
        )
    else:
        unit, args, suffix = "celsius", {}, ""
    draft.meta.setdefault("query_entities", {})["unit"] = unit
    return args, suffix


def _entities(draft: Draft, **kv: object) -> None:
    draft.meta.setdefault("query_entities", {}).update(kv)


def _when(draft: Draft, rng: random.Random, offset: int, p_relative: float = 0.65) -> str:
    phrase, rel = date_phrase(rng, offset, p_relative)
    draft.meta["date_phrase"] = phrase
    draft.meta["relative_date"] = rel
    return phrase


def _cities(rng: random.Random, k: int) -> list[str]:
    return rng.sample(city_names(), k)


def _past_range(d: Draft, rng: random.Random) -> tuple[str, str, str]:
    """A past date range, its phrasing, and a one-month constraint is left to callers."""
    kind = rng.random()
    if kind < 0.2:
        s, e, phrase, rel = iso(-7), iso(-1), "last week", True
    elif kind < 0.35:
        s, e, phrase, rel = iso(-7), iso(-1), "over the past 7 days", True
    else:
        end = rng.randint(-25, -1)
        length = rng.randint(3, 14)
        s, e = iso(end - length + 1), iso(end)
        ds, de = date.fromisoformat(s), date.fromisoformat(e)
        phrase = rng.choice([
            f"from {s} to {e}",
            f"between {MONTH_NAMES[ds.month - 1]} {ds.day} and "
            f"{MONTH_NAMES[de.month - 1]} {de.day}",
        ])
        rel = False
    d.meta |= {"date_phrase": phrase, "relative_date": rel}
    return s, e, phrase


def _warmest_day(forecast: list[dict[str, Any]]) -> dict[str, Any]:
    return max(forecast, key=lambda day: (day["temperature"], -forecast.index(day)))


def _driest_day(forecast: list[dict[str, Any]]) -> dict[str, Any]:
    return min(forecast, key=lambda day: (day["precipitation_mm"],
                                          day.get("precipitation_probability", 0),
                                          forecast.index(day)))


# -- rendering observations -------------------------------------------------------------------


def _sym(obs: dict[str, Any], unit: str | None = None) -> str:
    return UNIT_SYMBOL.get(str(unit or obs.get("unit", "celsius")), "°C")


def _kind(o: Observation) -> str:
    if is_error(o):
        return "error"
    if "forecast" in o:
        return "forecast"
    if "summary" in o:
        return "historical"
    if "city_a" in o:
        return "compare"
    if "month" in o and "mean_temperature" in o:
        return "climate"
    if "temperature" in o and "date" in o:
        return "weather"
    return "unknown"


def _weather_sentence(o: dict[str, Any], unit: str | None = None) -> str:
    s = _sym(o, unit)
    verb = {"observed": "was", "today": "is"}.get(str(o.get("kind")), "will be")
    cond = str(o.get("condition", ""))
    prob = o.get("precipitation_probability")
    chance = f"{prob} % chance of precipitation, " if prob is not None else ""
    return (
        f"In {o.get('city', '?')} on {o.get('date', '?')} it {verb} {num(o['temperature'])} {s} "
        f"with {_COND_NOUN.get(cond, cond)} (high {num(o['temp_high'])} {s}, low "
        f"{num(o['temp_low'])} {s}; {num(o['precipitation_mm'])} mm precipitation, {chance}"
        f"humidity {o['humidity']} %, wind {o['wind_kph']} km/h)."
    )


def _forecast_sentence(o: dict[str, Any]) -> str:
    s = _sym(o)
    days = "; ".join(
        f"{day['date']}: {num(day['temperature'])} {s} (high {num(day['temp_high'])} {s}, "
        f"low {num(day['temp_low'])} {s}), {day['condition']}, "
        f"{num(day['precipitation_mm'])} mm, {day.get('precipitation_probability', 0)} % chance"
        f" of precipitation"
        for day in o["forecast"]
    )
    return f"Forecast for {o.get('city', '?')} from {o.get('start_date', '?')} " \
           f"({len(o['forecast'])} days): {days}."


def _historical_sentence(o: dict[str, Any]) -> str:
    s = _sym(o)
    sm = o["summary"]
    return (
        f"In {o.get('city', '?')} from {o.get('start_date', '?')} to {o.get('end_date', '?')} "
        f"the mean temperature was {num(sm['mean_temperature'])} {s} (max "
        f"{num(sm['max_temperature'])} {s}, min {num(sm['min_temperature'])} {s}), with "
        f"{num(sm['total_precipitation_mm'])} mm of precipitation over {sm['rainy_days']} "
        f"rainy days."
    )


def _climate_sentence(o: dict[str, Any]) -> str:
    s = _sym(o)
    return (
        f"In {o.get('city', '?')} in {o.get('month_name', o.get('month'))} the normal mean "
        f"temperature is {num(o['mean_temperature'])} {s} (average high "
        f"{num(o['mean_high'])} {s}, low {num(o['mean_low'])} {s}), with about "
        f"{num(o['precipitation_mm'])} mm of precipitation over {num(o['rainy_days'])} rainy "
        f"days; typically {o.get('typical_conditions', '')} ({o.get('climate', '')} climate)."
    )


def _compare_sentence(o: dict[str, Any]) -> str:
    s = _sym(o)
    first = _weather_sentence(o["a"], o.get("unit"))
    second = _weather_sentence(o["b"], o.get("unit"))
    if o.get("warmer") == "neither":
        verdict = f"{o['city_a']} and {o['city_b']} have the same temperature."
    else:
        verdict = f"{o['warmer']} is warmer by {num(o['difference'])} {s}."
    return f"{first} {second} {verdict}"


def _sentence(task: Task, i: int, o: Observation) -> str:
    k = _kind(o)
    try:
        if k == "error":
            return failure_sentence(tool_at(task, i), o)
        if k == "weather":
            return _weather_sentence(o)
        if k == "forecast":
            return _forecast_sentence(o)
        if k == "historical":
            return _historical_sentence(o)
        if k == "climate":
            return _climate_sentence(o)
        if k == "compare":
            return _compare_sentence(o)
    except (KeyError, TypeError, ValueError):
        pass
    return "The lookup returned an unexpected result."


def _ok(observations: list[Observation], kinds: list[str]) -> bool:
    return len(observations) >= len(kinds) and all(
        _kind(o) == k for o, k in zip(observations, kinds, strict=False)
    )


# -- facts ------------------------------------------------------------------------------------


def _tol(sym: str) -> float:
    """A temperature's own tolerance: conversion noise only; the answer's rounding (14 °C
    for 14.3) is allowed by the judge from the precision the answer shows."""
    return 0.2 if sym == "°F" else 0.1


def _city(name: object) -> list[str]:
    return [str(name), *city_aliases(str(name))]


def _day_facts(o: dict[str, Any], prefix: str, unit: str | None = None,
               about: dict[str, list[str]] | None = None) -> list[Fact]:
    """Every value a day's weather observation states, about its city and date (`about`
    overrides, e.g. a forecast day of the city the forecast is for). "How warm" is also
    answered by the day's high (`accepts`)."""
    s = _sym(o, unit)
    tol = _tol(s)
    ab = about or {"city": _city(o["city"]), "date": [str(o["date"])]}
    out = [
        Fact(kind="entity", key=f"{prefix}city", value=o["city"], about=ab),
        Fact(kind="date", key=f"{prefix}date", value=o["date"], about=ab),
        number_fact(f"{prefix}temperature", o["temperature"], s, tol, about=ab,
                    accepts=[o["temp_high"]] if o.get("kind", "forecast") == "forecast" else []),
        number_fact(f"{prefix}temp_high", o["temp_high"], s, tol, about=ab),
        number_fact(f"{prefix}temp_low", o["temp_low"], s, tol, about=ab),
        Fact(kind="text", key=f"{prefix}condition", value=o["condition"], about=ab,
             relation="condition"),
        number_fact(f"{prefix}precipitation_mm", o["precipitation_mm"], "mm", 0.05, about=ab),
    ]
    if o.get("precipitation_probability") is not None:
        out.append(number_fact(f"{prefix}precipitation_probability",
                               o["precipitation_probability"], "%", 0.5, about=ab))
    for key, unit_, tol_ in (("humidity", "%", 0.5), ("wind_kph", "km/h", 0.5)):
        if o.get(key) is not None:
            out.append(number_fact(f"{prefix}{key}", o[key], unit_, tol_, about=ab))
    return out


def _forecast_facts(o: dict[str, Any], prefix: str = "") -> list[Fact]:
    """Each forecast day's values, keyed ``<prefix><date>.<field>``."""
    out = [Fact(kind="entity", key=f"{prefix}city", value=o["city"],
                about={"city": _city(o["city"])})]
    for day in o["forecast"]:
        ab = {"city": _city(o["city"]), "date": [str(day["date"])]}
        out += [f for f in _day_facts({**day, "city": o["city"]}, f"{prefix}{day['date']}.",
                                      o.get("unit"), ab)
                if not f.key.endswith((".city", ".date"))]
    return out


def _historical_facts(h: dict[str, Any]) -> list[Fact]:
    s = _sym(h)
    tol = _tol(s)
    sm = h["summary"]
    ab = {"city": _city(h["city"])}
    out = [
        Fact(kind="entity", key="city", value=h["city"], about=ab),
        Fact(kind="date", key="start_date", value=h["start_date"], about=ab),
        Fact(kind="date", key="end_date", value=h["end_date"], about=ab),
        number_fact("mean_temperature", sm["mean_temperature"], s, tol, about=ab),
        number_fact("max_temperature", sm["max_temperature"], s, tol, about=ab),
        number_fact("min_temperature", sm["min_temperature"], s, tol, about=ab),
        number_fact("total_precipitation_mm", sm["total_precipitation_mm"], "mm", 0.05,
                    about=ab),
        number_fact("rainy_days", sm["rainy_days"], "rainy days", 0, about=ab),
    ]
    for day in h.get("days") or []:
        dab = {"city": _city(h["city"]), "date": [str(day["date"])]}
        out += [f for f in _day_facts({**day, "city": h["city"]}, f"day.{day['date']}.",
                                      h.get("unit"), dab)
                if f.key.endswith((".temperature", ".condition", ".precipitation_mm"))]
    return out


def _climate_facts(c: dict[str, Any], prefix: str = "") -> list[Fact]:
    s = _sym(c)
    tol = _tol(s)
    ab = {"city": _city(c["city"])}
    return [
        Fact(kind="entity", key=f"{prefix}city", value=c["city"], about=ab),
        number_fact(f"{prefix}mean_temperature", c["mean_temperature"], s, tol, about=ab,
                    accepts=[c["mean_high"]]),
        number_fact(f"{prefix}mean_high", c["mean_high"], s, tol, about=ab),
        number_fact(f"{prefix}mean_low", c["mean_low"], s, tol, about=ab),
        number_fact(f"{prefix}precipitation_mm", c["precipitation_mm"], "mm", 0.05, about=ab),
        number_fact(f"{prefix}rainy_days", c["rainy_days"], "rainy days", 0.5, about=ab),
    ]


def _rain_fact(w: dict[str, Any]) -> Fact:
    """Whether it rains that day (any precipitation)."""
    return Fact(kind="polar", key="rain", value=w["precipitation_mm"] > 0, relation="rain",
                about={"city": _city(w["city"]), "date": [str(w["date"])]})


def _decision(key: str, winner: str, options: list[str], relation: str,
              yes_option: str | None = None, ties: list[str] | None = None) -> Fact:
    """Which option wins; `ties` are the others that win as much (equally right)."""
    return Fact(kind="decision", key=key, value=winner, options=options, relation=relation,
                yes_option=yes_option, aliases=[t for t in ties or [] if t != winner])


def _warmer_fact(a: dict[str, Any], b: dict[str, Any], key: str, yes: bool,
                 tie_to_b: bool = False) -> list[Fact]:
    """Which of two cities is warmer (none on a tie, unless the task breaks ties to b)."""
    if a["temperature"] == b["temperature"] and not tie_to_b:
        return []
    w = a if a["temperature"] > b["temperature"] else b
    return [_decision(key, str(w["city"]), [str(a["city"]), str(b["city"])], "warmer",
                      str(a["city"]) if yes else None)]


def _difference(key: str, x: float, sym: str) -> Fact:
    return number_fact(key, abs(x), sym, _tol(sym), role="context")


# -- the intents ------------------------------------------------------------------------------
# Registered in the order of the intent mix (the schedule depends on it).

INTENTS: Intents[Intent] = Intents("weather", Intent)


@INTENTS.register
class CurrentConditions(Intent):
    """Today's weather in one city."""

    name, difficulty, weight = "current_conditions", "easy", 0.08

    def build(self, d: Draft, rng: random.Random) -> None:
        (city,) = _cities(rng, 1)
        uargs, u = _unit(rng, d)
        d.meta |= {"date_phrase": "today", "relative_date": True}
        d.ask(rng, [
            (f"What's the weather like in {city} today{u}?", _WEATHER),
            (f"How warm is it in {city} right now{u}?", _WARMTH),
            (f"Current conditions in {city}{u}, please.", _WEATHER),
            (f"Is it raining in {city} today? Give me the temperature too{u}.",
             ["rain", "temperature"]),
        ])
        _entities(d, city=city, date=REFERENCE_DATE)
        d.call("get_weather", {"city": city, "date": REFERENCE_DATE, **uargs})

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        if _ok(obs, ["weather"]):
            return [*_day_facts(obs[0], ""), _rain_fact(obs[0])]
        return []


@INTENTS.register
class WeatherOnDate(CurrentConditions):
    """One city's weather on a past or future day."""

    name, difficulty, weight = "weather_on_date", "easy", 0.10

    def build(self, d: Draft, rng: random.Random) -> None:
        (city,) = _cities(rng, 1)
        offset = rng.choice([*range(-10, 0), *range(1, 14), 1, 1, 2])
        uargs, u = _unit(rng, d)
        when = _when(d, rng, offset)
        if offset < 0:
            d.ask(rng, [
                (f"What was the weather in {city} {when}{u}?", _WEATHER),
                (f"How warm was it in {city} {when}{u}?", _WARMTH),
                (f"Tell me the weather in {city} {when}{u}.", _WEATHER),
            ])
        else:
            d.ask(rng, [
                (f"What will the weather be in {city} {when}{u}?", _WEATHER),
                (f"Weather for {city} {when}{u}, please.", _WEATHER),
                (f"How warm will it be in {city} {when}{u}?", _WARMTH),
                (f"Do I need an umbrella in {city} {when}? What's the forecast{u}?",
                 ["rain", *_WEATHER]),
            ])
        _entities(d, city=city, date=iso(offset))
        d.call("get_weather", {"city": city, "date": iso(offset), **uargs})


@INTENTS.register
class Forecast(Intent):
    """A city's forecast for the next n days."""

    name, difficulty, weight = "forecast", "easy", 0.08

    def build(self, d: Draft, rng: random.Random) -> None:
        (city,) = _cities(rng, 1)
        n = rng.choice([3, 3, 5, 5, 7, 10, 14])
        uargs, u = _unit(rng, d)
        d.ask(rng, [(q, _FORECAST) for q in (
            f"Give me the {n}-day forecast for {city}{u}.",
            f"What's the weather going to be in {city} over the next {n} days{u}?",
            f"Forecast for {city}, the next {n} days starting today{u}.",
            f"I'm in {city} for the next {n} days. What weather should I expect{u}?",
        )])
        d.meta |= {"date_phrase": f"the next {n} days", "relative_date": True}
        _entities(d, city=city, days=n)
        d.call("get_forecast", {"city": city, "days": n, **uargs})

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        return _forecast_facts(obs[0]) if _ok(obs, ["forecast"]) else []


@INTENTS.register
class HistoricalSummary(Intent):
    """A city's weather over a past date range."""

    name, difficulty, weight = "historical_summary", "easy", 0.05

    def build(self, d: Draft, rng: random.Random) -> None:
        (city,) = _cities(rng, 1)
        s, e, when = _past_range(d, rng)
        uargs, u = _unit(rng, d)
        d.ask(rng, [
            (f"What was the average temperature in {city} {when}{u}?", ["mean_temperature"]),
            (f"How much did it rain in {city} {when}, and how warm was it on average{u}?",
             ["total_precipitation_mm", "mean_temperature"]),
            (f"Summarise the weather in {city} {when}{u}.",
             ["mean_temperature", "total_precipitation_mm"]),
        ])
        _entities(d, city=city, start_date=s, end_date=e)
        d.call("get_historical", {"city": city, "start_date": s, "end_date": e, **uargs})

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        return _historical_facts(obs[0]) if _ok(obs, ["historical"]) else []


@INTENTS.register
class ClimateNormal(Intent):
    """A city's climate normal for a month."""

    name, difficulty, weight = "climate_normal", "easy", 0.05

    def build(self, d: Draft, rng: random.Random) -> None:
        (city,) = _cities(rng, 1)
        month = rng.randint(1, 12)
        m = MONTH_NAMES[month - 1]
        uargs, u = _unit(rng, d)
        d.ask(rng, [(q, ["mean_temperature"]) for q in (
            f"What's the typical weather in {city} in {m}{u}?",
            f"How warm is {city} usually in {m}{u}?",
            f"I'm planning a trip to {city} in {m}. What's the climate like then{u}?",
        )])
        d.meta |= {"date_phrase": m, "relative_date": False}
        _entities(d, city=city, month=month)
        d.call("get_climate", {"city": city, "month": month, **uargs})

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        return _climate_facts(obs[0]) if _ok(obs, ["climate"]) else []


@INTENTS.register
class CompareDirect(Intent):
    """Two cities on one day, through the one compare tool."""

    name, difficulty, weight = "compare_direct", "easy", 0.04

    def build(self, d: Draft, rng: random.Random) -> None:
        a, b = _cities(rng, 2)
        offset = rng.choice([0, 1, 1, 2, 3, 5, 7])
        uargs, u = _unit(rng, d)
        when = _when(d, rng, offset)
        d.ask(rng, [
            (f"Compare the weather in {a} and {b} {when}{u}.", _BOTH),
            (f"{a} vs {b} {when}: which is warmer{u}?", ["warmer_city"]),
            (f"How does the weather in {a} compare with {b} {when}{u}?", _BOTH),
        ])
        _entities(d, city_a=a, city_b=b, date=iso(offset))
        c = d.call("compare_weather", {"city_a": a, "city_b": b, "date": iso(offset), **uargs})
        if c["warmer"] == "neither":
            d.asks = _BOTH  # a tie has no warmer city: the two temperatures answer it

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        if not _ok(obs, ["compare"]):
            return []
        yes = bool(task.meta.get("yes_no"))  # the query is "Is A warmer than B?"
        c = obs[0]
        u = c.get("unit")
        out = [*_day_facts(c["a"], "a.", u), *_day_facts(c["b"], "b.", u)]
        out += _warmer_fact(c["a"], c["b"], "warmer_city", yes)
        out.append(_difference("difference", c["difference"], _sym(c)))
        return out


@INTENTS.register
class CompareCities(Intent):
    """Which of two cities is warmer on a day: one lookup each."""

    name, difficulty, weight = "compare_cities", "medium", 0.12

    def build(self, d: Draft, rng: random.Random) -> None:
        a, b = _cities(rng, 2)
        offset = rng.choice([0, 1, 1, 2, 3, 4, 6, 7])
        uargs, u = _unit(rng, d)
        when = _when(d, rng, offset)
        d.ask(rng, [
            (f"Which will be warmer {when}, {a} or {b}{u}?", ["warmer_city"]),
            (f"Is {a} warmer than {b} {when}? Give me both temperatures{u}.",
             ["warmer_city", *_BOTH]),
            (f"Check the weather in {a} and in {b} {when} and tell me where it's warmer{u}.",
             ["warmer_city"]),
        ])
        if d.query.startswith("Is "):
            d.meta["yes_no"] = True
        _entities(d, city=[a, b], date=iso(offset))
        ta = d.call("get_weather", {"city": a, "date": iso(offset), **uargs})["temperature"]
        tb = d.call("get_weather", {"city": b, "date": iso(offset), **uargs})["temperature"]
        if ta == tb:
            d.asks = _BOTH

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not _ok(obs, ["weather", "weather"]):
            return ""
        a, b = obs[0], obs[1]
        s = _sym(a)
        if a["temperature"] == b["temperature"]:
            return f"{a['city']} and {b['city']} will be equally warm."
        w, c = (a, b) if a["temperature"] > b["temperature"] else (b, a)
        return (f"So {w['city']} is warmer than {c['city']} by "
                f"{num(w['temperature'] - c['temperature'])} {s}.")

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        if not _ok(obs, ["weather", "weather"]):
            return []
        yes = bool(task.meta.get("yes_no"))
        a, b = obs[0], obs[1]
        return (_day_facts(a, "a.") + _day_facts(b, "b.") + _warmer_fact(a, b, "warmer_city", yes)
                + [_difference("difference", a["temperature"] - b["temperature"], _sym(a))])


@INTENTS.register
class ForecastThenDetail(Intent):
    """The warmest of the next n days, then that day's full conditions (chained)."""

    name, difficulty, weight = "forecast_then_detail", "medium", 0.12

    def build(self, d: Draft, rng: random.Random) -> None:
        (city,) = _cities(rng, 1)
        n = rng.choice([3, 4, 5, 7])
        uargs, u = _unit(rng, d, sentence=True)
        d.ask(rng, [
            (f"Which of the next {n} days will be warmest in {city}, and what are the humidity "
             f"and wind that day?{u}", ["warmest_date", "humidity", "wind_kph"]),
            (f"Find the warmest day in {city} over the next {n} days and give me the full "
             f"conditions for it.{u}", ["warmest_date", *_WEATHER]),
            (f"Over the next {n} days in {city}, when will it be hottest? Show me that day's "
             f"details.{u}", ["warmest_date", *_WEATHER]),
        ])
        d.meta |= {"date_phrase": f"the next {n} days", "relative_date": True}
        _entities(d, city=city, days=n)
        fc = d.call("get_forecast", {"city": city, "days": n, **uargs})
        best = _warmest_day(fc["forecast"])
        d.call("get_weather", {"city": city, "date": best["date"], **uargs})

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not _ok(obs, ["forecast"]):
            return ""
        best = _warmest_day(obs[0]["forecast"])
        return (f"The warmest of these days in {obs[0]['city']} is {best['date']} at "
                f"{num(best['temperature'])} {_sym(obs[0])}.")

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        if len(prev) != 1:
            return True
        if not _ok(prev, ["forecast"]):
            return False
        best = _warmest_day(prev[0]["forecast"])
        return bool(o.get("city") == prev[0]["city"] and o.get("date") == best["date"])

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        if not _ok(obs, ["forecast", "weather"]):
            return []
        fc, w = obs[0], obs[1]
        days = [str(d["date"]) for d in fc["forecast"]]
        best = _warmest_day(fc["forecast"])
        ties = [str(d["date"]) for d in fc["forecast"]
                if d["temperature"] == best["temperature"]]
        return [_decision("warmest_date", str(best["date"]), days, "warmest", ties=ties),
                *_day_facts(w, ""), *_forecast_facts(fc, "forecast.")]


@INTENTS.register
class HistoricalVsClimate(Intent):
    """A past range against the month's climate normal: warmer or cooler."""

    name, difficulty, weight = "historical_vs_climate", "medium", 0.11

    def build(self, d: Draft, rng: random.Random) -> None:
        (city,) = _cities(rng, 1)
        s, e, when = _past_range(d, rng)
        if s[:7] != e[:7]:
            # the normal is for one month: keep the range inside the month it ends in
            s = e[:8] + "01"
            ds, de = date.fromisoformat(s), date.fromisoformat(e)
            if (de - ds).days < 2:
                raise GoldError("range too short after clipping to one month")
            when = f"from {s} to {e}"
            d.meta |= {"date_phrase": when, "relative_date": False}
        month = date.fromisoformat(e).month
        m = MONTH_NAMES[month - 1]
        uargs, u = _unit(rng, d, sentence=True)
        d.ask(rng, [
            (f"Was {city} warmer or cooler than normal {when}?{u}", ["trend"]),
            (f"Compare the average temperature in {city} {when} with the usual {m} "
             f"average.{u}", ["mean_temperature", "normal_temperature"]),
            (f"How did the weather in {city} {when} compare to the climate normal for "
             f"{m}?{u}", ["trend"]),
        ])
        _entities(d, city=city, start_date=s, end_date=e, month=month)
        h = d.call("get_historical", {"city": city, "start_date": s, "end_date": e, **uargs})
        c = d.call("get_climate", {"city": city, "month": month, **uargs})
        if h["summary"]["mean_temperature"] == c["mean_temperature"]:
            d.asks = ["mean_temperature", "normal_temperature"]  # neither warmer nor cooler

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not _ok(obs, ["historical", "climate"]):
            return ""
        h, c = obs[0], obs[1]
        diff = h["summary"]["mean_temperature"] - c["mean_temperature"]
        rel = "warmer than" if diff > 0 else "cooler than" if diff < 0 else "the same as"
        return (f"So that period was {num(abs(diff))} {_sym(h)} {rel} the "
                f"{c.get('month_name', '')} normal.")

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        if not _ok(obs, ["historical", "climate"]):
            return []
        h, c = obs[0], obs[1]
        s = _sym(h)
        diff = h["summary"]["mean_temperature"] - c["mean_temperature"]
        out = [*_historical_facts(h),
               number_fact("normal_temperature", c["mean_temperature"], s, _tol(s),
                           about={"city": _city(c["city"])}),
               _difference("difference", diff, s),
               *(f for f in _climate_facts(c, "normal.")
                 if not f.key.endswith(("mean_temperature", ".city")))]
        if diff != 0:
            out.append(Fact(kind="text", key="trend", value="warmer" if diff > 0 else "cooler",
                            relation="trend", about={"city": _city(h["city"])}))
        return out


@INTENTS.register
class ConditionalForecast(Intent):
    """If A is warmer than B on a day, A's forecast, else B's (a branch)."""

    name, difficulty, weight = "conditional_forecast", "hard", 0.09

    def build(self, d: Draft, rng: random.Random) -> None:
        a, b = _cities(rng, 2)
        offset = rng.choice([1, 1, 1, 2, 3])
        n = rng.choice([3, 5, 7])
        uargs, u = _unit(rng, d, sentence=True)
        when = _when(d, rng, offset, p_relative=0.8)
        asks = ["chosen_city", "forecast.*.temperature", "forecast.*.condition"]
        d.ask(rng, [
            (f"Is it going to be warmer in {a} than in {b} {when}? If so, give me the {n}-day "
             f"forecast for {a}; otherwise the {n}-day forecast for {b}.{u}", asks),
            (f"If {a} is warmer than {b} {when}, show me {a}'s forecast for the next {n} "
             f"days, else {b}'s.{u}", asks),
            (f"Check whether {a} beats {b} on temperature {when}, then get the next {n} days "
             f"of forecast for whichever is warmer (on a tie, {b}).{u}", asks),
        ])
        if d.query.startswith("Is "):
            d.meta["yes_no"] = True
        _entities(d, city=[a, b], date=iso(offset), days=n)
        wa = d.call("get_weather", {"city": a, "date": iso(offset), **uargs})
        wb = d.call("get_weather", {"city": b, "date": iso(offset), **uargs})
        winner = a if wa["temperature"] > wb["temperature"] else b
        d.meta["branch"] = "first" if winner == a else "second"
        d.call("get_forecast", {"city": winner, "days": n, **uargs})

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not _ok(obs, ["weather", "weather"]):
            return ""
        a, b = obs[0], obs[1]
        winner = a if a["temperature"] > b["temperature"] else b
        if a["temperature"] > b["temperature"]:
            head = f"{a['city']} is warmer than {b['city']}"
        else:
            head = f"{a['city']} is not warmer than {b['city']}"
        return f"{head} on {a['date']}, so here is the forecast for {winner['city']}."

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        if len(prev) != 2:
            return True
        if not _ok(prev, ["weather", "weather"]):
            return False
        a, b = prev
        return bool(o.get("city") == (a if a["temperature"] > b["temperature"] else b)["city"])

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        if not _ok(obs, ["weather", "weather", "forecast"]):
            return []
        yes = bool(task.meta.get("yes_no"))
        a, b = obs[0], obs[1]
        return (_day_facts(a, "a.") + _day_facts(b, "b.")
                + _warmer_fact(a, b, "chosen_city", yes, tie_to_b=True)
                + _forecast_facts(obs[2], "forecast."))


@INTENTS.register
class RainContingency(Intent):
    """Will it rain on a day; if so, the driest of the next 7 days (a branch)."""

    name, difficulty, weight = "rain_contingency", "hard", 0.08

    def build(self, d: Draft, rng: random.Random) -> None:
        want_rain = rng.random() < 0.6
        for _ in range(40):
            (city,) = _cities(rng, 1)
            offset = rng.choice([0, 1, 1, 2, 3, 4, 5, 6])
            probe = d.env.call("get_weather", {"city": city, "date": iso(offset)})
            if (probe["precipitation_mm"] > 0) == want_rain:
                break
        uargs, u = _unit(rng, d, sentence=True)
        when = _when(d, rng, offset)
        d.ask(rng, [(q, ["rain", "driest_date"]) for q in (
            f"Will it rain in {city} {when}? If it does, which of the next 7 days will be the "
            f"driest?{u}",
            f"I want to go hiking near {city} {when}. If rain is expected, find me the driest "
            f"day in the next 7 days instead.{u}",
            f"Check whether there's precipitation in {city} {when}; if so, tell me the driest "
            f"day of the coming 7 days.{u}",
        )])
        _entities(d, city=city, date=iso(offset))
        w = d.call("get_weather", {"city": city, "date": iso(offset), **uargs})
        d.meta["branch"] = "rain" if w["precipitation_mm"] > 0 else "dry"
        if w["precipitation_mm"] > 0:
            d.call("get_forecast", {"city": city, "days": 7, **uargs})

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not _ok(obs, ["weather"]):
            return ""
        w = obs[0]
        if w["precipitation_mm"] <= 0:
            return f"No rain is expected in {w['city']} on {w['date']}, so you can go ahead."
        head = f"Yes, {num(w['precipitation_mm'])} mm of precipitation is expected in " \
               f"{w['city']} on {w['date']}."
        if _ok(obs, ["weather", "forecast"]):
            dry = _driest_day(obs[1]["forecast"])
            return (f"{head} The driest of the next {len(obs[1]['forecast'])} days is "
                    f"{dry['date']} with {num(dry['precipitation_mm'])} mm "
                    f"({dry.get('precipitation_probability', 0)} % chance).")
        return head

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        if len(prev) != 1:
            return True
        return bool(_ok(prev, ["weather"]) and prev[0]["precipitation_mm"] > 0
                    and o.get("city") == prev[0]["city"])

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        if not _ok(obs, ["weather"]):
            return []
        w = obs[0]
        out = [*_day_facts(w, ""), _rain_fact(w)]
        if _ok(obs, ["weather", "forecast"]):
            fc = obs[1]
            dry = _driest_day(fc["forecast"])
            ties = [str(d["date"]) for d in fc["forecast"]
                    if (d["precipitation_mm"], d.get("precipitation_probability", 0))
                    == (dry["precipitation_mm"], dry.get("precipitation_probability", 0))]
            out.append(_decision("driest_date", str(dry["date"]),
                                 [str(d["date"]) for d in fc["forecast"]], "driest", ties=ties))
            out += _forecast_facts(fc, "forecast.")
        return out


@INTENTS.register
class WarmestOfThree(Intent):
    """The warmest of three cities on a day, then its 3-day forecast."""

    name, difficulty, weight = "warmest_of_three", "hard", 0.08

    def build(self, d: Draft, rng: random.Random) -> None:
        cities = _cities(rng, 3)
        a, b, c = cities
        offset = rng.choice([0, 1, 1, 2, 3, 5])
        uargs, u = _unit(rng, d, sentence=True)
        when = _when(d, rng, offset)
        d.ask(rng, [(q, ["warmest_city", "forecast.*.temperature", "forecast.*.condition"])
                    for q in (
            f"Of {a}, {b} and {c}, which will be warmest {when}? Then give me the 3-day "
            f"forecast for that city.{u}",
            f"Check {a}, {b} and {c} {when}, pick the warmest, and show me its forecast for "
            f"the next 3 days.{u}",
            f"Where is it warmest {when}: {a}, {b} or {c}? I'd like the 3-day outlook for the "
            f"winner.{u}",
        )])
        _entities(d, city=cities, date=iso(offset), days=3)
        temps = [d.call("get_weather", {"city": x, "date": iso(offset), **uargs})["temperature"]
                 for x in cities]
        best = cities[temps.index(max(temps))]
        d.call("get_forecast", {"city": best, "days": 3, **uargs})

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not _ok(obs, ["weather", "weather", "weather"]):
            return ""
        best = max(obs[:3], key=lambda o: o["temperature"])
        return (f"The warmest of the three on {best['date']} is {best['city']} at "
                f"{num(best['temperature'])} {_sym(best)}.")

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        if len(prev) != 3:
            return True
        if not _ok(prev, ["weather", "weather", "weather"]):
            return False
        return bool(o.get("city") == max(prev, key=lambda w: w["temperature"])["city"])

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        if not _ok(obs, ["weather", "weather", "weather", "forecast"]):
            return []
        best = max(obs[:3], key=lambda o: o["temperature"])
        cities = [str(o["city"]) for o in obs[:3]]
        ties = [str(o["city"]) for o in obs[:3] if o["temperature"] == best["temperature"]]
        out = [_decision("warmest_city", str(best["city"]), cities, "warmest", ties=ties)]
        for k, o in enumerate(obs[:3], 1):
            out += _day_facts(o, f"c{k}.")
        return out + _forecast_facts(obs[3], "forecast.")


# -- the generator ----------------------------------------------------------------------------


@GENERATORS.register("weather")
class WeatherTaskGenerator(IntentGenerator):
    """Weather tasks whose gold plans are executed to ground the reference and its facts."""

    domain = "weather"
    intents = INTENTS
    nothing = "I could not look up the weather."

    def generate(self, n: int, seed: int) -> list[Task]:
        dom = WeatherDomain()
        plan = schedule(n, INTENTS.mix(), random.Random(f"weather-schedule:{seed}"))
        return draw_tasks(
            domain="weather", plan=plan,
            builders=INTENTS.builders(), tools=[t.name for t in dom.tools],
            make_env=dom.make_env, render=self.render_answer, facts=self.expected_facts,
            attempts=fresh_attempts(seed, "weather"), id_prefix="gold",
        )

    def sentence(self, task: Task, i: int, o: Observation) -> str:
        return _sentence(task, i, o)

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        if is_error(o):
            return True  # an error is reported as such
        try:
            return self.intents.get(task.intent).follows(task, prev, o)
        except (KeyError, TypeError, ValueError):
            return False


__all__ = ["INTENTS", "WeatherTaskGenerator"]
