"""Calendar tasks: list, look up, count, find free time, create, delete, move and rebook.

Intents (difficulty): ``list_events``, ``event_time_lookup``, ``count_events``,
``free_slot``, ``create_event`` (easy, one call); ``find_and_book``, ``delete_by_title``,
``move_event`` (medium, two chained calls: the id or slot of the second comes from the
first's observation); ``book_or_next_free`` (branch: book at the asked time, or at the first
free slot after it when that time is taken), ``replace_event`` (list, delete, create in the
freed slot), ``move_to_day`` (list, find a slot on the other day, move) — hard. Each intent
is one class below (`Intent`: phrasing and gold plan, conclusion, chained steps, facts),
registered in `INTENTS` in the order of the intent mix.

Facts: ``entity`` (titles), ``date`` (ISO), ``time`` (``HH:MM``), ``id`` (``EVT_…``),
``number`` (event counts "events", durations "minutes"). The reference lists events as
``Title HH:MM-HH:MM (EVT_1234)``.

``expected_state`` (state-changing intents) is a subset of ``CalendarDomain.snapshot``:
``{"events": [partial event, ...], "deleted_events": [{"event_id": id}, ...]}`` — each
partial event must match some event of the final calendar; each listed id must have been
deleted. Created events
are given by content (title, date, start_time, duration_minutes), not by id.

``Task.query_entities`` (set via the draft's ``meta``) maps
observation echo keys (``date``, ``end_date``,
``title``, ``start_time``, ``duration_minutes``, ``earliest``) to what the query asked for
(a list when several values are legitimate, e.g. the old and new title of a replacement);
``date_phrase`` (and ``date_phrase_2``) / ``relative_date`` describe the date expression;
``title`` is the event the query names; ``requested_time`` for ``book_or_next_free``;
``branch`` ("free"/"taken") for that intent.
"""

from __future__ import annotations

import random
from typing import Any

from agentprop.core import Fact, Task
from agentprop.domains import Observation, is_error
from agentprop.domains.calendar import (
    CalendarDomain,
    events_on,
    free_slots,
    to_hhmm,
    to_minutes,
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
    absolute_phrases,
    date_phrase,
    failure_sentence,
    iso,
    number_fact,
    relative_phrases,
    tool_at,
)

# what the query phrasings ask for (fact key patterns)
_LISTING = ["list.*.title"]
_BOOKED_AT = ["created", "start_time"]
NEW_TITLES = (
    "Plumber visit", "Call with the bank", "Coffee with Alex", "Physio appointment",
    "Study session", "Team offsite prep", "Flight check-in", "Birthday party planning",
    "Tax advisor meeting", "Guitar practice", "Pick up dry cleaning", "Video call with Lena",
    "Code review", "Apartment viewing", "Volunteer shift", "Running club",
)


# -- drawing --------------------------------------------------------------------------------


def _entities(d: Draft, **kv: object) -> None:
    d.meta.setdefault("query_entities", {}).update(kv)


def _when(d: Draft, rng: random.Random, offset: int, key: str = "date_phrase") -> str:
    phrase, rel = date_phrase(rng, offset, 0.65)
    d.meta[key] = phrase
    d.meta["relative_date"] = bool(d.meta.get("relative_date")) or rel
    return phrase


def _time_phrase(rng: random.Random, minutes: int) -> str:
    if minutes % 60 == 0 and rng.random() < 0.35:
        h = minutes // 60
        return "noon" if h == 12 else f"{h % 12 or 12} {'am' if h < 12 else 'pm'}"
    return to_hhmm(minutes)


def _state(d: Draft) -> dict[str, Any]:
    st: dict[str, Any] = d.env.state
    return st


def _free_starts(
    d: Draft, day: str, dur: int, lo: int = 8 * 60, hi: int = 18 * 60, exclude: str | None = None
) -> list[int]:
    """Start times on a 15-minute grid where an event of `dur` minutes fits."""
    out: list[int] = []
    for s, e in free_slots(_state(d), day, lo, hi, exclude):
        t = -(-s // 15) * 15
        while t + dur <= e:
            out.append(t)
            t += 15
    return out


def _pick_event(
    d: Draft, rng: random.Random, offsets: list[int], latest_end: int = 24 * 60
) -> tuple[int, dict[str, Any]]:
    for _ in range(30):
        off = rng.choice(offsets)
        evs = [e for e in events_on(_state(d), iso(off))
               if to_minutes(e["start_time"]) + e["duration_minutes"] <= latest_end]
        if evs:
            return off, dict(rng.choice(evs))
    raise GoldError("no suitable event")


def _find_title(obs: Observation, title: str) -> dict[str, Any] | None:
    for e in obs.get("events", []) if isinstance(obs, dict) else []:
        if str(e.get("title", "")).lower() == title.lower():
            return dict(e)
    return None


def _need(listing: Observation, title: str) -> dict[str, Any]:
    found = _find_title(listing, title)
    if found is None:
        raise GoldError(f"{title!r} not in the listing")
    return found


def _clash(listing: Observation, start: int, dur: int) -> dict[str, Any] | None:
    for e in listing.get("events", []) if isinstance(listing, dict) else []:
        try:
            s = to_minutes(e["start_time"])
            if s < start + dur and start < s + int(e["duration_minutes"]):
                return dict(e)
        except (KeyError, ValueError, TypeError):
            continue
    return None


# -- rendering ------------------------------------------------------------------------------


def _kind(o: Observation) -> str:
    if is_error(o):
        return "error"
    if not isinstance(o, dict):
        return "unknown"
    if o.get("created"):
        return "created"
    if o.get("deleted"):
        return "deleted"
    if o.get("updated"):
        return "updated"
    if "free_slots" in o:
        return "slot"
    if "events" in o:
        return "events"
    return "unknown"


def _item(e: dict[str, Any], with_date: bool) -> str:
    day = f"{e['date']} " if with_date else ""
    return f"{day}{e['title']} {e['start_time']}-{e['end_time']} ({e['event_id']})"


def _events_sentence(o: dict[str, Any]) -> str:
    evs = o["events"]
    n = len(evs)
    noun = "event" if n == 1 else "events"
    ranged = "end_date" in o
    head = (f"From {o['date']} to {o['end_date']} you have {n} {noun}" if ranged
            else f"On {o['date']} you have {n} {noun}")
    if not evs:
        return head + "."
    return f"{head}: " + "; ".join(_item(e, ranged) for e in evs) + "."


def _sentence(task: Task, i: int, o: Observation) -> str:
    k = _kind(o)
    try:
        if k == "error":
            return failure_sentence(tool_at(task, i), o, "request")
        if k == "events":
            return _events_sentence(o)
        if k == "created":
            return (f"Created '{o['title']}' on {o['date']} from {o['start_time']} to "
                    f"{o['end_time']} ({o['event_id']}).")
        if k == "deleted":
            e = o["event"]
            return (f"Deleted '{e['title']}' on {e['date']} at {e['start_time']} "
                    f"({o['event_id']}).")
        if k == "updated":
            p = o["previous"]
            return (f"Moved '{o['title']}' ({o['event_id']}) from {p['date']} "
                    f"{p['start_time']} to {o['date']} {o['start_time']}-{o['end_time']}.")
        if k == "slot":
            if not o.get("found"):
                return str(o.get("message", "No free slot was found.")) + "."
            free = ", ".join(f"{s['start_time']}-{s['end_time']}" for s in o["free_slots"])
            return (f"The first free {o['duration_minutes']}-minute slot on {o['date']} "
                    f"between {o['earliest']} and {o['latest']} is {o['start_time']}-"
                    f"{o['end_time']} (free intervals: {free}).")
    except (KeyError, TypeError, ValueError):
        pass
    return "The calendar returned an unexpected result."


def _event_about(e: dict[str, Any], dated: bool = False) -> dict[str, list[str]]:
    about = {"event": [str(e["event_id"]), str(e["title"])]}
    if dated:
        about["date"] = [str(e["date"])]
    return about


def _event_facts(e: dict[str, Any], prefix: str, dated: bool = False) -> list[Fact]:
    """What the calendar says of one event, about that event (and, `dated`, its day: a
    listed event's day and id are then in `about`, not facts of their own)."""
    ab = _event_about(e, dated)
    out = [Fact(kind="entity", key=f"{prefix}title", value=e["title"], about=ab),
           Fact(kind="time", key=f"{prefix}start_time", value=e["start_time"], about=ab),
           Fact(kind="time", key=f"{prefix}end_time", value=e["end_time"], about=ab)]
    if not dated:
        out += [Fact(kind="date", key=f"{prefix}date", value=e["date"], about=ab),
                Fact(kind="id", key=f"{prefix}event_id", value=e["event_id"], about=ab)]
    if e.get("duration_minutes") is not None:
        out.append(number_fact(f"{prefix}duration", e["duration_minutes"], "minutes", 0,
                               about=ab))
    return out


def _listing_facts(o: dict[str, Any], prefix: str = "list.") -> list[Fact]:
    """A listing: the count, the day (or range), and every event, keyed by its id; the
    titles form the complete list of the day."""
    out = [Fact(kind="date", key=f"{prefix}date", value=o["date"]),
           number_fact(f"{prefix}count", len(o["events"]), "events", 0, exact=True)]
    if "end_date" in o:
        out.append(Fact(kind="date", key=f"{prefix}end_date", value=o["end_date"]))
    for e in o["events"]:
        for f in _event_facts(e, f"{prefix}{e['event_id']}.", dated=True):
            out.append(f.model_copy(update={"group": "events"}) if f.key.endswith(".title")
                       else f)
    return out


def _done(key: str, relation: str, e: dict[str, Any]) -> Fact:
    """The requested action was carried out on this event."""
    return Fact(kind="polar", key=key, value=True, relation=relation,
                about={"event": [str(e["event_id"]), str(e["title"])]})


def _slot_facts(o: dict[str, Any]) -> list[Fact]:
    """The free-slot search's window and free intervals: times an answer may state."""
    day = {"date": [str(o["date"])]}
    out = [Fact(kind="time", key=f"window.{k}", value=str(o[k]), about=day)
           for k in ("earliest", "latest") if o.get(k)]
    for i, iv in enumerate(o.get("free_slots") or []):
        out += [Fact(kind="time", key=f"free.{i}.{k}", value=str(iv[k]), about=day)
                for k in ("start_time", "end_time")]
    return out


def _slot_free(task: Task, free: bool, time: str | None = None) -> Fact:
    """Whether the time the query asks for was free (the branch the task turns on)."""
    at = time or str(task.meta.get("requested_time", ""))
    return Fact(kind="polar", key="requested_time_free", value=free, relation="free",
                about={"time": [at]})


def _title(task: Task) -> str:
    """The event the query names."""
    return str(task.meta.get("title", ""))


def _seen_facts(obs: list[Observation], kinds: list[str]) -> list[Fact]:
    """What a chain's listing (first) and free-slot searches state on the way."""
    out: list[Fact] = []
    if kinds[0] == "events":
        out += _listing_facts(obs[0])
    for o, k in zip(obs, kinds, strict=True):
        if k == "slot":
            out += _slot_facts(o)
    return out


# -- the intents ------------------------------------------------------------------------------
# Registered in the order of the intent mix (the schedule depends on it).


class CalendarIntent(Intent):
    """A calendar intent's facts: what the listing and slot searches state (`_seen_facts`),
    then what the intent adds from the observations' kinds (`stated`)."""

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        kinds = [_kind(o) for o in obs]
        return self.stated(task, obs, kinds, _seen_facts(obs, kinds))

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        """The facts, given the observations' kinds and what the chain saw on the way."""
        return []


INTENTS: Intents[Intent] = Intents("calendar", CalendarIntent)


@INTENTS.register
class ListEvents(CalendarIntent):
    """The events of one day."""

    name, difficulty, weight = "list_events", "easy", 0.12

    def build(self, d: Draft, rng: random.Random) -> None:
        off = rng.choice([*range(-3, 14), 0, 1, 1, 2])
        when = _when(d, rng, off)
        past = off < 0
        d.ask(rng, [(q, _LISTING) for q in (
            f"What {'was' if past else 'is'} on my calendar {when}?",
            f"Do I have any events {when}?" if not past else f"Did I have any events {when}?",
            f"List my appointments {when}.",
            f"What does my schedule look like {when}?",
            f"Which events {'did' if past else 'do'} I have {when}?",
            f"Show me my calendar {when}.",
        )])
        _entities(d, date=iso(off))
        if not d.call("get_events", {"date": iso(off)})["events"]:
            d.asks = ["list.count"]  # an empty day: "no events" is the answer

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        return seen


@INTENTS.register
class EventTimeLookup(CalendarIntent):
    """When a named event starts (and how long it is)."""

    name, difficulty, weight = "event_time_lookup", "easy", 0.09

    def build(self, d: Draft, rng: random.Random) -> None:
        off, ev = _pick_event(d, rng, [*range(0, 14), 1, 2])
        when = _when(d, rng, off)
        t = ev["title"]
        d.meta["title"] = t
        d.ask(rng, [
            (f"What time is my {t} {when}?", ["start_time"]),
            (f"When does my {t} start {when}, and how long is it?",
             ["start_time", "duration"]),
            (f"I have '{t}' {when}. What time is it?", ["start_time"]),
        ])
        _entities(d, date=iso(off), title=t)
        d.call("get_events", {"date": iso(off)})

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not (obs and _kind(obs[0]) == "events"):
            return ""
        title = _title(task)
        e = _find_title(obs[0], title)
        if e is None:
            return f"There is no {title} on {obs[0].get('date', 'that day')}."
        return (f"Your {e['title']} on {e['date']} is from {e['start_time']} to "
                f"{e['end_time']} ({e['duration_minutes']} minutes).")

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        if kinds != ["events"]:
            return []
        e = _find_title(obs[0], _title(task))
        return seen + (_event_facts(e, "") if e is not None else [])


@INTENTS.register
class CountEvents(CalendarIntent):
    """How many events in a week or a date range."""

    name, difficulty, weight = "count_events", "easy", 0.05

    def build(self, d: Draft, rng: random.Random) -> None:
        r = rng.random()
        # several phrasings per week, so the many week counts need not share one query
        if r < 0.3:
            s, e = 0, 6
            phrase = rng.choice(["this week", "this week (Monday to Sunday)",
                                 "in the current week", "this calendar week"])
        elif r < 0.55:
            s, e = 7, 13
            phrase = rng.choice(["next week", "next week (Monday to Sunday)",
                                 "during next week", "next calendar week"])
        elif r < 0.75:
            n = rng.choice([3, 5, 7, 10])
            s, e, phrase = 0, n - 1, f"over the next {n} days (today included)"
        else:
            s = rng.randint(0, 12)
            e = s + rng.randint(2, 8)
            phrase = f"between {iso(s)} and {iso(e)}"
        d.meta |= {"date_phrase": phrase, "relative_date": not phrase.startswith("between")}
        count = ["list.count"]
        d.ask(rng, [
            (f"How many events do I have {phrase}?", count),
            (f"Count my calendar entries {phrase}.", count),
            (f"How busy am I {phrase}? Give me the number of events and list them.",
             [*count, "list.*.title"]),
            (f"What's the total number of events on my calendar {phrase}?", count),
            (f"Tell me how many appointments I have {phrase}.", count),
        ])
        _entities(d, date=iso(s), end_date=iso(e))
        d.call("get_events", {"date": iso(s), "end_date": iso(e)})

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        return seen


@INTENTS.register
class FreeSlot(CalendarIntent):
    """The first free slot of a length on a day (optionally in a window)."""

    name, difficulty, weight = "free_slot", "easy", 0.07

    def build(self, d: Draft, rng: random.Random) -> None:
        off = rng.choice([*range(0, 14), 1, 2])
        dur = rng.choice([30, 45, 60, 60, 90, 120])
        when = _when(d, rng, off)
        args: dict[str, Any] = {"date": iso(off), "duration_minutes": dur}
        window = rng.random()
        if window < 0.25:
            args |= {"earliest": "13:00"}
            d.ask(rng, [(q, ["start_time"]) for q in (
                f"Am I free for {dur} minutes in the afternoon {when}? When's the first slot "
                f"after 13:00?",
                f"Find me a {dur}-minute gap after 13:00 {when}.",
                f"What's my earliest free {dur}-minute slot {when} starting from 13:00?",
            )])
        elif window < 0.45:
            args |= {"earliest": "09:00", "latest": "17:00"}
            d.ask(rng, [(q, ["start_time"]) for q in (
                f"Is there a free {dur}-minute window {when} between 09:00 and 17:00?",
                f"Find the first {dur}-minute opening {when} between 9 am and 5 pm.",
                f"Between 09:00 and 17:00 {when}, when can I fit in {dur} minutes?",
            )])
        else:
            d.ask(rng, [(q, ["start_time"]) for q in (
                f"When am I free for {dur} minutes {when}?",
                f"Find me a {dur}-minute slot {when}.",
                f"What's the first free {dur}-minute slot in my working day {when}?",
            )])
        _entities(d, **args)
        obs = d.call("find_free_slot", args)
        if not obs["found"]:
            raise GoldError("no free slot")

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        """The slot found (its search's window and free intervals too, as context)."""
        if [_kind(o) for o in obs] != ["slot"] or not obs[0].get("found"):
            return []
        o = obs[0]
        day = {"date": [str(o["date"])]}
        return [Fact(kind="date", key="date", value=o["date"]),
                Fact(kind="time", key="start_time", value=o["start_time"], about=day),
                Fact(kind="time", key="end_time", value=o["end_time"], about=day),
                Fact(kind="polar", key="slot_found", value=True, relation="found",
                     about=day), *_slot_facts(o)]


class _Creates(CalendarIntent):
    """An intent whose last step creates the event: its facts are the created event's."""

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        if kinds[-1] != "created":
            return []
        c = obs[-1]
        return [*seen, _done("created", "created", c), *_event_facts(c, "")]


@INTENTS.register
class CreateEvent(_Creates):
    """Create an event at a given time."""

    name, difficulty, weight = "create_event", "easy", 0.07

    def build(self, d: Draft, rng: random.Random) -> None:
        off = rng.choice([*range(0, 21), 1, 2, 7])
        dur = rng.choice([30, 45, 60, 60, 90])
        starts = _free_starts(d, iso(off), dur, 8 * 60, 20 * 60)
        if not starts:
            raise GoldError("day full")
        start = rng.choice(starts)
        title = rng.choice(NEW_TITLES)
        when = _when(d, rng, off)
        tp = _time_phrase(rng, start)
        d.ask(rng, [(q, ["created"]) for q in (
            f"Add '{title}' to my calendar {when} at {tp} for {dur} minutes.",
            f"Schedule {title} {when} from {to_hhmm(start)} to {to_hhmm(start + dur)}.",
            f"Book {dur} minutes for {title} at {tp} {when}.",
            f"Create an event called '{title}' {when}, starting {tp}, lasting {dur} minutes.",
        )])
        _entities(d, title=title, date=iso(off), start_time=to_hhmm(start),
                  duration_minutes=dur)
        d.meta["title"] = title
        args = {"title": title, "date": iso(off), "start_time": to_hhmm(start),
                "duration_minutes": dur}
        d.call("create_event", args)
        d.expected_state = {"events": [{k: args[k] for k in
                                        ("title", "date", "start_time", "duration_minutes")}]}


@INTENTS.register
class FindAndBook(_Creates):
    """Find the first free slot, then book the event in it (chained)."""

    name, difficulty, weight = "find_and_book", "medium", 0.12

    def build(self, d: Draft, rng: random.Random) -> None:
        off = rng.choice([*range(0, 14), 1, 2])
        dur = rng.choice([30, 45, 60, 60, 90])
        title = rng.choice(NEW_TITLES)
        when = _when(d, rng, off)
        args: dict[str, Any] = {"date": iso(off), "duration_minutes": dur}
        if rng.random() < 0.3:
            earliest = rng.choice(["10:00", "12:00", "14:00"])
            args["earliest"] = earliest
            d.ask(rng, [(q, _BOOKED_AT) for q in (
                f"I need {dur} minutes for {title} {when} after {earliest}; book the earliest "
                f"free time.",
                f"Find the first free {dur}-minute slot after {earliest} {when} and put "
                f"'{title}' there.",
                f"Schedule {title} ({dur} min) {when} at the first opening from {earliest} on.",
            )])
        else:
            d.ask(rng, [(q, _BOOKED_AT) for q in (
                f"Find a free {dur}-minute slot {when} and book '{title}' in it.",
                f"Put {title} ({dur} min) in the first free spot {when}.",
                f"When am I first free for {dur} minutes {when}? Book {title} then.",
            )])
        _entities(d, **args, title=title)
        d.meta["title"] = title
        slot = d.call("find_free_slot", args)
        if not slot["found"]:
            raise GoldError("no free slot")
        d.call("create_event", {"title": title, "date": iso(off),
                                "start_time": slot["start_time"], "duration_minutes": dur})
        d.expected_state = {"events": [{"title": title, "date": iso(off),
                                        "start_time": slot["start_time"],
                                        "duration_minutes": dur}]}

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        if len(prev) != 1:
            return True
        return bool(prev[0].get("found") and o.get("date") == prev[0]["date"]
                    and o.get("start_time") == prev[0]["start_time"])


class _ChangesListed(CalendarIntent):
    """An intent that finds the named event in a listing and changes it: a later step
    follows only if it acts on the listed event's id; no such event is the answer."""

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        title = _title(task)
        if obs and _kind(obs[0]) == "events" and _find_title(obs[0], title) is None:
            return f"There is no {title} on {obs[0].get('date', 'that day')}."
        return ""

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        ev = _find_title(prev[0], _title(task))
        if ev is None:
            return False
        return self.follows_event(prev, o, ev)

    def follows_event(self, prev: list[Observation], o: Observation,
                      ev: dict[str, Any]) -> bool:
        """Whether `o` follows, given the listed event `ev`."""
        return bool(o.get("event_id") == ev["event_id"])


@INTENTS.register
class DeleteByTitle(_ChangesListed):
    """Find a named event in the day's listing, then delete it by id (chained)."""

    name, difficulty, weight = "delete_by_title", "medium", 0.12

    def build(self, d: Draft, rng: random.Random) -> None:
        off, ev = _pick_event(d, rng, [*range(0, 21), 1, 2])
        when = _when(d, rng, off)
        t = ev["title"]
        d.meta["title"] = t
        d.ask(rng, [(q, ["deleted"]) for q in (
            f"Cancel my {t} {when}.",
            f"Delete the {t} event {when} from my calendar.",
            f"Please remove '{t}' {when}; it's not happening anymore.",
        )])
        _entities(d, date=iso(off), title=t)
        listing = d.call("get_events", {"date": iso(off)})
        found = _need(listing, t)
        d.call("delete_event", {"event_id": found["event_id"]})
        d.expected_state = {"deleted_events": [{"event_id": found["event_id"]}]}

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        if kinds[-1] != "deleted":
            return []
        dl = obs[-1]
        ev = {**dl["event"], "event_id": dl["event_id"]}
        return [*seen, _done("deleted", "deleted", ev), *_event_facts(ev, "")]


class _Moves(_ChangesListed):
    """An intent whose last step moves the listed event: its facts are the moved event's."""

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        if kinds[-1] != "updated":
            return []
        u = obs[-1]
        return [*seen, _done("moved", "moved", u), *_event_facts(u, "")]


@INTENTS.register
class MoveEvent(_Moves):
    """Find a named event, then move it to another time that day (chained)."""

    name, difficulty, weight = "move_event", "medium", 0.11

    def build(self, d: Draft, rng: random.Random) -> None:
        off, ev = _pick_event(d, rng, [*range(0, 14), 1, 2])
        starts = [s for s in _free_starts(d, iso(off), ev["duration_minutes"], 8 * 60,
                                          20 * 60, exclude=ev["event_id"])
                  if s != to_minutes(ev["start_time"])]
        if not starts:
            raise GoldError("nowhere to move")
        new = rng.choice(starts)
        when = _when(d, rng, off)
        t = ev["title"]
        tp = _time_phrase(rng, new)
        d.meta["title"] = t
        d.ask(rng, [(q, ["moved"]) for q in (
            f"Move my {t} {when} to {tp}.",
            f"Reschedule {t} {when} so it starts at {tp}.",
            f"Can you push my {t} {when} to {tp}?",
        )])
        _entities(d, date=iso(off), title=t, start_time=to_hhmm(new))
        listing = d.call("get_events", {"date": iso(off)})
        found = _need(listing, t)
        d.call("update_event", {"event_id": found["event_id"], "start_time": to_hhmm(new)})
        d.expected_state = {"events": [{"event_id": found["event_id"], "date": iso(off),
                                        "start_time": to_hhmm(new)}]}


@INTENTS.register
class BookOrNextFree(_Creates):
    """Book at the asked time, or at the first free slot after it when it is taken."""

    name, difficulty, weight = "book_or_next_free", "hard", 0.09

    def build(self, d: Draft, rng: random.Random) -> None:
        want_taken = rng.random() < 0.65
        off = rng.choice([*range(0, 14), 1, 2])
        dur = rng.choice([30, 45, 60])
        day = iso(off)
        if want_taken:
            evs = [e for e in events_on(_state(d), day)
                   if 8 * 60 <= to_minutes(e["start_time"]) <= 15 * 60]
            if not evs:
                raise GoldError("no event to clash with")
            clash = rng.choice(evs)
            t_req = to_minutes(clash["start_time"])
        else:
            starts = [s for s in _free_starts(d, day, dur, 8 * 60, 16 * 60) if s <= 15 * 60]
            if not starts:
                raise GoldError("no free start")
            t_req = rng.choice(starts)
        title = rng.choice(NEW_TITLES)
        when = _when(d, rng, off)
        tp = _time_phrase(rng, t_req)
        d.ask(rng, [(q, _BOOKED_AT) for q in (
            f"Book '{title}' {when} at {tp} for {dur} minutes; if that time is taken, use the "
            f"first free slot after it.",
            f"I'd like {title} {when} at {tp} ({dur} min). If I'm busy then, put it at the "
            f"next free time that day.",
            f"Check my calendar {when}: if {tp} is free, schedule {title} for {dur} minutes "
            f"then; otherwise at the first opening after {tp}.",
        )])
        d.meta |= {"title": title, "requested_time": to_hhmm(t_req)}
        _entities(d, date=day, title=title, duration_minutes=dur, earliest=to_hhmm(t_req))
        listing = d.call("get_events", {"date": day})
        busy = _clash(listing, t_req, dur)
        start = to_hhmm(t_req)
        if busy is not None:
            d.meta["branch"] = "taken"
            slot = d.call("find_free_slot", {"date": day, "duration_minutes": dur,
                                             "earliest": to_hhmm(t_req)})
            if not slot["found"]:
                raise GoldError("no slot after the requested time")
            start = slot["start_time"]
        else:
            d.meta["branch"] = "free"
        d.call("create_event", {"title": title, "date": day, "start_time": start,
                                "duration_minutes": dur})
        d.expected_state = {"events": [{"title": title, "date": day, "start_time": start,
                                        "duration_minutes": dur}]}

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not (obs and _kind(obs[0]) == "events"):
            return ""
        req = str(task.meta.get("requested_time", ""))
        dur = int(task.query_entities.get("duration_minutes", 0) or 0)
        try:
            busy = _clash(obs[0], to_minutes(req), dur)
        except ValueError:
            return ""
        if busy is None:
            return f"{req} is free on {obs[0].get('date')}."
        return (f"{req} is taken on {obs[0].get('date')} by {busy['title']} "
                f"({busy['start_time']}-{busy['end_time']}), so I used the next free slot.")

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        req = str(task.meta.get("requested_time", ""))
        dur = int(task.query_entities.get("duration_minutes", 0) or 0)
        busy = _clash(prev[0], to_minutes(req), dur)
        if busy is None:
            return bool(len(prev) == 1 and o.get("created") and o.get("start_time") == req)
        if len(prev) == 1:
            return bool(_kind(o) == "slot" and o.get("found") and o.get("earliest") == req)
        return bool(o.get("created") and o.get("start_time") == prev[1]["start_time"])

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        out = super().stated(task, obs, kinds, seen)
        return [*out, _slot_free(task, task.meta.get("branch") == "free")] if out else out


@INTENTS.register
class ReplaceEvent(_ChangesListed, _Creates):
    """Find a named event, delete it, and create another in its slot."""

    name, difficulty, weight = "replace_event", "hard", 0.08

    def build(self, d: Draft, rng: random.Random) -> None:
        off, ev = _pick_event(d, rng, [*range(0, 21), 1, 2])
        when = _when(d, rng, off)
        x = ev["title"]
        y = rng.choice(NEW_TITLES)
        d.ask(rng, [(q, ["deleted", "created"]) for q in (
            f"Cancel my {x} {when} and put '{y}' in its place.",
            f"Replace {x} {when} with {y} at the same time.",
            f"Swap {x} {when} for '{y}', same time slot and length.",
        )])
        d.meta |= {"title": x, "new_title": y}
        _entities(d, date=iso(off), title=[x, y])
        listing = d.call("get_events", {"date": iso(off)})
        found = _need(listing, x)
        d.call("delete_event", {"event_id": found["event_id"]})
        d.call("create_event", {"title": y, "date": iso(off),
                                "start_time": found["start_time"],
                                "duration_minutes": found["duration_minutes"]})
        d.expected_state = {
            "events": [{"title": y, "date": iso(off), "start_time": found["start_time"],
                        "duration_minutes": found["duration_minutes"]}],
            "deleted_events": [{"event_id": found["event_id"]}],
        }

    def follows_event(self, prev: list[Observation], o: Observation,
                      ev: dict[str, Any]) -> bool:
        if len(prev) == 2:  # the new event takes the deleted one's slot
            return bool(o.get("start_time") == ev["start_time"]
                        and o.get("duration_minutes") == ev["duration_minutes"]
                        and o.get("date") == ev["date"])
        return super().follows_event(prev, o, ev)

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        out = _Creates.stated(self, task, obs, kinds, seen)
        if out and kinds[1:2] == ["deleted"]:
            dl = obs[1]
            out += [_done("deleted", "deleted", {**dl["event"], "event_id": dl["event_id"]}),
                    *_event_facts({**dl["event"], "event_id": dl["event_id"]}, "deleted.")]
        return out


@INTENTS.register
class MoveToDay(_Moves):
    """Move a named event to another day: same time if free, else the next free slot."""

    name, difficulty, weight = "move_to_day", "hard", 0.08

    def build(self, d: Draft, rng: random.Random) -> None:
        off, ev = _pick_event(d, rng, [*range(0, 14), 1, 2], latest_end=17 * 60)
        if to_minutes(ev["start_time"]) < 8 * 60:
            raise GoldError("starts before the working day")
        off2 = off + rng.randint(1, 7)
        x = ev["title"]
        w1 = _when(d, rng, off)
        # the target date follows "to": keep phrasings that read well there
        options = [p for p in relative_phrases(off2)
                   if not p.startswith(("in ", "a week"))] or []
        if options and rng.random() < 0.6:
            w2 = rng.choice(options)
            d.meta["relative_date"] = True
        else:
            w2 = rng.choice(absolute_phrases(off2)).removeprefix("on ")
        d.meta["date_phrase_2"] = w2
        d.ask(rng, [(q, ["moved", "start_time"]) for q in (
            f"Move my {x} {w1} to {w2}, same time if possible, otherwise the next free time "
            f"that day.",
            f"Shift {x} ({w1}) to {w2}. Keep the time if I'm free, else take the first "
            f"opening after it.",
            f"Can you reschedule my {x} {w1} to {w2}? Same start time, or the earliest free "
            f"slot after that.",
        )])
        d.meta["title"] = x
        _entities(d, date=[iso(off), iso(off2)], title=x)
        listing = d.call("get_events", {"date": iso(off)})
        found = _need(listing, x)
        slot = d.call("find_free_slot", {"date": iso(off2),
                                         "duration_minutes": found["duration_minutes"],
                                         "earliest": found["start_time"]})
        if not slot["found"]:
            raise GoldError("no slot on the target day")
        d.meta["branch"] = "same_time" if slot["start_time"] == found["start_time"] \
            else "later"
        d.call("update_event", {"event_id": found["event_id"], "date": iso(off2),
                                "start_time": slot["start_time"]})
        d.expected_state = {"events": [{"event_id": found["event_id"], "date": iso(off2),
                                        "start_time": slot["start_time"]}]}

    def follows_event(self, prev: list[Observation], o: Observation,
                      ev: dict[str, Any]) -> bool:
        if len(prev) == 1:  # the slot search starts at the event's time, for its length
            return bool(o.get("duration_minutes") == ev["duration_minutes"]
                        and o.get("earliest") == ev["start_time"] and o.get("found"))
        if len(prev) == 2:  # the move goes to the slot found
            return bool(o.get("event_id") == ev["event_id"]
                        and o.get("date") == prev[1]["date"]
                        and o.get("start_time") == prev[1]["start_time"])
        return super().follows_event(prev, o, ev)

    def stated(self, task: Task, obs: list[Observation], kinds: list[str],
               seen: list[Fact]) -> list[Fact]:
        out = super().stated(task, obs, kinds, seen)
        if out:
            first = _find_title(obs[0], _title(task))
            if first is not None:
                out.append(_slot_free(task, task.meta.get("branch") == "same_time",
                                      str(first["start_time"])))
        return out


# -- the generator ----------------------------------------------------------------------------


@GENERATORS.register("calendar")
class CalendarTaskGenerator(IntentGenerator):
    """Calendar tasks over per-episode calendars; gold plans executed to ground references."""

    domain = "calendar"
    intents = INTENTS
    nothing = "I could not access the calendar."

    def generate(self, n: int, seed: int) -> list[Task]:
        dom = CalendarDomain()
        plan = schedule(n, INTENTS.mix(), random.Random(f"calendar-schedule:{seed}"))
        return draw_tasks(
            domain="calendar", plan=plan,
            builders=INTENTS.builders(), tools=[t.name for t in dom.tools],
            make_env=dom.make_env, render=self.render_answer, facts=self.expected_facts,
            attempts=fresh_attempts(seed, "calendar"), id_prefix="gold",
        )

    def sentence(self, task: Task, i: int, o: Observation) -> str:
        return _sentence(task, i, o)

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        if is_error(o) or not prev:
            return True
        if any(is_error(p) for p in prev):
            return False  # the chain's input failed: nothing later follows from it
        try:
            return self.intents.get(task.intent).follows(task, prev, o)
        except (KeyError, TypeError, ValueError):
            return False


__all__ = ["INTENTS", "NEW_TITLES", "CalendarTaskGenerator"]
