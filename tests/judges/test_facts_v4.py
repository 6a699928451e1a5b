"""The facts judge v4: each test pins one family of wrong verdicts (found on the 2026
held-out set once it was scored, or by probing the families the v3 notes list as weak),
with phrasings of its own."""

from __future__ import annotations

import pytest

from agentprop.judges._entities import Vocabulary
from agentprop.judges._extract import find_dates, find_numbers
from agentprop.suite import Suite
from tests.judges.facts_support import facts_ok, real_suite, real_vocab  # noqa: F401

_ok = facts_ok


# calendar_0665: move the Yoga class (2025-06-17, 17:00–18:00) to 18:30 (18:30–19:30); the day
# also has Gym session 13:30–14:30 and Interview with candidate 15:00–16:00


@pytest.mark.parametrize(("answer", "expected"), [
    ("Done: your Yoga class now runs 18:30 to 19:30.", True),
    ("Yoga class rescheduled from 17:00 to 18:30.", True),
    ("Your Yoga class (previously 17:00–18:00) now starts at 18:30.", True),
    ("Yoga class moved: 17:00–18:00 → 18:30–19:30.", True),
    ("Yoga class: moved, 18:30 instead of 17:00.", True),
    ("You had Yoga class 17:00–18:00; it now runs 18:30–19:30.", True),
    ("Die Yoga class habe ich von 17:00 auf 18:30 verschoben.", True),
    # the old start or end said as the new one
    ("Your Yoga class now starts at 17:00.", False),
    ("Moved the Yoga class to 18:30–18:00.", False),
    ("Yoga class rescheduled to Tuesday, 17:00–18:00.", False),
])
def test_a_moved_event_has_its_new_times(suite: Suite, vocab: Vocabulary, answer: str,
                                         expected: bool) -> None:
    assert _ok(suite, vocab, "calendar_0665", answer) is expected


# medical_0070: trimethoprim + methotrexate interact, severity high (asked: whether they interact)
# weather_0147: Beijing today, not raining, 19.4 °C, partly cloudy


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ("medical_0070", "Yes, they interact, and the interaction is high severity.", True),
    ("medical_0070", "Yes. It is a serious interaction (it may raise methotrexate levels).",
     True),
    # alternatives for a value the answer volunteers, hedged or not, one of them false
    ("medical_0070", "They do interact; how bad depends on the dose, the severity being "
                     "moderate or high.", False),
    ("medical_0070", "Yes, an interaction that might be moderate or high.", False),
    ("medical_0070", "Yes, they interact: either a major or a moderate interaction.", False),
    ("weather_0147", "No rain in Beijing; partly cloudy or sunny, around 19.4 °C.", False),
    ("weather_0147", "No rain in Beijing; partly cloudy, 19.4 °C, possibly 21 °C.", False),
])
def test_alternatives_with_a_false_option_are_no_claim_to_accept(
        suite: Suite, vocab: Vocabulary, tid: str, answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# medical_0188: P050's clopidogrel + omeprazole interact, moderate; book a GP only if high


@pytest.mark.parametrize(("answer", "expected"), [
    # the leading Yes answers "do they interact?", not "is it high-severity?"
    ("Yes, the two interact (moderate), so no appointment was needed.", True),
    ("Yes, they do interact, though only moderately; it is not high severity, so I did not "
     "book anything.", True),
    ("Yes: a moderate interaction, not a high-severity one.", True),
    ("Yes, they interact, and it is high-severity.", False),
    ("No, they don't interact.", False),
])
def test_a_leading_yes_answers_only_the_first_question(suite: Suite, vocab: Vocabulary,
                                                       answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, "medical_0188", answer) is expected


# medical_0068: fluoxetine with P043's insulin glargine (none), atorvastatin (none) and
# metoprolol (moderate)


@pytest.mark.parametrize(("answer", "expected"), [
    # a claim said of coordinated names is said of each
    ("Caution with metoprolol (moderate interaction). Fluoxetine shows no interaction with "
     "either insulin glargine or atorvastatin.", True),
    ("Atorvastatin, insulin glargine: no interaction. Metoprolol: moderate interaction.", True),
    ("Moderate interaction with metoprolol; fluoxetine does not interact with atorvastatin "
     "and insulin glargine.", True),
    # ... so a wrong severity reaches each of them too
    ("Fluoxetine has a moderate interaction with metoprolol and atorvastatin; none with "
     "insulin glargine.", False),
    ("No interaction with insulin glargine or metoprolol, but a moderate one with "
     "atorvastatin.", False),
    # a negated list item is still one
    ("P043 is not taking atorvastatin; metoprolol interacts moderately, insulin glargine "
     "not at all.", False),
])
def test_a_claim_about_coordinated_drugs_is_about_each(suite: Suite, vocab: Vocabulary,
                                                       answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, "medical_0068", answer) is expected


# retail_0263: the best-rated webcam is the Northwind Webcam ($78.49); buy 2: $156.98


@pytest.mark.parametrize(("answer", "expected"), [
    # a CJK cue followed by a digit ("…2个") is still a cue; "bought" is "ordered"
    ("Northwind Webcam 评分最高。已下单2个，合计156.98美元。", True),
    ("Northwind Webcam 评分最高，我已购买2个，合计156.98美元。", True),
    ("La Northwind Webcam es la mejor valorada; he comprado 2 por 156.98 $.", True),
    ("A Northwind Webcam é a mais bem avaliada: comprei 2, total 156.98 $.", True),
    ("La Northwind Webcam est la mieux notée ; j'en ai acheté 2 pour 156.98 $.", True),
    # negations of a foreign "ordered"
    ("La Northwind Webcam est la mieux notée ; je n'ai rien commandé.", False),
    ("Die Northwind Webcam ist am besten bewertet; ich habe nichts bestellt.", False),
])
def test_foreign_order_cues(suite: Suite, vocab: Vocabulary, answer: str,
                            expected: bool) -> None:
    assert _ok(suite, vocab, "retail_0263", answer) is expected


@pytest.mark.parametrize(("text", "value", "unit"), [
    ("1.234,50 $", 1234.5, "USD"),
    ("USD 263,95", 263.95, "USD"),
    ("US$ 156,98", 156.98, "USD"),
    ("insgesamt 1.055,80", 1055.8, None),
    ("1.234.567 Einwohner", 1234567.0, "people"),
    ("35 146 km²", 35146.0, "km2"),
    ("35\u202f146 habitants", 35146.0, "people"),
    ("12,7 °C", 12.7, "C"),
])
def test_european_number_formats(text: str, value: float, unit: str | None) -> None:
    (n,) = find_numbers(text)
    assert (n.value, n.unit) == (value, unit)


def test_a_list_of_numbers_is_not_read_as_thousands() -> None:
    assert [n.value for n in find_numbers("14, 15 and 16 °C; ordered 2 for $527.90")] == [
        14.0, 15.0, 16.0, 2.0, 527.9]


# knowledge_0090: Beinfyltste's area is 35,146 km²; knowledge_0006: Stoskith has 300,782
# inhabitants; retail_0289: Kestrel ($263.95) is cheaper than Marlow ($343.99), 2 ordered
# for $527.90


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    # a thousands dot or space is read either way where it is ambiguous
    ("knowledge_0090", "Beinfyltste hat eine Fläche von 35.146 Quadratkilometern.", True),
    ("knowledge_0090", "La superficie de Beinfyltste est de 35 146 km².", True),
    ("knowledge_0090", "Beinfyltste: 35.164 km².", False),
    ("knowledge_0006", "Stoskith compte 300 782 habitants.", True),
    ("knowledge_0006", "Stoskith hat rund 380.000 Einwohner.", False),
    # decimal commas after a currency sign, and "statt" sets one value against another
    ("retail_0289", "Kestrel Air Purifier: USD 263,95, Marlow: USD 343,99. Bestellt: 2 Stück, "
                    "insgesamt USD 527,90.", True),
    ("retail_0289", "Der Kestrel Air Purifier ist günstiger (263,95 $ statt 343,99 $). "
                    "2 Stück bestellt: 527,90 $.", True),
    ("retail_0289", "Kestrel Air Purifier: USD 263,95, Marlow: USD 343,99. Bestellt: 2 Stück, "
                    "insgesamt USD 572,90.", False),
])
def test_european_numbers_in_answers(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                     expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# weather_0394: Vancouver 1–5 June, 12.7 °C against a June normal of 15.7 °C: 3 °C cooler


@pytest.mark.parametrize(("answer", "expected"), [
    # the article "la" is not "LA" (Los Angeles), so the values stay Vancouver's
    ("Vancouver était plus frais que la normale : 12,7 °C contre 15,7 °C, soit 3 °C de "
     "moins.", True),
    ("Vancouver estuvo más fresco que la media: 12,7 °C frente a 15,7 °C (3 °C menos).", True),
    ("Vancouver était plus frais que la normale : 12,7 °C contre 15,7 °C, soit 4 °C de "
     "moins.", False),
])
def test_a_short_capitals_alias_needs_capitals(suite: Suite, vocab: Vocabulary, answer: str,
                                               expected: bool) -> None:
    assert _ok(suite, vocab, "weather_0394", answer) is expected


@pytest.mark.parametrize(("answer", "expected"), [
    # a weekday named alone, in another language, is a day like "Wednesday" is
    ("Ich habe deinen Yoga class am Dienstag auf 18:30 verschoben.", True),
    ("J'ai déplacé ton Yoga class mardi, à 18h30.", True),
    ("已将周二的 Yoga class 改到18:30。", True),
    ("Yoga class を火曜日の18:30に移動しました。", True),
    ("Ich habe deinen Yoga class auf Mittwoch, 18:30 verschoben.", False),
    ("He movido tu Yoga class al miércoles a las 18:30.", False),
    ("Movi a Yoga class para quinta-feira às 18:30.", False),
    ("已将 Yoga class 改到周三18:30。", False),
    ("Yoga class を水曜日の18:30に移動しました。", False),
])
def test_foreign_weekday_names(suite: Suite, vocab: Vocabulary, answer: str,
                               expected: bool) -> None:
    assert _ok(suite, vocab, "calendar_0665", answer) is expected


@pytest.mark.parametrize(("text", "days"), [
    ("am Mittwoch", {"2025-06-18"}),
    ("周日", {"2025-06-22"}),
    ("mercredi prochain", {"2025-06-11", "2025-06-18", "2025-06-25"}),  # either week
    ("mardi 17 juin", {"2025-06-17"}),
    ("pela segunda vez", set()),  # "segunda" alone is "second"
])
def test_foreign_weekday_dates(text: str, days: set[str]) -> None:
    assert {d.isoformat() for _, ds in find_dates(text) for d in ds} == days


# medical_0109: P030 has no known allergies (takes clopidogrel and omeprazole)


@pytest.mark.parametrize(("answer", "expected"), [
    ("Não: P030 não tem nenhuma alergia registrada.", True),
    ("Nein, für P030 sind keine Allergien bekannt.", True),
    ("P030 n'a aucune allergie connue.", True),
    ("P030 没有任何过敏。", True),
    ("P030 にはアレルギーがありません。", True),
    ("Sí, P030 es alérgico a la penicilina.", False),
    ("Não sei se P030 tem alergias.", False),
])
def test_no_allergies_in_other_languages(suite: Suite, vocab: Vocabulary, answer: str,
                                         expected: bool) -> None:
    assert _ok(suite, vocab, "medical_0109", answer) is expected


# weather_0019: Madrid 14.9 °C, Sydney 13.7 °C (which is warmer); retail_0280: Brightline
# $135.95, Solenne Compact $159.00


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    # two values set against each other follow the order the names came in
    ("weather_0019", "Madrid is warmer than Sydney, 14.9 °C versus 13.7 °C.", True),
    ("weather_0019", "Sydney is the cooler of the two (13.7 vs 14.9 °C), so Madrid wins.", True),
    ("weather_0019", "Madrid is warmer than Sydney, 13.7 °C versus 14.9 °C.", False),
    ("weather_0019", "Madrid comes out warmer (13.7 °C vs 14.9 °C).", False),
    ("retail_0280", "The Brightline is the cheaper one ($135.95 versus $159.00), "
                    "a $23.05 difference.", True),
    ("retail_0280", "The Brightline is the cheaper one ($159.00 versus $135.95), "
                    "a $23.05 difference.", False),
])
def test_paired_values_follow_the_names_order(suite: Suite, vocab: Vocabulary, tid: str,
                                              answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    # a pronoun takes the value back to the entity it stands for
    ("weather_0019", "Madrid is warmer. It is at 14.9 °C, Sydney at 13.7 °C.", True),
    ("weather_0019", "Madrid is warmer. It is at 13.7 °C.", False),
    ("weather_0019", "Madrid beats Sydney; the latter reads 13.7 °C.", True),
    ("weather_0019", "Madrid beats Sydney; the latter reads 14.9 °C.", False),
    ("weather_0019", "Between Madrid and Sydney, the former is warmer (13.7 °C).", False),
    ("retail_0280", "The Brightline is cheaper by $23.05. It costs $135.95.", True),
    ("retail_0280", "The Brightline is cheaper by $23.05. It costs $159.00.", False),
    ("knowledge_0090", "Beinfyltste is a highland region. Its area is 36,146 km².", False),
])
def test_a_pronoun_refers_back(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                               expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# calendar_0579: delete next Monday's Gym session; the day listed 3 events before


@pytest.mark.parametrize(("answer", "expected"), [
    # the day's count after a delete is one less than its listing
    ("Gym session on June 23 deleted; 2 events remain that day.", True),
    ("Gym session on June 23 deleted. You now have two events that day.", True),
    ("Gym session on June 23 deleted (the day had 3 events).", True),
    ("Gym session on June 23 deleted; 3 events are left that day.", False),
    ("Gym session on June 23 deleted; you still have three events that day.", False),
])
def test_a_count_after_the_action(suite: Suite, vocab: Vocabulary, answer: str,
                                  expected: bool) -> None:
    assert _ok(suite, vocab, "calendar_0579", answer) is expected


@pytest.mark.parametrize(("answer", "expected"), [
    # the action's object joined with another of the day's events: an extra, false action
    ("I deleted the Gym session and the Vet appointment.", False),
    ("Deleted both the Gym session and the Project sync next Monday.", False),
    ("I deleted the Gym session; the Vet appointment and Project sync stay.", True),
    ("Deleted the Gym session, and the Vet appointment is unchanged.", True),
])
def test_an_action_on_the_asked_item_and_another(suite: Suite, vocab: Vocabulary,
                                                 answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, "calendar_0579", answer) is expected


# medical_0014: P012 (Chloe Fischer) booked with Dr. Mei Tanaka, Friday 2025-06-20 at 12:00;
# calendar_0002: 'Tax advisor meeting' created on 2025-07-03, 14:15–15:15
@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ("medical_0014", "Agendado: P012 (Chloe Fischer) com a Dra. Mei Tanaka na sexta-feira, "
     "20 de junho, às 12h00.", True),
    ("medical_0014", "Cita confirmada para P012 con la Dra. Mei Tanaka el viernes 20 de junio "
     "a las 12:00.", True),
    ("medical_0014", "Rendez-vous réservé pour P012 avec le Dr Mei Tanaka, vendredi 20 juin "
     "à 12 h 00.", True),
    ("medical_0014", "Appuntamento confermato: P012 con la dott.ssa Mei Tanaka venerdì 20 "
     "giugno alle 12:00.", True),
    ("medical_0014", "已为您预约：P012 于6月20日（星期五）12:00 就诊 Mei Tanaka 医生。", True),
    ("calendar_0002", "Marquei 'Tax advisor meeting' em 3 de julho, das 14h15 às 15h15.", True),
    ("calendar_0002", "已为您在7月3日14:15至15:15安排了“Tax advisor meeting”。", True),
    # the booking or event said, with a wrong time or day
    ("medical_0014", "Agendado: P012 com a Dra. Mei Tanaka na sexta-feira, 20 de junho, às "
     "15h00.", False),
    ("medical_0014", "Cita confirmada para P012 con la Dra. Mei Tanaka el jueves 19 de junio a "
     "las 12:00.", False),
    ("calendar_0002", "已为您在7月3日15:15至16:15安排了“Tax advisor meeting”。", False),
])
def test_a_booking_confirmed_in_another_language_is_read(
        suite: Suite, vocab: Vocabulary, tid: str, answer: str, expected: bool) -> None:
    """Booking and scheduling confirmations in pt/es/fr/it/zh ("Agendado:", "Cita
    confirmada", "Rendez-vous réservé", "已为您预约", "安排了", "Marquei") state the action;
    the fresh held-out set showed the judge rejecting them as saying nothing was done."""
    assert _ok(suite, vocab, tid, answer) is expected
