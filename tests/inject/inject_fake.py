"""A tiny local domain and a scripted model, so the injector is tested without the real
domains or the sim agents."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from agentprop import testing
from agentprop.core import Task, ToolCall, ToolSpec
from agentprop.domains import Domain, DomainError, Environment, Tool

CITIES = ["London", "Paris", "Berlin", "Madrid", "Oslo"]


def _forecast(state: Any, args: dict[str, Any]) -> dict[str, Any]:
    if args["city"] not in CITIES:
        raise DomainError("not_found", f"unknown city {args['city']!r}", "city")
    temp = (len(args["city"]) * 3 + int(args["date"][-2:])) % 30
    return {"city": args["city"], "date": args["date"], "days": args.get("days", 1),
            "unit": args.get("unit", "celsius"), "temp": temp}


def _ping(state: Any, args: dict[str, Any]) -> dict[str, Any]:
    return {"pong": True}


class FakeDomain(Domain):
    name = "fake"

    def build_tools(self) -> list[Tool]:
        forecast = ToolSpec(
            name="forecast",
            description="Weather forecast",
            parameters={
                "type": "object",
                "properties": {
                    "city": {"type": "string", "minLength": 1},
                    "date": {"type": "string", "format": "date"},
                    "days": {"type": "integer", "minimum": 1, "maximum": 7},
                    "unit": {"type": "string", "enum": ["celsius", "fahrenheit"]},
                },
                "required": ["city", "date"],
                "additionalProperties": False,
            },
            critical_params={"city": "city", "date": "date"},
        )
        ping = ToolSpec(
            name="ping", description="No parameters",
            parameters={"type": "object", "properties": {}, "additionalProperties": False},
        )
        return [Tool(forecast, _forecast), Tool(ping, _ping)]

    def alternative(self, kind: str, value: Any, rng: random.Random, env: Environment) -> Any:
        if kind == "city":
            return rng.choice([c for c in CITIES if c != value])
        if kind == "date":
            day = int(str(value)[-2:]) if str(value)[-2:].isdigit() else 1
            return f"2025-06-{(day % 28) + 1:02d}"
        raise KeyError(kind)


class NotInjectable(FakeDomain):
    name = "fake_knowledge"
    injectable = False


def make_task(domain: str = "fake", tools: Sequence[str] = ("forecast", "ping")) -> Task:
    return Task(
        id=f"{domain}_0001", domain=domain, split="test", difficulty="easy", intent="forecast",
        query="Weather in London on 2025-06-17?", tools=list(tools), env_seed=1,
        gold_plan=[ToolCall(name="forecast", arguments={"city": "London", "date": "2025-06-17"})],
        reference_answer="",
    )


def ScriptedModel(turns: list[list[ToolCall] | str]) -> testing.ScriptedModel:
    """Plays a fixed list of turns (tool calls, or a str final answer), then "done"."""
    return testing.ScriptedModel(turns, model_id="sim/scripted", after="done")
