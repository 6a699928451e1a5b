"""Calendar tools: validation, typed errors, conflicts, per-episode state, alternatives."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import pytest

from agentprop.domains import Environment, is_error
from agentprop.domains.calendar import ID_PATTERN, CalendarDomain, to_minutes

DOM = CalendarDomain()
DAY = "2025-06-18"


@pytest.fixture
def env() -> Environment:
    return DOM.make_env(7)


def _free_start(env: Environment, day: str = DAY, dur: int = 60) -> str:
    obs = env.call("find_free_slot", {"date": day, "duration_minutes": dur})
    assert obs["found"], obs
    return str(obs["start_time"])


def _an_event(env: Environment, day: str = DAY) -> dict[str, Any]:
    evs = env.call("get_events", {"date": day})["events"]
    assert evs
    return dict(evs[0])


def test_seeded_calendar_is_plausible_and_deterministic() -> None:
    a, b = DOM.make_env(7), DOM.make_env(7)
    assert a.state == b.state
    assert DOM.make_env(8).state != a.state
    evs = list(a.state["events"].values())
    assert 40 <= len(evs) <= 120
    assert len({e["event_id"] for e in evs}) == len(evs)
    by_day: dict[str, list[dict[str, Any]]] = {}
    for e in evs:
        assert re.fullmatch(ID_PATTERN, e["event_id"])
        by_day.setdefault(e["date"], []).append(e)
    for day_events in by_day.values():
        assert len({e["title"] for e in day_events}) == len(day_events)  # titles unique per day
        spans = sorted((to_minutes(e["start_time"]), to_minutes(e["end_time"]))
                       for e in day_events)
        for (_, end), (start, _) in itertools.pairwise(spans):
            assert end <= start  # no overlaps


def test_get_events_lists_a_day_and_a_range(env: Environment) -> None:
    day = env.call("get_events", {"date": DAY})
    assert day["date"] == DAY and day["count"] == len(day["events"])
    assert all(e["date"] == DAY for e in day["events"])
    assert [e["start_time"] for e in day["events"]] == sorted(e["start_time"]
                                                             for e in day["events"])
    week = env.call("get_events", {"date": "2025-06-16", "end_date": "2025-06-22"})
    assert week["end_date"] == "2025-06-22" and week["count"] >= day["count"]


def test_create_then_get_shows_it_and_conflicts_are_refused(env: Environment) -> None:
    start = _free_start(env)
    obs = env.call("create_event", {"title": "Plumber visit", "date": DAY, "start_time": start,
                                    "duration_minutes": 60})
    assert obs["created"] and obs["title"] == "Plumber visit" and obs["start_time"] == start
    assert obs["event_id"] not in {e for e in DOM.make_env(7).state["events"]}
    listed = env.call("get_events", {"date": DAY})["events"]
    assert any(e["event_id"] == obs["event_id"] for e in listed)
    clash = env.call("create_event", {"title": "Other", "date": DAY, "start_time": start,
                                      "duration_minutes": 30})
    assert clash["error"]["type"] == "conflict"
    assert obs["event_id"] in clash["error"]["message"]
    assert "Plumber visit" in clash["error"]["message"]


def test_event_may_not_run_past_midnight(env: Environment) -> None:
    obs = env.call("create_event", {"title": "Late", "date": "2025-06-19",
                                    "start_time": "23:30", "duration_minutes": 60})
    assert obs["error"]["type"] == "out_of_range"


def test_delete_removes_and_records_it(env: Environment) -> None:
    ev = _an_event(env)
    obs = env.call("delete_event", {"event_id": ev["event_id"]})
    assert obs["deleted"] and obs["event"]["title"] == ev["title"]
    assert all(e["event_id"] != ev["event_id"]
               for e in env.call("get_events", {"date": DAY})["events"])
    assert ev["event_id"] in [e["event_id"] for e in env.snapshot()["deleted_events"]]
    again = env.call("delete_event", {"event_id": ev["event_id"]})
    assert again["error"]["type"] == "not_found" and again["error"]["param"] == "event_id"


def test_update_moves_and_checks_conflicts(env: Environment) -> None:
    ev = _an_event(env)
    start = _free_start(env, "2025-06-25", ev["duration_minutes"])
    obs = env.call("update_event", {"event_id": ev["event_id"], "date": "2025-06-25",
                                    "start_time": start})
    assert obs["updated"] and obs["previous"]["date"] == DAY and obs["date"] == "2025-06-25"
    other = [e for e in env.call("get_events", {"date": "2025-06-25"})["events"]
             if e["event_id"] != ev["event_id"]]
    if other:
        clash = env.call("update_event", {"event_id": ev["event_id"],
                                          "start_time": other[0]["start_time"]})
        assert clash["error"]["type"] == "conflict"
    missing = env.call("update_event", {"event_id": "EVT_000001", "start_time": "10:00"})
    assert missing["error"]["type"] == "not_found"


def test_find_free_slot_gives_a_bookable_slot(env: Environment) -> None:
    for day in ("2025-06-16", "2025-06-17", "2025-06-20", "2025-06-21"):
        obs = env.call("find_free_slot", {"date": day, "duration_minutes": 45,
                                          "earliest": "09:00", "latest": "17:00"})
        if not obs["found"]:
            continue
        assert obs["start_time"] >= "09:00" and obs["end_time"] <= "17:00"
        made = env.copy().call("create_event", {"title": "X", "date": day,
                                                "start_time": obs["start_time"],
                                                "duration_minutes": 45})
        assert not is_error(made), made
    bad = env.call("find_free_slot", {"date": DAY, "duration_minutes": 30, "earliest": "15:00",
                                      "latest": "09:00"})
    assert bad["error"]["type"] == "invalid_range"


def test_copy_is_independent(env: Environment) -> None:
    ev = _an_event(env)
    twin = env.copy()
    twin.call("delete_event", {"event_id": ev["event_id"]})
    assert ev["event_id"] in env.state["events"]
    assert ev["event_id"] not in twin.state["events"]
    obs = env.call("get_events", {"date": DAY})
    obs["events"][0]["title"] = "mutated by the caller"
    assert env.state["events"][obs["events"][0]["event_id"]]["title"] != "mutated by the caller"


@pytest.mark.parametrize(
    ("tool", "args", "param"),
    [
        ("get_events", {"date": 20250618}, "date"),
        ("get_events", {"date": "18-06-2025"}, "date"),
        ("get_events", {}, "date"),
        ("get_events", {"date": DAY, "calendar": "work"}, "calendar"),
        ("create_event", {"title": "A", "date": DAY, "start_time": "25:00",
                          "duration_minutes": 30}, "start_time"),
        ("create_event", {"title": "A", "date": DAY, "start_time": "9:00",
                          "duration_minutes": 30}, "start_time"),
        ("create_event", {"title": "A", "date": DAY, "start_time": "09:00",
                          "duration_minutes": 1000}, "duration_minutes"),
        ("create_event", {"title": "A", "date": DAY, "start_time": "09:00",
                          "duration_minutes": "30"}, "duration_minutes"),
        ("create_event", {"title": "", "date": DAY, "start_time": "09:00",
                          "duration_minutes": 30}, "title"),
        ("create_event", {"title": "A", "date": DAY, "start_time": "09:00"}, "duration_minutes"),
        ("delete_event", {"event_id": "1234"}, "event_id"),
        ("delete_event", {"event_id": 1234}, "event_id"),
        ("find_free_slot", {"date": DAY, "duration_minutes": 0}, "duration_minutes"),
        ("find_free_slot", {"date": DAY, "duration_minutes": 30, "earliest": "noon"},
         "earliest"),
        ("update_event", {"event_id": "EVT_1234", "date": "2025-13-01"}, "date"),
    ],
)
def test_invalid_arguments_give_a_validation_error(
    env: Environment, tool: str, args: dict[str, Any], param: str
) -> None:
    obs = env.call(tool, args)
    assert obs["error"]["type"] == "validation", obs
    assert obs["error"]["param"] == param


def test_update_without_changes_is_invalid(env: Environment) -> None:
    obs = env.call("update_event", {"event_id": _an_event(env)["event_id"]})
    assert obs["error"]["type"] == "validation"


@pytest.mark.parametrize(
    ("kind", "value"),
    [("date", DAY), ("time", "09:00"), ("title", "Gym session"), ("duration", 60)],
)
def test_alternative_differs_and_is_valid(env: Environment, kind: str, value: Any) -> None:
    rng = random.Random(3)
    tool = DOM.tool("create_event")
    assert tool is not None
    param = {"date": "date", "time": "start_time", "title": "title",
             "duration": "duration_minutes"}[kind]
    base = {"title": "Gym session", "date": DAY, "start_time": "09:00", "duration_minutes": 60}
    for _ in range(30):
        alt = DOM.alternative(kind, value, rng, env)
        assert alt != value
        assert tool.validate({**base, param: alt}) is None


def test_alternative_event_id_is_another_existing_event(env: Environment) -> None:
    ev = _an_event(env)
    rng = random.Random(1)
    for _ in range(30):
        alt = DOM.alternative("event_id", ev["event_id"], rng, env)
        assert alt != ev["event_id"] and alt in env.state["events"]
    with pytest.raises(KeyError):
        DOM.alternative("city", "London", rng, env)


def test_created_ids_are_content_derived_not_counted() -> None:
    """A wrong event created first must not shift the right event's id; the same event
    created again (after deleting it) gets a new, equally stable id."""
    args = {"title": "Plumber visit", "date": DAY, "start_time": _free_start(DOM.make_env(7)),
            "duration_minutes": 30}
    alone = DOM.make_env(7).call("create_event", args)
    env = DOM.make_env(7)
    wrong = env.call("create_event", {**args, "title": "Plumber", "date": "2025-06-19",
                                      "start_time": _free_start(env, "2025-06-19", 30)})
    after = env.call("create_event", args)
    assert alone["created"] and wrong["created"] and after["created"]
    assert after["event_id"] == alone["event_id"] != wrong["event_id"]
    assert re.fullmatch(ID_PATTERN, after["event_id"])
    env.call("delete_event", {"event_id": after["event_id"]})
    again = env.call("create_event", args)
    assert again["created"] and again["event_id"] != after["event_id"]
