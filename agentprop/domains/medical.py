"""The medical domain: patient records, a drug-interaction checker and appointment booking.

The world (patients, doctors, formulary, interaction table) is fixed: it is generated once
from `WORLD_SEED`, so a patient id means the same person in every episode. What changes per
episode is the appointment book, pre-filled from the episode seed so bookings can conflict.

State (``initial_state``): ``{"seed": int, "appointments": [...], "created": [...]}``.
Prefilled appointments are ``APT10001``...; a booked one gets a content-derived id, ``APT`` +
5 digits hashed from (episode seed, patient, doctor, date, time, k), k = earlier bookings
with the same content, so the right booking has the same id whatever failed or wrong
bookings preceded it (a collision bumps to the next free id).
``snapshot(state)`` returns ``{"new_appointments": [{"patient_id", "doctor_id", "date",
"time"}, ...]}`` (sorted; appointments booked during the episode, without their ids, so an
agent that booked the right slot matches regardless of earlier failed attempts).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import random
from dataclasses import dataclass
from typing import Any

from agentprop.core import REFERENCE_DATE, ToolSpec
from agentprop.domains._base import DOMAINS, Domain, DomainError, Environment, Observation, Tool
from agentprop.domains._medical_data import (
    ALLERGENS,
    DOCTORS,
    DRUG_ALIASES,
    EXTRA,
    FIRST_NAMES_F,
    FIRST_NAMES_M,
    FORMULARY,
    INTERACTIONS,
    LAST_NAMES,
    PROFILES,
    SLOT_TIMES,
    SPECIALTIES,
    WEEKDAYS,
)

WORLD_SEED = 5501
N_PATIENTS = 50
BOOKING_HORIZON_DAYS = 120
PREFILLED_APPOINTMENTS = 40
_MALE_ONLY_PROFILES = {2}  # sildenafil for erectile dysfunction

PATIENT_ID_PATTERN = r"^P\d{3}$"
DOCTOR_ID_PATTERN = r"^D\d{3}$"
TIME_PATTERN = r"^([01]\d|2[0-3]):[0-5]\d$"
DATE_PATTERN = r"^\d{4}-\d{2}-\d{2}$"
DRUG_PATTERN = r"^[A-Za-z][A-Za-z \-]{1,39}$"
_APT_BASE, _APT_SPAN = 10000, 90000
_APT_FIELDS = ("patient_id", "doctor_id", "date", "time")


def appointment_id(state: dict[str, Any], content: dict[str, str]) -> str:
    """The id of a new booking: a hash of its content and repeat count (see module doc)."""
    parts = [content[f] for f in _APT_FIELDS]
    k = sum(1 for a in state["created"] if [a[f] for f in _APT_FIELDS] == parts)
    key = ":".join(["medical", str(state["seed"]), *parts, str(k)]).encode()
    n = int.from_bytes(hashlib.sha256(key).digest()[:8], "big") % _APT_SPAN
    taken = {a["appointment_id"] for a in state["appointments"]}
    while f"APT{_APT_BASE + n}" in taken:
        n = (n + 1) % _APT_SPAN
    return f"APT{_APT_BASE + n}"


@dataclass(frozen=True)
class Patient:
    patient_id: str
    name: str
    age: int
    sex: str
    conditions: tuple[str, ...]
    medications: tuple[str, ...]
    allergies: tuple[str, ...]

    def record(self) -> dict[str, Any]:
        return {
            "patient_id": self.patient_id,
            "name": self.name,
            "age": self.age,
            "sex": self.sex,
            "conditions": list(self.conditions),
            "medications": list(self.medications),
            "allergies": list(self.allergies),
        }


@dataclass(frozen=True)
class Doctor:
    doctor_id: str
    name: str
    specialty: str
    weekdays: tuple[int, ...]

    def info(self) -> dict[str, Any]:
        return {
            "doctor_id": self.doctor_id,
            "name": self.name,
            "specialty": self.specialty,
            "working_days": [WEEKDAYS[d] for d in self.weekdays],
        }


def _make_patients(seed: int) -> list[Patient]:
    rng = random.Random(seed)
    patients: list[Patient] = []
    used: set[str] = set()
    for i in range(N_PATIENTS):
        # Cycle through the profiles so every one (and every interacting pair) is present.
        pi = i % len(PROFILES) if i < 2 * len(PROFILES) else rng.randrange(len(PROFILES))
        conditions, meds = PROFILES[pi]
        sex = "M" if pi in _MALE_ONLY_PROFILES else rng.choice(["F", "M"])
        while True:
            first = rng.choice(FIRST_NAMES_F if sex == "F" else FIRST_NAMES_M)
            name = f"{first} {rng.choice(LAST_NAMES)}"
            if name not in used:
                used.add(name)
                break
        cond = list(conditions)
        med = list(meds)
        if rng.random() < 0.4:
            extra_c, extra_m = rng.choice(EXTRA)
            if extra_m not in med:
                med.append(extra_m)
                if extra_c not in cond:
                    cond.append(extra_c)
        allergies = sorted(rng.sample(ALLERGENS, rng.choice([0, 0, 1, 1, 1, 2])))
        patients.append(
            Patient(
                patient_id=f"P{i + 1:03d}",
                name=name,
                age=rng.randint(24, 88),
                sex=sex,
                conditions=tuple(cond),
                medications=tuple(med),
                allergies=tuple(allergies),
            )
        )
    return patients


def _parse_date(value: str) -> dt.date:
    try:
        return dt.date.fromisoformat(value)
    except ValueError:
        raise DomainError("validation", f"invalid date {value!r}", "date") from None


@DOMAINS.register("medical")
class MedicalDomain(Domain):
    """Patients, doctors and drugs of a small clinic; see the module docstring for state."""

    name = "medical"
    description = "Patient records, drug interactions and appointment booking at a clinic."

    def __init__(self) -> None:
        self.reference_date = dt.date.fromisoformat(REFERENCE_DATE)
        self.patients: dict[str, Patient] = {p.patient_id: p for p in _make_patients(WORLD_SEED)}
        self.doctors: dict[str, Doctor] = {
            d: Doctor(d, n, s, w) for d, n, s, w in DOCTORS
        }
        self.drugs: list[str] = sorted(FORMULARY)
        self.interactions: dict[frozenset[str], tuple[str, str]] = {
            frozenset((a, b)): (sev, why) for a, b, sev, why in INTERACTIONS
        }
        super().__init__()

    # -- world queries used by tools and task generators ---------------------------------
    def normalize_drug(self, name: str) -> str | None:
        key = " ".join(name.lower().replace("-", " ").split())
        key = DRUG_ALIASES.get(key, key)
        return key if key in FORMULARY else None

    def interaction(self, a: str, b: str) -> tuple[str, str]:
        """(severity, reason) for two formulary drugs; unlisted pairs have severity none."""
        if a == b:
            return "none", "same drug"
        return self.interactions.get(
            frozenset((a, b)), ("none", "no known interaction between these drugs")
        )

    def doctors_for(self, specialty: str | None, weekday: int | None) -> list[Doctor]:
        return [
            d
            for d in self.doctors.values()
            if (specialty is None or d.specialty == specialty)
            and (weekday is None or weekday in d.weekdays)
        ]

    def bookable(self, date: dt.date) -> bool:
        return 0 < (date - self.reference_date).days <= BOOKING_HORIZON_DAYS

    # -- per-episode state ----------------------------------------------------------------
    def initial_state(self, seed: int) -> dict[str, Any]:
        rng = random.Random(f"medical-appointments:{seed}")
        pids = sorted(self.patients)
        docs = list(self.doctors.values())
        appointments: list[dict[str, Any]] = []
        taken: set[tuple[str, str, str]] = set()
        n = 0
        while len(appointments) < PREFILLED_APPOINTMENTS and n < 10 * PREFILLED_APPOINTMENTS:
            n += 1
            doc = rng.choice(docs)
            day = self.reference_date + dt.timedelta(days=rng.randint(1, 28))
            if day.weekday() not in doc.weekdays:
                continue
            time = rng.choice(SLOT_TIMES)
            if (doc.doctor_id, day.isoformat(), time) in taken:
                continue
            taken.add((doc.doctor_id, day.isoformat(), time))
            appointments.append(
                {
                    "appointment_id": f"APT{10001 + len(appointments)}",
                    "patient_id": rng.choice(pids),
                    "doctor_id": doc.doctor_id,
                    "date": day.isoformat(),
                    "time": time,
                }
            )
        return {"seed": seed, "appointments": appointments, "created": []}

    def snapshot(self, state: Any) -> dict[str, Any]:
        new = [
            {k: a[k] for k in ("patient_id", "doctor_id", "date", "time")}
            for a in state["created"]
        ]
        new.sort(key=lambda a: (a["date"], a["time"], a["doctor_id"], a["patient_id"]))
        return {"new_appointments": new}

    def alternative(self, kind: str, value: Any, rng: random.Random, env: Environment) -> Any:
        """Another real entity of `kind`: patient_id, drug, date, time, doctor_id, specialty."""
        pool: list[Any]
        if kind == "patient_id":
            pool = sorted(self.patients)
        elif kind == "drug":
            cur = self.normalize_drug(value) if isinstance(value, str) else None
            pool = [d for d in self.drugs if d != cur]
        elif kind == "doctor_id":
            pool = sorted(self.doctors)
        elif kind == "specialty":
            pool = list(SPECIALTIES)
        elif kind == "time":
            pool = list(SLOT_TIMES)
        elif kind == "date":
            try:
                base = dt.date.fromisoformat(str(value))
            except ValueError:
                base = self.reference_date + dt.timedelta(days=1)
            pool = []
            for delta in range(-7, 8):
                day = base + dt.timedelta(days=delta)
                if delta != 0 and self.bookable(day):
                    pool.append(day.isoformat())
            if not pool:  # an original far outside the window: any date in the next weeks
                pool = [(self.reference_date + dt.timedelta(days=d)).isoformat()
                        for d in range(1, 15)]
        else:
            raise KeyError(kind)
        choices = [p for p in pool if p != value]
        return rng.choice(choices)

    # -- tools ----------------------------------------------------------------------------
    def build_tools(self) -> list[Tool]:
        return [
            Tool(
                ToolSpec(
                    name="get_patient_record",
                    description=(
                        "Get a patient's record: name, age, sex, conditions, current "
                        "medications and allergies."
                    ),
                    parameters={
                        "type": "object",
                        "properties": {
                            "patient_id": {
                                "type": "string",
                                "pattern": PATIENT_ID_PATTERN,
                                "description": "Patient id, e.g. P012.",
                            }
                        },
                        "required": ["patient_id"],
                        "additionalProperties": False,
                    },
                    critical_params={"patient_id": "patient_id"},
                ),
                self._get_patient_record,
            ),
            Tool(
                ToolSpec(
                    name="check_drug_interaction",
                    description=(
                        "Check the interaction between two drugs (generic names). Returns "
                        "severity none, moderate or high and the reason."
                    ),
                    parameters={
                        "type": "object",
                        "properties": {
                            "drug_a": {
                                "type": "string",
                                "pattern": DRUG_PATTERN,
                                "description": "Generic drug name, e.g. warfarin.",
                            },
                            "drug_b": {
                                "type": "string",
                                "pattern": DRUG_PATTERN,
                                "description": "Generic drug name, e.g. aspirin.",
                            },
                        },
                        "required": ["drug_a", "drug_b"],
                        "additionalProperties": False,
                    },
                    critical_params={"drug_a": "drug", "drug_b": "drug"},
                ),
                self._check_drug_interaction,
            ),
            Tool(
                ToolSpec(
                    name="list_doctors",
                    description=(
                        "List the clinic's doctors of a specialty, optionally only those "
                        "working on a given date."
                    ),
                    parameters={
                        "type": "object",
                        "properties": {
                            "specialty": {"type": "string", "enum": list(SPECIALTIES)},
                            "date": {
                                "type": "string",
                                "format": "date",
                                "pattern": DATE_PATTERN,
                                "description": "YYYY-MM-DD; only doctors working that day.",
                            },
                        },
                        "required": ["specialty"],
                        "additionalProperties": False,
                    },
                    critical_params={"specialty": "specialty", "date": "date"},
                ),
                self._list_doctors,
            ),
            Tool(
                ToolSpec(
                    name="schedule_appointment",
                    description=(
                        "Book an appointment for a patient with a doctor (by id) or with any "
                        "doctor of a specialty, on a date and time (half-hour slots "
                        "08:00-16:30, on a day the doctor works). Give doctor_id or specialty."
                    ),
                    parameters={
                        "type": "object",
                        "properties": {
                            "patient_id": {"type": "string", "pattern": PATIENT_ID_PATTERN},
                            "doctor_id": {"type": "string", "pattern": DOCTOR_ID_PATTERN},
                            "specialty": {"type": "string", "enum": list(SPECIALTIES)},
                            "date": {"type": "string", "format": "date", "pattern": DATE_PATTERN},
                            "time": {
                                "type": "string",
                                "pattern": TIME_PATTERN,
                                "description": "HH:MM, 24-hour clock.",
                            },
                        },
                        "required": ["patient_id", "date", "time"],
                        "additionalProperties": False,
                    },
                    critical_params={
                        "patient_id": "patient_id",
                        "doctor_id": "doctor_id",
                        "date": "date",
                        "time": "time",
                    },
                    mutates=True,
                ),
                self._schedule_appointment,
            ),
        ]

    def _patient(self, pid: str) -> Patient:
        p = self.patients.get(pid)
        if p is None:
            raise DomainError("not_found", f"no patient with id {pid}", "patient_id")
        return p

    def _get_patient_record(self, state: Any, args: dict[str, Any]) -> Observation:
        return self._patient(args["patient_id"]).record()

    def _check_drug_interaction(self, state: Any, args: dict[str, Any]) -> Observation:
        names = []
        for param in ("drug_a", "drug_b"):
            drug = self.normalize_drug(args[param])
            if drug is None:
                raise DomainError(
                    "not_found", f"{args[param]!r} is not in the formulary", param
                )
            names.append(drug)
        severity, reason = self.interaction(names[0], names[1])
        return {"drug_a": names[0], "drug_b": names[1], "severity": severity, "reason": reason}

    def _list_doctors(self, state: Any, args: dict[str, Any]) -> Observation:
        date = args.get("date")
        weekday = _parse_date(date).weekday() if date else None
        docs = self.doctors_for(args["specialty"], weekday)
        obs: Observation = {"specialty": args["specialty"]}
        if date:
            obs["date"] = date
            obs["weekday"] = WEEKDAYS[weekday or 0]
        obs["doctors"] = [d.info() for d in docs]
        return obs

    def _schedule_appointment(self, state: Any, args: dict[str, Any]) -> Observation:
        if "doctor_id" not in args and "specialty" not in args:
            raise DomainError(
                "validation", "one of 'doctor_id' or 'specialty' is required", "doctor_id"
            )
        patient = self._patient(args["patient_id"])
        date_s, time = args["date"], args["time"]
        day = _parse_date(date_s)
        if not self.bookable(day):
            raise DomainError(
                "invalid_date",
                f"{date_s} is outside the booking window (after {REFERENCE_DATE}, "
                f"within {BOOKING_HORIZON_DAYS} days)",
                "date",
            )
        if time not in SLOT_TIMES:
            raise DomainError(
                "invalid_time", f"{time} is not a clinic slot (half hours 08:00-16:30)", "time"
            )
        weekday = WEEKDAYS[day.weekday()]
        busy = {
            (a["doctor_id"], a["date"], a["time"]) for a in state["appointments"]
        }
        if any(
            a["patient_id"] == patient.patient_id and a["date"] == date_s and a["time"] == time
            for a in state["appointments"]
        ):
            raise DomainError(
                "conflict", f"{patient.patient_id} already has an appointment at {date_s} {time}"
            )
        if "doctor_id" in args:
            doc = self.doctors.get(args["doctor_id"])
            if doc is None:
                raise DomainError("not_found", f"no doctor with id {args['doctor_id']}",
                                  "doctor_id")
            if "specialty" in args and args["specialty"] != doc.specialty:
                raise DomainError(
                    "invalid_request",
                    f"{doc.name} ({doc.doctor_id}) practises {doc.specialty}, "
                    f"not {args['specialty']}",
                    "specialty",
                )
            if day.weekday() not in doc.weekdays:
                days = ", ".join(WEEKDAYS[d] for d in doc.weekdays)
                raise DomainError(
                    "unavailable",
                    f"{doc.name} ({doc.doctor_id}) does not work on {weekday}s "
                    f"({date_s}); works {days}",
                    "date",
                )
            if (doc.doctor_id, date_s, time) in busy:
                raise DomainError(
                    "conflict", f"{doc.name} ({doc.doctor_id}) is already booked at "
                    f"{date_s} {time}", "time"
                )
        else:
            specialty = args["specialty"]
            working = self.doctors_for(specialty, day.weekday())
            if not working:
                raise DomainError(
                    "unavailable", f"no {specialty} doctor works on {weekday}s ({date_s})", "date"
                )
            free = [d for d in working if (d.doctor_id, date_s, time) not in busy]
            if not free:
                raise DomainError(
                    "conflict", f"every {specialty} doctor is booked at {date_s} {time}", "time"
                )
            doc = free[0]
        content = {"patient_id": patient.patient_id, "doctor_id": doc.doctor_id,
                   "date": date_s, "time": time}
        appointment = {"appointment_id": appointment_id(state, content), **content}
        state["appointments"].append(appointment)
        state["created"].append(appointment)
        return {
            "status": "booked",
            **appointment,
            "patient_name": patient.name,
            "doctor_name": doc.name,
            "specialty": doc.specialty,
            "weekday": weekday,
        }
