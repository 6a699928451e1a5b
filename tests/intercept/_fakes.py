"""A tiny deterministic domain, a scripted model and trace builders for interceptor tests."""

from __future__ import annotations

from typing import Any

from agentprop.agent import AgentHooks, run_episode
from agentprop.core import (
    FinalEvent,
    Message,
    ModelCallEvent,
    ModelOutput,
    Task,
    ToolCall,
    ToolResultEvent,
    ToolSpec,
    Trace,
    TraceEvent,
    WorkUnit,
)
from agentprop.domains import Domain, Tool
from agentprop.models import GenerateConfig
from agentprop.testing import ScriptedModel


def _weather(state: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    return {"city": args["city"], "date": args["date"], "temp_c": 14.6, "rain_mm": 3,
            "wind_kmh": 20}


class TinyWeather(Domain):
    name = "tinyweather"

    def build_tools(self) -> list[Tool]:
        schema = {
            "type": "object",
            "properties": {
                "city": {"type": "string", "minLength": 2},
                "date": {"type": "string", "format": "date"},
            },
            "required": ["city", "date"],
            "additionalProperties": False,
        }
        return [Tool(ToolSpec(name="weather", description="Forecast.", parameters=schema),
                     _weather)]


TASK = Task(
    id="tw-1", domain="tinyweather", split="val", difficulty="easy", intent="forecast",
    query="What is the weather in Paris on 2025-06-17 for my 3 meetings?",
    tools=["weather"], env_seed=1,
    gold_plan=[ToolCall(name="weather", arguments={"city": "Paris", "date": "2025-06-17"})],
    reference_answer="14.6 °C in Paris.",
)


def call(city: str = "Paris", date: str = "2025-06-17", text: str | None = None,
         reasoning: str | None = None) -> ModelOutput:
    return ModelOutput(
        text=text, reasoning=reasoning,
        tool_calls=[ToolCall(id="c1", name="weather", arguments={"city": city, "date": date})],
    )


def answer(text: str, reasoning: str | None = None) -> ModelOutput:
    return ModelOutput(text=text, reasoning=reasoning)


async def run(script: list[ModelOutput], hooks: list[AgentHooks], arm: str = "") -> Trace:
    unit = WorkUnit(run_id="r", model="fake/scripted", task_id=TASK.id, arm=arm)
    domain = TinyWeather()
    return await run_episode(unit, TASK, ScriptedModel(script), hooks, GenerateConfig(),
                             domain.make_env(1))


def trace_of(events: list[TraceEvent], *, tid: str = "t", query: str = TASK.query,
             status: str = "ok") -> Trace:
    """A hand-built trace (no agent loop)."""
    return Trace(
        id=tid, run_id="r", model="m", task_id=TASK.id, domain="tinyweather", split="val",
        difficulty="easy", status=status,  # type: ignore[arg-type]
        messages=[Message(role="system", content="Today is Monday, 2025-06-16."),
                  Message(role="user", content=query)],
        events=events,
    )


def episode(
    answer_text: str,
    observations: list[dict[str, Any]] | None = None,
    reasoning: str | None = None,
    *,
    tid: str = "t",
) -> Trace:
    """A trace: one model call per observation (with `reasoning` beside the first), then
    the answer."""
    events: list[TraceEvent] = []
    for i, obs in enumerate(observations or []):
        events.append(ModelCallEvent(step=i, request_hash="h", output=call(
            text=reasoning if i == 0 else None)))
        events.append(ToolResultEvent(step=i, call_id="c1", name="weather",
                                      arguments={}, observation=obs))
    n = len(observations or [])
    events.append(ModelCallEvent(step=n, request_hash="h", output=answer(answer_text)))
    events.append(FinalEvent(step=n, answer=answer_text))
    return trace_of(events, tid=tid)


OBS = {"city": "Paris", "date": "2025-06-17", "temp_c": 14.6, "rain_mm": 3, "wind_kmh": 20}
VALIDATION = {"error": {"type": "validation", "message": "bad date", "param": "date"}}
NOT_FOUND = {"error": {"type": "not_found", "message": "no such city", "param": "city"}}
