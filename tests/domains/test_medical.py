"""Medical domain: schemas, typed errors, echoes, world consistency, copies, alternatives."""

from __future__ import annotations

import datetime as dt
import random
import re
from typing import Any

import pytest

from agentprop.domains import is_error
from agentprop.domains._medical_data import INTERACTIONS
from agentprop.domains.medical import MedicalDomain


@pytest.fixture(scope="module")
def dom() -> MedicalDomain:
    return MedicalDomain()


VALID: dict[str, dict[str, Any]] = {
    "get_patient_record": {"patient_id": "P001"},
    "check_drug_interaction": {"drug_a": "warfarin", "drug_b": "aspirin"},
    "list_doctors": {"specialty": "cardiology", "date": "2025-06-17"},
    "schedule_appointment": {
        "patient_id": "P001", "doctor_id": "D102", "date": "2025-07-01", "time": "11:00"
    },
}

INVALID = [
    ("get_patient_record", {"patient_id": 12}, "patient_id"),  # wrong type
    ("get_patient_record", {"patient_id": "patient-1"}, "patient_id"),  # pattern
    ("get_patient_record", {}, "patient_id"),  # missing required
    ("get_patient_record", {"patient_id": "P001", "verbose": True}, "verbose"),  # extra
    ("check_drug_interaction", {"drug_a": "warfarin"}, "drug_b"),
    ("check_drug_interaction", {"drug_a": "warfarin", "drug_b": ["aspirin"]}, "drug_b"),
    ("check_drug_interaction", {"drug_a": "42", "drug_b": "aspirin"}, "drug_a"),
    ("list_doctors", {"specialty": "surgery"}, "specialty"),  # enum
    ("list_doctors", {"specialty": "cardiology", "date": "2025-02-30"}, "date"),  # format
    ("list_doctors", {"specialty": "cardiology", "date": "17/06/2025"}, "date"),
    ("schedule_appointment", {**VALID["schedule_appointment"], "time": "25:00"}, "time"),
    ("schedule_appointment", {**VALID["schedule_appointment"], "time": 1100}, "time"),
    ("schedule_appointment", {k: v for k, v in VALID["schedule_appointment"].items()
                              if k != "date"}, "date"),
    ("schedule_appointment", {"patient_id": "P001", "date": "2025-07-01", "time": "11:00"},
     "doctor_id"),  # neither doctor nor specialty
    ("schedule_appointment", {**VALID["schedule_appointment"], "room": "3"}, "room"),
]


@pytest.mark.parametrize("tool", sorted(VALID))
def test_valid_call(dom: MedicalDomain, tool: str) -> None:
    obs = dom.make_env(1).call(tool, VALID[tool])
    assert not is_error(obs), obs


@pytest.mark.parametrize(("tool", "args", "param"), INVALID)
def test_invalid_arguments_give_validation_errors(
    dom: MedicalDomain, tool: str, args: dict[str, Any], param: str
) -> None:
    env = dom.make_env(1)
    obs = env.call(tool, args)
    assert obs["error"]["type"] == "validation"
    assert obs["error"]["param"] == param
    assert env.snapshot() == {"new_appointments": []}


def test_typed_domain_errors(dom: MedicalDomain) -> None:
    env = dom.make_env(1)
    assert env.call("get_patient_record", {"patient_id": "P999"})["error"]["type"] == "not_found"
    err = env.call("check_drug_interaction", {"drug_a": "warfarin", "drug_b": "unobtainium"})
    assert err["error"] == {"type": "not_found", "message": "'unobtainium' is not in the "
                            "formulary", "param": "drug_b"}
    base = VALID["schedule_appointment"]
    assert env.call("schedule_appointment", {**base, "doctor_id": "D999"})["error"]["type"] \
        == "not_found"
    past = env.call("schedule_appointment", {**base, "date": "2025-06-10"})
    assert past["error"]["type"] == "invalid_date"
    off_grid = env.call("schedule_appointment", {**base, "time": "10:15"})
    assert off_grid["error"]["type"] == "invalid_time"
    mismatch = env.call("schedule_appointment", {**base, "specialty": "neurology"})
    assert mismatch["error"]["type"] == "invalid_request"
    assert env.snapshot() == {"new_appointments": []}


def test_appointment_on_a_day_off_is_refused(dom: MedicalDomain) -> None:
    env = dom.make_env(3)
    # D102 works Tuesdays and Thursdays only; 2025-07-02 is a Wednesday.
    obs = env.call("schedule_appointment", {
        "patient_id": "P004", "doctor_id": "D102", "date": "2025-07-02", "time": "09:00"})
    assert obs["error"]["type"] == "unavailable"
    assert obs["error"]["param"] == "date"
    assert "Wednesday" in obs["error"]["message"]
    # No general practitioner works on Sundays.
    obs = env.call("schedule_appointment", {
        "patient_id": "P004", "specialty": "general practice", "date": "2025-06-22",
        "time": "09:00"})
    assert obs["error"]["type"] == "unavailable"
    assert env.snapshot() == {"new_appointments": []}


def test_booking_changes_state_and_conflicts_are_refused(dom: MedicalDomain) -> None:
    env = dom.make_env(5)
    args = {"patient_id": "P010", "doctor_id": "D108", "date": "2025-08-05", "time": "10:00"}
    obs = env.call("schedule_appointment", args)
    assert obs["status"] == "booked"
    # The observation echoes what it was computed from.
    for k, v in args.items():
        assert obs[k] == v
    assert obs["doctor_name"] == "Dr. Grace Mensah" and obs["weekday"] == "Tuesday"
    assert env.snapshot() == {"new_appointments": [args]}
    again = env.call("schedule_appointment", {**args, "patient_id": "P011"})
    assert again["error"]["type"] == "conflict"
    same_patient = env.call("schedule_appointment", {**args, "doctor_id": "D109"})
    assert same_patient["error"]["type"] == "conflict"
    # A specialty booking picks a working doctor who is free at that time.
    spec = env.call("schedule_appointment", {
        "patient_id": "P011", "specialty": "general practice", "date": "2025-08-07",
        "time": "10:00"})
    assert spec["status"] == "booked" and spec["specialty"] == "general practice"
    assert spec["appointment_id"] != obs["appointment_id"]
    assert len(env.snapshot()["new_appointments"]) == 2


def test_prefilled_appointments_conflict(dom: MedicalDomain) -> None:
    env = dom.make_env(11)
    taken = env.state["appointments"][0]
    obs = env.call("schedule_appointment", {
        "patient_id": "P001" if taken["patient_id"] != "P001" else "P002",
        "doctor_id": taken["doctor_id"], "date": taken["date"], "time": taken["time"]})
    assert obs["error"]["type"] == "conflict"


def test_interactions_are_real_symmetric_and_default_to_none(dom: MedicalDomain) -> None:
    env = dom.make_env(0)
    for a, b, severity, reason in INTERACTIONS:
        ab = env.call("check_drug_interaction", {"drug_a": a, "drug_b": b})
        ba = env.call("check_drug_interaction", {"drug_a": b, "drug_b": a})
        assert ab["severity"] == ba["severity"] == severity
        assert ab["reason"] == ba["reason"] == reason
        assert (ab["drug_a"], ab["drug_b"]) == (a, b)  # echoed
    known = {
        ("warfarin", "aspirin"): "high",
        ("simvastatin", "clarithromycin"): "high",
        ("sildenafil", "nitroglycerin"): "high",
        ("lisinopril", "spironolactone"): "moderate",
    }
    for (a, b), sev in known.items():
        assert env.call("check_drug_interaction", {"drug_a": a, "drug_b": b})["severity"] == sev
    none = env.call("check_drug_interaction", {"drug_a": "amoxicillin", "drug_b": "cetirizine"})
    assert none["severity"] == "none"
    # Case and common aliases are normalised, and the canonical names are echoed.
    alias = env.call("check_drug_interaction", {"drug_a": "Warfarin", "drug_b": "Acetaminophen"})
    assert (alias["drug_a"], alias["drug_b"]) == ("warfarin", "paracetamol")


def test_world_is_consistent_and_stable(dom: MedicalDomain) -> None:
    assert len(dom.patients) == 50
    again = MedicalDomain()
    assert again.patients == dom.patients
    for p in dom.patients.values():
        assert re.fullmatch(r"P\d{3}", p.patient_id)
        assert len(p.medications) >= 2
        assert all(dom.normalize_drug(m) == m for m in p.medications)
        assert 18 <= p.age <= 100 and p.sex in ("F", "M")
        if "sildenafil" in p.medications:
            assert p.sex == "M"
    # Several patients carry a high-severity pair (the branch tasks need both outcomes).
    highs = [p for p in dom.patients.values() if dom.interaction(*p.medications[:2])[0] == "high"]
    assert 5 <= len(highs) < 50


def test_record_and_list_echo_arguments(dom: MedicalDomain) -> None:
    env = dom.make_env(0)
    rec = env.call("get_patient_record", {"patient_id": "P007"})
    assert rec["patient_id"] == "P007" and rec["name"] == dom.patients["P007"].name
    listed = env.call("list_doctors", {"specialty": "cardiology", "date": "2025-06-18"})
    assert listed["specialty"] == "cardiology" and listed["date"] == "2025-06-18"
    assert listed["weekday"] == "Wednesday"
    assert [d["doctor_id"] for d in listed["doctors"]] == ["D101"]
    all_cardio = env.call("list_doctors", {"specialty": "cardiology"})
    assert len(all_cardio["doctors"]) == 3


def test_determinism_and_copy_independence(dom: MedicalDomain) -> None:
    a, b = dom.make_env(42), dom.make_env(42)
    assert a.state == b.state
    assert dom.make_env(43).state != a.state
    copy = a.copy()
    obs = copy.call("schedule_appointment", {
        "patient_id": "P001", "doctor_id": "D108", "date": "2025-08-05", "time": "10:00"})
    assert obs["status"] == "booked"
    assert a.snapshot() == {"new_appointments": []}
    assert len(copy.snapshot()["new_appointments"]) == 1
    assert a.state == b.state


@pytest.mark.parametrize(
    ("tool", "param"),
    [
        ("get_patient_record", "patient_id"),
        ("check_drug_interaction", "drug_a"),
        ("check_drug_interaction", "drug_b"),
        ("list_doctors", "specialty"),
        ("list_doctors", "date"),
        ("schedule_appointment", "patient_id"),
        ("schedule_appointment", "doctor_id"),
        ("schedule_appointment", "date"),
        ("schedule_appointment", "time"),
    ],
)
def test_alternative_differs_and_is_schema_valid(dom: MedicalDomain, tool: str, param: str
                                                 ) -> None:
    t = dom.tool(tool)
    assert t is not None
    kind = t.spec.critical_params[param]
    env = dom.make_env(0)
    rng = random.Random(7)
    for _ in range(25):
        original = VALID[tool][param]
        value = dom.alternative(kind, original, rng, env)
        assert value != original
        assert t.validate({**VALID[tool], param: value}) is None
        if kind == "patient_id":
            assert value in dom.patients
        if kind == "drug":
            assert dom.normalize_drug(value) == value
    with pytest.raises(KeyError):
        dom.alternative("city", "Paris", rng, env)


def test_alternative_date_far_outside_the_window(dom: MedicalDomain) -> None:
    rng = random.Random(1)
    env = dom.make_env(0)
    for original in ("2031-01-01", "1999-12-31", "not-a-date"):
        value = dom.alternative("date", original, rng, env)
        assert value != original and dom.bookable(dt.date.fromisoformat(value))


def test_appointment_ids_are_content_derived_not_counted(dom: MedicalDomain) -> None:
    """A wrong booking made first must not shift the right booking's id."""
    right = VALID["schedule_appointment"]
    alone = dom.make_env(3).call("schedule_appointment", right)
    env = dom.make_env(3)
    wrong = env.call("schedule_appointment", {**right, "time": "14:00"})
    after = env.call("schedule_appointment", right)
    assert alone["status"] == wrong["status"] == after["status"] == "booked"
    assert after["appointment_id"] == alone["appointment_id"] != wrong["appointment_id"]
    assert len({a["appointment_id"] for a in env.state["appointments"]}) == len(
        env.state["appointments"])
    assert dom.make_env(4).call("schedule_appointment", right)["appointment_id"] \
        != alone["appointment_id"]
