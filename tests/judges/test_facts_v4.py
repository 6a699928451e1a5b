"""The facts judge v4: each test pins one family of wrong verdicts (found on the 2026
held-out set once it was scored, or by probing the families the v3 notes list as weak),
with phrasings of its own."""

from __future__ import annotations

import pytest

from agentprop.judges import check_answer
from agentprop.judges._entities import Vocabulary, query_vocabulary
from agentprop.suite import Suite, load_suite


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite()


@pytest.fixture(scope="module")
def vocab(suite: Suite) -> Vocabulary:
    return query_vocabulary(suite.tasks)


def _ok(suite: Suite, vocab: Vocabulary, tid: str, answer: str) -> bool | None:
    task = suite.get(tid)
    assert task is not None, tid
    return check_answer(task, answer, vocabulary=vocab)[0]


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
