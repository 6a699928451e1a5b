"""The calendar domain: a per-episode personal calendar pre-filled from the seed.

The state is plain data (deep-copyable)::

    {"seed": int, "events": {event_id: event}, "deleted": [deleted event, ...]}

with ``event = {"event_id", "title", "date", "start_time", "end_time", "duration_minutes",
"location"}`` (dates ``YYYY-MM-DD``, times ``HH:MM``, 24 h). The seed fills the five weeks
around REFERENCE_DATE with plausible, non-overlapping events (stand-ups, client calls,
dentist, gym...), titles unique per day; seeded ids ``EVT_<4 digits>`` start at a
seed-derived base and count up. A created event's id is content-derived, ``EVT_<6 digits>``
hashed from (episode seed, title, date, start, duration, location, k), k = the number of
existing or deleted events with the same content, so the right event gets the same id
whatever wrong events were created before it; ids are unique per episode (a collision
bumps to the next free id). Creating or moving an event onto an occupied
time is refused with a ``conflict`` error naming the clashing event.

`snapshot(state)` returns ``{"events": [event, ...] (sorted by date, time),
"deleted_events": [event, ...] (in deletion order)}``. Tasks state their ``expected_state``
as a *subset* of that snapshot (the suite check's subset match): an event that must exist is
a partial event dict in ``"events"`` (e.g. ``{"title": "Dentist", "date": "2025-06-18",
"start_time": "14:00"}``); an event that must be gone is ``{"event_id": ...}`` in
``"deleted_events"``. Every leaf key of these partial dicts is also echoed at the top level
of the observation of the call that causes it (create/update/delete), which is what the
facts judge looks for.
"""

from __future__ import annotations

import hashlib
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

TODAY = date.fromisoformat(REFERENCE_DATE)
FIRST_DAY = TODAY - timedelta(days=7)
LAST_DAY = TODAY + timedelta(days=27)
"""The seeded events cover these five weeks (Monday 2025-06-09 to Sunday 2025-07-13)."""
MAX_RANGE_DAYS = 31
DAY_END = 24 * 60
TIME_PATTERN = r"^([01]\d|2[0-3]):[0-5]\d$"
ID_PATTERN = r"^EVT_\d{4,6}$"
DURATIONS = (15, 30, 45, 60, 90, 120)

# (title, possible durations, earliest start hour, latest start hour, weekday?, weekend?)
_TEMPLATES: tuple[tuple[str, tuple[int, ...], int, int, bool, bool, str], ...] = (
    ("Team standup", (15,), 9, 9, True, False, "Zoom"),
    ("Project sync", (30, 60), 10, 16, True, False, "Room 2.14"),
    ("1:1 with Priya", (30,), 10, 16, True, False, "Priya's office"),
    ("Budget review", (60,), 10, 15, True, False, "Board room"),
    ("Client call with Acme", (45, 60), 10, 16, True, False, "Phone"),
    ("Design review", (60, 90), 11, 16, True, False, "Room 3.02"),
    ("Sprint planning", (90,), 9, 14, True, False, "Room 2.14"),
    ("Lunch with Tom", (60,), 12, 13, True, True, "Café Nero"),
    ("Interview with candidate", (60,), 10, 16, True, False, "Room 1.07"),
    ("Quarterly planning", (120,), 9, 14, True, False, "Board room"),
    ("Dentist appointment", (45, 60), 8, 17, True, False, "Smile Dental"),
    ("Doctor checkup", (30,), 8, 16, True, False, "City Clinic"),
    ("Gym session", (60,), 7, 19, True, True, "FitLife Gym"),
    ("Yoga class", (60,), 7, 19, True, True, "Lotus Studio"),
    ("Haircut", (30,), 9, 18, True, True, "Barber & Co"),
    ("Piano lesson", (45,), 16, 19, True, True, "Music school"),
    ("Call with Mom", (30,), 18, 20, True, True, "Phone"),
    ("Dinner with friends", (120,), 19, 20, True, True, "Trattoria Roma"),
    ("Car service", (60,), 8, 15, True, True, "AutoFix garage"),
    ("Vet appointment", (30,), 9, 17, True, True, "Paws clinic"),
    ("Book club", (90,), 18, 19, False, True, "Library"),
    ("Grocery shopping", (60,), 9, 17, False, True, "Market"),
    ("Parent-teacher meeting", (30,), 15, 17, True, False, "Oak Street School"),
    ("Coffee with Sam", (30,), 8, 16, True, True, "Blue Bottle"),
)
TITLES: tuple[str, ...] = tuple(t[0] for t in _TEMPLATES)


def to_minutes(hhmm: str) -> int:
    h, m = hhmm.split(":")
    return int(h) * 60 + int(m)


def to_hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def _event(
    eid: str, title: str, d: str, start: int, duration: int, location: str
) -> dict[str, Any]:
    return {
        "event_id": eid,
        "title": title,
        "date": d,
        "start_time": to_hhmm(start),
        "end_time": to_hhmm(start + duration),
        "duration_minutes": duration,
        "location": location,
    }


def _overlaps(ev: dict[str, Any], start: int, end: int) -> bool:
    return to_minutes(ev["start_time"]) < end and start < ev_end(ev)


def ev_end(ev: dict[str, Any]) -> int:
    return to_minutes(ev["start_time"]) + int(ev["duration_minutes"])


def events_on(state: dict[str, Any], d: str) -> list[dict[str, Any]]:
    """The events of one day, by start time (the live dicts: copy before exposing)."""
    return sorted(
        (e for e in state["events"].values() if e["date"] == d),
        key=lambda e: (e["start_time"], e["event_id"]),
    )


def free_slots(
    state: dict[str, Any], d: str, earliest: int, latest: int, exclude: str | None = None
) -> list[tuple[int, int]]:
    """Maximal free intervals of day `d` within [earliest, latest)."""
    out: list[tuple[int, int]] = []
    cur = earliest
    for ev in events_on(state, d):
        if ev["event_id"] == exclude:
            continue
        s, e = to_minutes(ev["start_time"]), ev_end(ev)
        if e <= cur:
            continue
        if s >= latest:
            break
        if s > cur:
            out.append((cur, min(s, latest)))
        cur = max(cur, e)
    if cur < latest:
        out.append((cur, latest))
    return out


def _conflict(
    state: dict[str, Any], d: str, start: int, duration: int, exclude: str | None = None
) -> None:
    end = start + duration
    if end > DAY_END:
        raise DomainError(
            "out_of_range",
            f"an event starting at {to_hhmm(start)} lasting {duration} minutes would end after "
            "midnight",
            "duration_minutes",
        )
    for ev in events_on(state, d):
        if ev["event_id"] != exclude and _overlaps(ev, start, end):
            raise DomainError(
                "conflict",
                f"{d} {to_hhmm(start)}-{to_hhmm(end)} overlaps with {ev['event_id']} "
                f"'{ev['title']}' ({ev['start_time']}-{ev['end_time']})",
                "start_time",
            )


_WEEKDAY_POOL = tuple(t for t in _TEMPLATES if t[4])
_WEEKEND_POOL = tuple(t for t in _TEMPLATES if t[5])
_DAYS = tuple(
    ((FIRST_DAY + timedelta(days=i)).isoformat(), (FIRST_DAY + timedelta(days=i)).weekday() >= 5)
    for i in range((LAST_DAY - FIRST_DAY).days + 1)
)


def _seed_events(seed: int) -> dict[str, Any]:
    """The seeded calendar. Called for every episode, so it draws with `random()` directly
    (a fraction of the cost of `randint`/`choice`)."""
    rng = random.Random(f"calendar:{seed}")
    u = rng.random
    next_id = 1000 + int(u() * 8000)
    events: dict[str, dict[str, Any]] = {}
    for day_iso, weekend in _DAYS:
        if weekend:
            pool, k = _WEEKEND_POOL, (0, 0, 1, 1, 2)[int(u() * 5)]
        else:
            pool, k = _WEEKDAY_POOL, (1, 2, 2, 3, 3, 4)[int(u() * 6)]
        day: list[tuple[int, int]] = []
        placed: list[tuple[int, str, int, str]] = []
        order = list(range(len(pool)))
        for j in range(k):  # partial Fisher-Yates: k distinct templates
            r = j + int(u() * (len(order) - j))
            order[j], order[r] = order[r], order[j]
        for title, durations, h0, h1, _wd, _we, loc in (pool[i] for i in order[:k]):
            dur = durations[int(u() * len(durations))]
            lo, span = h0 * 4, (h1 - h0) * 4 + 1
            for _ in range(8):
                start = (lo + int(u() * span)) * 15
                if start + dur > 22 * 60:
                    continue
                # keep a 15-minute gap so every day has some free time between events
                if not any(start < e + 15 and s < start + dur + 15 for s, e in day):
                    day.append((start, start + dur))
                    placed.append((start, title, dur, loc))
                    break
        for start, title, dur, loc in sorted(placed):
            eid = f"EVT_{next_id}"
            next_id += 1
            events[eid] = _event(eid, title, day_iso, start, dur, loc)
    return {"seed": seed, "events": events, "deleted": []}


_CONTENT = ("title", "date", "start_time", "duration_minutes", "location")
_CREATED_BASE, _CREATED_SPAN = 100000, 900000


def created_id(state: dict[str, Any], ev: dict[str, Any]) -> str:
    """The id of a created event: a hash of its content and repeat count (see module doc)."""
    parts = [ev[f] for f in _CONTENT]
    everyone = [*state["events"].values(), *state["deleted"]]
    k = sum(1 for e in everyone if [e[f] for f in _CONTENT] == parts)
    key = ":".join(["calendar", str(state["seed"]), *map(str, parts), str(k)]).encode()
    n = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % _CREATED_SPAN
    taken = {*state["events"], *(e["event_id"] for e in state["deleted"])}
    while f"EVT_{_CREATED_BASE + n}" in taken:
        n = (n + 1) % _CREATED_SPAN
    return f"EVT_{_CREATED_BASE + n}"


# -- tools ------------------------------------------------------------------------------------


def _d(args: dict[str, Any], param: str) -> date:
    try:
        return date.fromisoformat(args[param])
    except ValueError:
        raise DomainError("validation", f"invalid date {args[param]!r}", param) from None


def _find(state: dict[str, Any], eid: str) -> dict[str, Any]:
    ev = state["events"].get(eid)
    if ev is None:
        gone = " (it was deleted)" if any(e["event_id"] == eid for e in state["deleted"]) else ""
        raise DomainError("not_found", f"no event with id {eid}{gone}", "event_id")
    return ev


def _get_events(state: dict[str, Any], args: dict[str, Any]) -> Observation:
    start = _d(args, "date")
    end = _d(args, "end_date") if "end_date" in args else start
    if end < start:
        raise DomainError(
            "invalid_range", f"end_date {end.isoformat()} is before date {start.isoformat()}",
            "end_date",
        )
    if (end - start).days + 1 > MAX_RANGE_DAYS:
        raise DomainError(
            "out_of_range", f"at most {MAX_RANGE_DAYS} days per request", "end_date"
        )
    evs: list[dict[str, Any]] = []
    d = start
    while d <= end:
        evs.extend(dict(e) for e in events_on(state, d.isoformat()))
        d += timedelta(days=1)
    out: dict[str, Any] = {"date": start.isoformat()}
    if "end_date" in args:
        out["end_date"] = end.isoformat()
    out |= {"count": len(evs), "events": evs}
    return out


def _create_event(state: dict[str, Any], args: dict[str, Any]) -> Observation:
    d = _d(args, "date").isoformat()
    start = to_minutes(args["start_time"])
    dur = int(args["duration_minutes"])
    title = str(args["title"]).strip()
    if not title:
        raise DomainError("validation", "title must not be blank", "title")
    _conflict(state, d, start, dur)
    ev = _event("", title, d, start, dur, str(args.get("location", "")))
    eid = ev["event_id"] = created_id(state, ev)
    state["events"][eid] = ev
    return {"created": True, "event_id": eid, "title": title, "date": d,
            "start_time": ev["start_time"], "end_time": ev["end_time"],
            "duration_minutes": dur, "event": dict(ev)}


def _delete_event(state: dict[str, Any], args: dict[str, Any]) -> Observation:
    eid = args["event_id"]
    ev = _find(state, eid)
    del state["events"][eid]
    state["deleted"].append(dict(ev))
    return {"deleted": True, "event_id": eid, "event": dict(ev)}


def _find_free_slot(state: dict[str, Any], args: dict[str, Any]) -> Observation:
    d = _d(args, "date").isoformat()
    dur = int(args["duration_minutes"])
    earliest = args.get("earliest", "08:00")
    latest = args.get("latest", "18:00")
    lo, hi = to_minutes(earliest), to_minutes(latest)
    if hi <= lo:
        raise DomainError("invalid_range", f"latest {latest} is not after earliest {earliest}",
                          "latest")
    slots = free_slots(state, d, lo, hi)
    fitting = [(s, e) for s, e in slots if e - s >= dur]
    out: dict[str, Any] = {"date": d, "duration_minutes": dur, "earliest": earliest,
                           "latest": latest}
    if fitting:
        s = fitting[0][0]
        out |= {"found": True, "start_time": to_hhmm(s), "end_time": to_hhmm(s + dur)}
    else:
        out |= {"found": False, "start_time": None, "end_time": None,
                "message": f"no free slot of {dur} minutes on {d} between {earliest} and "
                           f"{latest}"}
    out["free_slots"] = [{"start_time": to_hhmm(s), "end_time": to_hhmm(e)} for s, e in slots]
    return out


def _update_event(state: dict[str, Any], args: dict[str, Any]) -> Observation:
    eid = args["event_id"]
    ev = _find(state, eid)
    previous = dict(ev)
    d = _d(args, "date").isoformat() if "date" in args else ev["date"]
    start = to_minutes(args["start_time"]) if "start_time" in args else to_minutes(
        ev["start_time"])
    dur = int(args.get("duration_minutes", ev["duration_minutes"]))
    _conflict(state, d, start, dur, exclude=eid)
    title = str(args.get("title", ev["title"])).strip() or ev["title"]
    new = _event(eid, title, d, start, dur, ev["location"])
    state["events"][eid] = new
    return {"updated": True, "event_id": eid, "title": title, "date": d,
            "start_time": new["start_time"], "end_time": new["end_time"],
            "duration_minutes": dur, "event": dict(new), "previous": previous}


_DATE = {"type": "string", "format": "date", "description": "ISO date YYYY-MM-DD"}
_TIME = {"type": "string", "pattern": TIME_PATTERN, "description": "24-hour time HH:MM"}
_DUR = {"type": "integer", "minimum": 5, "maximum": 480, "description": "Length in minutes"}
_ID = {"type": "string", "pattern": ID_PATTERN, "description": "Event id, e.g. EVT_1234"}
_TITLE = {"type": "string", "minLength": 1, "maxLength": 100}


def _schema(props: dict[str, Any], required: list[str], **extra: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": required,
            "additionalProperties": False, **extra}


@DOMAINS.register("calendar")
class CalendarDomain(Domain):
    """A personal calendar: list, create, delete, move events and find free time."""

    name = "calendar"
    description = (
        f"The user's personal calendar. Today is {REFERENCE_DATE} (a Monday). Times are "
        "24-hour HH:MM; events may not overlap."
    )

    def build_tools(self) -> list[Tool]:
        return [
            Tool(ToolSpec(
                name="get_events",
                description="List the events on a date, or from `date` to `end_date` "
                            f"(inclusive, at most {MAX_RANGE_DAYS} days), sorted by time.",
                parameters=_schema({"date": _DATE, "end_date": _DATE}, ["date"]),
                critical_params={"date": "date", "end_date": "date"},
            ), _get_events),
            Tool(ToolSpec(
                name="create_event",
                description="Create an event. Refused with a conflict error if it overlaps "
                            "an existing event.",
                parameters=_schema({
                    "title": _TITLE, "date": _DATE, "start_time": _TIME,
                    "duration_minutes": _DUR,
                    "location": {"type": "string", "maxLength": 100},
                }, ["title", "date", "start_time", "duration_minutes"]),
                critical_params={"date": "date", "start_time": "time", "title": "title",
                                 "duration_minutes": "duration"},
                mutates=True,
            ), _create_event),
            Tool(ToolSpec(
                name="delete_event",
                description="Delete an event by its id.",
                parameters=_schema({"event_id": _ID}, ["event_id"]),
                critical_params={"event_id": "event_id"},
                mutates=True,
            ), _delete_event),
            Tool(ToolSpec(
                name="find_free_slot",
                description="The first free slot of `duration_minutes` on a date between "
                            "`earliest` (default 08:00) and `latest` (default 18:00), plus all "
                            "free intervals in that window.",
                parameters=_schema({
                    "date": _DATE, "duration_minutes": _DUR,
                    "earliest": _TIME, "latest": _TIME,
                }, ["date", "duration_minutes"]),
                critical_params={"date": "date", "duration_minutes": "duration",
                                 "earliest": "time"},
            ), _find_free_slot),
            Tool(ToolSpec(
                name="update_event",
                description="Change an event's title, date, start time or duration "
                            "(refused on conflict).",
                parameters=_schema({
                    "event_id": _ID, "title": _TITLE, "date": _DATE, "start_time": _TIME,
                    "duration_minutes": _DUR,
                }, ["event_id"], minProperties=2),
                critical_params={"event_id": "event_id", "date": "date", "start_time": "time"},
                mutates=True,
            ), _update_event),
        ]

    def initial_state(self, seed: int) -> dict[str, Any]:
        return _seed_events(seed)

    def snapshot(self, state: Any) -> dict[str, Any]:
        evs = sorted(state["events"].values(), key=lambda e: (e["date"], e["start_time"]))
        return {"events": [dict(e) for e in evs],
                "deleted_events": [dict(e) for e in state["deleted"]]}

    def alternative(self, kind: str, value: Any, rng: random.Random, env: Environment) -> Any:
        """Another nearby date, another existing event id, another valid time, title or
        duration: always schema-valid and different from `value`."""
        if kind == "date":
            return nearby_date(value, rng, TODAY)
        if kind == "event_id":
            ids = sorted(k for k in env.state["events"] if k != value)
            if not ids:
                raise KeyError("event_id: no other event exists")
            return rng.choice(ids)
        if kind == "time":
            try:
                base = to_minutes(str(value))
            except ValueError:
                base = 12 * 60
            options = [m for m in range(7 * 60, 21 * 60 + 1, 15)
                       if m != base and 30 <= abs(m - base) <= 180]
            return to_hhmm(rng.choice(options))
        if kind == "title":
            return rng.choice([t for t in TITLES if t != value])
        if kind == "duration":
            return rng.choice([d for d in DURATIONS if d != value])
        raise KeyError(kind)
