"""The facts judge v5: each test pins one family of wrong verdicts found on the second 2026
held-out set once it was scored (`tests/fixtures/facts_heldout2026b.jsonl`), with phrasings
of its own on real suite tasks: positives and near-miss negatives."""

from __future__ import annotations

import pytest

from agentprop.judges._entities import Vocabulary
from agentprop.judges._extract import find_times
from agentprop.suite import Suite
from tests.judges.facts_support import facts_ok, real_suite, real_vocab  # noqa: F401

_ok = facts_ok


# weather_0021: Beijing in April, mean 14.8 °C, average high 20.3 °C (the high is accepted
# for "how warm", but not when the answer calls it the mean)


@pytest.mark.parametrize(("answer", "expected"), [
    ("Beijing in April: highs around 20 °C on average.", True),
    ("In April Beijing averages 14.8 °C; days reach about 20 °C.", True),
    ("Beijing in April is usually around 20 °C during the day.", True),
    ("The April mean in Beijing is about 20.3 °C.", False),
    ("Beijing usually averages 20 °C in April.", False),
    ("Im April liegt Peking im Durchschnitt bei etwa 20 °C.", False),
    ("Pékin en avril : environ 20 °C en moyenne.", False),
    ("北京4月平均气温约20.3°C。", False),
])
def test_a_high_stated_as_the_mean(suite: Suite, vocab: Vocabulary, answer: str,
                                   expected: bool) -> None:
    assert _ok(suite, vocab, "weather_0021", answer) is expected


# weather_0024: Oslo on 2025-06-18, 60.5 °F (15.8 °C), sunny; the query's day "18" is no
# quantity, so "(about 18 °C)" is still checked


@pytest.mark.parametrize(("answer", "expected"), [
    ("Oslo on June 18: sunny, 60.5 °F (about 16 °C).", True),
    ("Sunny in Oslo on the 18th, around 60 °F, or roughly 15.8 °C.", True),
    ("Oslo on June 18: sunny, 60.5 °F (about 18 °C).", False),
    ("Oslo, 18 June: 60.5 °F, which is roughly 20 °C, and sunny.", False),
])
def test_a_false_conversion_beside_the_value(suite: Suite, vocab: Vocabulary, answer: str,
                                             expected: bool) -> None:
    assert _ok(suite, vocab, "weather_0024", answer) is expected


# medical_0029: fluconazole vs warfarin (high) and amiodarone (none); codeine is an allergy
# medical_0017: fluoxetine vs sertraline, omeprazole, amlodipine (all none)


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ("medical_0029", "Fluconazole: a high-severity interaction with warfarin, none with "
     "amiodarone.", True),
    ("medical_0029", "Fluconazole vs. the current medications: warfarin, high severity; "
     "amiodarone, no interaction. Note the codeine allergy.", True),
    ("medical_0029", "Fluconazole vs. current meds: major with warfarin, none with amiodarone, "
     "none with codeine.", False),
    ("medical_0029", "She is on warfarin, amiodarone and codeine; fluconazole interacts "
     "severely with warfarin and not with amiodarone.", False),
])
def test_an_item_of_another_list(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                 expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


@pytest.mark.parametrize(("answer", "expected"), [
    ("Fluoxetine has no known interaction with sertraline, and none with omeprazole or "
     "amlodipine.", True),
    ("No interaction with sertraline, nor with omeprazole, nor with amlodipine.", True),
    ("No interaction with sertraline or omeprazole, but a moderate one with amlodipine.", False),
])
def test_an_elided_no_interaction(suite: Suite, vocab: Vocabulary, answer: str,
                                  expected: bool) -> None:
    assert _ok(suite, vocab, "medical_0017", answer) is expected


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ("medical_0017", "La fluoxétine n'a aucune interaction connue avec la sertraline, "
     "l'oméprazole et l'amlodipine.", True),
    ("medical_0017", "La fluoxetina no tiene interacción con sertralina, omeprazol ni "
     "amlodipino.", True),
    ("medical_0017", "A fluoxetina não tem nenhuma interação com sertralina, omeprazol e "
     "amlodipina.", True),
    ("medical_0017", "La fluoxetina non ha interazioni con sertralina, omeprazolo e "
     "amlodipina.", True),
    ("medical_0017", "Fluoxetin hat keine bekannte Wechselwirkung mit Sertralin, Omeprazol "
     "oder Amlodipin.", True),
    ("medical_0029", "Il fluconazolo ha un'interazione grave con il warfarin; nessuna "
     "interazione con l'amiodarone.", True),
    # a second clause with a level, or every pair denied when one is high
    ("medical_0017", "La fluoxétine n'a pas d'interaction avec la sertraline, mais une "
     "interaction grave avec l'amlodipine.", False),
    ("medical_0017", "La fluoxetina no tiene interacción con sertralina, pero sí una "
     "interacción moderada con omeprazol.", False),
    ("medical_0029", "Le fluconazole n'a aucune interaction avec la warfarine ni avec "
     "l'amiodarone.", False),
])
def test_negative_concord_and_drug_names_in_other_languages(
        suite: Suite, vocab: Vocabulary, tid: str, answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# medical_0016: Aisha Garcia (P049) takes allopurinol, losartan and atorvastatin


@pytest.mark.parametrize(("answer", "expected"), [
    ("Aisha Garcia (P049) takes allopurinol, losartan and atorvastatin.", True),
    ("Aisha Garcia nimmt Allopurinol, Losartan und Atorvastatin.", True),
    ("Aisha Garcia takes allopurinol, losartan and atorvastatin, all daily.", True),
    ("Aisha Garcia takes allopurinol, losartan, atorvastatin and vitamin D.", False),
    ("La paciente toma alopurinol, losartán, atorvastatina y hierro.", False),
    ("Aisha Garcia prend de l'allopurinol, du losartan, de l'atorvastatine et de la "
     "metformine.", False),
    ("Aisha Garcia is on allopurinol, losartan, atorvastatin and fish oil.", False),
])
def test_a_list_closed_by_an_unknown_item(suite: Suite, vocab: Vocabulary, answer: str,
                                          expected: bool) -> None:
    assert _ok(suite, vocab, "medical_0016", answer) is expected


# calendar_0001: delete the Dentist appointment (2025-06-20, 11:15–12:00); the day also has
# the Parent-teacher meeting 15:45–16:15. A translated title is not matched, so the time
# says which event the action was on.


@pytest.mark.parametrize(("answer", "expected"), [
    ("Done: I removed the Dentist appointment at 11:15 on June 20.", True),
    ("Erledigt: Ihr Zahnarzttermin am 20. Juni um 11:15 Uhr wurde gelöscht.", True),
    ("Listo, eliminé su cita con el dentista del 20 de junio a las 11:15.", True),
    ("Erledigt: der Elternabend am 20. Juni um 15:45 wurde gelöscht.", False),
    ("Listo, eliminé la reunión de padres del 20 de junio a las 15:45.", False),
    ("Done: I cancelled your 15:45 meeting on June 20.", False),
    ("已删除您6月20日15:45的家长会。", False),
])
def test_an_action_at_another_events_time(suite: Suite, vocab: Vocabulary, answer: str,
                                          expected: bool) -> None:
    assert _ok(suite, vocab, "calendar_0001", answer) is expected


@pytest.mark.parametrize(("text", "times"), [
    ("午前8時から9時まで", ["08:00", "09:00"]),
    ("午後2時から3時", ["14:00", "15:00"]),
    ("下午3点半开会", ["15:30"]),
    ("오후 3시 30분부터 4시까지", ["15:30", "16:00"]),
    ("de 9h à 10h30", ["09:00", "10:30"]),
    # a rating, a duration and a bare "3 h" are no clock times
    ("评分4.5点", []),
    ("2時間の会議", []),
    ("3시간", []),
    ("dure 3 h", []),
])
def test_clock_times_in_other_scripts(text: str, times: list[str]) -> None:
    assert [t for _, t in find_times(text)] == times


# calendar_0005: Call with Mom on 2025-06-21, 19:15–19:45


@pytest.mark.parametrize(("answer", "expected"), [
    ("6月21日の「Call with Mom」は午後7時15分から7時45分までです。", True),
    ("6月21日的Call with Mom是晚上7点15分到7点45分。", True),
    ("6월 21일 Call with Mom은 오후 7시 15분부터 7시 45분까지입니다.", True),
    ("Votre Call with Mom du 21 juin commence à 19h15.", True),
    ("6月21日の「Call with Mom」は午前7時15分からです。", False),
    ("6月21日的Call with Mom是下午8点。", False),
    ("Votre Call with Mom du 21 juin commence à 19h.", False),
])
def test_clock_times_in_answers_in_other_languages(suite: Suite, vocab: Vocabulary,
                                                   answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, "calendar_0005", answer) is expected


# weather_0015: Amsterdam, 16–20 June: 14.7 °C cloudy, 16.8 cloudy, 17.5 cloudy, 14.1 rain,
# 12.9 heavy rain (a value right after a date is no day of it: "16. Juni 14,7 °C"; "mar." before
# a day and a month is a weekday). weather_0076: Lima today, 64.9 °F, partly cloudy.
# weather_0003: rain in Lagos on Wednesday 18 June (thunderstorms); the driest day is Monday 16
# ("the driest day" in another language is no claim of dry weather on the day asked).


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ('weather_0015', 'Amsterdam: Mo., 16. Juni 14,7 °C, bewölkt; Di., 17. Juni 16,8 °C, '
     'bewölkt; Mi., 18. Juni 17,5 °C, bewölkt; Do., 19. Juni 14,1 °C, Regen; '
     'Fr., 20. Juni 12,9 °C, starker Regen.',
     True),
    ('weather_0015', 'Amsterdam : lun. 16 juin 14,7 °C, nuageux ; mar. 17 juin 16,8 °C, '
     'nuageux ; mer. 18 juin 17,5 °C, nuageux ; jeu. 19 juin 14,1 °C, pluie '
     '; ven. 20 juin 12,9 °C, forte pluie.',
     True),
    ('weather_0015', 'Amsterdam: Mo., 16. Juni 14,7 °C, bewölkt; Di., 17. Juni 16,8 °C, '
     'bewölkt; Mi., 18. Juni 17,5 °C, bewölkt; Do., 19. Juni 14,1 °C, Regen; '
     'Fr., 20. Juni 18 °C, starker Regen.',
     False),
    ('weather_0076', 'Lima heute: 64,9 °F, teils bewölkt.',
     True),
    ('weather_0076', "Lima aujourd'hui : 64,9 °F, partiellement nuageux.",
     True),
    ('weather_0076', 'Lima hoy: 64,9 °F, parcialmente nublado.',
     True),
    ('weather_0076', 'Lima oggi: 64,9 °F, parzialmente nuvoloso.',
     True),
    ('weather_0076', 'Lima heute: 64,9 °F, stark bewölkt mit Regen.',
     False),
    ('weather_0076', 'Lima hoy: 64,9 °F, soleado y despejado.',
     False),
    ('weather_0003', 'Sí, el miércoles habrá tormentas en Lagos (44,6 mm). El día más seco '
     'de los próximos 7 será el lunes 16 de junio (0 mm).',
     True),
    ('weather_0003', 'Oui, mercredi il y aura des orages à Lagos (44,6 mm). Le jour le plus '
     'sec sera le lundi 16 juin.',
     True),
    ('weather_0003', 'Sì, mercoledì a Lagos sono previsti temporali. Il giorno più secco '
     'sarà lunedì 16 giugno.',
     True),
    ('weather_0003', 'No, mercoledì a Lagos sarà asciutto. Il giorno più secco sarà lunedì '
     '16 giugno.',
     False),
    ('weather_0003', 'Sí, el miércoles lloverá en Lagos. El día más seco será el martes 17 '
     'de junio.',
     False),
])
def test_forecasts_in_other_languages(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                      expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# weather_0250: Los Angeles on 29 June, dry, sunny, 18 °C; weather_0142: Hong Kong on 18 June,
# rain, 27 °C


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ('weather_0250', '不需要带伞。6月29日洛杉矶晴，气温18°C。', True),
    ('weather_0250', '傘は不要です。6月29日のロサンゼルスは晴れ、18°C。', True),
    ('weather_0250', '우산은 필요 없습니다. 6월 29일 로스앤젤레스는 맑음, 18°C.', True),
    ('weather_0250', 'Kein Regenschirm nötig: Los Angeles am 29. Juni sonnig, 18 °C.', True),
    ('weather_0250', 'Pas besoin de parapluie : Los Angeles le 29 juin, ensoleillé, 18 °C.', True),
    ('weather_0250', '需要带伞。6月29日洛杉矶有雨，气温18°C。', False),
    ('weather_0250', '우산이 필요합니다. 6월 29일 로스앤젤레스는 비, 18°C.', False),
    ('weather_0250', 'Nimm einen Regenschirm mit: Los Angeles am 29. Juni, 18 °C.', False),
    ('weather_0142', '需要带伞。6月18日香港有雨，气温27°C。', True),
    ('weather_0142', 'Sí, lleva paraguas: el 18 de junio en Hong Kong lloverá, 27 °C.', True),
    ('weather_0142', '不需要带伞。6月18日香港晴，气温27°C。', False),
    ('weather_0142', 'No necesitas paraguas: el 18 de junio en Hong Kong, 27 °C.', False),
])
def test_an_umbrella_in_other_languages(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                        expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# weather_0019: Madrid (14.9 °C) is warmer than Sydney (13.7 °C) tomorrow; retail_0003: the
# Lumora Compact (PRD1128) is $2.00 cheaper than PRD1089. City names in Chinese and Japanese
# are found without word boundaries; superlatives and comparatives built from a marker
# ("最", "更", "いちばん", "가장") and an adjective.


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ("weather_0019", "明天马德里更暖和（14.9°C），悉尼13.7°C。", True),
    ("weather_0019", "明日いちばん暖かいのはマドリードです。", True),
    ("weather_0019", "明日いちばん暖かいのはシドニーです。", False),
    ("weather_0019", "明天悉尼更暖和。", False),
    ("weather_0019", "明天马德里更冷，悉尼更暖和。", False),
    ("retail_0003", "PRD1128（Lumora Compact）更便宜，便宜2.00美元。", True),
    ("retail_0003", "PRD1089更便宜，便宜2.00美元。", False),
])
def test_decisions_in_chinese_and_japanese(suite: Suite, vocab: Vocabulary, tid: str,
                                           answer: str, expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# CJK comparisons: "A比B便宜" (Chinese "than" before the compared option), "AはBより安い"
# (Japanese, after it); a CJK comma ends a clause, a CJK full stop a sentence, and what follows
# "A比B…，" is said of A; "对" sets two values against each other ("14.9°C对13.7°C")


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ('weather_0019', '明日はマドリードの方がシドニーより暖かい（14.9℃対13.7℃）。', True),
    ('weather_0019', '明天马德里比悉尼暖和（14.9°C对13.7°C）。', True),
    ('weather_0019', '明天悉尼比马德里暖和。', False),
    ('weather_0019', '明天马德里比悉尼冷。', False),
    ('retail_0003', 'PRD1128（Lumora Compact Tennis Racket，221.00美元）比PRD1089'
     '（223.00美元）便宜，便宜2.00美元。', True),
    ('retail_0003', 'PRD1128はPRD1089より安いです。差額は2.00ドルです。', True),
    ('retail_0003', 'PRD1089比PRD1128便宜2.00美元。', False),
    ('retail_0003', 'PRD1128比PRD1089贵，差2.00美元。', False),
])
def test_cjk_comparisons(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                         expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# weather_0015: Amsterdam 16–18 June cloudy, 19 June rain, 20 June heavy rain: "all cloudy"
# after a list of days is said of each day the sentence names


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ('weather_0015', 'Amsterdam: Jun 16 14.7 °C, Jun 17 16.8 °C, Jun 18 17.5 °C — all '
     'cloudy; Jun 19 14.1 °C with rain; Jun 20 12.9 °C with heavy rain.', True),
    ('weather_0015', 'Amsterdam: Jun 16 14.7 °C, Jun 17 16.8 °C and Jun 18 17.5 °C, '
     'cloudy every day; Jun 19 14.1 °C, rain; Jun 20 12.9 °C, heavy '
     'rain.', True),
    ('weather_0015', 'Amsterdam: 16. Juni 14,7 °C, 17. Juni 16,8 °C, 18. Juni 17,5 °C, '
     'alle bewölkt; 19. Juni 14,1 °C, Regen; 20. Juni 12,9 °C, starker '
     'Regen.', True),
    ('weather_0015', 'Amsterdam: Jun 16 14.7 °C, Jun 17 16.8 °C, Jun 18 17.5 °C, Jun 19 '
     '14.1 °C, Jun 20 12.9 °C — all cloudy.', False),
    ('weather_0015', 'Amsterdam: Jun 16 14.7 °C, Jun 17 16.8 °C, Jun 18 17.5 °C — all '
     'sunny; Jun 19 14.1 °C with rain; Jun 20 12.9 °C with heavy rain.', False),
    ('weather_0015', 'Amsterdam: Jun 16 14.7 °C, Jun 17 16.8 °C, Jun 18 17.5 °C; Jun 19 '
     '14.1 °C; Jun 20 12.9 °C — all rainy.', False),
])
def test_a_condition_said_of_every_day(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                       expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected

# calendar_0015: replace the Vet appointment (23 June, 13:30–14:00) with Code review


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ('calendar_0015', "Vet appointment cancelled; 'Code review' now occupies June 23, "
     '13:30–14:00.', True),
    ('calendar_0015', 'Done — the Vet appointment is gone and Code review now holds the '
     '13:30–14:00 slot on June 23.', True),
    ('calendar_0015', 'Vet appointment removed; Code review occupe désormais le créneau '
     'du 23 juin, 13:30–14:00.', True),
    ('calendar_0015', "Vet appointment cancelled; 'Code review' now occupies June 23, "
     '10:00–11:00.', False),
    ('calendar_0015', "Vet appointment cancelled; 'Code review' could occupy the "
     '13:30–14:00 slot on June 23 if you want.', False),
    ('calendar_0015', 'Vet appointment cancelled; the 13:30–14:00 slot on June 23 is now '
     'free.', False),
])
def test_a_new_event_holding_its_slot(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                                      expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected


# knowledge_0010: Mousteilt Lizourk was a painter; an occupation is read in other languages,
# and another occupation in another language is another value of the key


@pytest.mark.parametrize(("answer", "expected"), [
    ('Mousteilt Lizourk war Maler.', True),
    ('Mousteilt Lizourk era pintor.', True),
    ('Mousteilt Lizourk是一位画家。', True),
    ('Mousteilt Lizourkは画家でした。', True),
    ('Mousteilt Lizourk était peintre, né à Sezaeth.', True),
    ('Mousteilt Lizourk war Dichter.', False),
    ('Mousteilt Lizourk était architecte.', False),
    ('Mousteilt Lizourk是一位诗人。', False),
    ('Mousteilt Lizourk was a poet.', False),
])
def test_an_occupation_in_other_languages(suite: Suite, vocab: Vocabulary, answer: str,
                                          expected: bool) -> None:
    assert _ok(suite, vocab, "knowledge_0010", answer) is expected


# Russian and Korean: dates ("3 июля", "7월 3일"), weekdays, relative days, action verbs,
# negations and yes/no (calendar_0002: create Tax advisor meeting on 3 July 14:15–15:15;
# calendar_0008: move tomorrow's Design review to 13:15; retail_0007: 2 × PRD1051, $687.98)


@pytest.mark.parametrize(("tid", "answer", "expected"), [
    ('calendar_0002', 'Создал событие «Tax advisor meeting» на 3 июля 2025 года, '
     'с 14:15 до 15:15.', True),
    ('calendar_0002', "2025년 7월 3일 14:15~15:15에 'Tax advisor meeting' "
     "일정을 추가했습니다.", True),
    ('calendar_0002', 'Не создал событие «Tax advisor meeting»: время занято.', False),
    ('calendar_0002', 'Создал событие «Tax advisor meeting» на 4 июля 2025 года, '
     'с 14:15 до 15:15.', False),
    ('calendar_0008', 'Готово: Design review завтра перенесено на 13:15.', True),
    ('calendar_0008', '내일 Design review를 13:15로 옮겼습니다.', True),
    ('retail_0007', 'Заказал 2 шт. PRD1051, итого 687,98 $.', True),
    ('retail_0007', 'Заказал 2 шт. PRD1051, итого 343,99 $.', False),
    ('weather_0250', 'Нет, зонт не нужен: 29 июня в Лос-Анджелесе ясно, 18 °C.', True),
    ('calendar_0008', 'Готово: Design review завтра перенесено на 16:00.', False),
])
def test_russian_and_korean(suite: Suite, vocab: Vocabulary, tid: str, answer: str,
                            expected: bool) -> None:
    assert _ok(suite, vocab, tid, answer) is expected
