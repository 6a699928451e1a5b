"""The contract between the suite and each domain's task generator."""

from __future__ import annotations

import fnmatch
from collections.abc import Sequence
from typing import ClassVar

from agentprop.core import Fact, Registry, Task
from agentprop.domains import Observation


class TaskGenerator:
    """Generates a domain's tasks and renders answers from observations.

    `generate` returns `n` tasks with ids ``<domain>_<NNNN>`` (1-based, zero-padded to 4),
    split "test" (the suite assigns splits), a concrete gold plan, and the reference and
    facts obtained by *executing* that plan in ``domain.make_env(task.env_seed)`` and
    calling `render_answer` / `expected_facts` on its observations. Deterministic in `seed`.

    `render_answer` is also what simulated agents use to phrase their answers from the
    observations they actually received (which may be corrupted or errors), so it must
    accept any list of observations for the task's plan, including error observations
    and a shorter list.
    """

    domain: ClassVar[str]

    def generate(self, n: int, seed: int) -> list[Task]:
        raise NotImplementedError

    def render_answer(self, task: Task, observations: list[Observation]) -> str:
        raise NotImplementedError

    def expected_facts(self, task: Task, observations: list[Observation]) -> list[Fact]:
        """The facts the observations establish, each asked or context as `task.asks`
        says (so they follow from the task and its observations alone)."""
        return mark_asked(self.facts(task, observations), task.asks)

    def facts(self, task: Task, observations: list[Observation]) -> list[Fact]:
        """The facts the observations establish (roles not yet set)."""
        raise NotImplementedError


def mark_asked(facts: list[Fact], asks: Sequence[str]) -> list[Fact]:
    """Set each fact's role from what the query asks (key patterns, fnmatch-style): asked
    when its key matches one, context otherwise. No patterns leave the roles as given."""
    if not asks:
        return facts
    return [f.model_copy(update={"role": "asked" if any(fnmatch.fnmatchcase(f.key, p)
                                                       for p in asks) else "context"})
            for f in facts]


GENERATORS: Registry[type[TaskGenerator]] = Registry("task generator")
