"""Deterministic, stratified task samples (used by runs, evaluations and experiments)."""

from __future__ import annotations

import random
from collections import defaultdict

from agentprop.core import Task
from agentprop.domains import get_domain
from agentprop.suite._suite import Suite


def select_tasks(
    suite: Suite,
    *,
    domains: list[str] | None,
    split: str | None,
    n: int | None,
    seed: int,
    injectable_only: bool = False,
) -> list[Task]:
    """A deterministic sample of `n` tasks balanced over domain × difficulty strata."""
    pool = suite.select(domain=domains, split=split)
    if injectable_only:
        pool = [t for t in pool if get_domain(t.domain).injectable]
    if n is None or n >= len(pool):
        return pool
    strata: dict[tuple[str, str], list[Task]] = defaultdict(list)
    for t in pool:
        strata[(t.domain, t.difficulty)].append(t)
    rng = random.Random(seed)
    keys = sorted(strata)
    for k in keys:
        rng.shuffle(strata[k])
    chosen: list[Task] = []
    i = 0
    while len(chosen) < n:
        progressed = False
        for k in keys:
            if i < len(strata[k]) and len(chosen) < n:
                chosen.append(strata[k][i])
                progressed = True
        if not progressed:
            break
        i += 1
    order = {t.id: j for j, t in enumerate(pool)}
    return sorted(chosen, key=lambda t: order[t.id])
