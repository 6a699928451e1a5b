"""A tiny hand-made suite, environment and generator for sim and HTTP-provider tests."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

from agentprop.core import Message, Task, ToolCall, ToolSpec
from agentprop.models import GenerateConfig, Model
from agentprop.suite import Suite

DOMAIN = "fakeweather"
CITIES = ["Paris", "Oslo", "Lima", "Cairo", "Quito", "Perth", "Dakar", "Hanoi"]
DATES = ["2025-06-17", "2025-06-18", "2025-06-19"]

TOOLS = [
    ToolSpec(name="get_weather", description="Weather for a city on a date.",
             parameters={"type": "object",
                         "properties": {"city": {"type": "string"}, "date": {"type": "string"}},
                         "required": ["city", "date"], "additionalProperties": False},
             critical_params={"city": "city", "date": "date"}),
    ToolSpec(name="get_alerts", description="Weather alerts for a city.",
             parameters={"type": "object", "properties": {"city": {"type": "string"}},
                         "required": ["city"], "additionalProperties": False},
             critical_params={"city": "city"}),
]


def _h(*parts: object) -> int:
    return int(hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:8], 16)


def execute(name: str, args: dict[str, Any]) -> dict[str, Any]:
    """The fake world: echoes its arguments, errors on invalid ones."""
    city = args.get("city")
    if not isinstance(city, str) or city not in CITIES:
        return {"error": {"type": "validation", "message": f"unknown city {city!r}",
                          "param": "city"}}
    if name == "get_weather":
        d = args.get("date")
        if d not in DATES:
            return {"error": {"type": "validation", "message": "bad date", "param": "date"}}
        return {"city": city, "date": d, "temperature": 5 + _h(city, d) % 25,
                "condition": ["sunny", "rain", "cloudy"][_h(d, city) % 3]}
    if name == "get_alerts":
        return {"city": city, "alerts": _h("alert", city) % 3}
    return {"error": {"type": "unknown_tool", "message": name}}


class FakeGenerator:
    domain = DOMAIN

    def render_answer(self, task: Task, observations: list[dict[str, Any]]) -> str:
        parts = []
        for obs in observations:
            if "error" in obs:
                parts.append(f"The weather service returned an error: {obs['error']['message']}.")
            elif "temperature" in obs:
                parts.append(f"In {obs['city']} on {obs['date']} it will be"
                             f" {obs['temperature']} °C and {obs['condition']}.")
            elif "alerts" in obs:
                parts.append(f"{obs['city']} has {obs['alerts']} active alerts.")
        return " ".join(parts) or "No data."


GENERATORS = {DOMAIN: FakeGenerator()}


def make_suite(n: int = 48) -> Suite:
    tasks = []
    for i in range(n):
        city, d = CITIES[i % len(CITIES)], DATES[i % len(DATES)]
        plan = [ToolCall(name="get_weather", arguments={"city": city, "date": d})]
        query = f"What is the weather in {city} on {d}?"
        if i % 3 == 2:
            plan.append(ToolCall(name="get_alerts", arguments={"city": city}))
            query = f"What is the weather in {city} on {d}, and are there alerts? (#{i})"
        else:
            query += f" (#{i})"
        obs = [execute(c.name, c.arguments) for c in plan]
        task = Task(id=f"{DOMAIN}_{i + 1:04d}", domain=DOMAIN, split="test",
                    difficulty="easy" if len(plan) == 1 else "medium", intent="weather",
                    query=query, tools=[t.name for t in TOOLS], env_seed=i, gold_plan=plan,
                    reference_answer="", query_entities={"city": city, "date": d})
        task.reference_answer = FakeGenerator().render_answer(task, obs)
        tasks.append(task)
    return Suite(tasks, seed=0)


Corrupt = Callable[[ToolCall], ToolCall]


def wrong_city(call: ToolCall) -> ToolCall:
    """A semantic_wrong-like corruption: another real city."""
    args = dict(call.arguments)
    args["city"] = CITIES[(CITIES.index(args["city"]) + 1) % len(CITIES)]
    return call.model_copy(update={"arguments": args})


async def run_fake_episode(model: Model, task: Task, *, seed: int = 0,
                           corrupt: Corrupt | None = None,
                           max_steps: int = 10) -> dict[str, Any]:
    """A minimal agent loop (the real one belongs to the runner): the first tool call may
    be corrupted, in the agent's history too, as P2 does by default."""
    messages = [Message(role="system", content="You are a helpful assistant."),
                Message(role="user", content=task.query)]
    calls: list[ToolCall] = []
    texts: list[str] = []
    injected = False
    for _ in range(max_steps):
        out = await model.generate(messages, TOOLS, GenerateConfig(seed=seed))
        if not out.tool_calls:
            return {"answer": out.text, "calls": calls, "texts": texts, "messages": messages}
        if out.text:
            texts.append(out.text)
        executed = []
        for c in out.tool_calls:
            if corrupt is not None and not injected:
                c = corrupt(c)
                injected = True
            executed.append(c)
        calls.extend(executed)
        messages.append(Message(role="assistant", content=out.text, tool_calls=executed))
        for c in executed:
            messages.append(Message(role="tool", tool_call_id=c.id, name=c.name,
                                    content=json.dumps(execute(c.name, c.arguments))))
    return {"answer": None, "calls": calls, "texts": texts, "messages": messages}
