"""What the facts judge's tests share: the built-in suite and its vocabulary as fixtures
(named `suite` and `vocab` in the modules that import them; conftest's `suite` is the
hand-made one), and the judge's verdict on one answer to a real task."""

from __future__ import annotations

import pytest

from agentprop.judges import check_answer
from agentprop.judges._entities import Vocabulary, query_vocabulary
from agentprop.suite import Suite, load_suite


@pytest.fixture(scope="module", name="suite")
def real_suite() -> Suite:
    return load_suite()


@pytest.fixture(scope="module", name="vocab")
def real_vocab(suite: Suite) -> Vocabulary:
    return query_vocabulary(suite.tasks)


def facts_ok(suite: Suite, vocab: Vocabulary, tid: str, answer: str) -> bool | None:
    """The facts judge's verdict on `answer` to the suite task `tid`."""
    task = suite.get(tid)
    assert task is not None, tid
    return check_answer(task, answer, vocabulary=vocab)[0]
