"""From an experiment config to concrete work: task selection, units, call/token/cost estimates."""

from __future__ import annotations

import hashlib
from typing import Any

from pydantic import BaseModel, Field

from agentprop.core import WorkUnit
from agentprop.experiment._config import ConfigError, ExperimentConfig
from agentprop.runner._budget import estimate_unit, is_free
from agentprop.suite import Suite, select_tasks

# Judges read question + reference + answer (the agents' sizes: runner/_budget.py).
JUDGE_INPUT_TOKENS = 420
JUDGE_OUTPUT_TOKENS = 3


class ModelCost(BaseModel):
    """One model's share of a step (or of the whole study)."""

    model: str
    units: int = 0
    model_calls: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0

    def add(self, other: ModelCost) -> None:
        self.units += other.units
        self.model_calls += other.model_calls
        self.input_tokens += other.input_tokens
        self.output_tokens += other.output_tokens
        self.cost_usd += other.cost_usd


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
    from agentprop.core import Usage
    from agentprop.models._prices import price_table

    table = price_table(prices)
    unpriced: set[str] = set()
    for m in step.models:
        step.model_row(m)
    for u in step.units:
        e = estimate_unit(suite.get(u.task_id))
        tin, tout = e.input_tokens, e.output_tokens
        row = step.model_row(u.model)
        row.units += 1
        row.model_calls += e.calls
        row.input_tokens += tin
        row.output_tokens += tout
        if not is_free(u.model):
            row.cost_usd += table.cost(u.model, Usage(input_tokens=tin, output_tokens=tout))
            if table.lookup(u.model) is None:
                unpriced.add(u.model)
    for row in step.per_model:
        step.model_calls += row.model_calls
        step.input_tokens += row.input_tokens
        step.output_tokens += row.output_tokens
        step.cost_usd += row.cost_usd
    if unpriced:
        step.note = "; ".join(
            x for x in (step.note, f"no price for {', '.join(sorted(unpriced))}: counted as $0")
            if x
        )


def _judge_models(judge: str) -> list[str]:
    if judge.startswith("llm:"):
        return [judge[4:]]
    if judge.startswith("ensemble:"):
        return [m for m in judge[len("ensemble:") :].split(",") if m]
    return []


def evaluation_plan(cfg: ExperimentConfig, suite: Suite) -> Any:
    """The interceptor evaluation's paired units (the config only matters at run time)."""
    from agentprop.intercept import InterceptConfig
    from agentprop.intercept._workflow import InterceptError, plan_evaluation

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
    """A misspelt domain would silently select no tasks; say so instead."""
    known = sorted({t.domain for t in suite.tasks})
    blocks: list[tuple[str, list[str] | None]] = [(f"runs.{r.name}", r.domains) for r in cfg.runs]
    if cfg.sweep:
        blocks.append(("sweep", cfg.sweep.domains))
    if cfg.evaluate:
        blocks.append(("evaluate", cfg.evaluate.domains))
    for where, domains in blocks:
        for d in domains or []:
            if d not in known:
                raise ConfigError(f"{where}: unknown domain {d!r} (known: {', '.join(known)})")


def build_plan(cfg: ExperimentConfig, suite: Suite, prices: object = None) -> Plan:
    """Every unit the study will run, grouped in steps, with estimated calls and cost."""
    from agentprop.core import Usage
    from agentprop.inject import expand_conditions
    from agentprop.models._prices import price_table
    from agentprop.runner import plan_units

    _check_domains(cfg, suite)
    steps: list[StepPlan] = []
    agent_units: list[WorkUnit] = []
    for block in cfg.runs:
        conditions = expand_conditions(block.conditions)
        injected = any(c != "baseline" for c in conditions)
        units: list[WorkUnit] = []
        for model in block.models:
            tasks = select_tasks(
                suite,
                domains=block.domains,
                split=block.split,
                n=block.n,
                seed=_seed_for(cfg.name, block.name, model),
                injectable_only=injected,
            )
            units += plan_units(f"{cfg.name}:{block.name}", [model], tasks, conditions, block.seeds)
        step = StepPlan(
            name=block.name, kind="run", units=units, n_units=len(units), models=block.models
        )
        _estimate_agent(step, suite, prices)
        steps.append(step)
        agent_units += units
    if cfg.sweep:
        sw = cfg.sweep
        units = []
        for model in sw.models:
            tasks = select_tasks(
                suite,
                domains=sw.domains,
                split=sw.split,
                n=sw.n,
                seed=_seed_for(cfg.name, "sweep", model),
                injectable_only=any(c != "baseline" for c in sw.conditions),
            )
            units += plan_units(
                f"{cfg.name}:sweep", [model], tasks, expand_conditions(sw.conditions)
            )
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
