"""Every query names exactly one task, so a served agent can find its task by the query."""

from __future__ import annotations

import random
from collections import Counter
from typing import Any

import pytest

from agentprop.core import Fact, Task
from agentprop.domains import Observation, get_domain
from agentprop.suite import Suite, SuiteError, build_suite, load_suite
from agentprop.suite import _suite as suite_mod
from agentprop.suite._draw import Draft, draw_tasks, fresh_attempts, norm_query


@pytest.fixture(scope="module")
def suite() -> Suite:
    return load_suite()


def test_every_normalised_query_is_unique(suite: Suite) -> None:
    counts = Counter(norm_query(t.query) for t in suite)
    shared = [q for q, n in counts.items() if n > 1]
    assert shared == []
    assert len(counts) == len(suite) == 2300


def test_find_by_query_returns_the_task_itself(suite: Suite) -> None:
    for t in suite:
        assert suite.find_by_query(t.query) is t
        assert suite.find_by_query(f"  {t.query.upper()} ") is t


def _draw(pool: list[str], n: int) -> list[Task]:
    """`n` tasks whose builder picks its query from `pool`."""
    env = get_domain("calendar")

    def builder(d: Draft, rng: random.Random) -> None:
        d.query = rng.choice(pool)

    def render(task: Task, obs: list[Observation]) -> str:
        return "ok"

    def facts(task: Task, obs: list[Observation]) -> list[Fact]:
        return []

    return draw_tasks(
        domain="calendar", plan=[("list_events", "easy")] * n,
        builders={"list_events": builder}, tools=[], make_env=env.make_env,
        render=render, facts=facts, attempts=fresh_attempts(3, "calendar"),
    )


def test_draw_redraws_a_query_already_used_in_the_domain() -> None:
    # spellings differing only in case and spacing are the same query
    tasks = _draw(["What is on my calendar?", "what  is on MY calendar?", "Q two", "Q three"], 3)
    assert sorted(norm_query(t.query) for t in tasks) == [
        "q three", "q two", "what is on my calendar?"]


def test_draw_fails_loudly_when_an_intent_runs_out_of_queries() -> None:
    with pytest.raises(RuntimeError, match="query already used"):
        _draw(["only one", "ONLY  one"], 2)


def test_build_suite_names_a_shared_query(monkeypatch: pytest.MonkeyPatch,
                                          suite: Suite) -> None:
    """A generator that repeats another domain's query is rejected, naming both tasks."""
    template = suite.tasks[0]

    class Echo:
        def __init__(self, domain: str) -> None:
            self.domain = domain

        def generate(self, n: int, seed: int) -> list[Task]:
            return [template.model_copy(update={"id": f"{self.domain}_{i:04d}",
                                                "domain": self.domain, "query": f"Query {i}?"})
                    for i in range(1, n + 1)]

    def fake(domain: str) -> Any:
        return Echo(domain)

    monkeypatch.setattr(suite_mod, "get_generator", fake)
    with pytest.raises(SuiteError, match=r"calendar_0001 and weather_0001 share the query"):
        build_suite()
