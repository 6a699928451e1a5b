"""The draw-execute-render machinery every task generator shares: the intent schedule, the
gold-plan executor, and the loop that draws a task, executes its gold plan in a real
environment and retries (deterministically) when a draw does not make a good task.

Generators differ only in where a draw's randomness comes from: weather and calendar give
every task its own seeded stream (`fresh_attempts`), the others draw from one stream shared
by the whole domain (`shared_attempts`; knowledge draws the environment seed only when the
gold plan first needs it, after its target). A draw whose query another task of the domain
already has is redrawn too: `Suite.find_by_query` must name exactly one task."""

from __future__ import annotations

import hashlib
import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from agentprop.core import Difficulty, Fact, Task, ToolCall
from agentprop.domains import Environment, Observation, is_error


class GoldError(RuntimeError):
    """A gold call failed, or the draw does not make a good task (e.g. an empty day for
    "delete X"): the draw is discarded and drawn again."""


@dataclass
class Draft:
    """A task under construction: its gold plan is executed call by call as it is built, so
    later arguments come from real observations. The environment is opened when first
    used (`open_env`), so a draw may pick its target before the environment's seed."""

    open_env: Callable[[], Environment]
    id_prefix: str = "call"
    taken: set[str] = field(default_factory=set)
    """Keys earlier tasks of the domain claimed (a draw that must not repeat a target, as
    knowledge's article and field, claims its own here)."""
    query: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    observations: list[Observation] = field(default_factory=list)
    meta: dict[str, Any] = field(default_factory=dict)
    expected_state: dict[str, Any] | None = None
    asks: list[str] | None = None
    _env: Environment | None = field(default=None, init=False, repr=False)

    @property
    def env(self) -> Environment:
        if self._env is None:
            self._env = self.open_env()
        return self._env

    def ask(self, rng: random.Random, variants: Sequence[tuple[str, Sequence[str]]]) -> str:
        """Pick the query phrasing (`pick`) and record it and what it asks for."""
        self.query, self.asks = pick(rng, variants)
        return self.query

    def call(self, name: str, args: dict[str, Any]) -> Observation:
        """Execute one gold call; an error observation means the draw is unusable."""
        obs = self.env.call(name, args)
        if is_error(obs):
            raise GoldError(f"{name}({args}): {obs['error']}")
        self.calls.append(ToolCall(id=f"{self.id_prefix}_{len(self.calls) + 1}", name=name,
                                   arguments=dict(args)))
        self.observations.append(obs)
        return obs

    def __call__(self, name: str, **args: object) -> Observation:
        return self.call(name, args)


def pick(rng: random.Random, variants: Sequence[tuple[str, Sequence[str]]]
         ) -> tuple[str, list[str]]:
    """A query phrasing and what it asks for: each variant is (text, fact key patterns the
    text asks for). One `rng.choice`, as over the texts alone, so the drawn suite does not
    change."""
    text, asks = rng.choice(variants)
    return text, list(asks)


Builder = Callable[[Draft, random.Random], None]
# index of the task -> the (rng, env_seed) of each attempt at drawing it, drawn lazily; the
# seed may be how to draw it when the gold plan first needs the environment
Attempts = Callable[[int], Iterator[tuple[random.Random, int | Callable[[], int]]]]


def schedule(
    n: int, weights: Sequence[tuple[str, Difficulty, float]], rng: random.Random
) -> list[tuple[str, Difficulty]]:
    """Exactly `n` (intent, difficulty) slots in the given proportions (largest remainder),
    shuffled deterministically."""
    total = sum(w for _, _, w in weights)
    raw = [n * w / total for _, _, w in weights]
    counts = [int(r) for r in raw]
    order = sorted(range(len(raw)), key=lambda i: (counts[i] - raw[i], i))
    for i in order[: n - sum(counts)]:
        counts[i] += 1
    out = [(name, diff) for (name, diff, _), c in zip(weights, counts, strict=True)
           for _ in range(c)]
    rng.shuffle(out)
    return out


def sub_seed(seed: int, domain: str, i: int) -> int:
    h = hashlib.sha256(f"{seed}:{domain}:{i}".encode()).digest()
    return int.from_bytes(h[:4], "big") & 0x7FFFFFFF


def fresh_attempts(seed: int, domain: str, tries: int = 50) -> Attempts:
    """Each attempt at task `i` gets its own stream, so one task's redraws never shift
    another's."""

    def attempts(index: int) -> Iterator[tuple[random.Random, int]]:
        base = sub_seed(seed, domain, index)
        for attempt in range(tries):
            rng = random.Random(f"{base}:{attempt}")
            yield rng, rng.getrandbits(31)

    return attempts


def shared_attempts(rng: random.Random, tries: int, seed_first: bool = True) -> Attempts:
    """Every attempt at every task continues the one stream `rng`; the environment seed is
    drawn first, or (`seed_first=False`) when the gold plan first needs the environment."""

    def attempts(index: int) -> Iterator[tuple[random.Random, int | Callable[[], int]]]:
        for _ in range(tries):
            yield rng, (rng.randrange(2**31) if seed_first else lambda: rng.randrange(2**31))

    return attempts


def norm_query(text: str) -> str:
    """A query as `Suite.find_by_query` compares it: lower-case, whitespace collapsed."""
    return " ".join(text.lower().split())


def draw_task(
    *,
    domain: str,
    index: int,
    intent: str,
    difficulty: Difficulty,
    tools: list[str],
    make_env: Callable[[int], Environment],
    builder: Builder,
    render: Callable[[Task, list[Observation]], str],
    facts: Callable[[Task, list[Observation]], list[Fact]],
    attempts: Attempts,
    id_prefix: str = "call",
    used: set[str] | None = None,
    taken: set[str] | None = None,
) -> Task:
    """Draw, execute and render task `index`; redraw when the builder raises GoldError or
    when its query (normalised) is already in `used`, which the accepted query then joins:
    a query names exactly one task, so a served agent can find its task by the query.
    `taken` is the domain's `Draft.taken`."""
    last: Exception | None = None
    for rng, seed in attempts(index):

        def open_env(seed: int | Callable[[], int] = seed) -> Environment:
            return make_env(seed if isinstance(seed, int) else seed())

        draft = Draft(open_env=open_env, id_prefix=id_prefix,
                      taken=taken if taken is not None else set())
        try:
            builder(draft, rng)
            key = norm_query(draft.query)
            if used is not None and key in used:
                raise GoldError(f"query already used: {draft.query!r}")
        except GoldError as e:
            last = e
            continue
        if used is not None:
            used.add(key)
        task = Task(
            id=f"{domain}_{index:04d}", domain=domain, split="test", difficulty=difficulty,
            intent=intent, query=draft.query, tools=tools, env_seed=draft.env.seed,
            gold_plan=draft.calls, reference_answer="", expected_state=draft.expected_state,
            meta=draft.meta, asks=draft.asks or [],
        )
        task.reference_answer = render(task, draft.observations)
        task.expected_facts = facts(task, draft.observations)
        return task
    raise RuntimeError(f"could not draw a {domain}/{intent} task: {last}")


def draw_tasks(
    *,
    domain: str,
    plan: list[tuple[str, Difficulty]],
    builders: Mapping[str, Builder],
    tools: list[str],
    make_env: Callable[[int], Environment],
    render: Callable[[Task, list[Observation]], str],
    facts: Callable[[Task, list[Observation]], list[Fact]],
    attempts: Attempts,
    id_prefix: str = "call",
) -> list[Task]:
    """One task per scheduled (intent, difficulty) slot, with ids numbered from 1 and no
    two queries alike."""
    used: set[str] = set()
    taken: set[str] = set()
    return [
        draw_task(domain=domain, index=i, intent=intent, difficulty=diff, tools=tools,
                  make_env=make_env, builder=builders[intent], render=render, facts=facts,
                  attempts=attempts, id_prefix=id_prefix, used=used, taken=taken)
        for i, (intent, diff) in enumerate(plan, start=1)
    ]

