"""Hand-made tasks and traces for the judge tests (no generators, no runner)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from agentprop.core import Fact, FinalEvent, Task, ToolResultEvent, Trace
from agentprop.suite import Suite


def make_task(tid: str, domain: str, query: str, reference: str, facts: Sequence[Fact],
              **kw: Any) -> Task:
    return Task(id=tid, domain=domain, split="test", difficulty="easy", intent="x",
                query=query, tools=[], env_seed=0, gold_plan=[], reference_answer=reference,
                expected_facts=list(facts), **kw)


def make_trace(tid: str, task: Task, answer: str | None, *, model: str = "sim/x",
               status: str = "ok", abstained: bool = False,
               observations: Sequence[dict[str, Any]] = (),
               calls: Sequence[tuple[str, dict[str, Any], dict[str, Any]]] = ()) -> Trace:
    """`observations`: results of a dummy tool; `calls`: (name, executed arguments,
    recorded observation) of real domain tools, which the state check replays."""
    steps = [("tool", {}, o) for o in observations] + list(calls)
    events: list[Any] = [
        ToolResultEvent(step=i, call_id=f"c{i}", name=n, arguments=a, observation=o)
        for i, (n, a, o) in enumerate(steps)
    ]
    if status == "ok":
        events.append(FinalEvent(step=len(events), answer=answer, abstained=abstained))
    return Trace(id=tid, run_id="r", model=model, task_id=task.id, domain=task.domain,
                 split=task.split, difficulty=task.difficulty, status=status,  # type: ignore[arg-type]
                 events=events)


WEATHER = make_task(
    "weather_0001", "weather", "What will the weather be in London tomorrow?",
    "Tomorrow (2025-06-17) in London: 14 °C with light rain.",
    [Fact(kind="entity", key="city", value="London", role="context",
          about={"city": ["London"]}),
     Fact(kind="date", key="date", value="2025-06-17", role="context"),
     Fact(kind="number", key="temperature", value=14.0, unit="C", tolerance=0.1,
          about={"city": ["London"], "date": ["2025-06-17"]}),
     Fact(kind="text", key="condition", value="light rain", relation="condition",
          about={"city": ["London"], "date": ["2025-06-17"]})],
)
MEDICAL = make_task(
    "medical_0001", "medical",
    "Is there an interaction between warfarin and aspirin for patient P0012?",
    "Patient P0012: warfarin + aspirin interaction, severity high (bleeding risk).",
    [Fact(kind="id", key="patient_id", value="P0012", role="context"),
     Fact(kind="entity", key="severity", value="high", relation="severity",
          about={"drug": ["warfarin", "aspirin"]})],
)
RETAIL = make_task(
    "retail_0001", "retail", "What is the total of order O-1042?",
    "Order O-1042 totals $74.97 for 1,250 loyalty points.",
    [Fact(kind="id", key="order_id", value="O-1042", role="context"),
     Fact(kind="number", key="total", value=74.97, unit="USD", exact=True),
     Fact(kind="number", key="points", value=1250)],
)
CALENDAR = make_task(
    "calendar_0001", "calendar", "When is my dentist appointment?",
    "Your dentist appointment is on 2025-06-17 at 14:00.",
    [Fact(kind="entity", key="title", value="dentist"),
     Fact(kind="date", key="date", value="2025-06-17"),
     Fact(kind="time", key="start", value="14:00")],
)
BOOKING = make_task(  # a real calendar task: 10:00 on 2025-06-20 is free for env_seed 0
    "calendar_0002", "calendar", "Book a team sync on June 20 at 10:00 for an hour.",
    "Booked 'Team sync' on 2025-06-20 at 10:00-11:00.",
    [Fact(kind="entity", key="title", value="Team sync"),
     Fact(kind="date", key="date", value="2025-06-20"),
     Fact(kind="time", key="start_time", value="10:00")],
    expected_state={"events": [{"title": "Team sync", "date": "2025-06-20",
                                "start_time": "10:00"}]},
)
STATEFACT = make_task(
    "calendar_0003", "calendar", "Confirm my team sync.", "Confirmed.",
    [Fact(kind="state", key="event.status", value="confirmed")],
)
NOBOOKING = make_task(  # the medical "interaction found: book nothing" branch
    "medical_0002", "medical", "Book P001 with D102 on 2025-07-01 at 11:00 unless risky.",
    "Not booked: risky.", [Fact(kind="entity", key="decision", value="not booked")],
    expected_state={"new_appointments": []},
)
NOFACTS = make_task("knowledge_0001", "knowledge", "Who wrote Hamlet?", "", [])
TASKS = [WEATHER, MEDICAL, RETAIL, CALENDAR, BOOKING, STATEFACT, NOBOOKING, NOFACTS]


@pytest.fixture
def suite() -> Suite:
    return Suite(list(TASKS), seed=0)
