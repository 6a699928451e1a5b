"""The facts judge: paraphrased correct answers pass, subtly wrong ones fail."""

from __future__ import annotations

import pytest

from agentprop.core import Fact
from agentprop.judges import check_answer, fact_stated, get_judge
from agentprop.judges._extract import find_dates, find_numbers, find_times
from tests.judges.conftest import (
    BOOKING,
    CALENDAR,
    MEDICAL,
    NOBOOKING,
    NOFACTS,
    RETAIL,
    STATEFACT,
    WEATHER,
    make_trace,
)


@pytest.mark.parametrize("answer", [
    "Tomorrow in London: 14°C, light rain.",
    "Expect about 14 degrees and some drizzle in London on June 17.",
    "It'll be 57 °F and rainy.",  # 57 °F = 13.9 °C; city and date are in the query
    "Tuesday, June 17: light rain, high of 14.3 C. Bring an umbrella!",
    "London, 17 June 2025 — 14 °C, showers expected.",
])
def test_weather_paraphrases_correct(answer: str) -> None:
    assert check_answer(WEATHER, answer)[0] is True, check_answer(WEATHER, answer)[1]


@pytest.mark.parametrize("answer", [
    "In Paris tomorrow: 19°C and sunny.",  # another city's weather
    "Tomorrow in London: 19°C with light rain.",  # wrong temperature
    "Tomorrow in London: 14°C and sunny.",  # wrong condition
    "Tomorrow in London: 14°F, light rain.",  # wrong unit: 14 °F = -10 °C
    "On June 18 in London: 14°C, light rain.",  # wrong date
    "Light rain tomorrow, June 17.",  # no temperature (17 is a date, not a number)
])
def test_weather_subtly_wrong(answer: str) -> None:
    assert check_answer(WEATHER, answer)[0] is False


def test_medical_severity() -> None:
    assert check_answer(MEDICAL, "Warfarin with aspirin: a SEVERE interaction (bleeding).")[0]
    assert check_answer(MEDICAL, "Severity: High.")[0]
    assert not check_answer(MEDICAL, "The interaction severity is moderate.")[0]
    assert not check_answer(MEDICAL, "Severity is highly uncertain.")[0]  # whole words only


def test_money_and_thousands() -> None:
    assert check_answer(RETAIL, "Order O-1042 comes to $74.97 and earns 1,250 points.")[0]
    assert check_answer(RETAIL, "The total is 74.97 dollars (1250 points).")[0]
    assert not check_answer(RETAIL, "The total is $74.79 (1,250 points).")[0]
    assert not check_answer(RETAIL, "The total is $75 (1,250 points).")[0]  # cents matter
    assert not check_answer(RETAIL, "The total is $74.97 (1,520 points).")[0]


@pytest.mark.parametrize("answer", [
    "Dentist on 2025-06-17 at 14:00.", "Dentist: 06/17/2025, 2 pm.",
    "Your dentist visit is June 17 at 2:00 PM.", "dentist — 17 June 2025, 2 p.m.",
    "Dentist appointment tomorrow at 14:00.", "Dentist, Tuesday, June 17th, 2pm.",
])
def test_calendar_formats(answer: str) -> None:
    assert check_answer(CALENDAR, answer)[0] is True, check_answer(CALENDAR, answer)[1]


@pytest.mark.parametrize("answer", [
    "Dentist on 2025-06-18 at 14:00.", "Dentist: June 17 at 3 pm.",
    "Dentist on June 17 at 2 am.", "Dentist on June 17 at noon.",
])
def test_calendar_wrong(answer: str) -> None:
    assert check_answer(CALENDAR, answer)[0] is False


def test_abstentions_incorrect_and_no_facts_unscored() -> None:
    assert check_answer(WEATHER, None)[0] is False
    assert check_answer(WEATHER, "   ")[0] is False
    assert check_answer(WEATHER, "14 °C, light rain", abstained=True)[0] is False
    assert check_answer(NOFACTS, "Shakespeare")[0] is None


async def test_state_fact_from_tool_observations() -> None:
    j = get_judge("facts")
    ok = make_trace("b1", STATEFACT, "Done.",
                    observations=[{"event": {"title": "Team Sync", "status": "confirmed"}}])
    err = make_trace("b2", STATEFACT, "Done.",
                     observations=[{"error": {"type": "conflict", "message": "busy",
                                              "event": {"status": "confirmed"}}}])
    assert (await j.judge(ok, STATEFACT)).correct is True
    assert (await j.judge(err, STATEFACT)).correct is False  # error observations do not count


RIGHT = {"title": "Team sync", "date": "2025-06-20", "start_time": "10:00",
         "duration_minutes": 60}
WRONG = {**RIGHT, "date": "2025-06-21"}
ANSWER = "Booked 'Team sync' on June 20 at 10:00."


async def test_expected_state_is_checked_on_the_replayed_world() -> None:
    """The executed calls are replayed in a fresh environment: a corrupted call that
    created a wrong event before the right one is no failure; observations that merely
    claim the right event are no success."""
    j = get_judge("facts")
    echo = {"created": True, **RIGHT}  # what a (possibly corrupted) observation says
    recovered = make_trace("s1", BOOKING, ANSWER,
                           calls=[("create_event", WRONG, {"created": True, **WRONG}),
                                  ("create_event", RIGHT, echo)])
    fooled = make_trace("s2", BOOKING, ANSWER, calls=[("create_event", WRONG, echo)])
    nothing = make_trace("s3", BOOKING, ANSWER)
    assert (await j.judge(recovered, BOOKING)).correct is True
    bad = await j.judge(fooled, BOOKING)
    assert bad.correct is False
    assert [c["key"] for c in bad.raw["checks"] if not c["ok"]] == ["state.events"]
    assert (await j.judge(nothing, BOOKING)).correct is False
    assert check_answer(BOOKING, ANSWER)[0] is True  # no trace: answer facts only


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
    assert find_numbers("60%")[0].unit == "%"
    assert find_numbers("$74.97")[0].unit == "USD"
    assert {t for _, t in find_times("at noon or 9:30 am or 21:15")} == {"12:00", "09:30",
                                                                       "21:15"}
    days = find_dates("06/07/2025")[0][1]
    assert {d.isoformat() for d in days} == {"2025-06-07", "2025-07-06"}


def test_percent_fact_accepts_fraction() -> None:
    f = Fact(kind="number", key="p", value=0.6, unit="%")
    assert fact_stated(f, "a 60% chance")
    assert not fact_stated(f, "a 70% chance")
    g = Fact(kind="number", key="p", value=60, unit="percent")
    assert fact_stated(g, "60 percent") and not fact_stated(g, "60 °C")


def test_answer_about_another_query_entity_is_wrong() -> None:
    """Context facts are optional, but naming another city / patient instead is wrong."""
    from agentprop.judges import query_vocabulary
    from tests.judges.conftest import make_task

    ask = make_task("m1", "medical", "Does patient P0012 have allergies?",
                    "Patient P0012 is allergic to codeine.",
                    [Fact(kind="entity", key="allergy_1", value="codeine")],
                    meta={"query_entities": {"patient_id": "P0012"}})
    other = make_task("m2", "medical", "Does patient P0031 have allergies?", "x", [],
                      meta={"query_entities": {"patient_id": "P0031"}})
    w = WEATHER.model_copy(update={"meta": {"query_entities": {"city": "London"}}})
    paris = make_task("w2", "weather", "Weather in Paris?", "x", [],
                      meta={"query_entities": {"city": "Paris", "unit": "celsius"}})
    vocab = query_vocabulary([ask, other, w, paris])
    assert vocab == {"patient_id": {"p0012", "p0031"}, "city": {"london", "paris"}}
    assert check_answer(ask, "Codeine.", vocabulary=vocab)[0] is True
    assert check_answer(ask, "Patient P0012: codeine.", vocabulary=vocab)[0] is True
    assert check_answer(ask, "Patient P0031 is allergic to codeine.", vocabulary=vocab)[0] is False
    assert check_answer(ask, "Patient P0031 is allergic to codeine.")[0] is True  # no vocab
    assert check_answer(w, "Tomorrow in Paris: 14 °C, light rain.", vocabulary=vocab)[0] is False
    assert check_answer(w, "Tomorrow: 14 °C, light rain.", vocabulary=vocab)[0] is True


@pytest.mark.parametrize(("fact", "answer", "expected"), [
    # realistic spellings of the suite's own units
    (Fact(key="wind_kph", kind="number", value=12, unit="km/h", tolerance=2.0),
     "Wind around 12 kph.", True),
    (Fact(key="wind_kph", kind="number", value=12, unit="km/h", tolerance=2.0),
     "Wind around 12 km/hr.", True),
    (Fact(key="wind_kph", kind="number", value=12, unit="km/h", tolerance=2.0),
     "Wind around 12 mph.", False),
    (Fact(key="area_km2", kind="number", value=31980, unit="km2", tolerance=0.0),
     "Maenmer covers 31,980 km².", True),
    # an ordinal day is not a quantity: "the 17th" must not satisfy a 17 °C fact
    (Fact(key="temperature", kind="number", value=17, unit="°C", tolerance=0.5),
     "On the 17th it will be 20 °C.", False),
])
def test_number_units_and_ordinals(fact: Fact, answer: str, expected: bool) -> None:
    assert fact_stated(fact, answer) is expected


def test_a_qualified_or_negated_phrase_does_not_state_the_fact() -> None:
    from agentprop.judges._extract import contains_phrase

    assert not contains_phrase("Partly cloudy, 14 °C.", "cloudy")
    assert contains_phrase("Cloudy in the morning, partly cloudy later.", "cloudy")
    assert not contains_phrase("No rain expected tomorrow.", "rain")
    assert contains_phrase("Light rain tomorrow.", "rain")
    assert not contains_phrase("Not London but Paris: 21 °C.", "London")
    assert contains_phrase("P012 has no known allergies.", "no known allergies")
