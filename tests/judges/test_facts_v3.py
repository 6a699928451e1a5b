"""The facts judge v3 (issue 21 item 4): each test pins one general cause of a wrong verdict
found on the v3 dev set, with phrasings of its own (not the dev set's sentences)."""

from __future__ import annotations

import pytest

from agentprop.judges._entities import Vocabulary
from agentprop.judges._extract import find_numbers
from agentprop.suite import Suite
from tests.judges.facts_support import facts_ok, real_suite, real_vocab  # noqa: F401

_ok = facts_ok


# weather_0147: Beijing today, not raining, 19.4 °C, partly cloudy
# medical_0336: P019 takes insulin glargine and atorvastatin; severity none
# medical_0431: P047's salbutamol + prednisone: none, so nothing booked
# retail_0280: Brightline ($135.95) cheaper than Solenne Compact ($159.00) by $23.05
# retail_0289: Kestrel Air Purifier ($263.95) vs Marlow ($343.99), order 2, $527.90
# retail_0087: Brightline toothbrush, 50 in stock, order 2 ($271.90)
# knowledge_0041: Haeltgrairk Ryshsein (historian, born in Tambi): The Ninth Almanac
# knowledge_0090: Beinfyltste's area is 35,146 km²
# weather_0019: Madrid (14.9 °C) vs Sydney (13.7 °C), which is warmer
# weather_0575: Rio 73.1 °F vs a May normal of 73.4 °F: cooler by 0.3 °F
# calendar_0285: Quarterly planning on Friday 10:15-12:15 (120 minutes)


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    # "no" negates its own noun: "no rain in Beijing" does not deny Beijing
    ("weather_0147", "Currently no rain in Beijing; partly cloudy at 19.4 °C.", True),
    ("medical_0336", "Severity: none. There is no interaction between insulin glargine and "
                     "atorvastatin.", True),
    # ... but a negated list item still is one
    ("medical_0336", "P019 is not taking atorvastatin, and insulin glargine alone has no "
                     "interaction.", False),
])
def test_a_determiner_no_negates_its_own_noun(suite: Suite, vocab: Vocabulary, tid: str,
                                              answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


def test_a_hedge_in_a_parenthesis_hedges_only_it(suite: Suite, vocab: Vocabulary) -> None:
    # "mild" is a claim about the pair, whatever the parenthesis doubts
    assert _ok(suite, vocab, "medical_0431",
               "Salbutamol with prednisone is a mild interaction (it may lower potassium), "
               "so it is not high severity and I booked nothing.") is False


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    # a possessive names the product
    ("retail_0280", "Brightline's brush costs less than the Solenne Compact, by $23.05.", True),
    # a "(a vs b)" pair is not attributed to the name before the parenthesis
    ("retail_0289", "Go with the Kestrel Air Purifier, $80.04 less than the Marlow "
                    "($263.95 vs $343.99). I ordered 2 for $527.90.", True),
])
def test_names_and_pairs(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                         expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


def test_a_true_value_is_no_other_entity(suite: Suite, vocab: Vocabulary) -> None:
    # Tambi is another task's subject, but here the subject's true birthplace
    assert _ok(suite, vocab, "knowledge_0041",
               "Born in Tambi, the historian Haeltgrairk Ryshsein is remembered above all for "
               "The Ninth Almanac.") is True


@pytest.mark.parametrize(("text", "value", "unit"), [
    ("an area of 1,000 square miles", 2589.988, "km2"),
    ("a 3.9-star product", 3.9, "stars"),
    ("rated 4.1★", 4.1, "stars"),
    ("12,5 °C", 12.5, "C"),
    ("23,40 $", 23.4, "USD"),
    ("合計は50.00ドル", 50.0, "USD"),
])
def test_units_and_decimal_commas(text: str, value: float, unit: str) -> None:
    n = find_numbers(text)[0]
    assert (round(n.value, 3), n.unit) == (value, unit)


def test_a_number_in_another_unit_is_checked(suite: Suite, vocab: Vocabulary) -> None:
    assert _ok(suite, vocab, "knowledge_0090", "Beinfyltste covers 35,146 sq mi.") is False


@pytest.mark.parametrize(("answer", "expected"), [
    ("Too close to call: Madrid has 14.9 °C and Sydney 13.7 °C.", False),
    ("Madrid 14.9 °C, Sydney 13.7 °C: Madrid is the warmer one.", True),
])
def test_declining_to_decide_is_no_decision(suite: Suite, vocab: Vocabulary, answer: str,
                                            expected: bool) -> None:
    assert _ok(suite, vocab, "weather_0019", answer) is expected


@pytest.mark.parametrize(("answer", "expected"), [
    ("Pretty much normal, a touch cooler: 73.1 °F against the usual 73.4 °F.", True),
    ("It was about the same as normal.", False),  # no trend stated
    ("Cooler than normal by 0.3 °F (73.1 °F; change −0.3 °F).", True),
])
def test_near_normal_bounds_the_trend(suite: Suite, vocab: Vocabulary, answer: str,
                                      expected: bool) -> None:
    assert _ok(suite, vocab, "weather_0575", answer) is expected


def test_a_count_after_the_order_is_derived(suite: Suite, vocab: Vocabulary) -> None:
    base = ("The Brightline Electric Toothbrush is the best rated; {} units were in stock and I "
            "ordered 2 for $271.90 ({} units left).")
    assert _ok(suite, vocab, "retail_0087", base.format(50, 48)) is True
    assert _ok(suite, vocab, "retail_0087", base.format(50, 45)) is False


def test_a_duration_follows_from_a_time_range(suite: Suite, vocab: Vocabulary) -> None:
    assert _ok(suite, vocab, "calendar_0285",
               "Your Quarterly planning runs from 10:15 until 12:15.") is True
    assert _ok(suite, vocab, "calendar_0285",
               "Your Quarterly planning runs from 10:15 until 11:15.") is False


# weather_0607: Delhi 9-15 June: mean 95.1 °F, 36.8 mm on 3 days (the 15th itself was dry)
# medical_0207: fluconazole vs metformin, cimetidine, paracetamol: all none
# medical_0405: azathioprine vs allopurinol high, losartan and amlodipine none
# calendar_0609: Coffee with Alex booked 09:15-10:15 on June 18 (08:15 taken)
# calendar_0547: replace Haircut (Sat June 28, 11:30) with Pick up dry cleaning
# calendar_0190: cancel the Project sync on Thursday June 26 (not the Parent-teacher meeting)
# calendar_0191: Coffee with Alex on Sunday June 22, 08:00-08:45


def test_a_value_said_of_a_period_is_not_said_of_its_last_day(suite: Suite,
                                                              vocab: Vocabulary) -> None:
    assert _ok(suite, vocab, "weather_0607",
               "Delhi, June 9–15: mean 95.1 °F and some rain, 36.8 mm in total.") is True


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ("medical_0207", "Safe: no known interaction with any of them (metformin, cimetidine, "
                     "paracetamol).", True),
    ("medical_0207", "It is safe, there is no interaction with any of the patient's current "
                     "medications.", True),
    # a quantified "none" over a list holding a high-severity pair is false
    ("medical_0405", "Azathioprine has no known interaction with any of P046's medications.",
     False),
    # medical_0299 asks salbutamol + sildenafil (none): an answer about another drug is not
    # made true by a quantifier-looking word
    ("medical_0299", "Salbutamol and losartan: severity none, no interaction with either.",
     False),
])
def test_a_severity_said_of_every_drug(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                       expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


def test_free_time_bounds_are_not_an_events_times(suite: Suite, vocab: Vocabulary) -> None:
    assert _ok(suite, vocab, "calendar_0609",
               "Booked Coffee with Alex on June 18 at 09:15–10:15: the Doctor checkup has "
               "08:15, and the slot before Team standup (08:45–09:00) is only 15 minutes.") is True


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ("calendar_0547", "Swapped the Haircut on June 28 for Pick up dry cleaning at 11:30.", True),
    ("calendar_0190", "Cancelled — the Parent-teacher meeting on June 26 is gone.", False),
    ("calendar_0190", "Cancelled your Project sync on June 26.", True),
])
def test_what_the_action_was_done_to(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                     expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


@pytest.mark.parametrize(("answer", "expected"), [
    ("Added Coffee with Alex on Sunday, June 22, 08:00–08:45.", True),
    ("Added Coffee with Alex on Friday, June 22, 08:00–08:45.", False),  # June 22 is a Sunday
])
def test_a_weekday_that_does_not_fit_its_date(suite: Suite, vocab: Vocabulary, answer: str,
                                              expected: bool) -> None:
    assert _ok(suite, vocab, "calendar_0191", answer) is expected


# weather_0019: Madrid 14.9 °C warmer than Sydney 13.7 °C tomorrow
# medical_0072: fluconazole + warfarin: high
# calendar_0002: create Tax advisor meeting on 2025-07-03, 14:15-15:15
# retail_0003: Lumora Compact ($221.00) cheaper than Pinecrest Deluxe ($223.00) by $2.00
# weather_0147: Beijing today: no rain, 19.4 °C
# medical_0019: Lucia Brown (P016) is allergic to morphine and penicillin


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    # other languages state the truth (months, decimal commas, "h" times, cues, city names)
    ("weather_0019", "Morgen ist es in Madrid wärmer: 14,9 °C gegenüber 13,7 °C in Sydney.",
     True),
    ("weather_0019", "Demain, il fera plus chaud à Sydney (13,7 °C) qu'à Madrid.", False),
    ("medical_0072", "La interacción entre fluconazol y warfarina es grave.", True),
    ("medical_0072", "Tra fluconazolo e warfarin l'interazione è lieve.", False),
    ("calendar_0002", "Fatto: ho aggiunto «Tax advisor meeting» il 3 luglio, 14h15–15h15.", True),
    ("calendar_0002", "Erledigt: „Tax advisor meeting“ am 4. Juli, 14:15–15:15 Uhr.", False),
    ("retail_0003", "O Lumora Compact é mais barato: 221,00 $ contra 223,00 $, 2,00 $ a menos.",
     True),
    ("retail_0003", "De Pinecrest Deluxe is goedkoper, 2,00 $ verschil.", False),
    ("weather_0147", "北京今天不下雨，气温 19,4 °C。", True),
    ("weather_0147", "Sí, hoy llueve en Pekín, 19,4 °C.", False),
    ("medical_0019", "Lucia Brown (P016) ist allergisch gegen Morphin und Penicillin.", True),
    ("medical_0019", "Lucia Brown (P016) no tiene alergias conocidas.", False),
])
def test_answers_in_other_languages(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                    expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


@pytest.mark.parametrize(("text", "iso"), [
    ("am 3. Juli 2025", "2025-07-03"), ("le 18 juin", "2025-06-18"),
    ("16 de junho de 2025", "2025-06-16"), ("7月3日", "2025-07-03"),
    ("- 17.06.: 20 °C", "2025-06-17"), ("domani", "2025-06-17"),
])
def test_dates_in_other_languages(text: str, iso: str) -> None:
    from agentprop.judges._extract import find_dates

    assert iso in {d.isoformat() for _, ds in find_dates(text) for d in ds}


# calendar_0667: 16 events this week; Car service Tue 17 13:30, Sprint planning Wed 18 and
# Fri 20, Gym session Wed 18 16:45


@pytest.mark.parametrize(("answer", "expected"), [
    ("16 events this week. On Tuesday there is also the Car service at 13:30.", True),
    ("16 events this week. On Thursday there is also the Car service at 13:30.", False),
    # a title two events share is on either one's day
    ("16 events this week; Friday has Sprint planning at 11:30.", True),
])
def test_an_event_on_a_day_that_is_not_its_own(suite: Suite, vocab: Vocabulary, answer: str,
                                                expected: bool) -> None:
    assert _ok(suite, vocab, "calendar_0667", answer) is expected


# medical_0508: amiodarone + simvastatin: moderate; the reference limits simvastatin to 20 mg
# knowledge_0069: Keilt Mirksatei (1717-1760), poet, best known for The Amber Chronicle


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ("medical_0508", "A moderate interaction; keep simvastatin at 20 mg a day at most.", True),
    ("medical_0508", "A moderate interaction; keep simvastatin at 80 mg a day at most.", False),
    ("knowledge_0069", "The Amber Chronicle, written by Keilt Mirksatei around 1740.", True),
    ("knowledge_0069", "Keilt Mirksatei's best-known book, The Amber Chronicle, came out in "
                       "1802.", False),
])
def test_claims_no_fact_covers_checked_against_the_truth(suite: Suite, vocab: Vocabulary,
                                                          tid: str, answer: str,
                                                          expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    # a comparative verb: the option after it lost
    ("weather_0019", "Madrid (about 15 °C) tops Sydney tomorrow.", True),
    ("weather_0019", "Sydney tops Madrid tomorrow.", False),
    # a negation right after the claim
    ("weather_0147", "Rain is not expected in Beijing today; 19.4 °C.", True),
    ("weather_0147", "In Peking regnet es heute nicht, 19,4 °C.", True),
    ("weather_0147", "Aucune pluie à Pékin, 19,4 °C.", True),
    # inflected adjectives and spellings of other languages
    ("medical_0072", "Eine schwerwiegende Wechselwirkung: Fluconazol mit Warfarin.", True),
    ("medical_0019", "P016 tiene alergia a la morfina y a la penicilina.", True),
    # an amount in words
    ("retail_0003", "The Lumora Compact is cheaper, by two dollars.", True),
    ("retail_0003", "The Lumora Compact is cheaper, by three dollars.", False),
])
def test_verbs_negations_and_inflections(suite: Suite, vocab: Vocabulary, tid: str,
                                         answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


@pytest.mark.parametrize(("tid", "answer"), [
    # alternatives and doubt, in English and other languages, commit to nothing
    ("weather_0019", "Madrid should be warmer tomorrow, or possibly Sydney."),
    ("weather_0019", "Morgen ist es in Madrid oder in Sydney wärmer."),
    ("weather_0019", "Plus chaud à Madrid, ou peut-être à Sydney : difficile à dire."),
    ("medical_0072", "L'interazione è forse grave, forse moderata."),
])
def test_alternatives_in_any_language_are_no_answer(suite: Suite, vocab: Vocabulary, tid: str,
                                                    answer: str) -> None:
    assert _ok(suite, vocab, tid, answer) is False


@pytest.mark.parametrize(("name", "max_false_accepts", "min_kappa"), [
    # scored once with v3 on 2026-12-02: κ 0.910, 2 false accepts of 97, 7 false rejects
    ("facts_heldout2026.jsonl", 2, 0.90),
    # scored once with v4 on 2026-12-02: κ 0.791, 5 false accepts of 97, 16 false rejects
    # (docs/judges.md, "Held out, version 4")
    ("facts_heldout2026b.jsonl", 5, 0.79),
    # scored once with v5 on 2026-12-07: κ 0.800, 6 false accepts of 100, 14 false rejects
    # (docs/judges.md, "Held out, version 5")
    ("facts_heldout2026c.jsonl", 6, 0.79),
])
def test_agreement_on_the_2026_held_out_sets(suite: Suite, name: str, max_false_accepts: int,
                                             min_kappa: float) -> None:
    """200 answers each, written and labelled (two graders, 198-200/200 agree) before and
    without reading the judge version that was then scored on them once. Kept so a change
    that loses ground there shows; neither is held out for the next version."""
    import asyncio
    from pathlib import Path

    from agentprop.analysis import cohen_kappa
    from agentprop.judges import ValidationSet, get_judge
    from agentprop.judges._validity import as_trace

    vset = ValidationSet.load(Path(__file__).parents[1] / "fixtures" / name)
    judge = get_judge("facts", suite=suite)

    async def verdicts() -> list[bool | None]:
        out = []
        for item in vset.items:
            task = suite.get(item.task_id)
            out.append((await judge.judge_many(as_trace(item, task), task))[0].correct)
        return out

    said = asyncio.run(verdicts())
    human = [item.label == "correct" for item in vset.items]
    assert len(human) == 200 and None not in said
    false_accepts = sum(bool(s) and not h for s, h in zip(said, human, strict=True))
    k = cohen_kappa([bool(s) for s in said], human, n_resamples=50)
    assert false_accepts <= max_false_accepts and k.kappa >= min_kappa
