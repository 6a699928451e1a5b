"""The mitigation × fault-class matrix: every built-in mitigation (or the ones named)
evaluated over every fault class, each against its own concurrent control.

Each mitigation is one paired evaluation (`run_evaluation` with its guard: a run of its
own, so it resumes on its own and its control is concurrent with it), over the fault
classes plus the clean `baseline` condition, which gives its false-alarm cost. The cells
are computed by the analysis (`analysis.guard_matrix`) from the stored traces, so the
CLI, `analyze --json` and the report read one set of numbers.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from agentprop.app._intercept import InterceptError, run_evaluation
from agentprop.inject import expand_conditions
from agentprop.intercept import InterceptConfig, builtin_names, resolve_guard

if TYPE_CHECKING:
    from agentprop.models import Model
    from agentprop.runner import EpisodeExecutor
    from agentprop.store import Workspace
    from agentprop.suite import Suite

def matrix_conditions(api: bool = True) -> list[str]:
    """Every fault class the matrix covers, in the families' order: the P2 types, `out:*`,
    `fault:*`, and (with `api`) the model-API faults."""
    return expand_conditions(["p2:all", "out:all", "fault:all", *(["api:all"] if api else [])])


def run_matrix(
    ws: Workspace,
    *,
    suite: Suite,
    models: Sequence[str],
    config: InterceptConfig,
    mitigations: Sequence[str] | None = None,
    conditions: Sequence[str] | None = None,
    split: str = "test",
    n: int | None = 100,
    seed: int = 0,
    concurrency: int = 32,
    judge: str | None = None,
    progress: bool = False,
    runtime_models: Mapping[str, Model] | None = None,
    executor: EpisodeExecutor | None = None,
    on_done: Callable[[str, dict[str, Any]], None] | None = None,
    **options: Any,
) -> dict[str, Any]:
    """Evaluate each mitigation over `conditions` (default `matrix_conditions()`) plus the
    clean baseline; return {mitigations, conditions, runs (mitigation → run id), cells}.
    `cells` are the per-(mitigation, model, condition) A/B rows of each evaluation.
    Resumable: a rerun skips the stored units of every mitigation."""
    names = list(mitigations) if mitigations else builtin_names()
    specs = [resolve_guard(name, config) for name in names]  # a bad name before any run
    if any(s.in_agent for s in specs):
        raise InterceptError("the matrix runs agentprop guards; a framework's guard runs "
                             "with `intercept evaluate --agent ... --guard`")
    conds = list(conditions) if conditions else matrix_conditions(api=executor is None)
    if "baseline" not in conds:
        conds.append("baseline")
    runs: dict[str, str] = {}
    cells: list[dict[str, Any]] = []
    for spec in specs:
        result = run_evaluation(
            ws, suite=suite, models=models, config=config, split=split, n=n,
            conditions=conds, seed=seed, concurrency=concurrency, judge=judge,
            progress=progress, runtime_models=runtime_models, executor=executor,
            guard=spec, store_summary=False, **options)
        runs[spec.name] = result["run_id"]
        cells += [{"mitigation": spec.name, **row} for row in result["ab"]]
        if on_done is not None:
            on_done(spec.name, result)
    return {"mitigations": names, "conditions": conds, "runs": runs,
            "config": config.model_dump(mode="json"), "cells": cells}


__all__ = ["matrix_conditions", "run_matrix"]
