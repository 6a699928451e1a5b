"""Medical task generator: contract, grounding of references, state, robustness."""

from __future__ import annotations

import datetime as dt
import re
from collections import Counter

import pytest

from agentprop.core import REFERENCE_DATE, Task
from agentprop.domains import error_observation, get_domain, is_error
from agentprop.suite._check import fact_in_text
from agentprop.suite._medical import MedicalGenerator

N = 559
SEED = 2026


@pytest.fixture(scope="module")
def gen() -> MedicalGenerator:
    return MedicalGenerator()


@pytest.fixture(scope="module")
def tasks(gen: MedicalGenerator) -> list[Task]:
    return gen.generate(N, SEED)


def _replay(task: Task) -> tuple[list[dict], dict]:
    env = get_domain(task.domain).make_env(task.env_seed)
    obs = [env.call(c.name, c.arguments) for c in task.gold_plan]
    return obs, env.snapshot()


def test_counts_ids_and_determinism(gen: MedicalGenerator, tasks: list[Task]) -> None:
    assert len(tasks) == N
    assert [t.id for t in tasks] == [f"medical_{k:04d}" for k in range(1, N + 1)]
    assert [t.model_dump() for t in gen.generate(40, SEED)] == [
        t.model_dump() for t in gen.generate(40, SEED)]
    assert [t.query for t in gen.generate(40, SEED + 1)] != [t.query for t in tasks[:40]]


def test_difficulty_mix_and_intents(tasks: list[Task]) -> None:
    share = {d: c / N for d, c in Counter(t.difficulty for t in tasks).items()}
    assert share["easy"] == pytest.approx(0.40, abs=0.03)
    assert share["medium"] == pytest.approx(0.35, abs=0.03)
    assert share["hard"] == pytest.approx(0.25, abs=0.03)
    assert len({t.intent for t in tasks}) == 9
    for t in tasks:
        n_calls = len(t.gold_plan)
        if t.difficulty == "easy":
            assert n_calls == 1
        elif t.difficulty == "medium":
            assert n_calls == 2
        else:
            assert n_calls >= 3 or "branch" in t.meta


def test_several_phrasings_per_intent(tasks: list[Task]) -> None:
    shapes: dict[str, set[str]] = {}
    for t in tasks:
        q = t.query
        for v in t.query_entities.values():
            q = q.replace(str(v), "X")
        q = re.sub(r"P\d{3}|D\d{3}|\d+", "X", q)
        shapes.setdefault(t.intent, set()).add(" ".join(q.split()[:3]))
    assert all(len(s) >= 3 for s in shapes.values()), shapes


def test_gold_plans_replay_and_references_are_grounded(gen: MedicalGenerator,
                                                       tasks: list[Task]) -> None:
    domain = get_domain("medical")
    for t in tasks:
        obs, state = _replay(t)
        assert not any(is_error(o) for o in obs), t.id
        assert gen.render_answer(t, obs) == t.reference_answer
        assert gen.expected_facts(t, obs) == t.expected_facts
        assert t.expected_facts, t.id
        assert any(f.role == "asked" for f in t.expected_facts), t.id
        for f in t.expected_facts:  # what the query asks for, the reference states
            if f.role == "asked":
                assert fact_in_text(f, t.reference_answer), (t.id, f)
        if t.expected_state is not None:
            assert state == t.expected_state
        first = t.gold_plan[0]
        tool = domain.tool(first.name)
        assert tool is not None and set(tool.spec.critical_params) & set(first.arguments)
        ents = t.query_entities
        assert ents, t.id
        for key in ("patient_id", "doctor_id", "drug_a", "drug_b"):
            if key in ents:
                assert ents[key] in t.query, (t.id, key)
        assert set(t.tools) == {tool.name for tool in domain.tools}


def test_state_changing_tasks_have_expected_state(tasks: list[Task]) -> None:
    for t in tasks:
        books = any(c.name == "schedule_appointment" for c in t.gold_plan)
        if books:
            assert t.expected_state is not None
            assert len(t.expected_state["new_appointments"]) == 1
            appt = t.expected_state["new_appointments"][0]
            assert appt["patient_id"] == t.query_entities["patient_id"]
        elif t.intent == "interaction_branch":
            assert t.expected_state == {"new_appointments": []}
            assert "not high severity" in t.reference_answer
        else:
            assert t.expected_state is None
    branches = [t.meta["branch"]["taken"] for t in tasks if t.intent == "interaction_branch"]
    assert 0.2 < sum(branches) / len(branches) < 0.8


def test_relative_dates_are_anchored_on_the_reference_date(tasks: list[Task]) -> None:
    today = dt.date.fromisoformat(REFERENCE_DATE)
    seen = 0
    for t in tasks:
        date = t.query_entities.get("date")
        if date is None:
            continue
        delta = (dt.date.fromisoformat(date) - today).days
        if "tomorrow" in t.query and "after tomorrow" not in t.query:
            assert delta == 1
            seen += 1
        if "day after tomorrow" in t.query:
            assert delta == 2
        m = re.search(r"in (\d+) days", t.query)
        if m:
            assert delta == int(m.group(1))
        m = re.search(r"(\w+day) next week", t.query)
        if m:
            assert 7 <= delta <= 13 and dt.date.fromisoformat(date).strftime("%A") == m.group(1)
    assert seen > 0


def test_reference_states_the_facts(tasks: list[Task]) -> None:
    meds = next(t for t in tasks if t.intent == "patient_medications")
    record = get_domain("medical").patients[meds.query_entities["patient_id"]]
    assert all(m in meds.reference_answer for m in record.medications)
    inter = next(t for t in tasks if t.intent == "drug_interaction"
                 and "severity high" in t.reference_answer)
    assert any(f.key == "severity" and f.value == "high" for f in inter.expected_facts)
    booked = next(t for t in tasks if t.intent == "schedule_direct")
    kinds = {f.kind for f in booked.expected_facts}
    assert kinds == {"id", "entity", "date", "time", "polar"}
    assert [f.key for f in booked.expected_facts if f.role == "asked"] == ["booked"]


def test_render_answer_accepts_any_observations(gen: MedicalGenerator,
                                                tasks: list[Task]) -> None:
    t = next(t for t in tasks if t.intent == "record_interaction")
    obs, _ = _replay(t)
    assert gen.render_answer(t, [])
    assert gen.expected_facts(t, []) == []
    short = gen.render_answer(t, obs[:1])
    assert "currently takes" in short and "severity" not in short
    err = error_observation("not_found", "no patient with id P777", "patient_id")
    failed = gen.render_answer(t, [err])
    assert "failed" in failed and "no patient with id P777" in failed
    # A corrupted observation (another patient) propagates into the answer.
    pid = t.query_entities["patient_id"]
    other = next(p for p in get_domain("medical").patients.values()
                 if p.patient_id != pid and set(p.medications).isdisjoint(obs[0]["medications"]))
    wrong = gen.render_answer(t, [other.record()])
    assert other.patient_id in wrong and pid not in wrong
    m = next(t for t in tasks if t.intent == "patient_medications")
    facts = gen.expected_facts(m, [other.record()])
    assert {f.value for f in facts if f.group == "medications"} == set(other.medications)
    # Extra observations (a re-query) are described too, never crash.
    assert gen.render_answer(t, obs + obs)
