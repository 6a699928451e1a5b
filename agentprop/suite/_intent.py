"""A suite intent as one unit, as AgentDojo keeps one task in one place: an `Intent` class
holds how its query is phrased and its gold plan drawn (`build`), what it says of an
observation where the domain's sentence for that kind does not say it (`sentence`), the
sentence that answers it from the observations (`conclusion`), which later observations a
faithful agent would have made (`follows`) and the facts the observations establish
(`facts`; asked or context by what the drawn phrasing asks, `Draft.ask`). Each domain's
suite module registers its intents in an `Intents` table, whose order is the intent mix
the schedule draws from.

`IntentGenerator` is the reference rendering every domain shares: one sentence per
observation, then the intent's conclusion, both from the observations up to the first one
that does not follow from the earlier ones, or that the domain cannot read."""

from __future__ import annotations

import random
from typing import ClassVar, Generic, TypeVar

from agentprop.core import Difficulty, Fact, Task
from agentprop.domains import Observation, is_error
from agentprop.suite._draw import Builder, Draft
from agentprop.suite._generator import TaskGenerator

UNREADABLE = (KeyError, TypeError, ValueError, IndexError, AttributeError)
"""What reading an observation of an unexpected shape raises in a domain's sentences (a
field renamed or missing, `out:schema_drift`, `out:partial`)."""


class Intent:
    """One kind of task of a domain. The defaults are what an intent without that part
    says (no conclusion, every step follows, no facts); an unknown intent gets them all."""

    name: ClassVar[str]
    difficulty: ClassVar[Difficulty]
    weight: ClassVar[float]
    """Share of the domain's tasks (`schedule` normalises the weights)."""

    def build(self, d: Draft, rng: random.Random) -> None:
        """Phrase the query (`d.ask`) and execute the gold plan call by call (`d.call`);
        raise `GoldError` when the draw does not make a good task."""
        raise NotImplementedError(f"intent {type(self).__name__} draws no tasks")

    def sentence(self, task: Task, seen: list[Observation], o: Observation) -> str | None:
        """What the intent says of `o` (the observations `seen` before it), or None for the
        domain's sentence for its kind (e.g. a comparison once both prices are in)."""
        return None

    def conclusion(self, task: Task, obs: list[Observation]) -> str:
        """The sentence that answers the query from `obs` ('' if they cannot give it)."""
        return ""

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        """Whether `o` is what a faithful agent gets after `prev` (the chained argument:
        the id found in the listing, the warmer city...). May raise on malformed input."""
        return True

    def facts(self, task: Task, obs: list[Observation]) -> list[Fact]:
        """The facts `obs` (none of them an error) establish, roles not yet set."""
        return []


IntentT = TypeVar("IntentT", bound=Intent)


class Intents(Generic[IntentT]):
    """A domain's intents in registration order: the order fixes the schedule, so seeded
    generation depends on it. `fallback` answers for a task whose intent is unknown."""

    def __init__(self, domain: str, fallback: type[IntentT]) -> None:
        self.domain = domain
        self.fallback = fallback
        self._items: dict[str, type[IntentT]] = {}

    def register(self, cls: type[IntentT]) -> type[IntentT]:
        """Class decorator: add `cls` (after the ones already registered)."""
        if cls.name in self._items:
            raise ValueError(f"{self.domain} intent {cls.name!r} registered twice")
        self._items[cls.name] = cls
        return cls

    def get(self, name: str) -> IntentT:
        return self._items.get(name, self.fallback)()

    def names(self) -> list[str]:
        return list(self._items)

    def mix(self) -> list[tuple[str, Difficulty, float]]:
        """(intent, difficulty, weight) in registration order, for `schedule`."""
        return [(c.name, c.difficulty, c.weight) for c in self._items.values()]

    def builders(self) -> dict[str, Builder]:
        return {name: cls().build for name, cls in self._items.items()}


class IntentGenerator(TaskGenerator):
    """Renders references and facts through the task's intent, from the observations that
    are consistent with the chain (after a corrupted first observation, a faithful agent's
    later gold lookups would not have been made)."""

    intents: ClassVar[Intents[Intent]]
    nothing: ClassVar[str]
    """The reference when no observation is left to state."""
    whole_chain: ClassVar[bool] = True
    """Facts only when no observation failed (a chain's later facts rest on the earlier
    ones); False: each observation that did not fail states its facts."""

    def sentence(self, task: Task, i: int, o: Observation) -> str:
        """What observation `i` says (its kind decides, not the intent)."""
        raise NotImplementedError

    def follows(self, task: Task, prev: list[Observation], o: Observation) -> bool:
        """The domain's guard around `Intent.follows` (errors, exceptions)."""
        raise NotImplementedError

    def consistent_prefix(self, task: Task, observations: list[Observation]
                          ) -> list[Observation]:
        """The observations up to the first one that does not follow from the earlier ones."""
        for i in range(len(observations)):
            try:
                follows = self.follows(task, observations[:i], observations[i])
            except UNREADABLE:  # a shape the domain's guard did not expect: does not follow
                follows = False
            if not follows:
                return observations[:i]
        return observations

    def render_answer(self, task: Task, observations: list[Observation]) -> str:
        """The answer from the consistent observations; an observation the domain cannot
        read (a renamed or missing field) ends it where it sits, as one that does not
        follow does, so a simulated agent never crashes on a drifted or partial result."""
        observations = self.consistent_prefix(task, observations)
        for n in range(len(observations), 0, -1):
            try:
                return self._rendered(task, observations[:n])
            except UNREADABLE:
                continue
        return self.nothing

    def _rendered(self, task: Task, observations: list[Observation]) -> str:
        intent = self.intents.get(task.intent)
        parts = []
        for i, o in enumerate(observations):
            said = intent.sentence(task, observations[:i], o)
            parts.append(self.sentence(task, i, o) if said is None else said)
        if not parts:
            return self.nothing
        tail = intent.conclusion(task, observations)
        return " ".join([*parts, tail] if tail else parts)

    def facts(self, task: Task, observations: list[Observation]) -> list[Fact]:
        obs = self.consistent_prefix(task, observations)
        if not obs or (self.whole_chain and any(is_error(o) for o in obs)):
            return []
        return self.intents.get(task.intent).facts(task, obs)
