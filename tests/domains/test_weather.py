"""Weather tools: schema validation, typed domain errors, determinism, plausible climate."""

from __future__ import annotations

import random
from typing import Any

import pytest

from agentprop.domains import Environment, is_error
from agentprop.domains.weather import CITIES, REFERENCE_DATE, WeatherDomain, city_names

DOM = WeatherDomain()

VALID: dict[str, dict[str, Any]] = {
    "get_weather": {"city": "London", "date": "2025-06-17"},
    "get_forecast": {"city": "Tokyo", "days": 5, "unit": "fahrenheit"},
    "get_historical": {"city": "Paris", "start_date": "2025-06-01", "end_date": "2025-06-07"},
    "compare_weather": {"city_a": "Oslo", "city_b": "Madrid", "date": "2025-06-18"},
    "get_climate": {"city": "Cairo", "month": 8},
}


@pytest.fixture
def env() -> Environment:
    return DOM.make_env(0)


def test_tools_and_critical_params_are_declared() -> None:
    assert {t.name for t in DOM.tools} == set(VALID)
    assert len(CITIES) == 40 and len(set(city_names())) == 40
    for t in DOM.tools:
        schema = t.spec.parameters
        assert schema["additionalProperties"] is False
        assert set(t.spec.critical_params) <= set(schema["properties"])
        assert set(schema["required"]) & set(t.spec.critical_params)


@pytest.mark.parametrize("tool", sorted(VALID))
def test_valid_call_echoes_its_arguments(env: Environment, tool: str) -> None:
    args = VALID[tool]
    obs = env.call(tool, args)
    assert not is_error(obs), obs
    for k, v in args.items():
        assert obs[k] == v, (k, obs.get(k))
    assert obs["unit"] == args.get("unit", "celsius")


@pytest.mark.parametrize(
    ("tool", "args", "param"),
    [
        ("get_weather", {"city": 42, "date": "2025-06-17"}, "city"),  # wrong type
        ("get_weather", {"city": "London", "date": "17/06/2025"}, "date"),  # bad format
        ("get_weather", {"city": "London", "date": "2025-02-30"}, "date"),  # impossible date
        ("get_weather", {"city": "London", "date": "2025-06-17", "unit": "kelvin"}, "unit"),
        ("get_weather", {"city": "London"}, "date"),  # missing required
        ("get_weather", {"city": "London", "date": "2025-06-17", "country": "UK"}, "country"),
        ("get_forecast", {"city": "Tokyo", "days": 0}, "days"),  # out of range
        ("get_forecast", {"city": "Tokyo", "days": 15}, "days"),
        ("get_forecast", {"city": "Tokyo", "days": "5"}, "days"),
        ("get_forecast", {"days": 5}, "city"),
        ("get_historical", {"city": "Paris", "start_date": "2025-06-01"}, "end_date"),
        ("get_historical", {"city": "Paris", "start_date": "June 1", "end_date": "2025-06-07"},
         "start_date"),
        ("compare_weather", {"city_a": "Oslo", "city_b": ["Madrid"], "date": "2025-06-18"},
         "city_b"),
        ("get_climate", {"city": "Cairo", "month": 13}, "month"),
        ("get_climate", {"city": "Cairo", "month": 1.5}, "month"),
    ],
)
def test_invalid_arguments_give_a_validation_error(
    env: Environment, tool: str, args: dict[str, Any], param: str
) -> None:
    obs = env.call(tool, args)
    assert obs["error"]["type"] == "validation", obs
    assert obs["error"]["param"] == param
    assert obs["error"]["message"]


def test_non_object_arguments_are_a_validation_error(env: Environment) -> None:
    assert env.call("get_weather", ["London"])["error"]["type"] == "validation"


@pytest.mark.parametrize(
    ("tool", "args", "etype", "param"),
    [
        ("get_weather", {"city": "Atlantis", "date": "2025-06-17"}, "not_found", "city"),
        ("compare_weather", {"city_a": "Oslo", "city_b": "Gotham", "date": "2025-06-17"},
         "not_found", "city_b"),
        ("get_weather", {"city": "London", "date": "2025-07-15"}, "out_of_range", "date"),
        ("get_weather", {"city": "London", "date": "1980-01-01"}, "out_of_range", "date"),
        ("get_historical", {"city": "Paris", "start_date": "2025-06-07",
                            "end_date": "2025-06-01"}, "invalid_range", "end_date"),
        ("get_historical", {"city": "Paris", "start_date": "2025-04-01",
                            "end_date": "2025-06-01"}, "out_of_range", "end_date"),
        ("get_historical", {"city": "Paris", "start_date": "2025-06-10",
                            "end_date": "2025-06-20"}, "out_of_range", "end_date"),
    ],
)
def test_domain_errors_are_typed(
    env: Environment, tool: str, args: dict[str, Any], etype: str, param: str
) -> None:
    obs = env.call(tool, args)
    assert obs["error"]["type"] == etype and obs["error"]["param"] == param, obs


def test_values_are_deterministic_and_independent_of_the_episode() -> None:
    a = DOM.make_env(1).call("get_weather", VALID["get_weather"])
    b = DOM.make_env(999).call("get_weather", VALID["get_weather"])
    assert a == b
    other = DOM.make_env(1).call("get_weather", {"city": "London", "date": "2025-06-18"})
    assert other != a
    env = DOM.make_env(3)
    env.call("get_forecast", {"city": "Rome", "days": 14})
    assert env.state == {} and env.copy().state == {}


def test_city_lookup_is_case_insensitive_and_echoes_the_canonical_name(env: Environment) -> None:
    obs = env.call("get_weather", {"city": "  new YORK ", "date": REFERENCE_DATE})
    assert obs["city"] == "New York" and obs["kind"] == "today"


def _mean_july(city: str) -> float:
    env = DOM.make_env(0)
    obs = env.call("get_historical", {"city": city, "start_date": "2024-07-01",
                                      "end_date": "2024-07-31"})
    return float(obs["summary"]["mean_temperature"])


def test_climate_is_plausible() -> None:
    assert _mean_july("Dubai") > _mean_july("Madrid") > _mean_july("Oslo") > _mean_july("Reykjavik")
    env = DOM.make_env(0)
    jan = env.call("get_historical", {"city": "Sydney", "start_date": "2025-01-01",
                                      "end_date": "2025-01-31"})["summary"]
    jul = env.call("get_historical", {"city": "Sydney", "start_date": "2024-07-01",
                                      "end_date": "2024-07-31"})["summary"]
    assert jan["mean_temperature"] > jul["mean_temperature"] + 5  # southern-hemisphere winter
    dry = env.call("get_historical", {"city": "Cairo", "start_date": "2024-07-01",
                                      "end_date": "2024-07-31"})["summary"]
    wet = env.call("get_historical", {"city": "Mumbai", "start_date": "2024-07-01",
                                      "end_date": "2024-07-31"})["summary"]
    assert dry["rainy_days"] <= 2 < 10 <= wet["rainy_days"]
    assert wet["total_precipitation_mm"] > 200


def test_conditions_are_consistent_with_precipitation_and_temperatures() -> None:
    env = DOM.make_env(0)
    for city in ("London", "Moscow", "Singapore", "Dubai", "Vancouver"):
        for start, end in (("2024-01-01", "2024-01-31"), ("2024-07-01", "2024-07-31")):
            obs = env.call("get_historical", {"city": city, "start_date": start,
                                              "end_date": end})
            for day in obs["days"]:
                wet = day["precipitation_mm"] > 0
                dry_words = ("sunny", "partly cloudy", "cloudy")
                assert (day["condition"] not in dry_words) == wet, (city, day)
                if "snow" in day["condition"]:
                    assert day["temperature"] <= 0.5
                assert day["temp_low"] <= day["temperature"] <= day["temp_high"]
                assert 0 <= day["humidity"] <= 100


def test_forecast_agrees_with_single_day_lookups_and_starts_today(env: Environment) -> None:
    fc = env.call("get_forecast", {"city": "Berlin", "days": 4})
    assert fc["start_date"] == REFERENCE_DATE and len(fc["forecast"]) == 4
    for day in fc["forecast"]:
        single = env.call("get_weather", {"city": "Berlin", "date": day["date"]})
        assert single["temperature"] == day["temperature"]
        assert single["condition"] == day["condition"]


def test_fahrenheit_is_converted(env: Environment) -> None:
    c = env.call("get_weather", {"city": "Rome", "date": "2025-06-16"})
    f = env.call("get_weather", {"city": "Rome", "date": "2025-06-16", "unit": "fahrenheit"})
    assert f["unit"] == "fahrenheit"
    assert abs(f["temperature"] - (c["temperature"] * 9 / 5 + 32)) < 0.3


def test_compare_names_the_warmer_city(env: Environment) -> None:
    obs = env.call("compare_weather", {"city_a": "Oslo", "city_b": "Dubai",
                                       "date": "2025-06-20"})
    assert obs["warmer"] == "Dubai"
    assert obs["difference"] == pytest.approx(obs["b"]["temperature"] - obs["a"]["temperature"],
                                              abs=0.11)


@pytest.mark.parametrize(
    ("tool", "param", "kind"),
    [("get_weather", "city", "city"), ("get_weather", "date", "date"),
     ("get_forecast", "days", "days"), ("get_forecast", "unit", "unit"),
     ("get_historical", "start_date", "date"), ("compare_weather", "city_b", "city"),
     ("get_climate", "month", "month")],
)
def test_alternative_differs_and_passes_the_schema(
    env: Environment, tool: str, param: str, kind: str
) -> None:
    t = DOM.tool(tool)
    assert t is not None and t.spec.critical_params[param] == kind
    args = dict(VALID[tool])
    args.setdefault(param, "celsius")
    rng = random.Random(5)
    for _ in range(30):
        alt = DOM.alternative(kind, args[param], rng, env)
        assert alt != args[param]
        assert t.validate({**args, param: alt}) is None
    if kind == "city":
        assert DOM.alternative("city", "London", rng, env) in city_names()


def test_alternative_rejects_unknown_kinds(env: Environment) -> None:
    with pytest.raises(KeyError):
        DOM.alternative("patient_id", "P1", random.Random(0), env)
