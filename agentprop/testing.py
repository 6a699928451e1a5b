"""Shared test doubles, so tests (ours and a plugin's) do not hand-write their own: a tiny
deterministic domain, a scripted model, trace builders and a workspace fixture.

Everything here is offline and deterministic. `workspace` is a pytest fixture: importing this
module needs pytest (the `dev` extra); enable it with
``pytest_plugins = ["agentprop.testing"]`` or import the fixture into a conftest.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from agentprop.core import Message, ModelOutput, Task, ToolCall, ToolSpec, Trace, Verdict
from agentprop.domains import DOMAINS, Domain, Tool
from agentprop.models import GenerateConfig
from agentprop.store import Workspace

TINY = "tiny"
CITIES = ("Paris", "Oslo", "Rome", "Lima", "Cairo", "Quito", "Hanoi", "Accra")
CITY_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"city": {"type": "string", "minLength": 2}},
    "required": ["city"],
    "additionalProperties": False,
}


def tiny_temperature(city: str) -> int:
    """What the tiny domain's `lookup` returns for `city` (°C): a pure function of the name."""
    return len(city) * 3


def _lookup(state: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    return {"city": args["city"], "temp_c": tiny_temperature(args["city"])}


def _book(state: dict[str, Any], args: dict[str, Any]) -> dict[str, Any]:
    state["bookings"].append(args["city"])
    return {"city": args["city"], "booking_no": len(state["bookings"])}


class TinyDomain(Domain):
    """Two tools over cities: `lookup` (read-only weather) and `book` (mutates the state's
    bookings). Not injectable: it declares no critical parameters or alternatives."""

    name = TINY
    injectable = False

    def build_tools(self) -> list[Tool]:
        return [
            Tool(ToolSpec(name="lookup", description="Weather of a city.",
                          parameters=CITY_SCHEMA), _lookup),
            Tool(ToolSpec(name="book", description="Book a trip.", parameters=CITY_SCHEMA,
                          mutates=True), _book),
        ]

    def initial_state(self, seed: int) -> dict[str, Any]:
        return {"bookings": []}


def register_tiny_domain() -> None:
    """Register `TinyDomain` as ``tiny`` (idempotent), for code that looks domains up by
    name (the runner, `agentprop run` subprocesses)."""
    if TINY not in DOMAINS:
        DOMAINS.register(TINY)(TinyDomain)


def tiny_task(i: int = 1, city: str = "Paris", *, query: str | None = None,
              tools: Sequence[str] = ("lookup",), split: str = "test") -> Task:
    """A tiny-domain task asking for the weather in `city`; its gold plan is one lookup."""
    return Task(
        id=f"tiny-{i:03d}", domain=TINY, split=split, difficulty="easy",
        intent="weather", query=query or f"Task {i}: how warm is it in {city}?",
        tools=list(tools), env_seed=i,
        gold_plan=[ToolCall(name="lookup", arguments={"city": city})],
        reference_answer=f"{tiny_temperature(city)} C in {city}.",
    )


def tiny_tasks(n: int) -> list[Task]:
    """`n` tiny tasks cycling through `CITIES` (distinct ids and queries)."""
    return [tiny_task(i, CITIES[i % len(CITIES)]) for i in range(n)]


class ScriptedModel:
    """A Model that plays a script and records what it was sent.

    Each script item is a `ModelOutput`, an exception (raised, e.g. a `ModelError`), a str
    (a final answer) or a list of `ToolCall`s (one turn calling them). When the script is
    used up, `after` is played if given, else the last item repeats."""

    def __init__(self, script: Sequence[ModelOutput | Exception | str | list[ToolCall]], *,
                 model_id: str = "fake/scripted", after: str | ModelOutput | None = None,
                 simulated: bool = True) -> None:
        if not script and after is None:
            raise ValueError("a ScriptedModel needs a script or an `after` item")
        self.script = list(script)
        self.after = after
        self.model_id = model_id
        self.simulated = simulated
        self.calls = 0
        self.requests: list[tuple[list[Message], list[ToolSpec]]] = []

    @property
    def id(self) -> str:
        return self.model_id

    @property
    def seen(self) -> list[list[Message]]:
        """The messages of every request, in order."""
        return [messages for messages, _ in self.requests]

    async def generate(
        self, messages: list[Message], tools: list[ToolSpec], config: GenerateConfig
    ) -> ModelOutput:
        self.requests.append(([m.model_copy(deep=True) for m in messages], list(tools)))
        if self.calls < len(self.script):
            item = self.script[self.calls]
        else:
            item = self.after if self.after is not None else self.script[-1]
        self.calls += 1
        if isinstance(item, Exception):
            raise item
        if isinstance(item, str):
            return ModelOutput(text=item)
        if isinstance(item, list):
            return ModelOutput(tool_calls=item)
        return item


def workspace_with(path: Path, traces: Iterable[Trace] = (),
                   verdicts: Iterable[Verdict] = ()) -> Workspace:
    """A new workspace at `path` holding `traces` and `verdicts` (the caller closes it)."""
    ws = Workspace(path, create=True)
    traces = list(traces)
    if traces:
        ws.put_traces(traces)
    verdicts = list(verdicts)
    if verdicts:
        ws.put_verdicts(verdicts)
    return ws


@pytest.fixture
def workspace(tmp_path: Path) -> Iterator[Workspace]:
    """An empty workspace in the test's temp folder, closed afterwards."""
    ws = Workspace(tmp_path / "ws", create=True)
    try:
        yield ws
    finally:
        ws.close()


__all__ = [
    "CITIES",
    "TINY",
    "ScriptedModel",
    "TinyDomain",
    "register_tiny_domain",
    "tiny_task",
    "tiny_tasks",
    "tiny_temperature",
    "workspace",
    "workspace_with",
]
