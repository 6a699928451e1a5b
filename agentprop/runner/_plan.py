"""Work units: what a run consists of, in the order they start."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from agentprop.core import Task, WorkUnit, stable_hash
from agentprop.runner._errors import RunError

MAX_SEED = 2**31 - 1
"""The largest episode seed: seeds reach the providers (Gemini's is a 32-bit integer)."""


def check_seeds(seeds: Iterable[int]) -> None:
    """RunError for a seed outside 0..MAX_SEED (checked before anything is written)."""
    for seed in seeds:
        if not 0 <= seed <= MAX_SEED:
            raise RunError(f"invalid seed {seed}: seeds run from 0 to {MAX_SEED:,}")


def plan_units(
    run_id: str,
    models: Sequence[str],
    tasks: Iterable[Task | str],
    conditions: Sequence[str],
    seeds: Sequence[int] = (0,),
    arms: Sequence[str] = ("",),
) -> list[WorkUnit]:
    """One unit per seed × task × model × condition × arm, interleaved.

    Order: seeds outermost (a partial run holds whole replicates), then tasks, then every
    model × condition × arm combination of that task back to back. So units of different
    models, conditions and arms alternate in start order: a rate limit or an outage hits
    them alike, and paired arms of one task run at the same time. Duplicates are dropped.
    A seed outside 0..MAX_SEED is a RunError.
    """
    check_seeds(seeds)
    combos = [(m, c, a) for m in models for c in conditions for a in arms]
    task_ids = [t if isinstance(t, str) else t.id for t in tasks]
    units: list[WorkUnit] = []
    seen: set[str] = set()
    for seed in seeds:
        for task_id in task_ids:
            for model, condition, arm in combos:
                unit = WorkUnit(
                    run_id=run_id,
                    model=model,
                    task_id=task_id,
                    condition=condition,
                    seed=seed,
                    arm=arm,
                )
                if unit.key not in seen:
                    seen.add(unit.key)
                    units.append(unit)
    return units


def default_run_id(config: dict[str, Any]) -> str:
    """A run id derived from what determines the run's traces, so rerunning the same
    command resumes the same run. `config` must not contain secrets."""
    return "run-" + stable_hash(config)[:12]
