"""The paper's substring rule, pinned case by case."""

from __future__ import annotations

import pytest

from agentprop.judges import get_judge, heuristic_correct
from tests.judges.conftest import WEATHER, make_trace


@pytest.mark.parametrize(
    ("reference", "answer", "expected"),
    [
        # prefix rule: R[:20] within A[:200], case-insensitive
        ("It is 14 C in London", "IT IS 14 C IN LONDON today", True),
        ("It is 14 C in London", "x" * 150 + "it is 14 c in london", True),
        # ... but only within the first 200 characters of the answer
        ("It is 14 C in London", "x" * 190 + "it is 14 c in london", False),
        # token rule: one of R's first three tokens, longer than 3 chars, anywhere in A
        ("Severity: high for warfarin", "the severity: is unknown", True),
        ("Severity: high for warfarin", "x" * 500 + " high", True),
        ("Severity: high for warfarin", "for sure", False),  # "for" has only 3 chars
        ("a b c warfarin", "warfarin", False),  # only the first three tokens count
        ("Paris", "Paris is nice", True),
        # substring, not word: "high" inside "highway" counts
        ("x y high", "the highway", True),
        # empty reference → incorrect, whatever the answer
        ("", "", False),
        ("", "anything", False),
        # missing answer is "" → incorrect
        ("It is 14 C", None, False),
        ("It is 14 C", "", False),
    ],
)
def test_rule(reference: str, answer: str | None, expected: bool) -> None:
    assert heuristic_correct(reference, answer) is expected


async def test_judge_wraps_rule() -> None:
    j = get_judge("heuristic")
    assert j.name == "heuristic"
    ans = "tomorrow (2025-06-17) in london: 14 °c"
    good = await j.judge(make_trace("t1", WEATHER, ans), WEATHER)
    bad = await j.judge(make_trace("t2", WEATHER, "No idea."), WEATHER)
    none = await j.judge(make_trace("t3", WEATHER, None), WEATHER)
    assert (good.correct, bad.correct, none.correct) == (True, False, False)
