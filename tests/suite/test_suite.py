"""The assembled suite: exact counts, determinism, grounded references, every gold plan passes."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from agentprop.suite import (
    DOMAIN_COUNTS,
    Suite,
    SuiteError,
    build_suite,
    check_suite,
    check_task,
    load_suite,
)
from agentprop.suite._check import fact_in_text, state_matches


@pytest.fixture(scope="module")
def suite() -> Suite:
    return build_suite()


def test_counts_match_the_published_suite(suite: Suite) -> None:
    st = suite.stats()
    assert st["total"] == 2300
    assert st["by_domain"] == DOMAIN_COUNTS
    assert set(st["by_difficulty"]) == {"easy", "medium", "hard"}
    for dom in DOMAIN_COUNTS:
        diffs = Counter(t.difficulty for t in suite.select(domain=dom))
        assert len(diffs) >= 2, dom
    val = st["by_split"]["val"] / st["total"]
    assert 0.07 < val < 0.13


def test_build_is_deterministic_and_seed_sensitive(suite: Suite) -> None:
    assert build_suite().checksum == suite.checksum
    assert build_suite(seed=7).checksum != suite.checksum


def test_every_gold_plan_passes_the_check(suite: Suite) -> None:
    failures = check_suite(suite)
    assert failures == [], failures[:10]


def test_check_detects_a_reference_without_its_facts(suite: Suite) -> None:
    task = suite.select(domain="weather")[0].model_copy(deep=True)
    task.reference_answer = "Weather analysis done."
    problems = [f.problem for f in check_task(task)]
    assert any("not in the reference" in p for p in problems)


def test_ids_unique_and_queries_findable(suite: Suite) -> None:
    assert len({t.id for t in suite}) == len(suite)
    t = suite.select(domain="medical", split="test")[3]
    assert suite.find_by_query("  " + t.query.upper() + " ") is t


def test_roundtrip_file_and_tamper_detection(suite: Suite, tmp_path: Path) -> None:
    p = tmp_path / "s.jsonl"
    suite.to_jsonl(p)
    again = load_suite(p)
    assert again.checksum == suite.checksum and len(again) == 2300
    lines = p.read_text().splitlines()
    task = json.loads(lines[5])
    task["query"] = "tampered"
    lines[5] = json.dumps(task)
    p.write_text("\n".join(lines) + "\n")
    with pytest.raises(SuiteError, match="checksum"):
        load_suite(p)


@pytest.mark.parametrize(
    "content", ["", "not json\n", '{"a": 1}\n', '{"suite_version": "1"}\n{"id": 3}\n']
)
def test_invalid_suite_file_is_a_suite_error(tmp_path: Path, content: str) -> None:
    p = tmp_path / "bad.jsonl"
    p.write_text(content)
    with pytest.raises(SuiteError):
        load_suite(p)


def test_fact_and_state_matching_rules() -> None:
    from agentprop.core import Fact

    assert fact_in_text(Fact(kind="number", key="t", value=14.0, unit="°C"), "It is 14 °C.")
    assert not fact_in_text(Fact(kind="number", key="t", value=15.0), "It is 14 °C.")
    assert fact_in_text(Fact(kind="entity", key="c", value="Tokyo"), "in tokyo today")
    assert state_matches({"events": [{"id": "E1"}]}, {"events": [{"id": "E1", "t": 1}], "x": 2})
    assert not state_matches({"events": [{"id": "E2"}]}, {"events": [{"id": "E1"}]})
    # an empty expected list means "none": booking something anyway does not match
    assert state_matches({"new_appointments": []}, {"new_appointments": []})
    assert not state_matches({"new_appointments": []}, {"new_appointments": [{"id": "A1"}]})
