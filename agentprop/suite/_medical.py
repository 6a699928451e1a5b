"""Medical task generator: records, interactions, doctor lists and bookings.

Intents (difficulty):
- ``patient_medications`` (easy): get_patient_record → the medications by name.
- ``patient_allergies`` (easy): get_patient_record → the allergies (or "no known allergies").
- ``drug_interaction`` (easy): check_drug_interaction → severity and reason.
- ``list_specialists`` (easy): list_doctors(specialty, date) → the doctors working that day.
- ``schedule_direct`` (easy): schedule_appointment with a named doctor (state-changing).
- ``record_interaction`` (medium): record → check the patient's two medications.
- ``schedule_specialty`` (medium): list_doctors(specialty, date) → book the first listed
  doctor (state-changing).
- ``interaction_branch`` (hard): record → check their two medications → only if the
  severity is high, book with a specialty (the gold plan stops after the check otherwise;
  ``meta["branch"]`` says which way it went).
- ``new_prescription_check`` (hard): record → check every current medication against a
  new drug.

Each intent is one class below (`MedicalIntent`: phrasing and gold plan, what it asks, its
facts; `patient_allergies` states the record by its allergies, `interaction_branch`
concludes when nothing was booked), registered in `INTENTS` in the order of the intent mix;
`MedicalGenerator` states each observation by kind.

Facts: ``entity`` (medications ``medication_<k>``, allergies ``allergy_<k>`` or
``allergies`` = "no known allergies", ``severity`` / ``severity_<a>_<b>`` = none|moderate|high,
drugs ``drug_a``/``drug_b``, doctors ``doctor`` / ``doctor_<k>`` with the id and surname as
aliases), ``id`` (``appointment_id``), ``date`` (ISO) and ``time`` (HH:MM).
Expected state (booking intents): ``{"new_appointments": [{"patient_id", "doctor_id",
"date", "time"}]}`` (``[]`` when the branch books nothing), compared with
`MedicalDomain.snapshot`.
``Task.query_entities`` (set through the draft's ``meta``) maps tool parameter names to the
values the query names
(``patient_id``, ``drug_a``/``drug_b``, ``specialty``, ``doctor_id``, ``date``, ``time``);
observations echo the same keys.
"""

from __future__ import annotations

import datetime as dt
import random
import re
from dataclasses import dataclass, field
from typing import Any, ClassVar

from agentprop.core import REFERENCE_DATE, Fact, Task
from agentprop.domains import Observation, get_domain, is_error
from agentprop.domains._medical_data import SLOT_TIMES, SPECIALIST_NOUN, WEEKDAYS
from agentprop.domains.medical import MedicalDomain
from agentprop.suite._draw import (
    Draft,
    draw_tasks,
    schedule,
    shared_attempts,
)
from agentprop.suite._generator import GENERATORS
from agentprop.suite._intent import Intent, IntentGenerator, Intents
from agentprop.suite._phrasing import failure_sentence, tool_at

TODAY = dt.date.fromisoformat(REFERENCE_DATE)
MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December"]



def date_phrase(day: dt.date, rng: random.Random) -> str:
    """A way to name `day` relative to the reference Monday, or explicitly."""
    delta = (day - TODAY).days
    wd = WEEKDAYS[day.weekday()]
    options = [f"on {day.isoformat()}", f"on {wd}, {MONTHS[day.month - 1]} {day.day}"]
    if delta == 1:
        options += ["tomorrow", "tomorrow"]
    elif delta == 2:
        options.append("the day after tomorrow")
    if 1 < delta <= 6:
        options.append(f"this {wd}")
    if 7 <= delta <= 13:
        options.append(f"{wd} next week")
        if day.weekday() == 0:
            options.append("next Monday")
    if 3 <= delta <= 10:
        options.append(f"in {delta} days")
    return rng.choice(options)


def time_phrase(time: str, rng: random.Random) -> str:
    h, m = (int(x) for x in time.split(":"))
    twelve = f"{(h - 1) % 12 + 1}{f':{m:02d}' if m else ''} {'am' if h < 12 else 'pm'}"
    return rng.choice([f"at {time}", f"at {time}", f"at {twelve}"])


def _join(items: list[str]) -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def _cap(s: str) -> str:
    return s[:1].upper() + s[1:]


# a query asking only whether two drugs interact ("Is there an interaction between ...?")
YES_NO = re.compile(r"^(?:Is there|Do |Does |Pull up .*: do |Patient \w+ is on two drugs\. Is "
                    r"there)")


@dataclass
class _Drawn:
    query: str
    entities: dict[str, Any]
    extra_meta: dict[str, Any] = field(default_factory=dict)
    asks: list[str] | None = None  # overrides the intent's `asked`


def _specialty_aliases(specialty: str) -> list[str]:
    """The specialist's noun ("cardiologist", "general practitioner", "GP")."""
    noun = SPECIALIST_NOUN.get(specialty, "").split(" ", 1)[-1]
    return [n for n in (noun, "GP" if specialty == "general practice" else "") if n]


def _doctor_aliases(name: str, doctor_id: str) -> list[str]:
    surname = name.split()[-1]
    return [doctor_id, f"Dr. {surname}", f"Dr {surname}", surname]


# -- drawing helpers --------------------------------------------------------------------------


def _world(d: Draft) -> MedicalDomain:
    dom = d.env.domain
    assert isinstance(dom, MedicalDomain)
    return dom


def _two_med_patient(dom: MedicalDomain, rng: random.Random, high: bool | None = None
                     ) -> str:
    pool = [p for p in dom.patients.values() if len(p.medications) == 2]
    if high is not None:
        pool = [
            p for p in pool
            if (dom.interaction(*p.medications)[0] == "high") == high
        ]
    return rng.choice(pool).patient_id


def _working_day(dom: MedicalDomain, rng: random.Random, specialty: str,
                 doctor_id: str | None = None) -> dt.date:
    days = []
    for delta in range(1, 15):
        day = TODAY + dt.timedelta(days=delta)
        docs = dom.doctors_for(specialty, day.weekday())
        if docs and (doctor_id is None or any(d.doctor_id == doctor_id for d in docs)):
            days.append(day)
    return rng.choice(days)


# -- rendering ------------------------------------------------------------------------------


def _kind(o: Observation) -> str:
    """What an observation is, in the order the checks have always been made."""
    if is_error(o):
        return "error"
    if "medications" in o:
        return "record"
    if "severity" in o:
        return "interaction"
    if "doctors" in o:
        return "doctors"
    if o.get("status") == "booked":
        return "booking"
    return "unknown"


def _sentence(task: Task, i: int, o: Observation) -> str:
    """What observation `i` says, by its kind (a record by its medications)."""
    tool = tool_at(task, i) or "tool"
    k = _kind(o)
    if k == "error":
        return failure_sentence(tool, o, noun="call", unknown="")
    if k == "record":
        meds = list(o.get("medications") or [])
        return (f"{_who(o)} currently takes {_join(meds)}." if meds
                else f"{_who(o)} takes no medications.")
    if k == "interaction":
        return (f"{_cap(str(o.get('drug_a')))} and {o.get('drug_b')}: severity "
                f"{o.get('severity')} — {o.get('reason')}.")
    if k == "doctors":
        return _doctors_sentence(o)
    if k == "booking":
        if "doctor_id" not in o:  # as ever, a booking without its doctor's id is not stated
            raise KeyError("doctor_id")
        return (f"Booked appointment {o['appointment_id']} for patient {o['patient_id']} "
                f"({o.get('patient_name')}) with {o.get('doctor_name')} "
                f"({o.get('specialty')}) on {o['date']} ({o.get('weekday')}) at "
                f"{o['time']}.")
    return f"The {tool} call returned an unexpected result."


def _who(o: Observation) -> str:
    return f"Patient {o.get('patient_id')} ({o.get('name')})"


def _doctors_sentence(o: Observation) -> str:
    docs = list(o.get("doctors") or [])
    when = f" working on {o['date']} ({o.get('weekday')})" if o.get("date") else ""
    if not docs:
        return f"No {o.get('specialty')} doctor is available{when}."
    named = [f"{d['name']} ({d['doctor_id']})" for d in docs]
    return f"{_cap(str(o.get('specialty')))} doctors{when}: {_join(named)}."


def _record_facts(o: Observation) -> list[Fact]:
    about = {"patient": [str(o.get("patient_id")), str(o.get("name"))]}
    allergies = list(o.get("allergies") or [])
    meds = list(o.get("medications") or [])
    if allergies:
        facts = [Fact(kind="entity", key=f"allergy_{k}", value=a, about=about,
                      group="allergies") for k, a in enumerate(allergies, 1)]
    else:
        facts = [Fact(kind="entity", key="allergies", value="no known allergies",
                      aliases=["no allergies", "no documented allergies",
                               "no recorded allergies", "NKDA"], about=about,
                      group="allergies")]
    return facts + [Fact(kind="entity", key=f"medication_{k}", value=m, about=about,
                         group="medications") for k, m in enumerate(meds, 1)]


def _doctors_facts(o: Observation) -> list[Fact]:
    docs = list(o.get("doctors") or [])
    if not docs:
        return []
    facts = [
        Fact(kind="entity", key=f"doctor_{k}", value=d["name"],
             aliases=_doctor_aliases(d["name"], d["doctor_id"]), group="doctors",
             about={"doctor": [d["name"], *_doctor_aliases(d["name"], d["doctor_id"])]})
        for k, d in enumerate(docs, 1)
    ]
    if o.get("date"):
        facts.append(Fact(kind="date", key="date", value=str(o["date"])))
    return facts


def _booking_facts(o: Observation) -> list[Fact]:
    doctor = str(o.get("doctor_name"))
    aliases = _doctor_aliases(doctor, str(o["doctor_id"]))
    about = {"patient": [str(o["patient_id"]), str(o.get("patient_name"))]}
    with_doctor = {**about, "doctor": [doctor, *aliases]}
    return [
        Fact(kind="polar", key="booked", value=True, relation="booked", about=with_doctor),
        Fact(kind="id", key="appointment_id", value=str(o["appointment_id"]), about=about),
        Fact(kind="entity", key="doctor", value=doctor, aliases=aliases, about=about),
        Fact(kind="entity", key="specialty", value=str(o.get("specialty")),
             aliases=_specialty_aliases(str(o.get("specialty"))),
             about={"doctor": [doctor, *aliases]}),
        Fact(kind="date", key="date", value=str(o["date"]), about=about),
        Fact(kind="time", key="time", value=str(o["time"]), about=about),
    ]


# -- the intents ------------------------------------------------------------------------------
# Registered in the order of the intent mix (the schedule depends on it).


class MedicalIntent(Intent):
    """A medical intent: `draw` phrases the query and runs the gold plan; `asked` is what
    its phrasings ask for (a yes/no phrasing asks "interacts" instead of the severity), the
    rest of the facts are context. A booking's final state is the expected state. Its facts
    are what each observation that did not fail says (`facts`, `severity_facts`)."""

    asked: ClassVar[tuple[str, ...]] = ()
    """What the query asks for (fact key patterns), unless the drawn phrasing says."""
    snapshots: ClassVar[bool] = False
    """The final state is expected even when nothing is booked."""

    def build(self, d: Draft, rng: random.Random) -> None:
        drawn = self.draw(_world(d), rng, d)
        d.query = drawn.query
        d.meta = {"query_entities": drawn.entities, **drawn.extra_meta}
        d.asks = self.asks_of(drawn)
        if self.snapshots or any(c.name == "schedule_appointment" for c in d.calls):
            d.expected_state = d.env.snapshot()

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        raise NotImplementedError

    def asks_of(self, drawn: _Drawn) -> list[str]:
        asks = list(drawn.asks or self.asked)
        if YES_NO.match(drawn.query) and "how sever" not in drawn.query.lower():
            asks = ["interacts" if a == "severity*" else a for a in asks]
        return asks

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        facts: list[Fact] = []
        keyed = sum(1 for o in obs if "severity" in o) > 1  # several checks: keyed by pair
        for o in obs:
            k = _kind(o)
            if k == "record":
                facts += _record_facts(o)
            elif k == "interaction":
                facts += self.interaction_facts(o, keyed)
            elif k == "doctors":
                facts += _doctors_facts(o)
            elif k == "booking":
                facts += _booking_facts(o)
        return facts

    def interaction_facts(self, o: Observation, keyed: bool) -> list[Fact]:
        a, b, sev = str(o.get("drug_a")), str(o.get("drug_b")), str(o.get("severity"))
        aliases = {
            "high": ["severe", "major", "serious"],
            "none": ["no interaction", "no known interaction", "do not interact",
                     "don't interact", "no significant interaction"],
        }.get(sev, [])
        key = f"severity_{a}_{b}".replace(" ", "_") if keyed else "severity"
        pair = {"drug": [a, b]}
        facts = [Fact(kind="entity", key=key, value=sev, aliases=aliases, about=pair,
                      relation="severity")]
        if not keyed:
            facts.append(Fact(kind="polar", key="interacts", value=sev != "none", about=pair,
                              relation="interacts"))
        return facts + self.severity_facts(sev, pair)

    def severity_facts(self, sev: str, pair: dict[str, list[str]]) -> list[Fact]:
        """What the intent adds to a checked interaction's facts."""
        return []


INTENTS: Intents[Intent] = Intents("medical", MedicalIntent)


@INTENTS.register
class PatientMedications(MedicalIntent):
    """A patient's current medications."""

    name, difficulty, weight = "patient_medications", "easy", 0.12
    asked = ("medication_*",)

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        pid = rng.choice(sorted(dom.patients))
        name = dom.patients[pid].name
        query = rng.choice([
            f"What medications is patient {pid} currently taking?",
            f"List the current medications of {name} (patient {pid}).",
            f"Which drugs is patient {pid} on right now?",
            f"Can you pull up {pid}'s record and tell me their current medications?",
        ])
        run("get_patient_record", patient_id=pid)
        return _Drawn(query, {"patient_id": pid})


@INTENTS.register
class PatientAllergies(MedicalIntent):
    """A patient's allergies (or "no known allergies")."""

    name, difficulty, weight = "patient_allergies", "easy", 0.08
    asked = ("allergy_*", "allergies")

    def sentence(self, task: Task, seen: list[Observation], o: Observation) -> str | None:
        """The record is stated by its allergies."""
        if _kind(o) != "record":
            return None
        allergies = list(o.get("allergies") or [])
        return (f"{_who(o)} has documented allergies to {_join(allergies)}." if allergies
                else f"{_who(o)} has no known allergies.")

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        pid = rng.choice(sorted(dom.patients))
        name = dom.patients[pid].name
        query = rng.choice([
            f"Does patient {pid} have any allergies?",
            f"What allergies are recorded for {name} ({pid})?",
            f"Before I prescribe anything: check the allergy list of patient {pid}.",
        ])
        run("get_patient_record", patient_id=pid)
        return _Drawn(query, {"patient_id": pid})


@INTENTS.register
class DrugInteraction(MedicalIntent):
    """The interaction of two named drugs: severity and reason."""

    name, difficulty, weight = "drug_interaction", "easy", 0.1
    asked = ("severity*",)

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        if rng.random() < 0.65:
            pair = sorted(rng.choice(sorted(dom.interactions, key=sorted)))
        else:
            pair = rng.sample(dom.drugs, 2)
        rng.shuffle(pair)
        a, b = pair
        query = rng.choice([
            f"Is there an interaction between {a} and {b}?",
            f"Can a patient take {a} together with {b}? How severe is the interaction?",
            f"Check the drug interaction between {a} and {b}.",
            f"How serious is it to combine {a} with {b}?",
        ])
        run("check_drug_interaction", drug_a=a, drug_b=b)
        return _Drawn(query, {"drug_a": a, "drug_b": b})


@INTENTS.register
class ListSpecialists(MedicalIntent):
    """The doctors of a specialty working on a day."""

    name, difficulty, weight = "list_specialists", "easy", 0.04
    asked = ("doctor_*",)

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        specialty = rng.choice(sorted({d.specialty for d in dom.doctors.values()}))
        day = _working_day(dom, rng, specialty)
        when = date_phrase(day, rng)
        noun = SPECIALIST_NOUN[specialty]
        query = rng.choice([
            f"Which {specialty} doctors are working {when}?",
            f"I need {noun} {when}: who is available that day?",
            f"List the doctors in {specialty} who work {when}.",
        ])
        run("list_doctors", specialty=specialty, date=day.isoformat())
        return _Drawn(query, {"specialty": specialty, "date": day.isoformat()})


@INTENTS.register
class ScheduleDirect(MedicalIntent):
    """Book a patient with a named doctor (state-changing)."""

    name, difficulty, weight = "schedule_direct", "easy", 0.06
    asked = ("booked",)

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        pid = rng.choice(sorted(dom.patients))
        doc = rng.choice(list(dom.doctors.values()))
        day = _working_day(dom, rng, doc.specialty, doc.doctor_id)
        time = rng.choice(SLOT_TIMES)
        when, at = date_phrase(day, rng), time_phrase(time, rng)
        query = rng.choice([
            f"Book patient {pid} with {doc.name} ({doc.doctor_id}) {when} {at}.",
            f"Please schedule an appointment for {pid} with doctor {doc.doctor_id} {when} {at}.",
            f"Make an appointment {when} {at} for patient {pid} to see {doc.name} "
            f"({doc.doctor_id}).",
        ])
        run("schedule_appointment", patient_id=pid, doctor_id=doc.doctor_id,
            date=day.isoformat(), time=time)
        return _Drawn(query, {"patient_id": pid, "doctor_id": doc.doctor_id,
                              "date": day.isoformat(), "time": time})


@INTENTS.register
class RecordInteraction(MedicalIntent):
    """Whether the two medications on a patient's record interact (chained)."""

    name, difficulty, weight = "record_interaction", "medium", 0.18
    asked = ("severity*",)

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        pid = _two_med_patient(dom, rng)
        name = dom.patients[pid].name
        query = rng.choice([
            f"Do the two medications patient {pid} takes interact with each other?",
            f"Check whether {name}'s ({pid}) current medications interact, and how severely.",
            f"Patient {pid} is on two drugs. Is there an interaction between them?",
            f"Pull up {name}'s record ({pid}): do their two current medications interact?",
            f"How severe is the interaction between the two drugs patient {pid} is "
            "currently taking?",
            f"Is it safe for {name} (patient {pid}) to keep taking both current "
            "medications together? Check the interaction.",
        ])
        rec = run("get_patient_record", patient_id=pid)
        a, b = rec["medications"][:2]
        run("check_drug_interaction", drug_a=a, drug_b=b)
        return _Drawn(query, {"patient_id": pid})


@INTENTS.register
class ScheduleSpecialty(MedicalIntent):
    """Book the first doctor of a specialty listed on a day (chained)."""

    name, difficulty, weight = "schedule_specialty", "medium", 0.17
    asked = ("booked",)

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        pid = rng.choice(sorted(dom.patients))
        specialty = rng.choice(sorted({d.specialty for d in dom.doctors.values()}))
        day = _working_day(dom, rng, specialty)
        time = rng.choice(SLOT_TIMES)
        when, at = date_phrase(day, rng), time_phrase(time, rng)
        noun = SPECIALIST_NOUN[specialty]
        query = rng.choice([
            f"Book patient {pid} an appointment with {noun} {when} {at}.",
            f"Find {noun} who works {when} and schedule patient {pid} {at}.",
            f"Patient {pid} needs to see {noun}. Book the first {specialty} doctor "
            f"working {when}, {at}.",
        ])
        listed = run("list_doctors", specialty=specialty, date=day.isoformat())
        first = listed["doctors"][0]["doctor_id"]
        run("schedule_appointment", patient_id=pid, doctor_id=first, date=day.isoformat(),
            time=time)
        return _Drawn(query, {"patient_id": pid, "specialty": specialty,
                              "date": day.isoformat(), "time": time})


@INTENTS.register
class InteractionBranch(MedicalIntent):
    """Check a patient's two medications; only a high-severity interaction is booked
    with a specialty (the gold plan stops after the check otherwise)."""

    name, difficulty, weight = "interaction_branch", "hard", 0.13
    asked = ("severity*",)
    snapshots = True

    def asks_of(self, drawn: _Drawn) -> list[str]:
        # "Review ..." asks only whether it is high severity (no yes/no phrasing starts so)
        asks = (["high_severity"] if drawn.query.startswith("Review")
                else super().asks_of(drawn))
        if drawn.extra_meta.get("branch", {}).get("taken"):
            asks += ["booked"]
        return asks

    def severity_facts(self, sev: str, pair: dict[str, list[str]]) -> list[Fact]:
        return [Fact(kind="polar", key="high_severity", value=sev == "high", about=pair,
                     relation="high_severity")]

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        if not self._unbooked(obs):
            return ""
        if [o for o in obs if "severity" in o][-1]["severity"] == "high":
            return "The interaction is high severity, but no appointment was booked."
        return "The interaction is not high severity, so no appointment was booked."

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        facts = super().facts(task, obs)
        if self._unbooked(obs):
            facts.append(Fact(kind="polar", key="booked", value=False, relation="booked",
                              role="context"))
        return facts

    @staticmethod
    def _unbooked(obs: list[Observation]) -> bool:
        """The interaction was checked and nothing was booked."""
        checks = [o for o in obs if "severity" in o]
        return bool(checks) and not any(o.get("status") == "booked" for o in obs)

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        pid = _two_med_patient(dom, rng, high=rng.random() < 0.5)
        specialty = rng.choice(["cardiology", "general practice", "general practice"])
        day = _working_day(dom, rng, specialty)
        time = rng.choice(SLOT_TIMES)
        when, at = date_phrase(day, rng), time_phrase(time, rng)
        noun = SPECIALIST_NOUN[specialty]
        query = rng.choice([
            f"Check whether patient {pid}'s two medications interact. If the interaction "
            f"is high severity, book them with {noun} {when} {at}; otherwise just report "
            "the severity.",
            f"Review the medications of patient {pid}: if they have a high-severity "
            f"interaction, schedule an appointment with {noun} {when} {at}.",
            f"Do {pid}'s two drugs interact? Only if it's a high-severity interaction, "
            f"make an appointment with {noun} {when} {at}.",
        ])
        rec = run("get_patient_record", patient_id=pid)
        a, b = rec["medications"][:2]
        check = run("check_drug_interaction", drug_a=a, drug_b=b)
        taken = check["severity"] == "high"
        if taken:
            run("schedule_appointment", patient_id=pid, specialty=specialty,
                date=day.isoformat(), time=time)
        return _Drawn(
            query,
            {"patient_id": pid, "specialty": specialty, "date": day.isoformat(), "time": time},
            {"branch": {"condition": "severity == high", "taken": taken}},
        )


@INTENTS.register
class NewPrescriptionCheck(MedicalIntent):
    """Check a new drug against each of a patient's current medications."""

    name, difficulty, weight = "new_prescription_check", "hard", 0.12
    asked = ("severity*",)

    def draw(self, dom: MedicalDomain, rng: random.Random, run: Draft) -> _Drawn:
        pid = rng.choice(sorted(dom.patients))
        meds = dom.patients[pid].medications
        partners = sorted({
            d for pair in dom.interactions for d in pair
            if any(m in pair for m in meds) and d not in meds
        })
        others = [d for d in dom.drugs if d not in meds]
        new = rng.choice(partners) if partners and rng.random() < 0.65 else rng.choice(others)
        query = rng.choice([
            f"Patient {pid} is about to be prescribed {new}. Check it against each of their "
            "current medications.",
            f"We want to start {new} for patient {pid}. Does it interact with anything "
            "they already take?",
            f"Is {new} safe to add to patient {pid}'s current medications? Check every "
            "interaction.",
        ])
        rec = run("get_patient_record", patient_id=pid)
        checks = [run("check_drug_interaction", drug_a=med, drug_b=new)
                  for med in rec["medications"]]
        asks = None
        if "anything they already take" in query:  # asks which ones interact, if any
            hits = [f"severity_{c['drug_a']}_{new}".replace(" ", "_") for c in checks
                    if c["severity"] != "none"]
            asks = hits or None
        return _Drawn(query, {"patient_id": pid, "drug_b": new}, asks=asks)


# -- the generator ----------------------------------------------------------------------------


@GENERATORS.register("medical")
class MedicalGenerator(IntentGenerator):
    """See the module docstring for intents, facts, state and meta. Each observation is
    stated on its own (no chain is cut short) and states its facts even when another
    call failed."""

    domain = "medical"
    intents = INTENTS
    nothing = "I could not retrieve the information needed to answer."
    whole_chain = False

    @property
    def world(self) -> MedicalDomain:
        dom = get_domain(self.domain)
        assert isinstance(dom, MedicalDomain)
        return dom

    def generate(self, n: int, seed: int) -> list[Task]:
        rng = random.Random(seed)
        dom = self.world
        plan = schedule(n, INTENTS.mix(), rng)
        return draw_tasks(
            domain=self.domain, plan=plan,
            builders=INTENTS.builders(), tools=[t.name for t in dom.tools],
            make_env=dom.make_env, render=self.render_answer, facts=self.expected_facts,
            attempts=shared_attempts(rng, 100),
        )

    def sentence(self, task: Task, i: int, o: Observation) -> str:
        return _sentence(task, i, o)

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        return True
