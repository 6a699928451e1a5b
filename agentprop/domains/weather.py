"""The weather domain: 40 real cities, values a deterministic function of (city, date).

Each day's weather is hash-seeded noise around the city's monthly climate normals
(interpolated between months, temperature anomalies correlated over consecutive days,
precipitation drawn with the climatological rain-day frequency), so Dubai in July is hot and
dry, Oslo in January is freezing, and Sydney's June is winter. Conditions are consistent
with precipitation. The forecast starts from the suite's REFERENCE_DATE ("today"), never the
clock. The domain has no mutable state: every tool is a pure function of its arguments.

Observations echo the arguments they were computed from (``city``, ``date``,
``start_date``/``end_date``, ``unit``...), so a wrong argument is visible to the agent.
"""

from __future__ import annotations

import hashlib
import math
import random
from datetime import date, timedelta
from typing import Any

from agentprop.core import REFERENCE_DATE, ToolSpec
from agentprop.domains._base import (
    DOMAINS,
    Domain,
    DomainError,
    Environment,
    Observation,
    Tool,
    nearby_date,
)
from agentprop.domains._weather_data import CITIES, City

TODAY = date.fromisoformat(REFERENCE_DATE)
FORECAST_DAYS = 14
"""Forecasts cover today and the next 13 days."""
LAST_FORECAST_DATE = TODAY + timedelta(days=FORECAST_DAYS - 1)
FIRST_DATE = date(1990, 1, 1)
MAX_HISTORY_DAYS = 31
MONTH_NAMES = (
    "January", "February", "March", "April", "May", "June", "July", "August", "September",
    "October", "November", "December",
)
UNITS = ("celsius", "fahrenheit")
UNIT_SYMBOL = {"celsius": "°C", "fahrenheit": "°F"}

_BY_NAME: dict[str, City] = {c.name.lower(): c for c in CITIES}
_ALIASES = {"nyc": "new york", "new york city": "new york", "la": "los angeles",
            "rio": "rio de janeiro", "new delhi": "delhi", "bombay": "mumbai"}


def city_names() -> list[str]:
    """The names of every city the domain knows."""
    return [c.name for c in CITIES]


def city_aliases(name: str) -> list[str]:
    """Other names the domain accepts for a city ("NYC", "LA")."""
    key = name.lower()
    return [a.upper() if len(a) <= 3 else a.title() for a, c in _ALIASES.items() if c == key]


def find_city(name: str) -> City | None:
    key = " ".join(str(name).lower().split())
    key = _ALIASES.get(key, key)
    return _BY_NAME.get(key)


# -- the deterministic world ------------------------------------------------------------------


def _uniforms(key: str, n: int) -> list[float]:
    """`n` (≤ 16) uniforms in [0, 1) derived from `key`: the world's only source of noise."""
    d = hashlib.blake2b(key.encode(), digest_size=4 * n).digest()
    return [int.from_bytes(d[4 * i : 4 * i + 4], "big") / 2**32 for i in range(n)]


def _gauss(key: str) -> float:
    """An approximately standard-normal deviate (Irwin–Hall with 4 uniforms)."""
    u = _uniforms(key, 4)
    return (sum(u) - 2.0) * math.sqrt(3.0)


def _interp(values: tuple[float, ...], d: date) -> float:
    """Monthly normals interpolated linearly between month midpoints."""
    nxt = date(d.year + (d.month == 12), d.month % 12 + 1, 1)
    dim = (nxt - date(d.year, d.month, 1)).days
    x = (d.month - 1) + (d.day - 0.5) / dim - 0.5
    lo = math.floor(x)
    f = x - lo
    return values[lo % 12] * (1 - f) + values[(lo + 1) % 12] * f


def _r1(x: float) -> float:
    return round(x, 1) + 0.0  # + 0.0 turns -0.0 into 0.0


def _to_unit(celsius: float, unit: str) -> float:
    return _r1(celsius * 9 / 5 + 32 if unit == "fahrenheit" else celsius)


def day_weather(city: City, d: date) -> dict[str, Any]:
    """The weather of `city` on `d` in °C (unrounded temperatures), deterministic."""
    key = f"{city.name}|{d.isoformat()}"
    u = _uniforms(key, 8)
    amplitude = max(city.temps) - min(city.temps)
    sd = 1.0 + 0.11 * amplitude
    anomaly = sd * (
        0.62 * _gauss(key)
        + 0.55 * _gauss(f"{city.name}|{(d - timedelta(days=1)).isoformat()}")
        + 0.45 * _gauss(f"{city.name}|{(d - timedelta(days=2)).isoformat()}")
    ) / math.sqrt(0.62**2 + 0.55**2 + 0.45**2)
    normal = _interp(city.temps, d)
    rain_days = _interp(city.rain_days, d)
    p = min(0.95, max(0.005, rain_days / 30.4))
    rainy = u[0] < p
    amount = 0.0
    if rainy:
        per_day = _interp(city.precip_mm, d) / max(rain_days, 0.3)
        amount = max(0.3, -math.log(1.0 - u[1]) * per_day)
    t_mean = normal + anomaly - (1.2 if rainy else 0.0)
    spread = city.diurnal_range * (0.7 if rainy else 1.0) * (0.85 + 0.3 * u[2])
    if rainy:
        if t_mean <= 0.5:
            condition = "light snow" if amount < 3 else "snow"
        elif amount < 2.5:
            condition = "light rain"
        elif amount >= 15 and t_mean >= 20:
            condition = "thunderstorms"
        elif amount < 10:
            condition = "rain"
        else:
            condition = "heavy rain"
        prob = 55 + 40 * u[3]
    else:
        c = u[3] * (0.35 + p) + p * 0.6
        condition = "sunny" if c < 0.35 else "partly cloudy" if c < 0.6 else "cloudy"
        prob = min(45.0, p * 100 * (0.3 + 0.9 * u[4]))
    humidity = city.humidity + (12 if rainy else 0) + (u[5] - 0.5) * 16
    humidity -= 6 if condition == "sunny" else 0
    return {
        "temperature": t_mean,
        "temp_high": t_mean + spread / 2,
        "temp_low": t_mean - spread / 2,
        "condition": condition,
        "precipitation_mm": _r1(amount),
        "precipitation_probability": round(prob),
        "humidity": int(min(100, max(8, round(humidity)))),
        "wind_kph": round(6 + 24 * u[6] ** 1.5 + (8 if rainy else 0)),
    }


def _kind(d: date) -> str:
    return "observed" if d < TODAY else "today" if d == TODAY else "forecast"


def _day_obs(city: City, d: date, unit: str, with_city: bool) -> dict[str, Any]:
    w = day_weather(city, d)
    out: dict[str, Any] = {}
    if with_city:
        out |= {"city": city.name, "country": city.country}
    out |= {
        "date": d.isoformat(),
        "kind": _kind(d),
        "temperature": _to_unit(w["temperature"], unit),
        "temp_high": _to_unit(w["temp_high"], unit),
        "temp_low": _to_unit(w["temp_low"], unit),
        "condition": w["condition"],
        "precipitation_mm": w["precipitation_mm"],
    }
    if d >= TODAY:
        out["precipitation_probability"] = w["precipitation_probability"]
    out |= {"humidity": w["humidity"], "wind_kph": w["wind_kph"]}
    if with_city:
        out["unit"] = unit
    return out


# -- tools ------------------------------------------------------------------------------------


def _city(args: dict[str, Any], param: str = "city") -> City:
    c = find_city(args[param])
    if c is None:
        raise DomainError("not_found", f"unknown city {args[param]!r}", param)
    return c


def _date(args: dict[str, Any], param: str) -> date:
    try:
        return date.fromisoformat(args[param])
    except ValueError:  # the schema checks the format; this is only a safety net
        raise DomainError("validation", f"invalid date {args[param]!r}", param) from None


def _weather_date(args: dict[str, Any], param: str = "date") -> date:
    d = _date(args, param)
    if d < FIRST_DATE:
        raise DomainError(
            "out_of_range", f"no data before {FIRST_DATE.isoformat()} ({d.isoformat()})", param
        )
    if d > LAST_FORECAST_DATE:
        raise DomainError(
            "out_of_range",
            f"{d.isoformat()} is beyond the {FORECAST_DAYS}-day forecast horizon "
            f"(last forecast date {LAST_FORECAST_DATE.isoformat()})",
            param,
        )
    return d


def _get_weather(state: Any, args: dict[str, Any]) -> Observation:
    city = _city(args)
    d = _weather_date(args)
    return _day_obs(city, d, args.get("unit", "celsius"), with_city=True)


def _get_forecast(state: Any, args: dict[str, Any]) -> Observation:
    city = _city(args)
    days = int(args["days"])
    unit = args.get("unit", "celsius")
    return {
        "city": city.name,
        "country": city.country,
        "days": days,
        "start_date": TODAY.isoformat(),
        "unit": unit,
        "forecast": [
            _day_obs(city, TODAY + timedelta(days=i), unit, with_city=False) for i in range(days)
        ],
    }


def _get_historical(state: Any, args: dict[str, Any]) -> Observation:
    city = _city(args)
    start, end = _date(args, "start_date"), _date(args, "end_date")
    unit = args.get("unit", "celsius")
    if start < FIRST_DATE:
        raise DomainError("out_of_range", f"no data before {FIRST_DATE.isoformat()}", "start_date")
    if end < start:
        raise DomainError(
            "invalid_range",
            f"end_date {end.isoformat()} is before start_date {start.isoformat()}",
            "end_date",
        )
    if end > TODAY:
        raise DomainError(
            "out_of_range",
            f"historical data ends today ({TODAY.isoformat()}); got end_date {end.isoformat()}",
            "end_date",
        )
    n = (end - start).days + 1
    if n > MAX_HISTORY_DAYS:
        raise DomainError(
            "out_of_range", f"at most {MAX_HISTORY_DAYS} days per request (got {n})", "end_date"
        )
    days = [
        _day_obs(city, start + timedelta(days=i), unit, with_city=False) for i in range(n)
    ]
    raw = [day_weather(city, start + timedelta(days=i)) for i in range(n)]
    return {
        "city": city.name,
        "country": city.country,
        "start_date": start.isoformat(),
        "end_date": end.isoformat(),
        "unit": unit,
        "days": days,
        "summary": {
            "mean_temperature": _to_unit(sum(w["temperature"] for w in raw) / n, unit),
            "max_temperature": _to_unit(max(w["temp_high"] for w in raw), unit),
            "min_temperature": _to_unit(min(w["temp_low"] for w in raw), unit),
            "total_precipitation_mm": _r1(sum(w["precipitation_mm"] for w in raw)),
            "rainy_days": sum(1 for w in raw if w["precipitation_mm"] > 0),
        },
    }


def _compare_weather(state: Any, args: dict[str, Any]) -> Observation:
    a, b = _city(args, "city_a"), _city(args, "city_b")
    d = _weather_date(args)
    unit = args.get("unit", "celsius")
    wa = _day_obs(a, d, unit, with_city=True)
    wb = _day_obs(b, d, unit, with_city=True)
    diff = _r1(wa["temperature"] - wb["temperature"])
    warmer = a.name if diff > 0 else b.name if diff < 0 else "neither"
    return {
        "city_a": a.name,
        "city_b": b.name,
        "date": d.isoformat(),
        "unit": unit,
        "a": wa,
        "b": wb,
        "warmer": warmer,
        "difference": abs(diff),
    }


def _get_climate(state: Any, args: dict[str, Any]) -> Observation:
    city = _city(args)
    month = int(args["month"])
    unit = args.get("unit", "celsius")
    i = month - 1
    t = city.temps[i]
    rd = city.rain_days[i]
    typical = (
        ("snowy" if t <= 0 else "rainy") if rd >= 14
        else "mostly dry and sunny" if rd < 3
        else "mixed sun and showers" if rd < 9
        else "often cloudy with rain"
    )
    return {
        "city": city.name,
        "country": city.country,
        "month": month,
        "month_name": MONTH_NAMES[i],
        "unit": unit,
        "hemisphere": city.hemisphere,
        "climate": city.climate,
        "mean_temperature": _to_unit(t, unit),
        "mean_high": _to_unit(t + city.diurnal_range / 2, unit),
        "mean_low": _to_unit(t - city.diurnal_range / 2, unit),
        "precipitation_mm": _r1(city.precip_mm[i]),
        "rainy_days": _r1(rd),
        "typical_conditions": typical,
    }


_CITY = {"type": "string", "minLength": 1, "maxLength": 80,
         "description": "City name, e.g. 'London' or 'New York'"}
_DATE = {"type": "string", "format": "date", "description": "ISO date YYYY-MM-DD"}
_UNIT = {"type": "string", "enum": list(UNITS), "default": "celsius",
         "description": "Temperature unit (default celsius)"}


def _schema(props: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False}


@DOMAINS.register("weather")
class WeatherDomain(Domain):
    """Current weather, forecasts, history and climate normals for 40 real cities."""

    name = "weather"
    description = (
        f"Weather information for 40 major cities. Today is {REFERENCE_DATE}; forecasts cover "
        f"today and the next {FORECAST_DAYS - 1} days; history is available up to today."
    )

    def build_tools(self) -> list[Tool]:
        return [
            Tool(ToolSpec(
                name="get_weather",
                description="Weather for one city on one date (past: observed; today; or up "
                            f"to {FORECAST_DAYS - 1} days ahead: forecast).",
                parameters=_schema({"city": _CITY, "date": _DATE, "unit": _UNIT},
                                   ["city", "date"]),
                critical_params={"city": "city", "date": "date", "unit": "unit"},
            ), _get_weather),
            Tool(ToolSpec(
                name="get_forecast",
                description=f"Daily forecast for a city for the next `days` days starting "
                            f"today ({REFERENCE_DATE}).",
                parameters=_schema({
                    "city": _CITY,
                    "days": {"type": "integer", "minimum": 1, "maximum": FORECAST_DAYS,
                             "description": "Number of days, 1-14 (day 1 is today)"},
                    "unit": _UNIT,
                }, ["city", "days"]),
                critical_params={"city": "city", "days": "days", "unit": "unit"},
            ), _get_forecast),
            Tool(ToolSpec(
                name="get_historical",
                description=f"Observed daily weather for a city over a past date range "
                            f"(at most {MAX_HISTORY_DAYS} days, ending no later than today), "
                            "with a summary (mean/max/min temperature, total precipitation, "
                            "rainy days).",
                parameters=_schema({"city": _CITY, "start_date": _DATE, "end_date": _DATE,
                                    "unit": _UNIT}, ["city", "start_date", "end_date"]),
                critical_params={"city": "city", "start_date": "date", "end_date": "date",
                                 "unit": "unit"},
            ), _get_historical),
            Tool(ToolSpec(
                name="compare_weather",
                description="Compare the weather of two cities on one date.",
                parameters=_schema({"city_a": _CITY, "city_b": _CITY, "date": _DATE,
                                    "unit": _UNIT}, ["city_a", "city_b", "date"]),
                critical_params={"city_a": "city", "city_b": "city", "date": "date",
                                 "unit": "unit"},
            ), _compare_weather),
            Tool(ToolSpec(
                name="get_climate",
                description="Climate normals of a city for a calendar month (1-12).",
                parameters=_schema({
                    "city": _CITY,
                    "month": {"type": "integer", "minimum": 1, "maximum": 12,
                              "description": "Month number, 1 = January"},
                    "unit": _UNIT,
                }, ["city", "month"]),
                critical_params={"city": "city", "month": "month", "unit": "unit"},
            ), _get_climate),
        ]

    def alternative(self, kind: str, value: Any, rng: random.Random, env: Environment) -> Any:
        """Another real city, a date a few days away, the other unit, another day count or
        month: always schema-valid and different from `value`."""
        if kind == "city":
            current = find_city(str(value))
            return rng.choice([c.name for c in CITIES if c is not current])
        if kind == "date":
            return nearby_date(value, rng, TODAY)
        if kind == "unit":
            return "fahrenheit" if value == "celsius" else "celsius"
        if kind == "days":
            return rng.choice([d for d in range(1, FORECAST_DAYS + 1) if d != value])
        if kind == "month":
            return rng.choice([m for m in range(1, 13) if m != value])
        raise KeyError(kind)
