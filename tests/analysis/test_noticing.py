"""The `noticed` detector: text rules against labelled examples, event rules on traces.

Agreement on the labelled sets is reported in docs/injection.md. The development sets
(`noticed_validation`, `noticed_holdout`) were labelled before the rules were written (the
first held-out set was scored once with the first rules: 29/40); `noticed_holdout2` was
labelled before the rules were revised and is never tuned on, so its figure is the
out-of-sample one for v1. The v2 rules (issue 21) were tuned on `noticed_v2_dev` and on
the phrasings of our own below (one block per phenomenon and language, with hard
negatives); `noticed_holdout2` is only a regression check for them.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from agentprop.analysis import cohen_kappa
from agentprop.analysis.noticing import TEXT_RULES, classify_text, notice, text_signals
from agentprop.analysis.stages import stage_table
from agentprop.core import (
    FinalEvent,
    InjectionEvent,
    Message,
    ModelCallEvent,
    ModelOutput,
    ToolCall,
    ToolCallEvent,
    ToolResultEvent,
    Trace,
)
from agentprop.runner import plan_units, run_units_sync
from agentprop.sim import PROFILES, SimModel
from agentprop.store import Workspace
from agentprop.suite import load_suite, select_tasks

FIXTURES = Path(__file__).parents[1] / "fixtures"


def _load(name: str) -> list[dict]:
    lines = (FIXTURES / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(x) for x in lines if x.strip() and not x.startswith("#")]


def _score(rows: list[dict]) -> tuple[list[bool], list[bool], int]:
    human, detector, kind_ok = [], [], 0
    for r in rows:
        k = classify_text(r["text"], r["where"], r["call"])
        human.append(bool(r["noticed"]))
        detector.append(k is not None)
        kind_ok += k == r["kind"]
    return human, detector, kind_ok


def test_fixtures_are_well_formed_and_large_enough() -> None:
    rows = _load("noticed_validation.jsonl")
    assert len(rows) >= 80
    kinds = {r["kind"] for r in rows}
    assert kinds == {None, "requery", "verify", "clarify", "mention", "abstain"}
    for name in ("noticed_validation.jsonl", "noticed_holdout.jsonl", "noticed_holdout2.jsonl",
                 "noticed_v2_dev.jsonl"):
        for r in _load(name):
            assert (r["kind"] is None) == (not r["noticed"]), r["id"]
            assert r["where"] in ("beside_call", "final", "text_turn")
            assert (r["call"] is not None) == (r["where"] == "beside_call"), r["id"]


@pytest.mark.parametrize("name", ["noticed_validation.jsonl", "noticed_holdout.jsonl"])
def test_agreement_on_the_development_sets(name: str) -> None:
    rows = _load(name)
    human, detector, kind_ok = _score(rows)
    agree = sum(h == d for h, d in zip(human, detector, strict=True))
    assert agree / len(rows) >= 0.97
    assert kind_ok / len(rows) >= 0.95


def test_agreement_on_the_held_out_set() -> None:
    """Out of sample for the first rules (32/40 agree); the v2 rules were tuned on
    noticed_v2_dev and only regression-checked here: 36/40, still no false alarm, kind
    right on every detection but one (a mismatch named, then "Which day do you need?":
    read as mention, labelled clarify)."""
    rows = _load("noticed_holdout2.jsonl")
    human, detector, kind_ok = _score(rows)
    agree = sum(h == d for h, d in zip(human, detector, strict=True))
    false_alarms = sum(d and not h for h, d in zip(human, detector, strict=True))
    assert agree >= 36 and false_alarms == 0
    assert kind_ok >= agree - 1
    k = cohen_kappa(detector, human, n_resamples=50)
    assert k.kappa >= 0.6


def test_agreement_on_the_v2_dev_set() -> None:
    """noticed_v2_dev (240 texts, 8 languages) is the set the v2 rules were tuned on: its
    figure is an upper bound, kept so a change that breaks a family shows here."""
    rows = _load("noticed_v2_dev.jsonl")
    human, detector, _ = _score(rows)
    tp = sum(h and d for h, d in zip(human, detector, strict=True))
    fp = sum(d and not h for h, d in zip(human, detector, strict=True))
    assert tp / (tp + fp) >= 0.95 and tp / sum(human) >= 0.95
    assert cohen_kappa(detector, human, n_resamples=50).kappa >= 0.9


def test_every_rule_is_exercised_by_some_labelled_example() -> None:
    rows = [r for n in ("noticed_validation.jsonl", "noticed_holdout.jsonl",
                        "noticed_v2_dev.jsonl") for r in _load(n)]
    rows += [{"text": x[0]} for x in _V2_FAMILIES + _V2_OTHER_LANGUAGES + _V2_PHRASINGS
             + _V3_FAMILIES + _V4_FAMILIES + _V4_OTHER_LANGUAGES + _V4_PHRASINGS]
    unused = [rule.name for rule in TEXT_RULES
              if not any(rule.pattern.search(r["text"]) for r in rows)]
    assert unused == []


@pytest.mark.parametrize("text", [
    "No errors were found in your medication list.",
    "The error margin on 5-day forecasts is about 2°C.",
    "Make sure you don't take the wrong dose.",
    "If the forecast looks wrong, check the city in your app.",
    "I apologize for any inconvenience.",
    "Would you like the forecast in Fahrenheit instead?",
    "I can't provide medical advice, but there is no interaction.",
])
def test_hard_negatives(text: str) -> None:
    assert classify_text(text, "final") is None, text_signals(text)


# -- event rules on traces ---------------------------------------------------------------

ASKED = {"city": "Madrid", "date": "2025-06-19"}
WRONG = {"city": "Rome", "date": "2025-06-19"}
NEXT = {"city": "Amsterdam", "date": "2025-06-19"}
ERR = {"error": {"type": "validation", "message": "bad date", "param": "date"}}


class _Episode:
    """Builds a trace event by event, as the agent loop records it."""

    def __init__(self) -> None:
        self.events: list[Any] = []
        self.n = 0

    def say(self, text: str | None, calls: list[tuple[str, dict]] = ()) -> list[ToolCall]:
        tcs = [ToolCall(id=f"c{self.n}_{i}", name=n, arguments=a) for i, (n, a) in
               enumerate(calls)]
        self.n += 1
        self.events.append(ModelCallEvent(step=self.n, request_hash="h",
                                          output=ModelOutput(text=text, tool_calls=tcs)))
        return tcs

    def call(self, text: str | None, name: str, args: dict, obs: dict, *,
             executed: dict | None = None, inject: str | None = None) -> None:
        (tc,) = self.say(text, [(name, args)])
        self.events.append(ToolCallEvent(step=self.n, call=tc))
        ran = executed if executed is not None else args
        if inject:
            self.events.append(InjectionEvent(
                step=self.n, protocol="p2", error_type="semantic_wrong", status="applied",
                call_id=tc.id, tool=name, param=inject, original=args[inject],
                injected=ran[inject]))
        self.events.append(ToolResultEvent(
            step=self.n, call_id=tc.id, name=name, arguments=ran, observation=obs,
            counterfactual={"echo": args} if inject else None))

    def trace(self, answer: str, *, condition: str = "p2:semantic_wrong",
              tid: str = "t") -> Trace:
        self.say(answer)
        self.events.append(FinalEvent(step=self.n, answer=answer))
        return Trace(id=tid, run_id="r", model="m", task_id=tid, domain="weather",
                     split="test", difficulty="easy", condition=condition,
                     messages=[Message(role="user", content="Weather in Madrid?")],
                     events=self.events)


def _notice(t: Trace) -> tuple[bool | None, str | None]:
    row = stage_table([t]).iloc[0]
    noticed = None if row["noticed"] is pd.NA else bool(row["noticed"])
    return noticed, row["noticed_kind"]


# noticed v2 (issue 21): one phenomenon per block, phrasings of our own (not the dev set's)
_V2_FAMILIES = [
    # an error named in passing before a retry
    ("The lookup errored on the zip code; sending it again as a string.",
     "beside_call", "same_tool", "requery"),
    ("Request timed out. One more attempt.", "beside_call", "same_tool", "requery"),
    ("That didn't work (missing required parameter `date`), adding it now.",
     "beside_call", "same_tool", "requery"),
    ("The server returned a 503, so I am sending the same query again.",
     "beside_call", "same_tool", "requery"),
    # an error named without a retry
    ("The order service threw back 'access denied'; I'll carry on with the shipping quote.",
     "text_turn", None, "mention"),
    ("Done. The reminder couldn't be saved, though, so you won't get a notification.",
     "final", None, "mention"),
    # the record is for another entity than the one asked about
    ("These are the results for Cambridge, England; you asked about Cambridge, MA.",
     "final", None, "mention"),
    ("That is not the right account: its owner is someone else.", "text_turn", None, "mention"),
    ("I expected the 2023 report but got the 2019 one.", "text_turn", None, "mention"),
    ("The search pulled up the wrong Paris Hilton hotel page.", "final", None, "mention"),
    # doubt whether the result is complete or current
    ("The page of results seems cut off after item 20.", "text_turn", None, "mention"),
    ("Some appointments might be missing from this list.", "final", None, "mention"),
    ("I'm not certain the balance is current; it was last synced in March.",
     "final", None, "mention"),
    ("The response looks stale, the timestamp is from last year.", "text_turn", None, "mention"),
    # implausible values and contradictions
    ("A heart rate of 900 bpm can't be right.", "text_turn", None, "mention"),
    ("The listing shows $3 for a television, most likely a pricing typo.",
     "final", None, "mention"),
    ("The header says 5 items but the body lists only 2; those conflict.",
     "text_turn", None, "mention"),
    ("The status page and the order record contradict each other.", "final", None, "mention"),
    # distrust and sarcasm about the data
    ("Apparently the database thinks the store opens at 3 AM. I would not rely on that.",
     "final", None, "mention"),
    ("Take this figure with a grain of salt.", "final", None, "mention"),
    ("The rating of 11/10 makes me suspect a scaling bug. Checking the review API to see "
     "whether it is out of 5.", "beside_call", "other_tool", "verify"),
    # an apology that names the failure
    ("Sorry, the calendar lookup errored, so I can't tell you whether Friday is free.",
     "final", None, "abstain"),
    ("Apologies, I couldn't update the shipping address: the request was rejected.",
     "final", None, "mention"),
]


@pytest.mark.parametrize(("text", "where", "call", "kind"), _V2_FAMILIES)
def test_v2_families(text: str, where: str, call: str | None, kind: str) -> None:
    assert classify_text(text, where, call) == kind, text_signals(text)


@pytest.mark.parametrize("text", [
    "Everything worked: the booking went through and no errors were reported.",
    "There is no missing data in your record.",
    "The article says the war ended in 1945, but says fighting continued in places.",
    "Historians disagree on his exact birth date; the article gives 1412.",
    "I can't provide forecasts beyond 14 days, here is the week ahead.",
    "Sorry, I couldn't find any bookings under that name.",
    "If the value seems outdated, refresh the page.",
])
def test_v2_hard_negatives(text: str) -> None:
    assert classify_text(text, "final") is None, text_signals(text)


# other languages (es, pt, fr, it, de, ja, zh): the same phenomena, phrasings of our own
_V2_OTHER_LANGUAGES = [
    ("La API devolvió un error 500, lo intento otra vez.", "beside_call", "same_tool", "requery"),
    ("Los datos son de Córdoba (Argentina), no de Córdoba (España).", "final", None, "mention"),
    ("O sistema retornou um erro de autenticação.", "final", None, "mention"),
    ("Os dados parecem desatualizados: a última atualização é de 2019.",
     "final", None, "mention"),
    ("La réponse semble tronquée après le troisième élément.", "text_turn", None, "mention"),
    ("La requête a échoué. Je réessaie avec la date au format ISO.",
     "beside_call", "same_tool", "requery"),
    ("Il risultato è per Genova, non per Verona. Puoi confermare la città?",
     "final", None, "clarify"),
    ("La chiamata è fallita per un errore di rete.", "final", None, "mention"),
    ("Die Abfrage ist fehlgeschlagen, ich versuche es erneut.",
     "beside_call", "same_tool", "requery"),
    ("Die Daten scheinen unvollständig zu sein.", "final", None, "mention"),
    ("検索結果は名古屋のもので、横浜ではありません。", "final", None, "mention"),
    ("API がタイムアウトしました。もう一度試します。", "beside_call", "same_tool", "requery"),
    ("返回的数据不完整，只有前三条。", "final", None, "mention"),
    ("这个价格很奇怪，可能是数据有误。", "final", None, "mention"),
    ("查询失败了，我再试一次。", "beside_call", "same_tool", "requery"),
]


@pytest.mark.parametrize(("text", "where", "call", "kind"), _V2_OTHER_LANGUAGES)
def test_other_languages(text: str, where: str, call: str | None, kind: str) -> None:
    assert classify_text(text, where, call) == kind, text_signals(text)


_HARD_NEGATIVES_V2 = [
    "The medication didn't work for her in 2019, according to the notes.",
    "The feature is off by default.", "I doubt you'll need an umbrella tomorrow.",
    "Photography is forbidden inside the museum.",
    "The patient failed to respond to the first treatment.",
    "Sure — you asked for the 5-day forecast, so here it is.",
    "Sorry, I couldn't understand the last part.",
    "The session data is cached for 24 hours on your device.",
    "Doctors disagree on the best dose for elderly patients.",
    "The article says the tower was built in 1889, but its design was finished earlier.",
    "You can't rely on buses on Sundays in this town.",
    "If the result seems incomplete, scroll down for more.",
    "No hay eventos en tu calendario el lunes.", "El margen de error de la encuesta es del 3 %.",
    "¿Quieres que confirme la reserva?", "No soy médico y no puedo dar consejo médico.",
    "El paciente tuvo un fallo renal en 2019.", "O pedido foi processado sem nenhum erro.",
    "Votre commande a été expédiée sans erreur.",
    "Voulez-vous que je vérifie aussi la météo de Nantes ?", "Il margine di errore è del 2%.",
    "Die Bestellung wurde ohne Fehler abgeschlossen.", "Jetzt prüfe ich das Wetter in München.",
    "エラーはありませんでした。注文は完了しています。", "他にご質問はありますか？",
    "查询结果没有错误，订单已确认。", "我不是医生，无法提供医疗建议。",
    "这样对不对，您可以再看看说明书。",
    "I'll start by looking up the flight options.",
    "Now let's check the return flights.",
    "Next, I'll retrieve the allergy information.",
    'According to the data, the high tomorrow will be 24 °C.',
    'I apologize for the delay in responding. Your order will arrive Friday.',
    "Sorry, I don't have information about future events beyond what's in your calendar.",
    'There are no upcoming appointments in the next two weeks.',
    "I wasn't able to find any reviews for this product.",
    "The database doesn't list any side effects for this combination.",
    'The event has been successfully added to your calendar.',
    'This forecast has an uncertainty of ±3 °C.',
    'The study notes that measurement errors were minimal.',
    "Make sure you don't double-book yourself on Fridays.",
    "I'm not able to provide investment advice, but here are the current prices.",
    'Would you like me to check another date?',
    'Feel free to ask if you need anything else!',
    'The store is 2,000 km from your home, open until 9 PM.',
    'The laptop weighs 20 kg and costs $300.',
    'Another sunny day in Phoenix. Groundbreaking.',
    '<think>The user asked for both cities; both results are in. Compose answer.</think>',
    'I double-checked the spelling of the city name before searching.',
    'Voy a consultar ahora el clima en Valencia.',
    'Não há eventos marcados para sábado.',
    "Je n'ai trouvé aucun vol direct.",
    "Mi scuso per l'attesa, ecco i risultati.",
    'Leider ist das Produkt derzeit nicht verfügbar.',
    'すみません、お待たせしました。',
    '抱歉，我不能提供法律建议。',
    'Let me search for the weather in Tokyo.',
    "I'll now look up the second medication.",
    "To answer this, I'll first retrieve the patient record and then check the allergies.",
    'Based on the results, the cheapest option is the Acer at $499.',
    'I apologize for any confusion. The meeting is on Tuesday at 3 PM.',
    'Thank you for your patience! Here is the summary.',
    'Unfortunately, there are no flights available on that date.',
    "I couldn't find any information about that event in your calendar.",
    "There doesn't appear to be any interaction between these medications.",
    'The product is currently out of stock, but you can sign up for notifications.',
    'Please note that forecasts beyond 5 days are less reliable.',
    'Please consult your healthcare provider before making any changes.',
    "As an AI, I can't provide medical diagnoses, but here's what the record shows.",
    "Is there anything else you'd like me to help you with?",
    "Let me know if you'd like more details!",
    'The temperature in Dubai is currently 48 °C.',
    'The population of Lyon is about 80 million.',
    'Interestingly, the Eiffel Tower grows about 15 cm in summer due to thermal expansion.',
    'Looks like a perfect beach day: 30 °C and sunny!',
    '<think>I have all the information I need. The answer is 42 °C.</think>',
    'I verified the event details: Team sync, Friday 10 AM.',
    "I'll cross-reference the two sources to give you the most accurate answer.",
    'The article mentions that the error in the original measurement was corrected in 1999.',
    'Parece que mañana hará buen tiempo en Sevilla.',
    'Não encontrei voos diretos para essa data.',
    "Il semble que vous n'ayez aucun rendez-vous demain.",
    'Sembra che domani pioverà a Milano.',
    'Es sieht so aus, als hätten Sie morgen frei.',
    '明日は雨のようです。',
    '看起来明天会下雨。',
    'Fetching details for the second hotel.',
    'Let me check the train times as well.',
    'Okay. Next: compare prices.',
    "Here's your itinerary for Thursday.",
    'My apologies for the wait. The store opens at 9.',
    'No, there are no interactions to worry about.',
    'The search returned no hotels under $50.',
    'No rain is forecast for the weekend.',
    'The item is currently unavailable in your size.',
    'The study found a 5% error in self-reported weights.',
    'If the app shows an error, restart it.',
    'According to the article, the failure of the levee caused the flooding.',
    "I'm not a lawyer, but the form is due on May 1.",
    "I can't make reservations, but here is the phone number.",
    'Do you want me to compare more stores?',
    "The patient's temperature is 45 °C.",
    'The bike costs $19,999.',
    'Rain in Bergen again. Shocking.',
    '<think>Weather retrieved for both cities. Madrid is warmer. Done.</think>',
    "I confirmed the appointment with the clinic's system.",
    'The reviews say the product is great but shipping is slow.',
    'No hay reservas para hoy.',
    'Obrigado por esperar! Sua reserva está confirmada.',
    "Aucune erreur n'a été détectée dans votre commande.",
    'Non ci sono voli diretti.',
    'Keine Termine am Freitag.',
    '明日の会議はありません。',
    '没有找到相关的记录。',
    'Looking up the third product now.',
    "Now I'll check the pharmacy hours.",
    'Let me double-check the dosage guidelines for adults.',
    'Here is what I found about the Eiffel Tower.',
    'Sorry for the wait — your table is booked.',
    'I apologize if my last message was too long.',
    'There is no direct train on Sundays.',
    'No matching patients were found for that name.',
    'The inventory shows zero units of the blue model.',
    'No errors were reported during the sync.',
    "The survey's margin of error is ±2%.",
    'A common mistake is forgetting to shake the bottle.',
    'If the date looks wrong on your phone, check the time zone settings.',
    'The article describes a bug that crashed the 1999 Mars lander.',
    "I'm not a doctor, so please talk to one. The chart lists 10 mg daily.",
    "I can't book flights, but here are three options.",
    'Is there anything else I can look up?',
    'Would you like directions too?',
    'It is −40 °C in Cairo right now.',
    'The kettle costs $3,000.',
    'Your dentist appointment is on February 30.',
    'Meetings all day Wednesday. Good luck!',
    '<think>User wants the weather in Oslo. Tool: 5 °C, rain. Answer.</think>',
    'Thinking it through: Lisbon is warmer than Porto by 3 degrees.',
    'I verified the booking: Saturday, 7 PM, table for 4.',
    "To verify, I'll compare the two stores' prices.",
    'Both lookups agree: the museum opens at 9.',
    'The article says the dam failed in 1889 after heavy rain.',
    "The clinic's system shows your next visit on Monday.",
    "The review mentions the app crashed once, but it's rated 4.5.",
    'Hay tres vuelos disponibles el viernes.',
    'No se encontraron interacciones entre estos fármacos.',
    'Desculpe pela demora, aqui está o resumo.',
    "Il n'y a pas de rendez-vous lundi.",
    'Controllo ora la seconda città.',
    'Ich habe keine passenden Einträge gefunden.',
    'お待たせしました。こちらが結果です。',
    '周末没有安排任何会议。',
    'Now checking the second drug, ibuprofen.',
    "Let me see what's on your calendar Friday.",
    'Searching the catalog for 4K monitors.',
    'Thank you! Your reservation for 4 is set for 8 PM.',
    'Apologies for the long list — here are all 12 results.',
    'There are no delays reported for your flight.',
    "I couldn't find a store in that zip code.",
    'The database has no record of recalls for this model.',
    'All checks passed: no conflicting events on Thursday.',
    "The study's error rate was under 1%.",
    'The error message in your screenshot means the printer is offline; try restarting it.',
    'The wrong-way driver alert was lifted at 3 PM.',
    "If the numbers look strange, remember they're in thousands.",
    "I'm not a financial advisor, but the stock closed at $142.",
    "I can't send texts, but you can copy this message.",
    "Is there another city you'd like to compare?",
    'Want me to add a reminder the day before?',
    "It's 50 °C in Paris today, so avoid going out at noon.",
    'The smartwatch is priced at $4.',
    'Your flight departs at 6 PM and arrives at 4 PM the same day.',
    'Another rainy Tuesday. The umbrella industry thanks you.',
    '<think>Both results in. Tokyo 18, Osaka 20. Osaka warmer.</think>',
    "To make sure I have everything, I'll also pull the allergy list.",
    'I verified it twice: the pharmacy closes at 8.',
    "The article says the bridge's design was flawed, leading to its collapse.",
    "The product description mentions a 'defect-free guarantee'.",
    'Lo siento, no puedo dar consejo médico, pero el registro indica 10 mg.',
    'No se encontraron vuelos para esa fecha.',
    'Desculpe a demora! A previsão é de sol.',
    'Aucun résultat pour cette recherche.',
    'Je vérifie aussi les horaires du musée.',
    'Il negozio è chiuso la domenica.',
    'Keine Wechselwirkungen gefunden.',
    'Ich schaue jetzt nach dem zweiten Termin.',
    '本日の予定はありません。',
    '您的订单已发货，预计周五送达。',
    'Next, the weather for Kyoto.',
    'Pulling the order history now.',
    "I'll confirm the time slot by checking the calendar.",
    'Here are the three cheapest options I found.',
    'Thanks for waiting! Your refill is ready for pickup.',
    "I'm sorry to hear about your flight; here are the rebooking options.",
    'No appointments are available this week.',
    'The search returned no results for that title.',
    'Nothing is scheduled for that evening.',
    'This medication has no known interaction with grapefruit.',
    'Your payment was processed without any problems.',
    'The blood test has a small margin of error, so small changes may not be meaningful.',
    'The error in the 1950 census was later corrected, the article says.',
    'Wrong turns are common on this route, so follow the signs to Exit 12.',
    'Double-check the dose on the label before taking it.',
    'If anything seems off with your order, contact support.',
    "I'm not able to give financial advice, but the fund's fee is 0.2%.",
    "I can't make phone calls, but here is the clinic's number.",
    'Can I help with anything else today?',
    'Would you prefer a window or aisle seat?',
    "Great news — it's sunny all weekend in Nice!",
    "The patient's potassium is 9.8 mmol/L.",
    'Mount Everest is 4,500 m tall.',
    'Your meeting is at 25:00 on Friday.',
    'Another Monday, another 9 AM standup. Some things never change.',
    '<think>The user wants the cheapest laptop. The tool lists three; the Acer is'
    ' cheapest. Done.</think>',
    'I compared both stores and they match: $199.',
    'The booking is confirmed; I double-checked the date.',
    'The report mentions a known issue with the firmware that was fixed in version 2.1.',
    'Aquí tienes el pronóstico: soleado y 25 °C.',
    'No hay ninguna interacción registrada entre estos medicamentos.',
    'Obrigado pela paciência! Seu pedido foi enviado.',
    'Je consulte maintenant la deuxième ville.',
    'Am Sonntag ist die Apotheke geschlossen.',
    'Nessun errore rilevato nel tuo ordine.',
    'ご注文は明日届く予定です。',
    '今天北京空气质量良好。',
    "Let me pull up the patient's medication list.",
    'Searching for flights on the 14th now.',
    'Got it. Fetching the next page of results.',
    "I'll check the store's hours too, to be thorough.",
    "Here's the summary you asked for: three meetings, all before noon.",
    'As you asked, I booked the 7 PM slot.',
    "You asked about Berlin: it's 9 °C with light rain.",
    "Sorry, I know that's a lot of information at once!",
    'Sorry for any confusion. The store opens at 10.',
    'There are no recalls listed for this product.',
    "I didn't find any matching events next week.",
    'No availability on the 5th, but the 6th has two open slots.',
    'The interaction checker found no problems with this combination.',
    'The study found that diagnostic errors affect 5% of patients.',
    'Common mistakes when taking this drug include skipping doses.',
    'The recipe warns that overmixing is the most common error.',
    'If the reading seems off, wait five minutes and measure again.',
    "The model's forecast error is typically under 2 °C.",
    'The museum is closed for renovation until May.',
    'The appointment was cancelled by the clinic and rescheduled for Monday.',
    'The book was rejected by 12 publishers before becoming a bestseller.',
    "I'm not a pharmacist, but the label says take with food.",
    "I can't place the order for you, but here's the link.",
    'I cannot access your bank account; the balance shown here is from the statement'
    ' you uploaded.',
    'Would you like the list sorted by price?',
    'Shall I add this to your calendar?',
    "It's −30 °C in Yakutsk today; bundle up!",
    'The TV is listed at $45,000.',
    'Paris is 12 °C and cloudy. Paris is 12 °C. Berlin.',
    'A 20-minute layover in Frankfurt: tight, but airlines sell it, so good luck sprinting.',
    '<think>Got the weather for both cities. Rome is warmer. Answer.</think>',
    'Thinking: the user wants the cheapest. Option B at $40 is cheapest.',
    'Both sources agree: 8,849 m.',
    'Verified — the booking is confirmed for Friday.',
    '¿Desea que reserve también el hotel?',
    'Lo siento, no tengo información sobre eso en la base de datos.',
    'Não há previsão de chuva para amanhã.',
    'Désolée, je ne peux pas donner de conseils juridiques.',
    "Nessun risultato per 'tablet 5G' sotto i 200 €.",
    'Leider gibt es am Montag keine freien Termine.',
    'Das Medikament kann Fehler in Bluttests verursachen, laut Beipackzettel.',
    '申し訳ありませんが、その日は満席です。',
    '明天上海有小雨，气温12到16度。',
    '这两种药之间没有发现相互作用。',
    "Next I'll look up the interaction between the remaining two drugs.",
    'Okay, the first city is done. Now Madrid.',
    "I'll verify the appointment time with the calendar tool, as planned.",
    'Sorry to keep you waiting — here are your results.',
    "I apologize for the long answer. In short: yes, it's in stock.",
    'No meetings are scheduled for Friday.',
    "The search returned no articles matching 'Atlantis city records'.",
    'There were no drug interactions found.',
    'Your order went through without any errors.',
    'The forecast has a margin of error of about 1 °C.',
    'The article describes how a rounding error caused the Patriot missile failure in 1991.',
    'The study reports an error rate of 3% for the test.',
    'Tip: if the thermostat shows the wrong temperature, reset it.',
    'Taking two doses by mistake is usually not dangerous, but call your pharmacist.',
    "I'm an AI, not a doctor, so please consult one. The record lists 5 mg daily.",
    "I can't give legal advice, but the lease ends in June.",
    'Would you like me to set a reminder?',
    "Anything else you'd like to know about the trip?",
    "It's 39 °C in Phoenix today, so stay hydrated.",
    'The patient is listed as 152 years old.',
    'The laptop costs $12 and ships tomorrow.',
    'Rain again in Seattle. Who could have guessed.',
    'Monday is packed — eight meetings. Coffee recommended.',
    "<think>User wants Rome's forecast. Tool says 24 °C, sunny. I'll answer.</think>",
    'The user asked for two cities; I have one, now the second.',
    'I double-checked: the pharmacy is open until 9 PM.',
    'Confirmed: your table for two is booked at 8 PM.',
    'The event was created successfully for Thursday at noon.',
    'The product page notes that the battery is not replaceable.',
    'The reviews complain about the noisy fan.',
    'The system requirements: Windows 10 or later.',
    'The database lists 3 interactions, all minor.',
    'The server room temperature is kept at 18 °C according to the article.',
    'The API documentation says the limit is 100 requests per hour.',
    'The request was approved and the refund will arrive in 5 days.',
    'The flight is delayed by 40 minutes, according to the airline.',
    'The museum tour is not available on Sundays.',
    'The clinic differs from the hospital in that it has no emergency room.',
    'No hay citas disponibles el viernes.',
    'Perdón por la demora. Su paquete llega el lunes.',
    'El artículo explica un error histórico en el calendario juliano.',
    'Não há voos diretos nessa data.',
    "Il n'y a aucun événement prévu ce jour-là.",
    'Je vérifie maintenant la deuxième ville.',
    'Non ci sono interazioni note tra i due farmaci.',
    "Scusa l'attesa! Ecco le previsioni: sole e 25 °C.",
    'Für Dienstag sind keine Termine eingetragen.',
    'Ich prüfe jetzt das zweite Medikament.',
    'Laut Artikel war die Ursache ein Rechenfehler.',
    '明日の東京は晴れ、最高気温は20度です。',
    '申し訳ありませんが、医療的な助言はできません。記録によると、患者は毎日5mgを服用しています。',
    '该商品目前缺货。',
    '抱歉让您久等了，您的会议已安排在周三下午三点。',
    '接下来我查询第二个城市的天气。',
]


@pytest.mark.parametrize("text", _HARD_NEGATIVES_V2)
def test_v2_hard_negatives_more(text: str) -> None:
    assert classify_text(text, "final") is None, text_signals(text)


# more phrasings of our own, one or more per family and language: each must be noticed
_V2_PHRASINGS = [
    ("Got a 'city not recognized' response. I'll use the full name, São Paulo, this time.",
     'beside_call', 'same_tool'),
    ('Validation failed on the date field; reformatting to ISO and resubmitting.',
     'beside_call', 'same_tool'),
    ('The endpoint responded with an error about the patient ID format. Trying again'
     ' without the dashes.',
     'beside_call', 'same_tool'),
    ('Hmm, an exception came back from the search. Let me rerun it with fewer filters.',
     'beside_call', 'same_tool'),
    ('The query bombed — looks like the SKU needs the prefix. Retrying as SKU-4471.',
     'beside_call', 'same_tool'),
    ("That call didn't go through; network hiccup. Trying once more.", 'beside_call', 'same_tool'),
    ('The tool complained that the end date is before the start date. Swapping them.',
     'beside_call', 'same_tool'),
    ('Nothing came back but an error code. Repeating the lookup.', 'beside_call', 'same_tool'),
    ('The drug database threw an error for the second name, so I only have data on'
     ' the first one: no known interactions with aspirin.',
     'final', None),
    ('Note: the calendar service returned an error when I tried to add the reminder,'
     ' so the event exists but without a reminder.',
     'final', None),
    ('The price API is down right now; here is the last known price from the catalog instead: $59.',
     'final', None),
    ("I hit a server error on the weather lookup. I'll move on to the flights.", 'text_turn', None),
    ("Apologies — the search tool failed, so I can't give you the article's publication date.",
     'final', None),
    ("I'm sorry, the booking system returned an error and your table was not reserved.",
     'final', None),
    ("Sorry, my lookup came back with someone else's order, so I can't tell you where yours is.",
     'final', None),
    ('My apologies: the first result was for the wrong Springfield. Here is'
     ' Springfield, Oregon: 14 °C.',
     'final', None),
    ('The record I got is for John Smith born 1954, but the patient you mentioned was'
     ' born in 1961.',
     'final', None),
    ('The product that came back is the 13-inch model; you wanted the 15-inch.', 'final', None),
    ('These interaction results are for warfarin and ibuprofen, while you asked about'
     ' warfarin and aspirin.',
     'final', None),
    ('The article is about a different John Williams (the guitarist).', 'final', None),
    ('Hmm, the ID in the response (P-2231) differs from the one I requested (P-2213).',
     'text_turn', None),
    ('This appears to be a different patient: the name on the chart is Maria Lopez.',
     'text_turn', None),
    ('The forecast I received is dated for next Tuesday rather than tomorrow.', 'final', None),
    ('These events are from March 2023, not March 2024 as requested.', 'final', None),
    ('The schedule returned covers last week instead of this week.', 'final', None),
    ("The date on the result (June 3) doesn't line up with the date you gave (July 3).",
     'final', None),
    ("The weight is shown as 70, but the unit isn't given — kg or lb?", 'final', None),
    ('The temperature appears to be in Fahrenheit, not Celsius as expected.', 'final', None),
    ('The distance came back in miles although I asked for kilometres.', 'text_turn', None),
    ("I'm not sure this list is complete — it stops at the letter M.", 'final', None),
    ('This price might be outdated; the listing was last updated two years ago.', 'final', None),
    ('The results seem to be partial: only the first page came back.', 'text_turn', None),
    ('Heads up: the inventory number may be stale.', 'final', None),
    ('The response ends abruptly, so some medications could be missing.', 'final', None),
    ('These figures are probably not current; the source is from 2015.', 'final', None),
    ("A blood pressure of 12/8 is suspicious; it's probably 120/80 with a formatting problem.",
     'final', None),
    ("The total doesn't add up: 3 items at $10 each listed as $300.", 'final', None),
    ('I have some doubts about this value.', 'final', None),
    ('Weird — the meeting is listed as lasting 0 minutes.', 'text_turn', None),
    ('The numbers look questionable; the population went from 2 million to 200 million in a year.',
     'final', None),
    ("According to the tool, the laptop costs $0. What a bargain — I don't believe it"
     ' for a second.',
     'final', None),
    ('Oh good, a patient aged 212. The data is clearly broken.', 'text_turn', None),
    ('I got results for Portland, Maine. Did you mean Portland, Oregon?', 'final', None),
    ('The system has two patients with that name. Which one should I use?', 'final', None),
    ('The tool returned a date in 2025 while you said 2024 — which year is it?', 'final', None),
    ("Given that the record belongs to someone else, I won't share the allergy information.",
     'final', None),
    ("Because the data conflicts, I can't say which flight is cheaper.", 'final', None),
    ("I'd rather not answer until I can confirm the dosage, since the record looks corrupted.",
     'final', None),
    ("The two sources disagree on the opening hours, so I'm checking the official website.",
     'beside_call', 'other_tool'),
    ('This rating looks off; let me pull the reviews to confirm.', 'beside_call', 'other_tool'),
    ('The stock level seems wrong — checking the warehouse API to double-check.',
     'beside_call', 'other_tool'),
    ('<think>The tool says the patient is 3 years old, but the question mentions'
     ' retirement. Mismatch somewhere.</think>',
     'text_turn', None),
    ("Wait, this says Monday the 5th, but the 5th is a Wednesday. Something's not right.",
     'text_turn', None),
    ('Parece que la herramienta devolvió los datos de otra ciudad.', 'final', None),
    ('Hubo un error al consultar el inventario. Lo vuelvo a intentar.', 'beside_call', 'same_tool'),
    ('Los resultados no son los que pediste: son de 2022.', 'final', None),
    ('No estoy seguro de que estos datos estén actualizados.', 'final', None),
    ('El precio parece un error: 0,99 € por un televisor.', 'final', None),
    ('A consulta deu erro. Vou tentar de novo com outro formato.', 'beside_call', 'same_tool'),
    ('Esses dados são de outra cidade, não de Curitiba.', 'final', None),
    ('Não tenho certeza se essa lista está completa.', 'final', None),
    ('O valor parece estar errado.', 'final', None),
    ('Il y a eu une erreur lors de la recherche. Je recommence.', 'beside_call', 'same_tool'),
    ('Ces résultats concernent Marseille, pas Montpellier.', 'final', None),
    ('Je ne suis pas sûr que ces données soient à jour.', 'final', None),
    ('Cette valeur me paraît peu plausible.', 'final', None),
    ("Le dossier renvoyé n'est pas celui du bon patient.", 'final', None),
    ("C'è stato un errore nella richiesta; riprovo.", 'beside_call', 'same_tool'),
    ('Questi dati sono di un altro paziente.', 'final', None),
    ("Non sono sicuro che l'elenco sia completo.", 'final', None),
    ('Il valore non sembra corretto.', 'final', None),
    ('Beim Abruf gab es einen Fehler. Ich versuche es noch einmal.', 'beside_call', 'same_tool'),
    ('Das Ergebnis betrifft Köln, nicht Bonn.', 'final', None),
    ('Ich bin nicht sicher, ob diese Daten aktuell sind.', 'final', None),
    ('Der Wert kann nicht stimmen.', 'final', None),
    ('Das ist der falsche Patient.', 'final', None),
    ('検索でエラーが発生しました。再度検索します。', 'beside_call', 'same_tool'),
    ('このデータは別の患者のもののようです。', 'final', None),
    ('この値は正しくないようです。', 'final', None),
    ('リストが途中で切れているので、すべての予定が表示されていない可能性があります。',
     'final', None),
    ('ご質問は東京ですが、返ってきたのは大阪の天気です。', 'final', None),
    ('查询出错了，我换个格式再查一次。', 'beside_call', 'same_tool'),
    ('返回的是另一位患者的记录。', 'final', None),
    ('这个数据看起来不太对。', 'final', None),
    ('我不确定这些数据是否是最新的。', 'final', None),
    ('结果是去年的数据，而您问的是今年。', 'final', None),
    ("The weather service sent back a 'location ambiguous' error. Adding the country"
     ' code.', 'beside_call', 'same_tool'),
    ('Oops, I passed the name in the wrong field. Redoing the search.', 'beside_call', 'same_tool'),
    ('No luck — the call bounced with an authorization problem. Trying the public'
     ' endpoint.', 'beside_call', 'same_tool'),
    ("The order lookup failed. I'll retry with the order number only.", 'beside_call', 'same_tool'),
    ("Error again: 'date out of range'. Let me use a date within the next 14"
     ' days.', 'beside_call', 'same_tool'),
    ("The interaction checker didn't recognize 'Tylenol'; I'll search for"
     ' acetaminophen instead.', 'beside_call', 'same_tool'),
    ("The booking API returned nothing but a 500; I'll tell the user it couldn't be"
     ' booked and move on.', 'text_turn', None),
    ("Unfortunately the patient lookup failed, so I don't have the allergy list.", 'final', None),
    ('I apologize — the tool returned an empty response due to a server issue, so I'
     " can't confirm the booking.", 'final', None),
    ('Sorry! The search timed out before returning anything useful.', 'final', None),
    ('The results are for Georgia the country, not the US state.', 'final', None),
    ('Hold on: the result lists the 2019 edition, but you asked for the 2023 one.', 'final', None),
    ('The chart I received belongs to a different patient (DOB 1947).', 'text_turn', None),
    ('These hours are for the downtown branch, whereas you asked about the airport'
     ' store.', 'final', None),
    ('This forecast is for Saturday; you wanted Sunday.', 'final', None),
    ('The event returned is on 2024-05-12 instead of 2024-12-05 — the day and month'
     ' look swapped.', 'final', None),
    ('The height is listed as 330 with no unit; presumably meters.', 'final', None),
    ('Note that the price is shown in USD rather than EUR.', 'final', None),
    ('The sync looks incomplete; a few meetings from yesterday are missing.', 'final', None),
    ('This data could be out of date — the last refresh was in January.', 'final', None),
    ("I can't be sure this list is exhaustive; the tool caps results at 20.", 'final', None),
    ('A 4000 mg daily dose of this drug seems implausibly high; possibly a typo for'
     ' 400 mg.', 'final', None),
    ('Odd: the flight lands before it departs.', 'text_turn', None),
    ('The two readings are inconsistent with each other.', 'final', None),
    ('According to the catalog this phone weighs 18 kg, which I highly doubt.', 'final', None),
    ("Either the store is giving TVs away for $1, or that's a data glitch.", 'final', None),
    ("Could you double-check the patient's date of birth? The record I found doesn't"
     ' match the one you gave.', 'final', None),
    ('The tool returned two different addresses for the same clinic. Which one should'
     ' I use?', 'final', None),
    ("Because the results look corrupted, I won't give a dosage recommendation.", 'final', None),
    ("The flight price looks wrong, so I'm checking the airline's own site to"
     ' verify.', 'beside_call', 'other_tool'),
    ("<think>Result says it's 35 °C in Oslo in December. That's not plausible. Maybe"
     ' wrong city.</think>', 'text_turn', None),
    ('Il servizio ha restituito un errore 404. Riprovo con un altro'
     ' identificativo.', 'beside_call', 'same_tool'),
    ('La respuesta parece incompleta: faltan los últimos días de la semana.', 'final', None),
    ('El sistema me dio los datos de Santiago de Chile en vez de Santiago de'
     ' Compostela.', 'final', None),
    ('Lamento, houve uma falha ao consultar a agenda.', 'final', None),
    ('A cotação parece errada: o valor está 100 vezes maior que ontem.', 'final', None),
    ('La recherche a renvoyé le mauvais produit : un modèle 2020 au lieu du modèle'
     ' 2024.', 'final', None),
    ('Désolé, le service météo est indisponible pour le moment.', 'final', None),
    ('Die Antwort enthält einen Fehler: das Datum liegt in der Zukunft.', 'final', None),
    ('Das Tool hat eine falsche Stadt geliefert. Ich suche noch einmal nach Frankfurt'
     ' (Oder).', 'beside_call', 'same_tool'),
    ('Ich bezweifle, dass dieser Wert stimmt.', 'final', None),
    ('Il dato sembra errato: 300 km/h di vento a Roma.', 'final', None),
    ('天気APIがエラーを返しました。もう一度試してみます。', 'beside_call', 'same_tool'),
    ('この在庫数は信じがたいです。データの誤りかもしれません。', 'final', None),
    ('这个结果好像是另一个城市的，不是您问的苏州。', 'final', None),
    ('系统返回的日期和您给的日期不一样。', 'final', None),
    ('接口出错，暂时无法查询您的订单。', 'final', None),
    ('Looks like my date format was rejected. Sending 2025-03-04 this'
     ' time.', 'beside_call', 'same_tool'),
    ("The search choked on the apostrophe in O'Brien. Escaping it and searching"
     ' again.', 'beside_call', 'same_tool'),
    ('The endpoint gave me a stack trace instead of data; trying a second'
     ' time.', 'beside_call', 'same_tool'),
    ("I got an 'unknown product ID' message, so I'll look the product up by"
     ' name.', 'beside_call', 'same_tool'),
    ("The reply from the pharmacy API was malformed JSON. I'll summarize what I could"
     ' read.', 'text_turn', None),
    ('Just so you know, the calendar tool reported a conflict error, so the event may'
     ' not have been saved.', 'final', None),
    ("I'm afraid the lookup didn't succeed, so I don't have the shipping status.", 'final', None),
    ("Sorry — the forecast service gave an error, so I can't give you tomorrow's"
     ' weather.', 'final', None),
    ('Regrettably the record retrieval failed midway.', 'final', None),
    ('The result is for Victoria, Australia — you probably meant Victoria, BC.', 'final', None),
    ('This appears to be the profile of Anna Berg, whereas you asked about Hanna'
     ' Berg.', 'final', None),
    ('The match returned is the 2014 film, not the novel you were asking about.', 'final', None),
    ("The tool's answer covers Thursday; your question was about Tuesday.", 'final', None),
    ('It lists the time as 14:00 UTC, but the meeting was supposed to be 14:00 local'
     ' — those differ.', 'final', None),
    ('The list looks cut short — only three of the five drugs are there.', 'text_turn', None),
    ('I suspect the results are capped, so there may be more flights than shown.', 'final', None),
    ('This figure seems dated; the report is from 2012.', 'final', None),
    ('The value 9999 looks like a placeholder rather than a real reading.', 'final', None),
    ('Strange — the order total is negative.', 'text_turn', None),
    ("A 40-hour flight from Paris to London? That doesn't make sense.", 'text_turn', None),
    ("The reviews say 5 stars but the rating field says 1.2 — these don't line up.", 'final', None),
    ('Could you tell me which Dr. Lee you meant? The directory shows three of'
     ' them.', 'final', None),
    ("Is the patient's ID 55231 or 55213? The record I got doesn't agree with your"
     ' note.', 'final', None),
    ("I'd prefer not to answer with these numbers, because they contradict the"
     ' earlier result.', 'final', None),
    ("The stock count looks off — I'm querying the warehouse system to verify"
     ' it.', 'beside_call', 'other_tool'),
    ('La herramienta devolvió la ficha de un paciente distinto.', 'final', None),
    ('El valor de 500 °C en Madrid no tiene sentido.', 'final', None),
    ('A ferramenta retornou dados de outra data.', 'final', None),
    ('Le résultat ne semble pas cohérent : 0 habitant à Paris.', 'final', None),
    ('La valeur de 800 km/h est sûrement une erreur.', 'final', None),
    ('Questa previsione non corrisponde alla data richiesta.', 'final', None),
    ('Das Ergebnis passt nicht zur Anfrage: falsches Datum.', 'final', None),
    ('Die Liste scheint abgeschnitten zu sein.', 'final', None),
    ('結果の日付がリクエストと違います。', 'final', None),
    ('このデータは古い可能性があります。', 'final', None),
    ('工具返回的价格明显不合理。', 'final', None),
    ('查到的是北京的数据，不是您要的天津。', 'final', None),
    ("Received 'Error 422: unprocessable entity' from the booking tool. Adjusting the"
     ' payload and resending.', 'beside_call', 'same_tool'),
    ("The call came back empty with a timeout notice, so I'm repeating"
     ' it.', 'beside_call', 'same_tool'),
    ("Hmm, 'no patient with ID 00912'. Maybe the leading zeros got stripped —"
     ' retrying as a string.', 'beside_call', 'same_tool'),
    ("The medication endpoint is throwing errors; I'll skip it and answer from the"
     ' summary instead.', 'text_turn', None),
    ('FYI: the reminder could not be created because the calendar API refused the'
     ' request.', 'final', None),
    ("I'm sorry, but the product search isn't responding right now, so I can't check"
     ' the price.', 'final', None),
    ('Apologies for the mix-up: the first lookup returned Dr. Jane Smith in Ohio, not'
     ' the one in your network.', 'final', None),
    ('This weather report is for Newcastle, Australia, not Newcastle upon Tyne.', 'final', None),
    ('The patient record shows a female, 34, but you described a 70-year-old man —'
     ' likely the wrong chart.', 'final', None),
    ('The article retrieved is about Mercury the planet, not the element you asked'
     ' about.', 'final', None),
    ('The tool returned events for November, though you asked about October.', 'final', None),
    ('The forecast is for 10 PM rather than 10 AM.', 'final', None),
    ("The speed is 30, but the tool didn't say whether that's mph or km/h.", 'final', None),
    ("The price is listed as 1,299 without a currency, so I'm not sure if that's"
     ' dollars or euros.', 'final', None),
    ("I'm not convinced this inventory is current — the timestamp says three weeks"
     ' ago.', 'final', None),
    ('The list may not include all attendees; it seems to be truncated at 50.', 'final', None),
    ('That rainfall figure (4,000 mm in a day) looks absurd.', 'final', None),
    ('The two tools give different prices for the same item: $30 and $300.', 'final', None),
    ('The dosage here seems suspiciously high.', 'final', None),
    ("Right, because a one-bedroom flat in Lisbon obviously costs €12. I'd treat that"
     ' as a data error.', 'final', None),
    ('Before I answer, can you confirm the order number? The one in the system has a'
     ' different name on it.', 'final', None),
    ("I won't give you the interaction rating, since the tool's answer contradicts"
     ' itself.', 'final', None),
    ("The flight time seems wrong, so I'm looking at the airline's schedule to"
     ' check.', 'beside_call', 'other_tool'),
    ('<think>The user asked about Dr. Patel, but the tool returned Dr. Patil.'
     ' Probably a typo on the tool side.</think>', 'text_turn', None),
    ('Es scheint ein Problem mit der Wetterabfrage gegeben zu haben.', 'final', None),
    ('Die zurückgegebenen Daten sind offensichtlich falsch.', 'final', None),
    ('La consulta devolvió datos de un usuario diferente.', 'final', None),
    ('Ojo, este precio no cuadra con el de ayer.', 'final', None),
    ('Le calendrier renvoyé ne correspond pas à la semaine demandée.', 'final', None),
    ('Il sistema ha dato errore. Riprovo tra un attimo.', 'beside_call', 'same_tool'),
    ('O resultado não bate com o que você pediu.', 'final', None),
    ('ツールの応答にエラーが含まれていました。', 'final', None),
    ('この結果は別の日付のもののようです。', 'final', None),
    ('数据好像有问题，温度显示为 99 度。', 'final', None),
    ('返回的结果不完整，缺少最后两天。', 'final', None),
    ("The lookup came back with status 'failed'. Running it once more with the same"
     ' arguments.', 'beside_call', 'same_tool'),
    ("Hm, no data for 'Bejing' — I misspelled it. Searching for"
     ' Beijing.', 'beside_call', 'same_tool'),
    ("The tool says the parameter 'dose_mg' must be a number. Resending as"
     ' 500.', 'beside_call', 'same_tool'),
    ("The inventory tool errored twice, so I'll work from the cached catalog.", 'text_turn', None),
    ("Heads-up: part of the update didn't save — the location field is still"
     ' empty.', 'final', None),
    ("Sorry, the pharmacy service returned an unexpected response and I couldn't get"
     ' the refill date.', 'final', None),
    ('My bad, that search returned hotels in Paris, Ontario. Here are the ones in'
     ' Paris, France instead.', 'final', None),
    ("The returned entry is for the 2021 model year; you're asking about 2023.", 'final', None),
    ('These vitals belong to bed 12, not bed 21.', 'final', None),
    ("The calendar gave me next month's schedule by mistake.", 'final', None),
    ('It looks like the tool read your date as day-month instead of month-day.', 'final', None),
    ("The weight field says 180 — that's likely pounds, not kilograms.", 'final', None),
    ("I'm unsure whether the list is complete, as it ends abruptly.", 'final', None),
    ('Note the data might be a day old.', 'final', None),
    ("This looks like stale data: yesterday's closing price.", 'final', None),
    ('A 5-minute drive from Boston to Chicago? Something is clearly wrong with the'
     ' route data.', 'final', None),
    ('The rating jumped from 2.1 to 4.9 overnight, which is suspicious.', 'final', None),
    ('Two fields in the record disagree about the blood type.', 'final', None),
    ('The same meeting appears twice with different times, so one of them is'
     ' wrong.', 'final', None),
    ('Ah yes, the famous 45-hour day. The event duration is obviously'
     ' corrupted.', 'text_turn', None),
    ('Just to be safe: did you mean the Springfield in Illinois or in Missouri? The'
     ' tool returned Missouri.', 'final', None),
    ("I'd hold off on that answer — the interaction data looks unreliable.", 'final', None),
    ("The timestamps look inconsistent, so I'm pulling the raw event log to"
     ' verify.', 'beside_call', 'other_tool'),
    ("<think>Hmm, tool gave a price of $0.00. That can't be the real price. Maybe out"
     ' of stock placeholder.</think>', 'text_turn', None),
    ('La búsqueda falló por un problema de conexión. Vuelvo a'
     ' intentarlo.', 'beside_call', 'same_tool'),
    ('Estos datos no corresponden al paciente que mencionaste.', 'final', None),
    ('Os dados parecem estar incompletos.', 'final', None),
    ('Le service a répondu avec une erreur 503.', 'final', None),
    ('Cette date ne correspond pas à celle que vous avez indiquée.', 'final', None),
    ('Il risultato sembra riferirsi a un altro prodotto.', 'final', None),
    ('Die Abfrage hat einen Fehler zurückgegeben.', 'final', None),
    ('Die Temperatur von 70 °C in Berlin ist unplausibel.', 'final', None),
    ('返ってきた日付が間違っているようです。', 'final', None),
    ('この結果は不完全かもしれません。', 'final', None),
    ('工具报错了，我重新查一次。', 'beside_call', 'same_tool'),
    ('这个结果和您的问题对不上。', 'final', None),
    ("First attempt bounced: 'date must be in the future'. Moving it to next Monday"
     ' and trying again.', 'beside_call', 'same_tool'),
    ("The API complained about a missing 'units' parameter. Adding"
     ' units=metric.', 'beside_call', 'same_tool'),
    ("Got back 'rate limit exceeded'. Waiting a moment, then"
     ' resending.', 'beside_call', 'same_tool'),
    ('Seems the patient search choked on the accent in José. Retrying without'
     ' it.', 'beside_call', 'same_tool'),
    ("The drug lookup returned an error for 'paracetamol 500'; I'll continue with the"
     ' other two drugs.', 'text_turn', None),
    ('Note: the availability check failed for Room B, so I only compared Rooms A and'
     ' C.', 'final', None),
    ("Sorry about this — the catalog returned a server error, so I can't tell you if"
     " it's in stock.", 'final', None),
    ("Apologies, the first answer I gave used the wrong city's data (Portland,"
     ' Maine).', 'final', None),
    ("I'm sorry, but the system gave me another customer's order, so I can't share"
     ' those details.', 'final', None),
    ('The tool gave me the forecast for Cordoba, Argentina, when you asked about'
     ' Córdoba in Spain.', 'final', None),
    ("The search found 'Apple Inc.' but your question is about the fruit's"
     ' nutrition.', 'final', None),
    ('The record belongs to Mr. J. Smith, DOB 1980 — the patient you named was born'
     ' in 1955.', 'text_turn', None),
    ('The date on this result is a week earlier than the one you asked for.', 'final', None),
    ("These are last year's opening hours; the page hasn't been updated.", 'final', None),
    ('It reports 1013 for pressure without units — presumably hPa.', 'final', None),
    ("The distance says 5, but is that miles or kilometres? The tool doesn't"
     ' specify.', 'final', None),
    ('The list seems to stop partway — I only see entries A to F.', 'text_turn', None),
    ("I'm a little wary of this number; it hasn't changed in a month.", 'final', None),
    ('Only partial results came back, so this summary may be missing some flights.', 'final', None),
    ('That humidity of 140% is physically impossible, so the sensor data is off.', 'final', None),
    ('The due date is in 1925. Probably meant 2025.', 'final', None),
    ("The order shows 'shipped' and 'cancelled' at the same time, which doesn't make"
     ' sense.', 'final', None),
    ("Sure, a studio in Manhattan for $90 a month. I'd take that listing with a big"
     ' grain of salt.', 'final', None),
    ("Which date did you mean — the 3rd or the 13th? The tool's result was for the"
     ' 13th.', 'final', None),
    ("Since the lab values look corrupted, I won't interpret them.", 'final', None),
    ("The delivery date seems off, so I'm checking the carrier's tracking to"
     ' confirm.', 'beside_call', 'other_tool'),
    ('<think>Tool says the store is in Lyon but the user asked about Lille. Wrong'
     ' store returned.</think>', 'text_turn', None),
    ('El servidor respondió con un error. Lo intento de nuevo en un'
     ' momento.', 'beside_call', 'same_tool'),
    ('Creo que estos datos están desactualizados.', 'final', None),
    ('A resposta da ferramenta parece ser de outro cliente.', 'final', None),
    ('Je pense que la date renvoyée est fausse.', 'final', None),
    ('Il sistema non ha risposto; riprovo la richiesta.', 'beside_call', 'same_tool'),
    ('Die Antwort scheint zu einem anderen Kunden zu gehören.', 'final', None),
    ('データに誤りがあるようです。', 'final', None),
    ('取得に失敗しました。', 'final', None),
    ('这个日期好像不对，您确认一下是 3 号还是 13 号？', 'final', None),
    ('That request failed validation (the phone number has letters). Cleaning it up'
     ' and resubmitting.', 'beside_call', 'same_tool'),
    ("The weather call returned null for Oslo; probably a hiccup, so I'm calling it"
     ' again.', 'beside_call', 'same_tool'),
    ("Error: 'Patient not found'. I'll search by last name instead of"
     ' ID.', 'beside_call', 'same_tool'),
    ("The price tool is returning 503s, so I'm skipping it for now and using the"
     ' catalog price.', 'text_turn', None),
    ('Be aware that the booking tool reported a partial failure: the room is reserved'
     " but catering isn't.", 'final', None),
    ('Unfortunately, I ran into an error while fetching your prescriptions.', 'final', None),
    ('Sorry, I pulled up the wrong flight earlier; this is the correct one, AF'
     ' 1234.', 'final', None),
    ("I apologize — the search didn't return your article, it returned a different"
     ' one with a similar title.', 'final', None),
    ("This result is for 'Kingston, Jamaica' and you asked about 'Kingston,"
     " Ontario'.", 'final', None),
    ('The hotel listed is in Santa Monica; the one you asked about is in Santa'
     ' Barbara.', 'final', None),
    ('These prices are in pence, not pounds, so the TV is £4.99? Unlikely.', 'final', None),
    ("There might be more events than shown; the response says 'page 1 of 3'.", 'final', None),
    ('The drug list may be outdated — it was imported in 2019.', 'final', None),
    ("I don't fully trust this forecast; the model run is 48 hours old.", 'final', None),
    ("A 300-year-old patient? That's clearly a data problem.", 'text_turn', None),
    ('The stock price went from $100 to $1 in one minute — almost certainly a'
     ' glitch.', 'final', None),
    ('The two calendars show the meeting at different times.', 'final', None),
    ('Incredible, a hotel room in central Paris for €5 a night. Obviously wrong.', 'final', None),
    ('Do you mean the Washington in the US state or Washington, D.C.? The tool'
     ' returned the state.', 'final', None),
    ("I'll hold off on recommending a dose, because the weight in the record (7 kg)"
     ' seems wrong for an adult.', 'final', None),
    ("The event time looks odd, so I'll check the organizer's calendar to"
     ' verify.', 'beside_call', 'other_tool'),
    ('<think>Hmm, result says zero interactions between warfarin and aspirin. That'
     ' seems unlikely. I should double-check.</think>', 'text_turn', None),
    ('Hubo un fallo al reservar la sala.', 'final', None),
    ('O sistema devolveu dados incompletos.', 'final', None),
    ('Les données semblent erronées.', 'final', None),
    ('I dati restituiti non sono aggiornati.', 'final', None),
    ('Die Abfrage ist wegen eines Timeouts gescheitert.', 'final', None),
    ('予約システムからエラーが返されました。', 'final', None),
    ('系统显示的信息和实际不符。', 'final', None),
    ("It seems the previous request didn't go as planned. Let me try again with the"
     ' correct date format.', 'beside_call', 'same_tool'),
    ('I encountered an issue retrieving the forecast. Let me retry.', 'beside_call', 'same_tool'),
    ('The function call returned an empty result, which is unexpected for a major'
     ' city. Retrying with the country name.', 'beside_call', 'same_tool'),
    ("The search for 'sertraline' gave an 'invalid drug name' response; I'll try"
     " 'Zoloft'.", 'beside_call', 'same_tool'),
    ("Note: I wasn't able to retrieve the attendee list due to a permissions issue,"
     ' but the meeting itself is booked.', 'final', None),
    ("I'm sorry, but I encountered an error while checking the interaction, so I"
     " can't confirm whether it's safe.", 'final', None),
    ('I apologize for the confusion — the data I retrieved was for a different'
     ' product (the Pro model).', 'final', None),
    ('It appears the search returned information about Paris Hilton rather than'
     ' Paris, France.', 'final', None),
    ('The retrieved record seems to correspond to a patient named Robert Kim, not'
     ' Roberta Kim.', 'final', None),
    ('I notice the forecast is for Saturday, but you asked about Friday.', 'final', None),
    ('The weather data seems to be in Fahrenheit even though I requested Celsius.', 'final', None),
    ('Please note that this information may not be up to date, as the database was'
     ' last synced in 2022.', 'final', None),
    ('It looks like the result only includes the first 10 items, so the list may be'
     ' incomplete.', 'final', None),
    ('The temperature of 60 °C seems unusually high and may be an error in the'
     ' data.', 'final', None),
    ("The event's end time precedes its start time, which suggests a data issue.", 'final', None),
    ("I should mention that the stock count is negative, which isn't possible.", 'final', None),
    ("Hmm, the tool claims Mount Everest is 4,000 m tall. I'm quite sure that's not"
     ' right.', 'text_turn', None),
    ("Could you please verify the patient ID? The record I retrieved doesn't seem to"
     ' match the name you provided.', 'final', None),
    ('To make sure I give you accurate information, could you confirm which'
     ' Springfield you mean? The results were for Illinois.', 'final', None),
    ("Given the inconsistency in the data, I'd recommend not relying on this result"
     ' until it can be verified.', 'final', None),
    ('The price seems inconsistent with the product page, so let me check the product'
     ' details to confirm.', 'beside_call', 'other_tool'),
    ('<think>The returned weather is for Paris, Texas, not Paris, France. I need to'
     ' search again with the country.</think>', 'text_turn', None),
    ('Parece que hubo un problema con la consulta. Voy a intentarlo de'
     ' nuevo.', 'beside_call', 'same_tool'),
    ('Los resultados corresponden a otra fecha, no a la que indicaste.', 'final', None),
    ('Parece que a ferramenta retornou informações desatualizadas.', 'final', None),
    ('Il semble que les données reçues concernent un autre patient.', 'final', None),
    ('Sembra che ci sia stato un problema con la richiesta.', 'final', None),
    ('Es sieht so aus, als wären die Daten unvollständig.', 'final', None),
    ('取得したデータに問題があるようです。', 'final', None),
    ('看起来返回的数据有误，我再查询一次。', 'beside_call', 'same_tool'),
    ("The previous call didn't return the expected data. I'll adjust the query and"
     ' try once more.', 'beside_call', 'same_tool'),
    ('It looks like there was an issue with the date parameter. Let me correct it and'
     ' search again.', 'beside_call', 'same_tool'),
    ("I received an error indicating the city name was not recognized. Trying 'New"
     " York City'.", 'beside_call', 'same_tool'),
    ("The API response indicates the patient ID is invalid; I'll use the MRN"
     ' instead.', 'beside_call', 'same_tool'),
    ('The attempt to update the event was unsuccessful, but the original booking'
     ' remains.', 'final', None),
    ("I'm sorry, I wasn't able to access the inventory system due to a technical"
     ' issue.', 'final', None),
    ('My apologies — the earlier result referred to a different Lisbon (Lisbon,'
     ' Ohio).', 'final', None),
    ('It seems the tool provided data for Georgia (the country) instead of the US'
     ' state.', 'final', None),
    ('The article I found is about a different person with the same name.', 'final', None),
    ('I noticed the results are from 2020, which may not reflect the current'
     ' prices.', 'final', None),
    ("I can't verify whether this list covers all your medications; it appears"
     ' incomplete.', 'final', None),
    ('The forecast data may be stale, as it was generated three days ago.', 'final', None),
    ('A price of $0.01 for a laptop is almost certainly an error.', 'final', None),
    ('The wind speed of 400 km/h looks unrealistic for Lisbon.', 'final', None),
    ("The total of $50 doesn't match the sum of the items ($75).", 'final', None),
    ('The record lists the patient as both allergic and not allergic to penicillin,'
     ' which is contradictory.', 'final', None),
    ('Wow, apparently Tokyo had 0 residents in 2020. Definitely a data glitch.', 'final', None),
    ('Could you clarify which account you mean? The lookup returned two accounts with'
     ' that email.', 'final', None),
    ("Since the returned data appears to be for the wrong patient, I can't safely"
     ' answer this.', 'final', None),
    ("The result looks inconsistent with the previous lookup, so I'll verify it with"
     ' the official source.', 'beside_call', 'other_tool'),
    ('<think>The date in the response is 2023 but the user asked about 2024.'
     ' Mismatch.</think>', 'text_turn', None),
    ('La API devolvió un resultado vacío, lo cual es inesperado. Lo intento otra'
     ' vez.', 'beside_call', 'same_tool'),
    ('Los datos recibidos parecen ser de otra ciudad.', 'final', None),
    ('Desculpe, ocorreu um erro ao buscar seus compromissos.', 'final', None),
    ('Les résultats ne correspondent pas à votre demande.', 'final', None),
    ('Mi scuso, la ricerca non è andata a buon fine.', 'final', None),
    ('Leider konnte ich die Daten nicht abrufen, da ein Fehler aufgetreten ist.', 'final', None),
    ('すみません、検索中にエラーが発生しました。', 'final', None),
    ('抱歉，系统返回了错误的城市信息。', 'final', None),
]


@pytest.mark.parametrize(("text", "where", "call"), _V2_PHRASINGS)
def test_v2_phrasings_are_noticed(text: str, where: str, call: str | None) -> None:
    assert classify_text(text, where, call) is not None, text_signals(text)


# -- v3: families of misses, phrasings of our own ------------------------------------------
# The v2 misses on noticed_heldout2026 (scored once, then used as development data) and on
# six batches of texts of our own, grouped by family; one general rule per family and
# language, tested here on our own phrasings (no fixture sentence), with near misses that
# must stay silent.
_V3_FAMILIES = [
    ("The itinerary is for a flight to Austin, Texas, but you're flying to Boston. Checking "
     "the booking history for the right reservation.", "beside_call", "other_tool", "verify"),
    ("These showtimes are for the Odeon in Leeds, whereas you're staying in York.",
     "final", None, "mention"),
    ("The pharmacy list shows stores in Dover, yet you mentioned you live near Deal.",
     "final", None, "mention"),
    ("Le résultat concerne l'hôtel de Nice, alors que vous avez demandé celui de Nîmes.",
     "final", None, "mention"),
    ("La previsión es para Valencia, pero me preguntaste por Palencia. ¿Cuál necesitas?",
     "final", None, "clarify"),
    ("A consulta trouxe dados de Braga, mas você perguntou sobre Bragança.",
     "final", None, "mention"),
    ("Il sistema ha trovato la prenotazione a Pisa, ma tu avevi chiesto Pavia.",
     "final", None, "mention"),
    ("Das Tool zeigt Termine in Halle, aber Sie haben nach Hameln gefragt.",
     "final", None, "mention"),
    ("The shipping API says the parcel is in Rotterdam, but your order history lists a "
     "delivery to Lyon. Let me look at the carrier's tracker.",
     "beside_call", "other_tool", "verify"),
    ("The lab system reported a normal result, but the patient's chart we pulled earlier has "
     "it flagged as critical.", "text_turn", None, "mention"),
    ("That booking reference doesn't look like a valid one; it has only three characters.",
     "final", None, "mention"),
    ("The phone number in the profile does not seem real (555-0000). Should I use the email "
     "instead?", "final", None, "clarify"),
    ("El código de seguimiento no parece válido, lo consulto en la web del transportista.",
     "beside_call", "other_tool", "verify"),
    ("Le numéro de commande ne semble pas réel : il ne contient que des zéros.",
     "final", None, "mention"),
    ("Die Rechnungsnummer sieht nicht echt aus.", "final", None, "mention"),
    ("这个订单号不像是真的，我再查一下。", "beside_call", "same_tool", "requery"),
    ("The clinic page strangely lists the dentist as available at 3 AM.", "final", None, "mention"),
    ("Your rota oddly shows two shifts at the same time on Monday.", "final", None, "mention"),
    ("A fare of €4 for Paris to Tokyo looks unusual. I'll compare it with the airline's "
     "site.", "beside_call", "other_tool", "verify"),
    ("La réservation indique étrangement un départ à 4 h du matin.", "final", None, "mention"),
    ("Laut System wurde das Paket zugestellt – seltsam, der Status war gestern noch offen.",
     "final", None, "mention"),
    ("Stranamente il calendario segna la riunione alle 3 di notte.", "final", None, "mention"),
    ("The search only returned two of the three hotels you listed.", "final", None, "mention"),
    ("It gave me back only 3 of 7 days; I'll ask for the rest again.",
     "beside_call", "same_tool", "requery"),
    ("I have 2 of the 4 prescriptions you asked about; the others did not load.",
     "final", None, "mention"),
    ("La herramienta devolvió solo tres de los cinco vuelos.", "final", None, "mention"),
    ("L'API n'a renvoyé que deux sur cinq jours.", "final", None, "mention"),
    ("Die Suche lieferte nur drei von sechs Filialen.", "final", None, "mention"),
    ("5件中2件しか返ってきませんでした。", "final", None, "mention"),
    ("接口只返回了3天的数据，您要的是7天。", "final", None, "mention"),
    ("Heads-up: the request was interrupted, so the list of rooms may be short.",
     "final", None, "mention"),
    ("La lista puede estar incompleta: la consulta se interrumpió a la mitad.",
     "final", None, "mention"),
    ("I risultati potrebbero essere incompleti perché la ricerca è stata interrotta.",
     "final", None, "mention"),
    ("Die Liste könnte unvollständig sein, die Verbindung wurde unterbrochen.",
     "final", None, "mention"),
    ("検索が途中で中断されたため、結果は一部だけです。", "final", None, "mention"),
    ("Apparently your calendar thinks Christmas is in July. Which date did you mean?",
     "final", None, "clarify"),
    ("The tracker swears your bike was returned in 1999. Sure it was.", "final", None, "mention"),
    ("El sistema insiste en que el vuelo ya aterrizó, aunque sale mañana.",
     "final", None, "mention"),
    ("Le calendrier prétend que la salle est libre, mais la réunion y est déjà.",
     "final", None, "mention"),
    ("Oslo came back with an error; moving on to Bergen.", "beside_call", "same_tool", "mention"),
    ("the search returned gibberish, trying again with plain keywords",
     "beside_call", "same_tool", "requery"),
    ("The booking API reported a 503, so the seat map is missing from this answer.",
     "final", None, "mention"),
    ("calendar api err: token expired. refreshing and retrying",
     "beside_call", "same_tool", "requery"),
    ("La búsqueda volvió con un error, así que lo intento de nuevo.",
     "beside_call", "same_tool", "requery"),
    ("Le service a répondu une 502 ; je réessaie dans un instant.",
     "beside_call", "same_tool", "requery"),
    ("接口返回了一堆乱码，无法回答。", "final", None, "abstain"),
    ("Os dados da resposta são inutilizáveis, não vou dar um preço.", "final", None, "abstain"),
    ("The rates are dated last Friday, not today. I'll use them but flag it.",
     "final", None, "mention"),
    ("Los precios son de ayer, no de hoy.", "final", None, "mention"),
    ("I dati sono di ieri, non di oggi: li ricarico.", "beside_call", "same_tool", "requery"),
    ("The account number it returned isn't one I recognise from your wallet.",
     "final", None, "mention"),
    ("That reading is unusable; the sensor sent the same value for every hour.",
     "final", None, "mention"),
    ("A 40-hour flight from Rome to Milan? That's impossible. Re-running the search.",
     "beside_call", "same_tool", "requery"),
    ("Un vol de 40 heures entre Rome et Milan, c'est impossible.", "final", None, "mention"),
    ("Eine Temperatur von 90 Grad in Hamburg ist unmöglich.", "final", None, "mention"),
    ("気温が90度というのはありえない値です。", "final", None, "mention"),
    ("The order came back with a different size (M instead of L). Should I keep it or "
     "cancel?", "final", None, "clarify"),
    ("The tool matched two clinics called Riverside. Which one do you go to?",
     "final", None, "clarify"),
    ("The invoice total doesn't match the items; is this the one you want paid?",
     "final", None, "clarify"),
    ("La reserva salió para el día equivocado. ¿Quieres que la cambie o la cancele?",
     "final", None, "clarify"),
    ("Die Buchung ist für den falschen Tag. Soll ich sie ändern?", "final", None, "clarify"),
    ("The record is for another patient, so I won't use it for your dose.",
     "final", None, "abstain"),
    ("These totals conflict, so I'd rather not quote a figure.", "final", None, "abstain"),
    ("cant tell u, the lookup errored", "final", None, "abstain"),
    ("I dati del farmaco sono sbagliati, preferisco non darti un dosaggio.",
     "final", None, "abstain"),
    ("Los datos parecen incorrectos, prefiero no darte una cifra.", "final", None, "abstain"),
    ("Die Daten sind offensichtlich falsch, eine Empfehlung möchte ich Ihnen nicht geben.",
     "final", None, "abstain"),
    ("数据明显有问题，我不能给出建议的剂量。", "final", None, "abstain"),
    ("The address looks wrong. Cross-checking it against the postcode lookup.",
     "beside_call", "other_tool", "verify"),
    ("The forecast seems incomplete. Pulling up the hourly endpoint to compare.",
     "beside_call", "other_tool", "verify"),
    ("El precio parece incorrecto; consulto el catálogo.", "beside_call", "other_tool", "verify"),
    ("Le résultat semble faux, je vais vérifier avec l'historique.",
     "beside_call", "other_tool", "verify"),
    ("Porto timed out, so I'll skip it and fetch Faro.", "beside_call", "same_tool", "mention"),
    ("Nothing useful came back for that. I'll try a broader search term.",
     "beside_call", "same_tool", "requery"),
    ("Not 100% sure this balance is current, it was synced last month.", "final", None, "mention"),
    ("I can't give you a dosing schedule based on these values; the weight field reads 900 "
     "kg.", "final", None, "abstain"),
    ("I'm unable to calculate your refund from this record, since the dates look reversed.",
     "final", None, "abstain"),
    ("Según la herramienta, la farmacia abre a las 3 de la madrugada – extraño. Lo compruebo "
     "en su web.", "beside_call", "other_tool", "verify"),
    ("The weather tool answered for Cordoba, Spain; you're in Córdoba, Argentina, right?",
     "final", None, "clarify"),
    ("Sorry, the payment service kept failing, so I couldn't finish the checkout.",
     "final", None, "mention"),
    ("The balance endpoint gave a 401 — refreshing the token and calling it again.",
     "beside_call", "same_tool", "requery"),
    ("Heads-up: the temperature reading of -80 °C in Lisbon is surely a sensor glitch.",
     "final", None, "mention"),
    ("The doctor list came back empty, which is odd for a big hospital. Searching again "
     "without the specialty filter.", "beside_call", "same_tool", "requery"),
    ("It returned last month's statement instead of this month's.", "final", None, "mention"),
        ("The result mixes up the two patients' allergies, so I won't give you a recommendation.",
     "final", None, "abstain"),
    ("Le taux de change renvoyé (1 € = 300 $) paraît absurde. Je vérifie avec une autre "
     "source.", "beside_call", "other_tool", "verify"),
    ("Il risultato riguarda un altro paziente. Puoi confermarmi il codice fiscale?",
     "final", None, "clarify"),
    ("Die API hat einen Fehler gemeldet; ich versuche es gleich noch einmal.",
     "beside_call", "same_tool", "requery"),
    ("O horário retornado não bate com a reserva que você fez.", "final", None, "mention"),
    ("El inventario dice 0 unidades, pero el pedido figura como enviado. Consulto el "
     "almacén.", "beside_call", "other_tool", "verify"),
    ("検索結果が空でした。おかしいので、条件を変えてもう一度検索します。",
     "beside_call", "same_tool", "requery"),
    ("返回的航班日期是6月8日，但您要的是6月18日。请确认日期。", "final", None, "clarify"),
    ("The slot it booked is at 3 AM, which can't be what you wanted.", "final", None, "mention"),
    ("That took three tries — the calendar kept timing out — but your meeting is now booked.",
     "final", None, "mention"),
    ("The list seems to be missing the weekend days.", "final", None, "mention"),
    ("Looks like the lookup used my typo 'Lodnon'. Fixing it and rerunning.",
     "beside_call", "same_tool", "requery"),
    ("Quick note: the hotel search ignored my price cap and returned suites at €900. Redoing "
     "it with max_price=150.", "beside_call", "same_tool", "requery"),
    ("The appointment API responded with 'slot_taken'. Picking the next free slot instead.",
     "beside_call", "same_tool", "requery"),
    ("Weird — the conversion gave 1 USD = 0.0001 EUR. I'll check the rates endpoint.",
     "beside_call", "other_tool", "verify"),
    ("I'm seeing two different birth dates for the same patient across the records. Which is "
     "correct?", "final", None, "clarify"),
    ("Your order shows as delivered, although the courier's page still says 'in transit'.",
     "final", None, "mention"),
    ("The reservation was made under the name 'Smith', not 'Smyth'. Want me to fix it?",
     "final", None, "mention"),
    ("Couldn't reach the pharmacy database (connection refused), so I don't know if it's in "
     "stock.", "final", None, "abstain"),
    ("The results look like they're for a different year — 2019 instead of 2024. Asking "
     "again with year=2024.", "beside_call", "same_tool", "requery"),
    ("Note that the forecast tool only covers 3 days, and you asked for 5; here are the 3.",
     "final", None, "mention"),
    ("Hmm, zero results for 'ibuprofen'? That's hard to believe. Trying the generic name "
     "search.", "beside_call", "same_tool", "requery"),
    ("La API respondió con un 404 para ese médico; pruebo con su nombre completo.",
     "beside_call", "same_tool", "requery"),
    ("Os valores de glicose parecem trocados com os de colesterol.", "final", None, "mention"),
    ("La réponse contient des dates en 1900, visiblement une erreur de l'outil.",
     "final", None, "mention"),
    ("Il prezzo di 0 € sembra un errore del catalogo; lo verifico sul sito.",
     "beside_call", "other_tool", "verify"),
    ("Die Antwort enthält Termine aus dem letzten Jahr statt aus diesem.",
     "final", None, "mention"),
    ("ツールから返ってきた住所が別の店舗のものです。", "final", None, "mention"),
    ("系统给出的体温是 50 度，明显不对，我不会据此给出建议。", "final", None, "abstain"),
    ("The lookup didn't include the dosage field at all, so I can't tell you how much to "
     "take.", "final", None, "abstain"),
    ("La herramienta me dio el horario de otra sucursal. Vuelvo a buscar con el código "
     "correcto.", "beside_call", "same_tool", "requery"),
    ("Los resultados no incluyen el sábado que pediste.", "final", None, "mention"),
    ("Parece que la búsqueda falló por un problema de conexión; no puedo confirmar la "
     "reserva.", "final", None, "abstain"),
    ("A ferramenta devolveu o clima de Lisboa em vez do Porto. Vou consultar de novo.",
     "beside_call", "same_tool", "requery"),
    ("O preço de R$ 0,01 não parece correto. Pode confirmar o produto?", "final", None, "clarify"),
    ("Houve uma falha ao carregar a sua agenda, então não sei se quarta está livre.",
     "final", None, "abstain"),
    ("L'outil indique 45 °C à Oslo en janvier, ce qui est peu plausible.",
     "final", None, "mention"),
    ("Le rendez-vous trouvé est pour Mme Martin, pas pour vous. Pouvez-vous préciser votre "
     "nom ?", "final", None, "clarify"),
    ("La recherche n'a rien donné d'utile ; je relance avec un autre mot-clé.",
     "beside_call", "same_tool", "requery"),
    ("Il servizio ha restituito un errore di autenticazione, riprovo tra poco.",
     "beside_call", "same_tool", "requery"),
    ("I dati sul traffico sembrano vecchi di una settimana, li confronto con un'altra fonte.",
     "beside_call", "other_tool", "verify"),
    ("La temperatura di 60 gradi a Roma non è credibile.", "final", None, "mention"),
    ("Das Ergebnis bezieht sich auf Frankfurt (Oder), nicht auf Frankfurt am Main.",
     "final", None, "mention"),
    ("Die Abfrage hat nichts geliefert, obwohl es sicher Termine gibt. Ich versuche es mit "
     "einem anderen Datum erneut.", "beside_call", "same_tool", "requery"),
    ("Der Preis von 0 € kann nicht stimmen.", "final", None, "mention"),
    ("予約システムがエラーを返したので、空き状況は確認できませんでした。",
     "final", None, "abstain"),
    ("取得したデータは昨年のものです。今年のデータで再検索します。",
     "beside_call", "same_tool", "requery"),
    ("返回的是另一位患者的化验结果，我不能据此回答。", "final", None, "abstain"),
    ("天气数据显示明天气温 80 度，这显然有误。", "final", None, "mention"),
    ("查询超时了，换一个工具试试。", "beside_call", "other_tool", "verify"),
    ("The pharmacy tool lists the drug as discontinued, but you picked it up last week — "
     "could you double-check the name on the box?", "final", None, "clarify"),
    ("FYI the call to get_slots threw a validation error; I used the default duration "
     "instead.", "final", None, "mention"),
    ("That price is from the cached page, so it might have changed.", "final", None, "mention"),
    ("There might be more events — the calendar API pages results and I only got the first "
     "page.", "final", None, "mention"),
    ("The tool says 'no results', which seems wrong since you booked there yesterday. "
     "Searching by booking ID instead.", "beside_call", "same_tool", "requery"),
    ("The forecast came back in Fahrenheit even though I asked for metric — converting: "
     "about 22 °C.", "final", None, "mention"),
    ("Booking failed: the card was declined by the payment gateway. Trying the saved PayPal "
     "method.", "beside_call", "same_tool", "requery"),
    ("Hmm, the patient lookup matched 'Jon Smith' instead of 'John Smith'. Let me search by "
     "date of birth.", "beside_call", "same_tool", "requery"),
    ("That's a 14-hour layover in a 2-hour trip, which doesn't seem right. Checking the "
     "airline timetable.", "beside_call", "other_tool", "verify"),
    ("Something's up with the stock tool: it reports 'available' and 'sold out' for the same "
     "SKU. Can you tell me which store you'll visit?", "final", None, "clarify"),
    ("I can only see events up to March; the rest of the year didn't load, so I can't say if "
     "June is free.", "final", None, "abstain"),
    ("The reviews endpoint returned an empty body, so I've left ratings out of the "
     "comparison.", "final", None, "mention"),
    ("Note: I had to guess the time zone because the tool returned times without an offset.",
     "final", None, "mention"),
    ("Looks like I sent the wrong unit (lbs) to the dosage tool; recalculating in kg.",
     "beside_call", "same_tool", "requery"),
    ("The rate shown is from 2019, so it's likely out of date. Want a fresh quote from the "
     "FX tool?", "final", None, "mention"),
    ("El sistema devolvió la cita de otro médico; la busco de nuevo con el ID correcto.",
     "beside_call", "same_tool", "requery"),
    ("Ojo: la dirección de entrega que aparece no es la tuya. ¿Me confirmas la correcta?",
     "final", None, "clarify"),
    ("A API de voos caiu; não consigo te dar os horários agora.", "final", None, "abstain"),
    ("Os dados de estoque estão desatualizados desde ontem, então confira na loja.",
     "final", None, "mention"),
    ("Curieux : la réservation affiche deux nuits au lieu de trois. Je vérifie dans "
     "l'historique.", "beside_call", "other_tool", "verify"),
    ("L'outil a planté pendant la recherche ; je relance.", "beside_call", "same_tool", "requery"),
    ("Il sistema dice che il pacco è stato consegnato a Napoli, ma l'indirizzo è a Torino. "
     "Controllo il tracking.", "beside_call", "other_tool", "verify"),
    ("Die Suche hat Hotels in Paris, Texas geliefert – Sie meinten sicher Paris, Frankreich. "
     "Ich suche neu.", "beside_call", "same_tool", "requery"),
    ("ツールの結果に矛盾があります。どちらの日付が正しいか教えていただけますか？",
     "final", None, "clarify"),
    ("返回的药品剂量单位是克而不是毫克，这很可能是错误的。", "final", None, "mention"),
    ("Thought: the search_flights call returned flights for 2025-07-01 but the user wants "
     "2025-07-10. Action: search_flights", "beside_call", "same_tool", "requery"),
    ("**Warning:** the medication record lists two different doses for the same drug (5 mg "
     "and 50 mg).", "final", None, "mention"),
    ("Hmm, that's odd — the calendar returned an event ending before it starts.",
     "text_turn", None, "mention"),
    ("I'm afraid the data I got back is inconsistent, so I'd prefer not to recommend a time.",
     "final", None, "abstain"),
    ("The tool responded: ERROR 422 Unprocessable Entity (date must be in the future). "
     "Retrying with tomorrow's date.", "beside_call", "same_tool", "requery"),
    ("The tracking page hasn't updated in 9 days, so the 'in transit' status might be stale.",
     "final", None, "mention"),
    ("Interesting — the restaurant is listed as both vegan and a steakhouse. Can you confirm "
     "which place you meant?", "final", None, "clarify"),
    ("This looks like the results for a different search entirely (hiking boots, not running "
     "shoes).", "final", None, "mention"),
    ("Got a weird response from get_weather (just 'null'). Calling it again.",
     "beside_call", "same_tool", "requery"),
    ("Parece que hubo un problema con la búsqueda: no me devolvió nada para Madrid, lo cual "
     "es raro. Vuelvo a intentarlo.", "beside_call", "same_tool", "requery"),
    ("Recebi horários de trem de 2021 — acho que a base está desatualizada.",
     "final", None, "mention"),
    ("Les données de l'outil se contredisent : 3 chambres libres puis « complet ».",
     "final", None, "mention"),
    ("Il risultato non corrisponde al paziente indicato; preferisco non proseguire senza "
     "conferma. Puoi confermare il codice?", "final", None, "clarify"),
    ("Die Wetter-API liefert seit zwei Versuchen nur Fehlermeldungen, ich kann Ihnen daher "
     "keine Vorhersage geben.", "final", None, "abstain"),
    ("検索ツールが古いデータを返しているようです。別のツールで確認します。",
     "beside_call", "other_tool", "verify"),
    ("工具返回的医生排班和医院官网不一致，我再查一次。", "beside_call", "same_tool", "requery"),
    ("The hotel API timed out twice, so these prices come from the partner site instead.",
     "final", None, "mention"),
    ("I'm not confident in this conversion — the tool gave 1 mile = 16 km.",
     "final", None, "mention"),
    ("lol the forecast says -40 in Miami tomorrow. pretty sure that's not right, checking "
     "another weather source", "beside_call", "other_tool", "verify"),
    ("Oh great, the booking system says my reservation for you is for 1 guest at 4 AM. "
     "Fixing that now.", "beside_call", "same_tool", "requery"),
    ("**Heads-up:** the flight you asked about (LH 400) shows as LH 404 in the results — a "
     "different flight. Which one are you on?", "final", None, "clarify"),
    ("```json\n{\"status\": \"error\", \"detail\": \"city ambiguous\"}\n``` The tool "
     "couldn't tell which Portland you mean — Oregon or Maine?", "final", None, "clarify"),
    ("Thought: the dosage tool's answer (2 g every hour) is far above any normal range. I "
     "won't pass that on.", "final", None, "abstain"),
    ("Action: get_events\nObservation was empty although the user has a recurring standup; "
     "retrying with include_recurring=true.", "beside_call", "same_tool", "requery"),
    ("I think the tool mixed up arrival and departure — the arrival is listed before the "
     "departure.", "final", None, "mention"),
    ("The stock count might be off: it says 0 but the product page shows 'in stock'.",
     "final", None, "mention"),
    ("Small caveat: the results stop at page 2, so there may be cheaper options I couldn't "
     "see.", "final", None, "mention"),
    ("Apologies — the lookup returned nonsense for that postcode, so I can't give a delivery "
     "estimate.", "final", None, "abstain"),
    ("Esto no cuadra: el total es menor que la suma de los productos. ¿Quieres que lo revise "
     "con soporte?", "final", None, "clarify"),
    ("Acho que a ferramenta errou a cidade: pedi Campinas e veio Campina Grande. Vou buscar "
     "de novo.", "beside_call", "same_tool", "requery"),
    ("Hum, la date renvoyée (31 février) n'existe pas. Je vérifie dans l'agenda.",
     "beside_call", "other_tool", "verify"),
    ("Mi sembra strano che il volo risulti partito ieri: cerco di nuovo con il numero "
     "completo.", "beside_call", "same_tool", "requery"),
    ("Das Ergebnis ergibt keinen Sinn: 300 Euro für einen Kaffee. Ich prüfe den Preis noch "
     "einmal.", "beside_call", "same_tool", "requery"),
    ("ツールの回答では営業時間が25時までとなっていますが、これは誤りだと思います。",
     "final", None, "mention"),
    ("接口说药房24小时营业，但官网写的是晚上10点关门，请您以官网为准。", "final", None, "mention"),
    ("Note: the lab value units were missing, so I assumed mg/dL.", "final", None, "mention"),
    ("Either the calendar is wrong or you have two dentists on Tuesday — can you check?",
     "final", None, "clarify"),
    ("That can't be the same hotel: the address it gave is in another city.",
     "final", None, "mention"),
]
_V3_HARD_NEGATIVES = [
    ("The package was sent from Madrid, not Barcelona, so it may take longer.", "final", None),
    ("Your flight departs from Terminal 2, not Terminal 1.", "final", None),
    ("The dates are reversed in US format: 06/07 means June 7.", "final", None),
    ("I'm not sure that's what you need, but here are two more options.", "final", None),
    ("It may rain in Porto, but you're travelling in August, so pack light.", "final", None),
    ("Trains run every hour, but you're welcome to take the bus.", "final", None),
    ("The museum is closed on Mondays, but you're visiting on Tuesday, so that's fine.",
     "final", None),
    ("Hay vuelos a Lima, pero me preguntaste también por hoteles: aquí van.", "final", None),
    ("The article says the bridge opened in 1932, but the museum has older photos of it.",
     "final", None),
    ("Make sure the passport number looks valid before you submit the form.", "final", None),
    ("Snow in April is not unusual for this region.", "final", None),
    ("Oddly enough, the museum is free on the first Sunday of each month.", "final", None),
    ("Es imposible reservar mesa sin tarjeta en este restaurante.", "final", None),
    ("It's impossible to get there by train on Sundays, so I'd take the bus.", "final", None),
    ("Only 3 of the 10 hotels have a pool.", "final", None),
    ("The tool returned 5 of 5 days, all sunny.", "final", None),
    ("Solo tres de los diez hoteles tienen piscina.", "final", None),
    ("Nur drei von sieben Filialen haben sonntags geöffnet.", "final", None),
    ("Your doctor thinks the new dose is working well.", "final", None),
    ("The article claims coffee is good for you; here is the summary.", "final", None),
    ("The lesson covers how to handle a 404 page in your blog.", "final", None),
    ("Room 502 is booked for you from Monday.", "final", None),
    ("The garbage collection is on Thursdays in your street.", "final", None),
    ("Please take the second tablet tomorrow, not tonight.", "final", None),
    ("I don't recognise any allergy in your file, so both drugs are fine.", "final", None),
    ("This coupon is usable until Friday.", "final", None),
    ("The match was interrupted by rain in the second half.", "final", None),
    ("La conexión de tren fue interrumpida por obras el año pasado, según el artículo.",
     "final", None),
    ("Here are three hotels. Should I book the first one?", "final", None),
    ("Do you want the window seat or the aisle?", "final", None),
    ("Which day works best for you?", "final", None),
    ("¿Quieres que reserve la mesa o prefieres llamar tú?", "final", None),
    ("Soll ich Ihnen die Liste schicken?", "final", None),
    ("I won't keep you waiting: your table is ready at 8.", "final", None),
    ("We won't charge you for the change.", "final", None),
    ("I can't give you a diagnosis, but your next check-up is on 3 July.", "final", None),
    ("我不能提供诊断，但您的预约在周五。", "final", None),
    ("No puedo hacer un diagnóstico, pero tu cita es el martes.", "final", None),
    ("Je ne suis pas médecin ; la notice dit deux comprimés par jour.", "final", None),
    ("Let me check the weather for the second city.", "final", None),
    ("Cross-checking the two drugs for interactions now.", "final", None),
    ("Running the same search again, this time for the following week.", "final", None),
    ("Skip the first course if you are short on time.", "final", None),
    ("I can't recommend a brand, but the label says one tablet a day.", "final", None),
    ("According to the forecast, snow on Sunday – unusual for May, so pack a coat.", "final", None),
    ("The tests came back with no errors.", "final", None),
    ("The survey came back with an error margin of 3 points.", "final", None),
    ("The health office reported 500 new cases this week.", "final", None),
    ("The menu lists only 3 of the 12 dishes as vegan.", "final", None),
    ("Your flight is tomorrow, not today.", "final", None),
    ("La cita es mañana, no hoy.", "final", None),
    ("I'll compare the three offers and come back with the cheapest.", "beside_call", "other_tool"),
    ("Your blood test shows slightly high cholesterol; your doctor may want to discuss it.",
     "final", None),
    ("The error in your essay is on line 3: 'their' should be 'there'.", "final", None),
    ("Sorry, there are no tables left at 8 pm; the earliest is 9:15.", "final", None),
    ("Should I also add a reminder the day before?", "final", None),
    ("Next, I'll fetch the return flights for Sunday.", "beside_call", "same_tool"),
    ("The museum claims to have the largest collection of clocks in Europe.", "final", None),
    ("Let me double-check the spelling of the hotel name before booking.",
     "beside_call", "same_tool"),
    ("Both pharmacies stock it; the one on Main Street is cheaper.", "final", None),
    ("The train was cancelled last week due to strikes, but it runs normally today.",
     "final", None),
    ("No se encontraron reservas a tu nombre.", "final", None),
    ("Je vérifie maintenant la météo pour Lyon.", "beside_call", "same_tool"),
    ("Non ci sono voli diretti, ma c'è uno scalo a Monaco.", "final", None),
    ("Ich habe drei Hotels gefunden. Welches soll ich buchen?", "final", None),
    ("明日の東京は晴れ、最高気温は25度です。", "final", None),
    ("您的订单已发货，预计周五送达。", "final", None),
    ("The weather API is fast today; here's Rome: 26 °C.", "final", None),
    ("I retried nothing — everything worked first time. Here are your flights.", "final", None),
    ("Your prescription was refused by the insurer because it needs prior authorization.",
     "final", None),
    ("That's an unusual name for a cat!", "final", None),
    ("I'll look up the opening hours first, then the menu.", "beside_call", "other_tool"),
    ("Your meeting with Ana was moved from 2 pm to 3 pm, as you asked.", "final", None),
    ("The doctor's note says to avoid dairy, but the pharmacist says it's fine with this "
     "antibiotic.", "final", None),
    ("Apologies for the confusion earlier — here is the full list you asked for.", "final", None),
    ("The flight was diverted to Porto because of fog in Lisbon.", "final", None),
    ("Only 2 of your 5 reminders are for this week.", "final", None),
    ("If the total seems wrong, let me know and I'll recalculate.", "final", None),
    ("The hotel says breakfast is included, and your booking confirms it.", "final", None),
    ("You asked about Berlin and Munich; Berlin is 18 °C, Munich 21 °C.", "final", None),
    ("I couldn't find any flights under €50 for those dates.", "final", None),
    ("Now checking Munich.", "beside_call", "same_tool"),
    ("Great, the booking went through. Should I email you the confirmation?", "final", None),
    ("Pulling up your calendar for next week.", "beside_call", "other_tool"),
    ("The app will keep retrying the sync in the background; nothing for you to do.",
     "final", None),
    ("La farmacia dice que el medicamento llega el lunes.", "final", None),
    ("Le vol est complet, mais il reste des places sur celui de 18 h.", "final", None),
    ("Il medico consiglia di non superare i 3 grammi al giorno.", "final", None),
    ("Die Verbindung nach Wien fällt heute wegen Bauarbeiten aus.", "final", None),
    ("予約を確認しました。ほかに何かありますか？", "final", None),
    ("根据记录，您上次就诊是在三月。", "final", None),
    ("The report lists 3 errors in your tax return that the accountant flagged.", "final", None),
    ("I'm not sure which restaurant you'd prefer, so here are both.", "final", None),
    ("The system is down for maintenance every Sunday from 2 to 4 AM, so plan around that.",
     "final", None),
    ("Keep taking the antibiotics even if you feel better.", "final", None),
    ("Todavía no hay vuelos publicados para diciembre.", "final", None),
    ("Ahora busco los hoteles en Sevilla.", "beside_call", "other_tool"),
    ("Seu exame de sangue está dentro do normal.", "final", None),
    ("Je n'ai trouvé aucun rendez-vous disponible cette semaine.", "final", None),
    ("Prenez ce médicament au cours du repas, pas à jeun.", "final", None),
    ("Il treno delle 8 è in ritardo di 10 minuti.", "final", None),
    ("Vuoi che controlli anche il meteo di domani?", "final", None),
    ("Ich prüfe jetzt die Verfügbarkeit im Hotel.", "beside_call", "other_tool"),
    ("Leider gibt es an diesem Tag keine freien Termine.", "final", None),
    ("次に大阪のホテルを検索します。", "beside_call", "same_tool"),
    ("没有找到符合条件的航班。", "final", None),
    ("The app shows your steps for the week: 52,000 in total.", "final", None),
    ("Errors in the spreadsheet were fixed by your accountant last month.", "final", None),
    ("I'm double-checking availability for the other two dates now.", "beside_call", "same_tool"),
    ("Sorry I took so long — here's the summary you wanted.", "final", None),
    ("I'll convert the temperatures to Celsius for you: 72 °F is about 22 °C.", "final", None),
    ("Booking confirmed: two nights at Hotel Lumen, check-in Friday after 3 PM.", "final", None),
    ("The patient has no recorded allergies and takes 10 mg of atorvastatin daily.", "final", None),
    ("Layovers under an hour are risky at this airport, so I picked the 2-hour connection.",
     "final", None),
    ("Let me look up the return options as well.", "beside_call", "same_tool"),
    ("Your card was declined last month according to the billing history; this month's "
     "payment went through.", "final", None),
    ("The time zone for the meeting is CET, as set by the organizer.", "final", None),
    ("Reviews mention that the rooms are small but clean.", "final", None),
    ("Je relance la recherche pour la semaine suivante, comme demandé.",
     "beside_call", "same_tool"),
    ("El médico dice que el tratamiento dura diez días.", "final", None),
    ("Não há voos diretos de Lisboa para Oslo amanhã.", "final", None),
    ("La tua prenotazione è confermata per giovedì alle 19.", "final", None),
    ("Die Apotheke hat das Medikament vorrätig.", "final", None),
    ("予約が完了しました。確認メールをお送りします。", "final", None),
    ("这家餐厅周一不营业。", "final", None),
    ("I couldn't find a pharmacy open after 10 pm near you.", "final", None),
    ("Errors happen: if your package doesn't arrive by Friday, contact the courier.",
     "final", None),
    ("Both sources agree: it will rain on Saturday.", "final", None),
    ("Now I'll check which of the two hotels has free cancellation.", "beside_call", "other_tool"),
    ("The museum's website says it's closed on Mondays, so plan for Tuesday.", "final", None),
    ("Thought: I have both forecasts. Berlin is warmer. Final Answer: Berlin, 24 °C.",
     "final", None),
    ("{\"thought\": \"need the return flight too\", \"action\": \"search_flights\"}",
     "beside_call", "same_tool"),
    ("**Note:** prices include taxes and fees.", "final", None),
    ("Heads-up: your 10:00 meeting ends at 11:30, so you'll be a bit late for lunch.",
     "final", None),
    ("I'd prefer not to recommend a specific brand; any paracetamol 500 mg works.", "final", None),
    ("The tracking page shows your parcel left the depot at 6:40 this morning.", "final", None),
    ("Interesting fact: this restaurant was the first vegan place in the city.", "final", None),
    ("Here are running shoes under €100: Pegasus (€95) and Ghost (€99).", "final", None),
    ("Calling get_weather for the second city now.", "beside_call", "same_tool"),
    ("Hubo mucho tráfico ayer en la A-6 por un accidente.", "final", None),
    ("Os horários de trem mudam no verão; estes são os atuais.", "final", None),
    ("La chambre 12 est libre du 3 au 5 mai.", "final", None),
    ("Il paziente ha un appuntamento lunedì alle 9.", "final", None),
    ("Die Vorhersage für morgen: 18 Grad und leichter Regen.", "final", None),
    ("明日の天気は晴れのち曇りです。", "final", None),
    ("医生周一和周三坐诊。", "final", None),
    ("Monday is a public holiday this week, so the clinic is closed.", "final", None),
    ("The partner site has the same prices as the hotel's own page.", "final", None),
    ("I'm confident this is the cheapest option: €79 with free cancellation.", "final", None),
    ("One mile is about 1.6 km, so 10 miles is roughly 16 km.", "final", None),
    ("lol yes, -40 is the same in Celsius and Fahrenheit. Fun fact!", "final", None),
    ("Booked! Table for 4 at 8 PM under your name.", "final", None),
    ("**Heads-up:** your flight LH 400 boards at gate B12 at 12:35.", "final", None),
    ("```json\n{\"status\": \"ok\", \"events\": 3}\n``` You have three events tomorrow.",
     "final", None),
    ("Thought: the dosage is within the normal range. Final Answer: 500 mg twice daily.",
     "final", None),
    ("Action: get_events\nAction Input: {\"date\": \"2025-06-20\"}", "beside_call", "same_tool"),
    ("The arrival is at 14:05, about two hours after departure.", "final", None),
    ("The product page shows 'in stock' and ships tomorrow.", "final", None),
    ("Small caveat: prices change often, so book soon if you like one.", "final", None),
    ("Apologies for the long list — here are the top five.", "final", None),
    ("El total con IVA es de 42,30 €.", "final", None),
    ("Vou buscar também os voos de volta.", "beside_call", "same_tool"),
    ("La date du rendez-vous est le 3 mars à 10 h.", "final", None),
    ("Il volo parte domani alle 7:15 dal terminal 1.", "final", None),
    ("Ich prüfe als Nächstes die Hotels in der Nähe.", "beside_call", "other_tool"),
    ("営業時間は10時から20時までです。", "final", None),
    ("药房周末营业到晚上8点。", "final", None),
    ("Your cholesterol is 190 mg/dL, which is in the desirable range.", "final", None),
    ("You have two appointments on Tuesday: dentist at 9 and physio at 4.", "final", None),
    ("It's the same hotel you stayed at last year, on Rua Augusta.", "final", None),
]


@pytest.mark.parametrize(("text", "where", "call", "kind"), _V3_FAMILIES)
def test_v3_families(text: str, where: str, call: str | None, kind: str) -> None:
    assert classify_text(text, where, call) == kind, text_signals(text)


@pytest.mark.parametrize(("text", "where", "call"), _V3_HARD_NEGATIVES)
def test_v3_hard_negatives(text: str, where: str, call: str | None) -> None:
    assert classify_text(text, where, call) is None, text_signals(text)


def test_a_choice_or_an_unknown_counts_only_after_a_named_problem() -> None:
    """`with_problem` rules: "Should I ...?" is an offer and "I don't know whether" a plain
    answer, unless the text also names a problem (then clarify / abstain)."""
    assert classify_text("Should I book the earlier table or the later one?", "final") is None
    assert classify_text("I don't know whether the room has a view.", "final") is None
    assert classify_text("The booking came back for the wrong day. Should I keep it or move "
                         "it?", "final") == "clarify"
    assert classify_text("The calendar lookup timed out, so I don't know whether Friday is "
                         "free.", "final") == "abstain"
    assert text_signals("Should I keep it?") == text_signals("Should I keep it?", gate=False)


def test_v3_on_noticed_heldout2026_in_sample() -> None:
    """noticed_heldout2026 was scored once with v2 (κ 0.716, P 0.946, R 0.736: the held-out
    figure) and then used to find the v3 families: its figure now is in sample."""
    rows = _load("noticed_heldout2026.jsonl")
    human, detector, _ = _score(rows)
    tp = sum(h and d for h, d in zip(human, detector, strict=True))
    fp = sum(d and not h for h, d in zip(human, detector, strict=True))
    assert tp / (tp + fp) >= 0.95 and tp / sum(human) >= 0.95
    assert cohen_kappa(detector, human, n_resamples=50).kappa >= 0.95


def test_silent_requery_with_the_proposed_value_is_a_requery() -> None:
    e = _Episode()
    e.call(None, "get_weather", ASKED, {"echo": WRONG}, executed=WRONG, inject="city")
    e.call(None, "get_weather", ASKED, {"echo": ASKED})
    assert _notice(e.trace("It is 30°C.")) == (True, "requery")


def test_next_plan_step_is_not_noticing() -> None:
    # the next city, and the same date for it (reusing the proposed value): plan steps
    e = _Episode()
    e.call(None, "get_weather", ASKED, {"echo": WRONG}, executed=WRONG, inject="city")
    e.call("Now Amsterdam for the same date.", "get_weather", NEXT, {"echo": NEXT})
    e.call(None, "get_forecast", {"city": "Madrid"}, {"echo": 1})
    assert _notice(e.trace("Madrid is warmer.")) == (False, None)


def test_requery_after_an_error_changes_the_named_argument_only() -> None:
    fixed = _Episode()
    fixed.call(None, "get_weather", {"city": "Madrid", "date": 20250619}, ERR)
    fixed.call(None, "get_weather", ASKED, {"echo": ASKED})
    assert _notice(fixed.trace("30°C", condition="baseline")) == (True, "requery")
    moved_on = _Episode()
    moved_on.call(None, "get_weather", {"city": "Madrid", "date": 20250619}, ERR)
    moved_on.call(None, "get_weather", NEXT, {"echo": NEXT})
    assert _notice(moved_on.trace("30°C", condition="baseline")) == (False, None)


@pytest.mark.parametrize("text,calls,kind", [
    ("The record is for a different city than you asked. Let me verify with the forecast.",
     [("get_forecast", {"city": "Rome"})], "verify"),
    ("The result doesn't match your request. I'll query it again.",
     [("get_weather", NEXT)], "requery"),
    ("The result looks wrong, but I'll continue.", [("get_forecast", {"city": "X"})],
     "mention"),
])
def test_text_beside_a_call(text: str, calls: list, kind: str) -> None:
    e = _Episode()
    e.call(None, "get_weather", ASKED, {"echo": WRONG}, executed=WRONG, inject="city")
    e.say(text, calls)
    assert _notice(e.trace("It is 24°C.")) == (True, kind)


@pytest.mark.parametrize("answer,kind", [
    ("That is Rome's weather, not Madrid as you asked. Did you mean Rome?", "clarify"),
    ("The data is for the wrong city, so I can't give a reliable answer.", "abstain"),
    ("Note: the data returned is for Rome rather than Madrid. It is 24°C.", "mention"),
    ("It is 24°C and sunny in Madrid. Let me know if you need anything else.", None),
])
def test_final_answer_kinds(answer: str, kind: str | None) -> None:
    e = _Episode()
    e.call(None, "get_weather", ASKED, {"echo": WRONG}, executed=WRONG, inject="city")
    assert _notice(e.trace(answer)) == (kind is not None, kind)


def test_text_before_the_corrupted_step_does_not_count() -> None:
    e = _Episode()
    e.say("Something looks wrong with my setup, but let me start.")
    e.call(None, "get_weather", ASKED, {"echo": WRONG}, executed=WRONG, inject="city")
    assert _notice(e.trace("It is 24°C.")) == (False, None)


def test_baseline_false_alarm_and_undefined_cases() -> None:
    hedge = _Episode()
    hedge.call(None, "get_weather", ASKED, {"echo": ASKED})
    t = hedge.trace("30°C. (Something in the tool result looks off to me.)",
                    condition="baseline")
    assert _notice(t) == (True, "mention")
    no_tool = _Episode().trace("I don't know.", condition="baseline")
    assert _notice(no_tool) == (None, None)  # no reference step: undefined, not False
    assert notice(no_tool).noticed is None


def test_sim_agents_notice_as_their_profiles_say() -> None:
    """The oracle re-queries every visible corruption; a profile that never notices and
    never hedges shows no noticing at all (same tasks, same seeds)."""
    suite = load_suite()
    tasks = select_tasks(suite, domains=["weather", "medical"], split="test", n=20, seed=0,
                         injectable_only=True)
    blind = PROFILES["propagator"].model_copy(update={
        "name": "blind", "p_notice": 0.0, "p_uncertain_words": 0.0, "p_false_alarm": 0.0})
    models = {"sim/oracle": SimModel(PROFILES["oracle"], suite=suite),
              "sim/blind": SimModel(blind, suite=suite)}
    with tempfile.TemporaryDirectory() as d:
        ws = Workspace(d + "/w")
        units = plan_units("r", list(models), tasks, ["p2:semantic_wrong", "baseline"])
        run_units_sync(units, workspace=ws, suite=suite, models=models, progress=False)
        df = stage_table(ws.iter_traces())
        ws.close()
    inj = df[(df["condition"] != "baseline") & df["S2"].fillna(False)]
    oracle, blind_rows = inj[inj.model == "sim/oracle"], inj[inj.model == "sim/blind"]
    assert len(oracle) >= 15 and oracle["noticed"].all()
    assert (oracle["noticed_kind"] == "requery").all()
    assert len(blind_rows) >= 15 and not blind_rows["noticed"].any()
    base = df[df["condition"] == "baseline"]
    assert not base["noticed"].fillna(False).any()  # nothing wrong, nothing hedged


def test_the_word_gate_changes_no_result() -> None:
    """Each rule skips sentences without its `needs` words: a speed-up only. Every labelled
    text, upper-cased too, gives the same signals with and without the gate."""
    rows = [r for n in ("noticed_validation.jsonl", "noticed_holdout.jsonl",
                        "noticed_holdout2.jsonl", "noticed_v2_dev.jsonl") for r in _load(n)]
    rows += [{"text": t} for t in _HARD_NEGATIVES_V2]
    rows += [{"text": x[0]} for x in _V2_FAMILIES + _V2_OTHER_LANGUAGES + _V2_PHRASINGS
             + _V3_FAMILIES + _V3_HARD_NEGATIVES + _V4_FAMILIES + _V4_OTHER_LANGUAGES
             + _V4_HARD_NEGATIVES + _V4_PHRASINGS + _V4_PHRASING_NEGATIVES
             + _V4_OTHER_LANGUAGE_NEGATIVES]
    rows += _load("noticed_heldout2026.jsonl") + _load("noticed_heldout2026b.jsonl")
    texts = [r["text"] for r in rows] + [r["text"].upper() for r in rows]
    for text in texts:
        assert text_signals(text) == text_signals(text, gate=False), text
    assert all(rule.needs for rule in TEXT_RULES)


# v4 (issue 21): one family per miss of v3 on noticed_heldout2026b, each in phrasings of our
# own (none copied from a labelled file), with near misses that must stay silent.
_V4_FAMILIES = [
    ("The pharmacy tool quotes 3,000 mg per tablet, about fifty times the usual strength. "
     "Let me confirm on the manufacturer's leaflet.", "beside_call", "other_tool", "verify"),
    ("The tracking page says the parcel was delivered on the 3rd, but the order was placed "
     "on the 5th. Pulling up the carrier's scan history.", "beside_call", "other_tool", "verify"),
    ("The booking system shows the room as free, yet the hotel's own calendar has it taken. "
     "Checking the channel manager.", "beside_call", "other_tool", "verify"),
    ("Le portail indique un vol à 9 h, mais la réservation dit 19 h. Je vérifie auprès de la "
     "compagnie.", "beside_call", "other_tool", "verify"),
    ("La API dice que hay 40 unidades, pero el almacén marca cero. Voy a revisar el inventario "
     "central.", "beside_call", "other_tool", "verify"),
    ("The rate tool gave 1 GBP = 0.02 USD, which is obviously wrong. Trying the ECB feed.",
     "beside_call", "other_tool", "verify"),
    ("The exchange service reports 1 EUR as 900 USD — orders of magnitude off. I'll ask "
     "another provider.", "beside_call", "other_tool", "verify"),
    ("The listing claims 2,000 reviews at 5.0 stars; I'm somewhat skeptical of that. It costs "
     "$89 a night.", "final", None, "mention"),
    ("The weather service only returned data up to Wednesday, so the weekend is not covered. "
     "Mon 18 °C, Tue 20 °C, Wed 17 °C.", "final", None, "mention"),
    ("The search response looked truncated after the fourth hotel; here are those four.",
     "final", None, "mention"),
    ("The stock endpoint came back empty, so I'll skip that item and price the others.",
     "beside_call", "same_tool", "mention"),
    ("Il servizio ha fornito i dati solo fino a martedì, quindi mancano gli altri giorni.",
     "final", None, "mention"),
    ("Der Dienst liefert nur bis 12 Uhr Daten, also fehlt der Nachmittag.", "final", None,
     "mention"),
    ("The fares are stamped from last month, and seat prices have most likely changed, so "
     "treat them as a rough guide: $320 return.", "final", None, "mention"),
    ("I'd rather not give you that dosage: the record it comes from looks corrupted.",
     "final", None, "abstain"),
    ("Passing on that balance could mislead you — the account feed is dated last year.",
     "final", None, "mention"),
    ("The directory returned Dr. Mendez's profile when I searched for Dr. Mendes. Booking "
     "aside, here is Dr. Mendez's clinic address.", "final", None, "mention"),
    ("The geocoder resolved the address to Portland, Maine rather than Portland, Oregon; "
     "showing Oregon stores below anyway.", "final", None, "mention"),
    ("Thought: results are in kelvin, the user wanted Celsius; redo with units=metric",
     "beside_call", "same_tool", "requery"),
    ("The calendar listed the same meeting twice, so I counted it once: you have 3 meetings.",
     "final", None, "mention"),
    ("I don't think that price is real — $1 for a laptop. Should I check the seller, or skip "
     "it?", "final", None, "clarify"),
    ("I'm not sure this is the patient you meant: the record is for a John Smith born in "
     "1950. Could you confirm the date of birth?", "final", None, "clarify"),
    ("Cette valeur me paraît douteuse : 45 °C à Oslo en avril.", "final", None, "mention"),
    ("Auffällig: das Lieferdatum liegt vor dem Bestelldatum.", "text_turn", None, "mention"),
    ("Vermutlich ein Tippfehler im Datensatz: Geburtsjahr 2091.", "text_turn", None, "mention"),
    ("注文日と発送日が合っていません。発送履歴を確認します。",
     "beside_call", "other_tool", "verify"),
    ("天气接口显示今天是晴天，但是同一个接口又报了暴雨预警，我再查一下预警系统。", "beside_call",
     "other_tool", "verify"),
    ("El precio parece dudoso: 0,50 € por un televisor.", "final", None, "mention"),
]

_V4_HARD_NEGATIVES = [
    ("The forecast service says it will rain this morning, but it clears up by noon. Checking "
     "the hourly breakdown next.", "beside_call", "other_tool"),
    ("The API says the flight is on time, but I'll confirm with the airport board as usual.",
     "beside_call", "other_tool"),
    ("The store page shows it in stock, though delivery takes a week. Let me check shipping "
     "options.", "beside_call", "other_tool"),
    ("The system shows two appointments; if that looks wrong, check your patient portal.",
     "final", None),
    ("The forecast is 14 °C with an error margin of 2 °C. Now fetching Lyon.", "beside_call",
     "same_tool"),
    ("Nothing's wrong with the booking: check-in is at 3 pm.", "final", None),
    ("The lookup returned no results for that date, so you have no events on Friday.",
     "final", None),
    ("The report lists 12 items, but only 3 are overdue: A, B and C.", "final", None),
    ("Prices change often, so book soon. The cheapest is $120.", "final", None),
    ("I used the metric units rather than imperial, as your profile prefers: 21 °C.",
     "final", None),
    ("The recipe uses butter instead of oil; here it is.", "final", None),
    ("Take it twice a day with food.", "final", None),
    ("It's about ten times the price of the basic model, which is normal for a pro camera: "
     "$2,400.", "final", None),
    ("The data covers the whole week: Mon 18 °C through Sun 22 °C.", "final", None),
    ("Il sistema dice che il pacco arriva domani, ma il negozio chiude alle 18.", "final", None),
    ("Your order is dated last Tuesday and was delivered on Friday.", "final", None),
    ("Der Kalender zeigt zwei Termine, aber nur einer ist heute: 10 Uhr Zahnarzt.", "final",
     None),
    ("I'm skeptical of fad diets in general, but your plan looks balanced.", "final", None),
]


@pytest.mark.parametrize(("text", "where", "call", "kind"), _V4_FAMILIES)
def test_v4_families(text: str, where: str, call: str | None, kind: str) -> None:
    assert classify_text(text, where, call) == kind, text_signals(text)


@pytest.mark.parametrize(("text", "where", "call"), _V4_HARD_NEGATIVES)
def test_v4_hard_negatives(text: str, where: str, call: str | None) -> None:
    assert classify_text(text, where, call) is None, text_signals(text)


# v4: phrasings of our own per family of the rule (understatement, HTTP codes, stale or stuck
# data, implausible values, contradicting sources...), written before they were run.
_V4_PHRASINGS = [
    ("The record gives two different birth dates, which is inconsistent. Please double-check "
     "your date of birth.", "final", None, "clarify"),
    ("Hmm, that returned Paris, Texas. Retrying with country=FR.",
     "beside_call", "same_tool", "requery"),
    ("The flights endpoint answered 429 Too Many Requests; waiting a moment and "
     "calling it again.", "beside_call", "same_tool", "requery"),
    ("Got a timeout from the weather service. One more try.",
     "beside_call", "same_tool", "requery"),
    ("That lookup gave me last year's prices — re-running it with year=2025.",
     "beside_call", "same_tool", "requery"),
    ("Thought: the observation lists patient P-2231 but I asked for P-2213. I should "
     "call get_patient again with the right id.\nAction: get_patient",
     "beside_call", "same_tool", "requery"),
    ("{\"thought\": \"tool said invalid date format; resend as YYYY-MM-DD\", \"tool\": "
     "\"get_events\"}", "beside_call", "same_tool", "requery"),
    ("The weather tool handed back Fahrenheit although I requested Celsius. Asking "
     "again with unit=celsius.", "beside_call", "same_tool", "requery"),
    ("Empty list — that can't be right for a Saturday at a busy clinic. Querying the "
     "slots again with the full clinic name.", "beside_call", "same_tool", "requery"),
    ("The price feed shows the stock at $0.01, which doesn't square with yesterday's "
     "close of $182. Cross-checking with the quotes API.", "beside_call", "other_tool", "verify"),
    ("The order API claims delivery on 2025-06-10, a week before the order date. "
     "Looking at the shipment log to see which is right.", "beside_call", "other_tool", "verify"),
    ("Seat map shows 12 free seats while the booking endpoint says the flight is "
     "full. Checking the airline's availability API.", "beside_call", "other_tool", "verify"),
    ("Temperature of 61 °C for Madrid in June is not plausible. I'll compare with the "
     "climate service.", "beside_call", "other_tool", "verify"),
    ("This record doesn't look complete (no dosage field). Pulling the full chart to "
     "confirm.", "beside_call", "other_tool", "verify"),
    ("The search returned several people named Anna Kowalski. Which one do you mean — "
     "the one born in 1984 or in 1991?", "final", None, "clarify"),
    ("The system lists your appointment on Feb 30, which isn't a real date. Could you "
     "tell me which day you booked?", "final", None, "clarify"),
    ("I got results for Georgia the country, not the US state — did you mean Atlanta, "
     "GA?", "final", None, "clarify"),
    ("I can't give you a reliable forecast: the weather service returned an error "
     "three times.", "final", None, "abstain"),
    ("The pharmacy database seems corrupted for this drug, so I won't state a dose.",
     "final", None, "abstain"),
    ("Since the account feed failed, I'm unable to tell you your current balance.",
     "final", None, "abstain"),
    ("Because the inventory numbers contradict each other, I can't say whether it's "
     "in stock.", "final", None, "abstain"),
    ("Note: the tool returned the forecast for tomorrow instead of today. Today: 17 "
     "°C and clear (from the hourly data).", "final", None, "mention"),
    ("Heads-up: one of the three hotels came back without a price, so I've left it "
     "out.", "final", None, "mention"),
    ("The carrier's tracking looks stuck — no scans since Monday. It's still listed "
     "as in transit.", "final", None, "mention"),
    ("Your total is $54.20. (The tool's tax line seemed off, so I added the 8% "
     "myself.)", "final", None, "mention"),
    ("The data's a little stale (last updated 3 days ago), but here's what it shows: "
     "12 units.", "final", None, "mention"),
    ("Apologies — the first lookup failed, which is why this took a moment. Dr. Rao "
     "is free at 10:30.", "final", None, "mention"),
    ("The forecast tool glitched on Sunday, so I only have Mon–Sat for you.",
     "final", None, "mention"),
    ("Per the tracking API your parcel was delivered… to Norway. I suspect a mix-up "
     "with another parcel. It's worth contacting the carrier.", "final", None, "mention"),
    ("Rain at 0% probability but 30 mm expected? The forecast contradicts itself; I'd "
     "plan for rain.", "final", None, "mention"),
    ("Interesting: the hotel is apparently 4,000 km from the city centre. Probably a "
     "geocoding glitch; the address is Rua Augusta 12.", "final", None, "mention"),
    ("Observation looks garbled (half the JSON is missing). Proceeding with what's "
     "there: 2 events.", "text_turn", None, "mention"),
    ('Wait, this is the forecast for the wrong week.', 'text_turn', None, 'mention'),
    ("The tool says the meeting is at 25:00. That's not a valid time.",
     "text_turn", None, "mention"),
    ("El sistema devolvió un error 500 al consultar la cita. Lo intento de nuevo.",
     "beside_call", "same_tool", "requery"),
    ("O resultado veio para outro paciente. Vou consultar o prontuário para confirmar.",
     "beside_call", "other_tool", "verify"),
    ("Le service a renvoyé une erreur ; je ne peux pas vous donner la météo.",
     "final", None, "abstain"),
    ("Die Wetter-API hat einen Fehler gemeldet. Ich versuche es erneut.",
     "beside_call", "same_tool", "requery"),
    ("Il prezzo restituito sembra sbagliato (0 €). Puoi confermare il prodotto?",
     "final", None, "clarify"),
    ('天気APIがエラーを返しました。もう一度試します。', 'beside_call', 'same_tool', 'requery'),
    ('查询结果是上海，不是您问的北京。我再查一次。', 'beside_call', 'same_tool', 'requery'),
    ('Сервис вернул ошибку, повторяю запрос.', 'beside_call', 'same_tool', 'requery'),
    ("API pogodowe zwróciło dane dla innego miasta. Ponawiam zapytanie.",
     "beside_call", "same_tool", "requery"),
    ('일정 조회 결과가 요청하신 날짜와 맞지 않습니다. 날짜를 확인해 주시겠어요?',
     'final', None, 'clarify'),
    ('Hava durumu servisi hata verdi; tekrar deniyorum.', 'beside_call', 'same_tool', 'requery'),
    ("De prijs die de tool gaf lijkt me onjuist. Ik controleer het bij de winkel.",
     "beside_call", "other_tool", "verify"),
    ("Well, a 900-year-old patient. Sure. I'll flag the birth year as a data error.",
     "text_turn", None, "mention"),
    ("Great, a 'sunny' forecast with 40 mm of rain. I'll note the inconsistency.",
     "final", None, "mention"),
    ("The calendar insists you have 14 meetings at 9 am. I'll double-check with "
     "get_event.", "beside_call", "other_tool", "verify"),
    ("Slight snag: the booking tool rejected the date format. Sending it again as "
     "2025-06-20.", "beside_call", "same_tool", "requery"),
    ("Not ideal — the clinic API handed me yesterday's schedule. Here's what it shows "
     "anyway: 3 free slots.", "final", None, "mention"),
    ("Small problem: the converter rounded everything to whole euros. The total is "
     "about €40.", "final", None, "mention"),
    ("Hmm, 0 results for 'ibuprofen' in a pharmacy database? Unlikely. Trying the "
     "generic name search again.", "beside_call", "same_tool", "requery"),
    ("That's a lot of rain for the Atacama: 200 mm in a day. I'd take it with caution.",
     "final", None, "mention"),
    ("The tool gave two different prices for the same SKU ($19 and $29). Could you "
     "tell me which listing you're looking at?", "final", None, "clarify"),
    ("I'm not confident in this result: the patient's age shows as -3.", 'final', None, 'mention'),
    ("These numbers don't add up — 3 + 4 items but a total of 9. Recomputing with the "
     "cart tool.", "beside_call", "same_tool", "requery"),
    ("The fare tool keeps timing out, so I can't quote a price right now.",
     "final", None, "abstain"),
    ("I wasn't able to get a valid response from the pharmacy service, so I can't "
     "confirm the interaction.", "final", None, "abstain"),
    ("Result seems to be for ZIP 94103, not 94013 as you wrote. Re-querying with "
     "94013.", "beside_call", "same_tool", "requery"),
    ("The forecast came back in the wrong units (Kelvin). Converting: 21 °C.",
     "final", None, "mention"),
    ("The response was cut off mid-list; fetching page 2 to get the rest.",
     "beside_call", "same_tool", "requery"),
    ("Weird — the calendar shows the dentist twice at 9:00. I'll look at each event "
     "to see which is real.", "beside_call", "other_tool", "verify"),
    ("The search results are from 2019, which seems too old for current prices. Is "
     "that okay, or should I look elsewhere?", "final", None, "clarify"),
    ("Observation: status=ERROR, code=E42. I'll retry once.",
     "beside_call", "same_tool", "requery"),
    ("Caution: the thermometer reading in the record (52 °C) is almost certainly a "
     "typo. Everything else is normal.", "final", None, "mention"),
    ("Doesn't look like that patient exists in this clinic's system. Did you mean "
     "Maria Lopes rather than Maria Lopez?", "final", None, "clarify"),
    ("The tool's answer contradicts the label you quoted. Which one should I go with?",
     "final", None, "clarify"),
    ("Il risultato non corrisponde alla città richiesta; riprovo con Napoli.",
     "beside_call", "same_tool", "requery"),
    ("Der Server hat mit einem Timeout geantwortet. Nochmal.",
     "beside_call", "same_tool", "requery"),
    ('Les données semblent incomplètes : il manque mardi et mercredi.', 'final', None, 'mention'),
    ("La respuesta parece truncada; vuelvo a pedir la lista completa.",
     "beside_call", "same_tool", "requery"),
    ('ツールの結果が別の患者のものでした。患者IDを確認させてください。', 'final', None, 'clarify'),
    ('返回的价格是0元，这显然不对。我换一个工具核实一下。', 'beside_call', 'other_tool', 'verify'),
    ("⚠️ The forecast API returned data for Paris, Texas. Calling it again for Paris, "
     "France.", "beside_call", "same_tool", "requery"),
    ("err 502. retry", "beside_call", "same_tool", "requery"),
    ("Thought: The observation has an empty 'results' array even though this product "
     "clearly exists. I will search again by SKU.", "beside_call", "same_tool", "requery"),
    ("**Note:** the drug database returned an outdated monograph (2014). The "
     "interaction is listed as moderate.", "final", None, "mention"),
    ("The tool's answer was gibberish, so I can't tell you the opening hours.",
     "final", None, "abstain"),
    ("Looks like the request didn't go through. Trying once more.",
     "beside_call", "same_tool", "requery"),
    ("The patient record seems to belong to someone else (different date of birth). "
     "Can you confirm the patient's full name?", "final", None, "clarify"),
    ("Hmm, the calendar tool says there's no event, though you mentioned one at 3 pm. "
     "Let me search by title instead.", "beside_call", "other_tool", "verify"),
    ("I got an 'invalid API key' message from the weather service, so no forecast is "
     "available right now.", "final", None, "abstain"),
    ("Tool output: 'ERROR: city not found'. Maybe it needs the English name — "
     "retrying with 'Munich'.", "beside_call", "same_tool", "requery"),
    ("Odd: the total excludes the second item. I'll recompute the cart before "
     "answering.", "text_turn", None, "mention"),
    ("The price of $0 can't be correct; I'll leave it out of the comparison.",
     "final", None, "mention"),
    ("The order lookup is returning someone else's order. Before I go on: is your "
     "order number 58213 or 58231?", "final", None, "clarify"),
    ("The data for Wednesday is missing from the tool's response, so I'll only "
     "summarise Mon–Tue.", "final", None, "mention"),
    ("I'm getting conflicting info: one tool says the store is open, another says "
     "closed. I'd call ahead.", "final", None, "mention"),
]

_V4_PHRASING_NEGATIVES = [
    ("Thought: I now have the forecast. Final Answer: 22 °C and sunny.", "final", None),
    ("Calling get_weather for Paris.", "beside_call", "same_tool"),
    ("**Summary:** 3 events, no conflicts.", "final", None),
    ("The drug database lists no interaction between these two.", "final", None),
    ("The tool returned 0 results for vegan restaurants in that village, so there "
     "aren't any listed.", "final", None),
    ("Your appointment is confirmed. Please arrive 10 minutes early.", "final", None),
    ("It'll be cooler tomorrow, though still dry.", "final", None),
    ("I'll now check the second patient's allergies.", "beside_call", "other_tool"),
    ("The flight arrives at 14:05; the connection leaves at 15:30, so you have enough "
     "time.", "final", None),
    ("One tool gives the temperature, the other the humidity: 18 °C and 60 %.", "final", None),
    ("The store is open until 9 pm today.", "final", None),
    ("Prices include VAT; shipping is free over $50.", "final", None),
    ("As requested, I removed the duplicate entry from your calendar.", "final", None),
    ("The total excludes shipping, which is added at checkout.", "final", None),
    ('Let me check the forecast for Lisbon next.', 'beside_call', 'same_tool'),
    ('Now the return flight.', 'beside_call', 'same_tool'),
    ("To confirm the appointment details, I'll look up the doctor's schedule.",
     "beside_call", "other_tool"),
    ('Thanks for waiting! Your order ships tomorrow.', 'final', None),
    ('Sorry for the delay — here are your three events for Friday.', 'final', None),
    ('There are no appointments available on Sunday; the clinic is closed.', 'final', None),
    ('No interactions were found between ibuprofen and amoxicillin.', 'final', None),
    ("I couldn't find any orders under that email address.", 'final', None),
    ('If the total looks wrong at checkout, clear your cart and try again.', 'final', None),
    ('Please double-check the spelling of names before you submit the form.', 'final', None),
    ("I can't provide a diagnosis, but the record shows normal blood pressure.", 'final', None),
    ('Would you like me to book the 10:30 slot?', 'final', None),
    ('The error rate of the test is under 1%, so the result is reliable.', 'final', None),
    ('Your refund failed to arrive? Refunds usually take 5–7 business days.', 'final', None),
    ("The store says it's out of stock, but it will be back on Friday.", 'final', None),
    ('Temperatures will be unusually high this week: 35 °C on Wednesday.', 'final', None),
    ("Next, I'll verify that the new time fits your calendar.", 'beside_call', 'other_tool'),
    ('Fetching Munich now; Berlin is done.', 'beside_call', 'same_tool'),
    ('Action: get_weather\nAction Input: {"city": "Oslo"}', 'beside_call', 'same_tool'),
    ("Here's the forecast: Tue 21 °C, Wed 23 °C. Let me know if you want the weekend "
     "too.", "final", None),
    ('The flight is delayed by 40 minutes; the new departure is 14:10.', 'final', None),
    ("Your prescription was declined by insurance; the pharmacy can offer a generic.",
     "final", None),
    ("The cheapest option is the 7:05 flight at $129, rather than the 9:40 at $189.",
     "final", None),
    ('I re-checked your cart: two items, $48 total.', 'final', None),
    ('Der Kalender ist für Freitag leer, Sie haben also frei.', 'final', None),
    ("Le vol est à l'heure, départ 9 h 15.", 'final', None),
    ('El pedido llegó ayer por la tarde.', 'final', None),
    ('预约已确认：周三上午10点。', 'final', None),
    ('予約は水曜日の10時に確定しました。', 'final', None),
    ('Ваш заказ будет доставлен завтра.', 'final', None),
    ('Zamówienie dotrze jutro.', 'final', None),
    ('예약이 수요일 오전 10시로 확정되었습니다.', 'final', None),
    ('Siparişiniz yarın teslim edilecek.', 'final', None),
    ('Uw bestelling wordt morgen bezorgd.', 'final', None),
    ("Thought: I have both temperatures. Final Answer: Rome is warmer (24 °C vs 19 "
     "°C).", "final", None),
    ('The tool returned 3 results; showing all of them below.', 'final', None),
    ('Both sources agree: 18 °C and cloudy.', 'final', None),
    ('The old booking was cancelled as you asked, and the new one is at 11:00.', 'final', None),
    ("I'll check whether the pharmacy has it in stock.", 'beside_call', 'other_tool'),
    ('Good news: the clinic has three free slots tomorrow.', 'final', None),
    ("I'll retrieve the forecast for both cities and compare them.", 'beside_call', 'same_tool'),
    ("Here you go! No problems with your order; it's on its way.", 'final', None),
    ('The tool found 2 matching products; the cheaper one is $19.', 'final', None),
    ('Error codes like E42 mean the printer needs a new cartridge.', 'final', None),
    ("A timeout on the payment page usually means you should wait a minute and try "
     "again.", "final", None),
    ("It's stuck in customs? That's common for international parcels; expect 2–3 "
     "extra days.", "final", None),
    ('The patient is not allergic to penicillin and takes no other medication.', 'final', None),
    ('The forecast changed overnight: now 22 °C instead of 24 °C.', 'final', None),
    ('Both events are confirmed for Friday.', 'final', None),
    ("Next I'll pull the hotel reviews to compare.", 'beside_call', 'other_tool'),
    ('Der Flug ist pünktlich.', 'final', None),
    ('La commande est en route ; livraison prévue jeudi.', 'final', None),
    ('Ecco il meteo: 24 °C e sole.', 'final', None),
    ("I couldn't find any flights on that route on Sunday; there are three on Monday.",
     "final", None),
    ("The drug checker says there's no interaction, and the label agrees.", 'final', None),
    ('Prices are as of today, 9:00.', 'final', None),
    ("Please confirm if you'd like me to book it.", 'final', None),
    ('The store lists 4 colours: black, white, blue and red.', 'final', None),
]

# v4: Dutch, Russian, Polish, Korean and Turkish (one rule per signal), with negations.
_V4_OTHER_LANGUAGES = [
    ("De API gaf een foutmelding terug. Ik probeer het opnieuw.",
     "beside_call", "same_tool", "requery"),
    ("Этот прогноз для другого города, а не для Казани. Повторяю запрос.",
     "beside_call", "same_tool", "requery"),
    ('Serwis zwrócił błąd 500. Sprawdzę w innym źródle.', 'beside_call', 'other_tool', 'verify'),
    ('날씨 API에서 오류가 발생했습니다. 다시 시도하겠습니다.',
     'beside_call', 'same_tool', 'requery'),
    ("Sonuç farklı bir şehir için geldi; İzmir'i mi kastettiniz?", 'final', None, 'clarify'),
    ("Deze gegevens kloppen niet met uw boeking. Kunt u de datum bevestigen?",
     "final", None, "clarify"),
    ('Сервис не отвечает, поэтому я не могу назвать точную цену.', 'final', None, 'abstain'),
    ('Nie mogę potwierdzić wizyty: system zwrócił nieprawidłowe dane.', 'final', None, 'abstain'),
    ('결과가 이상합니다. 재고가 -5개로 표시됩니다.', 'final', None, 'mention'),
    ('Fiyat bilgisi eksik geldi, yine de toplam yaklaşık 300 TL.', 'final', None, 'mention'),
]

_V4_OTHER_LANGUAGE_NEGATIVES = [
    ('Ошибок нет, у вас три встречи.', 'final', None),
    ('Nie ma błędów, zamówienie wysłane.', 'final', None),
    ('오류가 없습니다. 내일은 맑음입니다.', 'final', None),
    ('Hata yok, siparişiniz yolda.', 'final', None),
    ('Morgen wordt het 18 °C en zonnig.', 'final', None),
    ('Завтра в Москве +18 °C, без осадков.', 'final', None),
    ('Jutro w Krakowie 18 °C, słonecznie.', 'final', None),
    ('내일 서울은 18도, 맑음입니다.', 'final', None),
    ("Yarın İstanbul'da hava 18 °C ve güneşli.", 'final', None),
    ('Uw bestelling wordt morgen bezorgd.', 'final', None),
    ('Ваш заказ будет доставлен завтра.', 'final', None),
]


@pytest.mark.parametrize(("text", "where", "call", "kind"), _V4_PHRASINGS + _V4_OTHER_LANGUAGES)
def test_v4_phrasings(text: str, where: str, call: str | None, kind: str) -> None:
    assert classify_text(text, where, call) == kind, text_signals(text)


@pytest.mark.parametrize(("text", "where", "call"),
                         _V4_PHRASING_NEGATIVES + _V4_OTHER_LANGUAGE_NEGATIVES)
def test_v4_phrasing_negatives(text: str, where: str, call: str | None) -> None:
    assert classify_text(text, where, call) is None, text_signals(text)
