"""The facts judge grades what the question asks, tied to its entity, as a careful human
grader would (docs/judges.md). One test per pattern of issue 11; each was wrong under the
first facts judge (it accepted or rejected the opposite)."""

from __future__ import annotations

import pytest

from agentprop.core import Fact, Task
from agentprop.judges import check_answer, fact_stated, get_judge
from agentprop.judges._entities import Vocabulary
from agentprop.judges._extract import find_dates, find_numbers, find_times
from agentprop.suite import Suite
from tests.judges.conftest import BOOKING, NOBOOKING, NOFACTS, STATEFACT, make_trace
from tests.judges.facts_support import facts_ok, real_suite, real_vocab  # noqa: F401


def _task(suite: Suite, tid: str) -> Task:
    t = suite.get(tid)
    assert t is not None, tid
    return t


_ok = facts_ok


# weather_0019: "Which will be warmer tomorrow, Madrid or Sydney?" Madrid 14.9 °C, Sydney 13.7
# medical_0072: "How serious is it to combine fluconazole with warfarin?" severity high
# weather_0142: umbrella in Hong Kong 2025-06-18: 27 °C, rain (6.9 mm), humidity 85 %
# medical_0019: Lucia Brown (P016) is allergic to morphine and penicillin
# retail_0003: Lumora Compact ($221.00) vs Pinecrest Deluxe ($223.00) tennis racket
# medical_0025: clopidogrel vs allopurinol, losartan, amlodipine: all "none"
# knowledge_0073: Dour Zurbrei, born 1777 (died 1817)
# knowledge_0006: population of Stoskith is 300,782
# calendar_0001: delete Dentist appointment 2025-06-20 11:15 (EVT_6221)
# calendar_0002: create Tax advisor meeting 2025-07-03 14:15-15:15
# calendar_0022: first free 45-minute slot on 2025-06-22: 08:00-08:45
# weather_0033: Cape Town was cooler than normal (13.2 vs 13.6 °C)
# retail_0026: the cheapest water bottle is the Fennic Eco Water Bottle at $29.99


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    # the decision must be stated, and stated right, even though the query names both
    ("weather_0019", "Sydney will be warmer tomorrow.", False),
    ("weather_0019", "Madrid will be warmer tomorrow (14.9 °C vs 13.7 °C).", True),
    ("weather_0019", "Madrid: 14.9 °C. Sydney: 13.7 °C.", True),  # follows from the values
    ("weather_0019", "Sydney is colder than Madrid tomorrow.", True),  # the loser named
    ("weather_0019", "It'll be warmer in either Madrid or Sydney.", False),  # no commitment
    ("retail_0003", "The Pinecrest Deluxe is cheaper, by $2.00.", False),
    ("retail_0003", "The Lumora Compact is $2 cheaper than the Pinecrest Deluxe.", True),
    ("retail_0003", "PRD1128 is less expensive, by $2.00.", True),
])
def test_the_decision_is_asked(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                               expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


@pytest.mark.parametrize(("answer", "expected"), [
    ("Fluconazole and warfarin: a severe interaction (raised INR).", True),
    ("Severity: high.", True),
    ("Only a minor interaction between fluconazole and warfarin.", False),  # minimising
    ("The interaction could be mild, moderate or severe.", False),  # a hedge
    ("It is not a major interaction.", False),  # negates the true level
    ("Fluconazole and warfarin do not interact.", False),
])
def test_severity_is_read_on_its_scale(suite: Suite, vocab: Vocabulary, answer: str,
                                       expected: bool) -> None:
    assert _ok(suite, vocab, "medical_0072", answer) is expected


def test_a_value_counts_only_for_its_own_entity(suite: Suite, vocab: Vocabulary) -> None:
    # Madrid's temperature given for Sydney and vice versa: the true values, misattributed
    assert not _ok(suite, vocab, "weather_0019",
                   "Madrid is warmer: Sydney 14.9 °C, Madrid 13.7 °C.")
    # a severity stated for another pair of the same new drug
    t = "medical_0025"
    assert _ok(suite, vocab, t, "No interactions: clopidogrel with allopurinol, losartan and "
                                "amlodipine is all fine — severity none for each.")
    assert not _ok(suite, vocab, t, "Allopurinol and clopidogrel: none. Losartan and "
                                    "clopidogrel: none. Amlodipine and clopidogrel: moderate.")
    # the temperature of another city (the query's own city never named)
    assert not _ok(suite, vocab, "weather_0142", "In Paris on June 18: 27 °C and rain, so "
                                                 "yes, take an umbrella.")


def test_hedges_and_shotguns_state_nothing(suite: Suite, vocab: Vocabulary) -> None:
    assert _ok(suite, vocab, "knowledge_0073", "Dour Zurbrei was born in 1777.")
    assert not _ok(suite, vocab, "knowledge_0073",
                   "Dour Zurbrei was born in 1771, 1777 or 1787.")
    assert not _ok(suite, vocab, "calendar_0022",
                   "Your first free 45-minute slot is at 08:00 or maybe 09:00.")


def test_invented_claims_and_negations_are_false(suite: Suite, vocab: Vocabulary) -> None:
    t = "medical_0019"
    assert _ok(suite, vocab, t, "Lucia Brown is allergic to morphine and penicillin.")
    assert not _ok(suite, vocab, t, "Lucia Brown is allergic to morphine but not to "
                                    "penicillin.")
    assert not _ok(suite, vocab, t, "Lucia Brown is allergic to morphine, penicillin and "
                                    "latex.")
    assert not _ok(suite, vocab, t, "Lucia Brown has no known allergies.")


@pytest.mark.parametrize(("tid", "answer"), [
    # facts the user did not ask for may be left out
    ("weather_0142", "Yes, bring an umbrella: rain and 27 °C in Hong Kong on June 18."),
    ("calendar_0001", "Done — I removed your Dentist appointment on June 20."),
    ("calendar_0002", "Done! Tax advisor meeting is on your calendar for July 3 at 14:15."),
    # spelled-out units and other spellings
    ("weather_0142", "Yes, take an umbrella. Hong Kong, 18/06: 27 degrees C, rainy."),
    ("weather_0142", "Rain is expected, so yes. It'll be about 81 deg F in Hong Kong."),
    ("calendar_0022", "Sunday the 22nd you're free from 8–8:45 am."),
    ("weather_0033", "Cape Town was colder than usual: 13.2 °C vs a normal of 13.6 °C."),
    # a marked approximation where the exact figure is not needed
    ("retail_0026", "The Fennic Eco Water Bottle is the cheapest, at about $30."),
    ("knowledge_0006", "Stoskith has roughly 301,000 inhabitants."),
])
def test_what_a_careful_grader_accepts(suite: Suite, vocab: Vocabulary, tid: str,
                                       answer: str) -> None:
    correct, raw = check_answer(_task(suite, tid), answer, vocabulary=vocab)
    assert correct is True, raw["summary"]


@pytest.mark.parametrize(("tid", "answer"), [
    ("weather_0142", "Yes, take an umbrella: rain and 27 °C in Hong Kong on June 18, "
                     "humidity 60 %."),  # a false context value
    ("retail_0026", "The Fennic Eco Water Bottle is the cheapest, at $30."),  # no marker
    ("knowledge_0006", "Stoskith has about 350,000 inhabitants."),  # too far
    ("calendar_0002", "Created Tax advisor meeting on July 4 at 14:15."),  # a false detail
    ("weather_0142", "I'm sorry, I can't access weather data right now."),  # a refusal
])
def test_what_a_careful_grader_rejects(suite: Suite, vocab: Vocabulary, tid: str,
                                       answer: str) -> None:
    assert check_answer(_task(suite, tid), answer, vocabulary=vocab)[0] is False


def test_every_reference_answer_is_correct(suite: Suite, vocab: Vocabulary) -> None:
    wrong = [t.id for t in suite.tasks
             if check_answer(t, t.reference_answer, vocabulary=vocab)[0] is not True]
    assert wrong == []


def test_rationale_names_found_missing_and_contradicted(suite: Suite,
                                                       vocab: Vocabulary) -> None:
    _, raw = check_answer(_task(suite, "weather_0019"), "Sydney will be warmer: 13.7 °C.",
                          vocabulary=vocab)
    asked = {a["key"]: a for a in raw["asked"]}
    assert asked["warmer_city"]["status"] == "contradicted"
    assert "warmer_city" in raw["summary"]
    _, raw = check_answer(_task(suite, "weather_0019"), "Madrid is warmer.", vocabulary=vocab)
    assert raw["asked"][0]["status"] == "stated" and raw["asked"][0]["found"]


def test_abstentions_incorrect_and_no_facts_unscored(suite: Suite) -> None:
    t = _task(suite, "weather_0019")
    assert check_answer(t, None)[0] is False
    assert check_answer(t, "   ")[0] is False
    assert check_answer(t, "Madrid.", abstained=True)[0] is False
    assert check_answer(NOFACTS, "Shakespeare")[0] is None


async def test_expected_state_is_checked_on_the_replayed_world() -> None:
    j = get_judge("facts")
    ok_args = {"title": "Team sync", "date": "2025-06-20", "start_time": "10:00",
               "duration_minutes": 60}
    booked = make_trace("b1", BOOKING, "Booked Team sync on June 20 at 10:00.",
                        calls=[("create_event", ok_args, {"created": True})])
    claimed = make_trace("b2", BOOKING, "Booked Team sync on June 20 at 10:00.")
    assert (await j.judge(booked, BOOKING)).correct is True
    assert (await j.judge(claimed, BOOKING)).correct is False  # said, never done
    state = make_trace("s1", STATEFACT, "Confirmed.",
                       observations=[{"event": {"status": "confirmed"}}])
    assert (await j.judge(state, STATEFACT)).correct is True


async def test_an_answer_read_once_is_still_judged_per_trace() -> None:
    """The reading of an answer is kept per (task, answer) and shared between traces and
    judges; what depends on the trace (a state fact's observations, the replayed state)
    is not: each verdict is the one a fresh judge gives."""
    said = "Confirmed."
    traces = [make_trace("s1", STATEFACT, said, observations=[{"event": {"status": "confirmed"}}]),
              make_trace("s2", STATEFACT, said, observations=[{"event": {"status": "tentative"}}]),
              make_trace("s3", STATEFACT, said)]
    j = get_judge("facts")
    once = [(await j.judge(t, STATEFACT)).correct for t in [*traces, traces[0]]]
    fresh = [(await get_judge("facts").judge(t, STATEFACT)).correct
             for t in [*traces, traces[0]]]
    assert once == fresh
    assert once[0] is True and once[1] is False and once[3] is True


async def test_expected_empty_list_means_nothing_done() -> None:
    j = get_judge("facts")
    booking = {"patient_id": "P001", "doctor_id": "D102", "date": "2025-07-01",
               "time": "11:00"}
    booked = make_trace("n1", NOBOOKING, "Not booked.",
                        calls=[("schedule_appointment", booking, {"status": "booked"})])
    looked = make_trace("n2", NOBOOKING, "Not booked.",
                        calls=[("get_patient_record", {"patient_id": "P001"}, {})])
    assert (await j.judge(looked, NOBOOKING)).correct is True
    assert (await j.judge(booked, NOBOOKING)).correct is False


def test_extractors() -> None:
    assert [n.value for n in find_numbers("-3 °C, −2.5 and 1,250,000")] == [-3, -2.5, 1250000]
    assert find_numbers("14°C")[0].unit == "C"
    assert find_numbers("11 degrees C")[0].unit == "C"
    assert find_numbers("68 deg F")[0].unit == "F"
    assert find_numbers("60%")[0].unit == "%"
    assert find_numbers("$74.97")[0].unit == "USD"
    assert find_numbers("about $30")[0].approx and not find_numbers("$30")[0].approx
    assert [(n.value, n.unit) for n in find_numbers("three events, half an hour")] == [
        (3.0, "events"), (30.0, "minutes")]
    assert find_numbers("1 h 30 min")[0].value == 90
    assert {t for _, t in find_times("at noon or 9:30 am or 21:15")} == {"12:00", "09:30",
                                                                       "21:15"}
    assert [t for _, t in find_times("8–9 am")] == ["08:00", "09:00"]
    days = find_dates("06/07/2025")[0][1]
    assert {d.isoformat() for d in days} == {"2025-06-07", "2025-07-06"}
    assert {d.isoformat() for _, ds in find_dates("June 16–22") for d in ds} == {
        "2025-06-16", "2025-06-22"}
    assert {d.isoformat() for d in find_dates("18/06")[0][1]} == {"2025-06-18"}
    assert find_dates("21.1/11.3") == []  # two decimals, not a date
    assert {d.isoformat() for d in find_dates("six days from today")[0][1]} == {"2025-06-22"}


@pytest.mark.parametrize(("fact", "answer", "expected"), [
    (Fact(key="wind_kph", kind="number", value=12, unit="km/h", tolerance=0.5),
     "Wind around 12 kph.", True),
    (Fact(key="wind_kph", kind="number", value=12, unit="km/h", tolerance=0.5),
     "Wind 7.5 mph.", True),  # 12.07 km/h
    (Fact(key="wind_kph", kind="number", value=12, unit="km/h", tolerance=0.5),
     "Wind 12 mph.", False),
    (Fact(key="area_km2", kind="number", value=31980, unit="km2", tolerance=0.0),
     "Maenmer covers 31,980 km².", True),
    # an ordinal day is not a quantity: "the 17th" must not satisfy a 17 °C fact
    (Fact(key="temperature", kind="number", value=17, unit="°C", tolerance=0.1),
     "On the 17th it will be 20 °C.", False),
    (Fact(key="p", kind="number", value=0.6, unit="%"), "a 60% chance", True),
])
def test_number_units_and_ordinals(fact: Fact, answer: str, expected: bool) -> None:
    assert fact_stated(fact, answer) is expected
