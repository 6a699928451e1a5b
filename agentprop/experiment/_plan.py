"""From an experiment config to concrete work: task selection, units, call/token/cost estimates."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel, Field

from agentprop.app import (
    ModelCost,
    PlanError,
    RunConfig,
    check_domains,
    estimate,
    known_domains,
    plan_run,
)
from agentprop.core import WorkUnit
from agentprop.experiment._config import ConfigError, ExperimentConfig
from agentprop.runner._budget import is_free
from agentprop.suite import Suite

if TYPE_CHECKING:
    from agentprop.app._intercept import EvalPlan

# Judges read question + reference + answer (the agents' sizes: runner/_budget.py).
JUDGE_INPUT_TOKENS = 420
JUDGE_OUTPUT_TOKENS = 3


class StepPlan(BaseModel):
    """One step of the study and what it will cost, in total and per model."""

    name: str
    kind: str
    units: list[WorkUnit] = Field(default_factory=list, exclude=True)
    n_units: int = 0
    models: list[str] = Field(default_factory=list)
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0
    per_model: list[ModelCost] = Field(default_factory=list)
    note: str = ""

    def model_row(self, model: str) -> ModelCost:
        for row in self.per_model:
            if row.model == model:
                return row
        row = ModelCost(model=model)
        self.per_model.append(row)
        return row


class Plan(BaseModel):
    name: str
    steps: list[StepPlan]

    @property
    def totals(self) -> dict[str, float]:
        """Sums over the steps; `units` counts agent episodes only (a judge step's units
        are the same traces again)."""
        return {
            "units": sum(s.n_units for s in self.steps if s.kind in ("run", "evaluate")),
            "model_calls": sum(s.model_calls for s in self.steps),
            "input_tokens": sum(s.input_tokens for s in self.steps),
            "output_tokens": sum(s.output_tokens for s in self.steps),
            "cost_usd": round(sum(s.cost_usd for s in self.steps), 4),
        }

    def model_totals(self) -> list[ModelCost]:
        """Each model's sums over the steps (agent and judge calls alike)."""
        out: dict[str, ModelCost] = {}
        for s in self.steps:
            for row in s.per_model:
                out.setdefault(row.model, ModelCost(model=row.model)).add(row)
        for row in out.values():
            row.cost_usd = round(row.cost_usd, 4)
        return list(out.values())

    def rows(self) -> list[dict[str, Any]]:
        """The plan as flat rows, one per step × model (a step without model calls has
        one row with model None): what `--dry-run` prints and `--json` gives."""
        rows: list[dict[str, Any]] = []
        for s in self.steps:
            if not s.per_model:
                rows.append({"step": s.name, "kind": s.kind, "model": None,
                             "units": s.n_units, "model_calls": s.model_calls,
                             "input_tokens": s.input_tokens,
                             "output_tokens": s.output_tokens, "cost_usd": s.cost_usd})
            for r in s.per_model:
                rows.append({"step": s.name, "kind": s.kind, **r.model_dump()})
        return rows


def _seed_for(*parts: object) -> int:
    return int.from_bytes(hashlib.sha256(repr(parts).encode()).digest()[:8], "big") >> 1


def _estimate_agent(step: StepPlan, suite: Suite, prices: object) -> None:
    """The step's agent calls, tokens and cost, per model (the planner's estimate)."""
    est = estimate(step.units, suite, prices, models=step.models)
    step.per_model = est.per_model
    for row in step.per_model:
        step.model_calls += row.model_calls
        step.input_tokens += row.input_tokens
        step.output_tokens += row.output_tokens
        step.cost_usd += row.cost_usd
    if est.unpriced:
        step.note = "; ".join(
            x for x in (step.note, f"no price for {', '.join(est.unpriced)}: counted as $0")
            if x
        )


def _judge_models(judge: str) -> list[str]:
    if judge.startswith("llm:"):
        return [judge[4:]]
    if judge.startswith("ensemble:"):
        return [m for m in judge[len("ensemble:") :].split(",") if m]
    return []


def evaluation_plan(cfg: ExperimentConfig, suite: Suite) -> EvalPlan:
    """The interceptor evaluation's paired units (the config only matters at run time)."""
    from agentprop.app._intercept import InterceptError, plan_evaluation
    from agentprop.intercept import InterceptConfig

    assert cfg.evaluate is not None
    ev = cfg.evaluate
    try:
        return plan_evaluation(
            suite,
            models=ev.models,
            config=InterceptConfig(mode=ev.mode),
            split=ev.split,
            n=ev.n,
            conditions=ev.conditions,
            seed=ev.seed,
            domains=ev.domains,
            run_id=f"{cfg.name}:evaluate",
        )
    except InterceptError as e:
        raise ConfigError(f"evaluate: {e}") from None


def _check_domains(cfg: ExperimentConfig, suite: Suite) -> None:
    """A misspelt domain would silently select no tasks; say so (and where) instead."""
    blocks: list[tuple[str, list[str] | None]] = [(f"runs.{r.name}", r.domains) for r in cfg.runs]
    if cfg.sweep:
        blocks.append(("sweep", cfg.sweep.domains))
    if cfg.evaluate:
        blocks.append(("evaluate", cfg.evaluate.domains))
    for where, domains in blocks:
        try:
            check_domains(suite, domains)
        except PlanError as e:
            raise ConfigError(f"{where}: {e}") from None


def _units(suite: Suite, run_id: str, models: list[str], conditions: list[str],
           domains: list[str] | None, split: str | None, n: int | None,
           seeds: list[int], sample_seed: Callable[[str], int]) -> list[WorkUnit]:
    """A block's units, planned model by model: each model gets its own task sample (its
    own sample seed) and its units follow the previous model's. `domains` None: all of
    the suite's domains."""
    units: list[WorkUnit] = []
    for model in models:
        plan = plan_run(suite, RunConfig(
            models=(model,), conditions=tuple(conditions), seeds=tuple(seeds),
            domains=tuple(domains) if domains is not None else tuple(known_domains(suite)),
            split=split, n=n, sample_seed=sample_seed(model), sample_injectable=True,
            run_id=run_id))
        units += plan.units
    return units


def build_plan(cfg: ExperimentConfig, suite: Suite, prices: object = None) -> Plan:
    """Every unit the study will run, grouped in steps, with estimated calls and cost."""
    from agentprop.core import Usage
    from agentprop.models._prices import price_table

    _check_domains(cfg, suite)
    steps: list[StepPlan] = []
    agent_units: list[WorkUnit] = []
    for block in cfg.runs:
        units = _units(suite, f"{cfg.name}:{block.name}", block.models, block.conditions,
                       block.domains, block.split, block.n, block.seeds,
                       partial(_seed_for, cfg.name, block.name))
        step = StepPlan(
            name=block.name, kind="run", units=units, n_units=len(units), models=block.models
        )
        _estimate_agent(step, suite, prices)
        steps.append(step)
        agent_units += units
    if cfg.sweep:
        sw = cfg.sweep
        units = _units(suite, f"{cfg.name}:sweep", sw.models, sw.conditions, sw.domains,
                       sw.split, sw.n, [0], partial(_seed_for, cfg.name, "sweep"))
        step = StepPlan(
            name="interceptor-sweep-traces",
            kind="run",
            units=units,
            n_units=len(units),
            models=sw.models,
            note=f"{sw.split} traces replayed offline over 12 configurations",
        )
        _estimate_agent(step, suite, prices)
        steps.append(step)
        agent_units += units
    if cfg.evaluate:
        ev = cfg.evaluate
        ev_plan = evaluation_plan(cfg, suite)
        step = StepPlan(
            name="interceptor-evaluate",
            kind="evaluate",
            units=ev_plan.units,
            n_units=len(ev_plan.units),
            models=ev.models,
            note=f"paired control/treatment, config {ev.config}, mode {ev.mode}",
        )
        _estimate_agent(step, suite, prices)
        steps.append(step)
        agent_units += ev_plan.units
    table = price_table(prices)
    for judge in cfg.judges:
        members = _judge_models(judge)
        step = StepPlan(
            name=f"judge {judge}", kind="judge", n_units=len(agent_units), models=members
        )
        for m in members:
            step.model_calls += len(agent_units)
            tin, tout = (
                JUDGE_INPUT_TOKENS * len(agent_units),
                JUDGE_OUTPUT_TOKENS * len(agent_units),
            )
            step.input_tokens += tin
            step.output_tokens += tout
            cost = 0.0 if is_free(m) else table.cost(m, Usage(input_tokens=tin,
                                                              output_tokens=tout))
            step.cost_usd += cost
            step.model_row(m).add(ModelCost(model=m, units=len(agent_units),
                                            model_calls=len(agent_units), input_tokens=tin,
                                            output_tokens=tout, cost_usd=cost))
        steps.append(step)
    if cfg.labels:
        steps.append(
            StepPlan(
                name="label sample",
                kind="labels",
                note=f"{cfg.labels.n} traces stratified by {','.join(cfg.labels.by)}",
            )
        )
    if cfg.report:
        steps.append(StepPlan(name="report", kind="report"))
    for s in steps:
        s.cost_usd = round(s.cost_usd, 4)
        for row in s.per_model:
            row.cost_usd = round(row.cost_usd, 4)
    return Plan(name=cfg.name, steps=steps)
