"""The contract between the suite and each domain's task generator."""

from __future__ import annotations

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
        raise NotImplementedError


GENERATORS: Registry[type[TaskGenerator]] = Registry("task generator")
