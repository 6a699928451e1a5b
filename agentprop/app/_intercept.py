"""The interceptor's workflow: the workspace-level operations behind `agentprop intercept
sweep` and `... evaluate`.

The sweep only reads stored traces and verdicts. The evaluation plans the control and
treatment arms of the same tasks and seeds through the planner, runs them in one scheduler
(the runner interleaves them), judges them with the primary judge, computes the tables of
`_evaluation` and stores a summary in workspace meta for the report.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import pandas as pd

from agentprop.app._evaluation import (
    FireRow,
    ab_table,
    action_table,
    false_alarm_table,
    fires_of_rows,
    outcome_row,
    outcomes_of_rows,
    replay_rows,
    replay_table,
    risk_coverage,
)
from agentprop.app._planner import PlanError, RunConfig, plan_run
from agentprop.core import (
    Task,
    ToolProbe,
    UnknownNameError,
    WorkUnit,
    did_you_mean,
    stable_hash,
    utcnow,
)
from agentprop.errors import AgentpropError
from agentprop.intercept import (
    GuardSpec,
    InterceptConfig,
    Interceptor,
    Signals,
    best_config,
    default_configs,
    parse_config,
)
from agentprop.intercept._replay import signals_for
from agentprop.intercept._sweep import keyword_sets, signal_config, sweep_table

if TYPE_CHECKING:
    from agentprop.agent import AgentHooks
    from agentprop.models import Model
    from agentprop.runner import EpisodeExecutor
    from agentprop.store import Workspace
    from agentprop.suite import Suite

META_CONFIG = "interceptor_config"
META_SWEEP = "interceptor_sweep"
META_EVAL = "interceptor_eval"
UNINTERCEPTED_ARMS = ["", "control"]
DEFAULT_CONDITION = "p2:semantic_wrong"


class InterceptError(AgentpropError):
    """A sweep or evaluation that cannot be carried out; one line for the user."""


def records(df: pd.DataFrame) -> list[dict[str, Any]]:
    """JSON-safe rows (NaN and missing → None, numpy scalars → Python), values exact: the
    numbers the CLI prints are the report's to the last digit."""
    return [{str(k): _plain(v) for k, v in r.items()} for r in df.to_dict("records")]


def _plain(v: Any) -> Any:
    if hasattr(v, "item") and not isinstance(v, str):
        v = v.item()  # numpy scalar
    if v is pd.NA or v is None or (isinstance(v, float) and not math.isfinite(v)):
        return None
    return v


def primary_judge(ws: Workspace, judge: str | None = None) -> str:
    """`judge` as the workspace knows it (a bare `ensemble` is its one ensemble), or its
    primary judge."""
    from agentprop.judges import resolve_judge

    if not judge:
        return str(ws.primary_judge())
    try:
        return resolve_judge(judge, ws.judges())
    except UnknownNameError as e:
        raise InterceptError(str(e)) from None


def verdict_map(ws: Workspace, judge: str) -> dict[str, bool | None]:
    """trace id → `correct` of `judge`, read without parsing the verdicts' payloads."""
    return {tid: correct for tid, _, correct, _ in ws.verdict_rows(judge)}


def _task(suite: Suite | None, task_id: str) -> Task | None:
    return suite.get(task_id) if suite is not None else None


# -- sweep ------------------------------------------------------------------------------
@dataclass
class SweepOutcome:
    table: pd.DataFrame
    best: InterceptConfig
    judge: str
    split: str
    n_traces: int
    guarantee: dict[str, Any] | None = None
    """The Learn-then-Test guarantee of `best` (`_guarantee.guarantee`); None: chosen by F1."""


@dataclass
class _Scan:
    """The usable traces of one split, each as (signals per signal config, wrong,
    condition), with the counts the sweep's errors name."""

    rows: list[tuple[list[Signals], bool, str]]
    n_traces: int = 0
    n_scored: int = 0
    missing: int = 0


def _scan(ws: Workspace, split: str, verdicts: Mapping[str, bool | None],
          signal_cfgs: Sequence[InterceptConfig], suite: Suite | None) -> _Scan:
    """One pass over the un-intercepted traces of `split`, keeping only each usable
    (status ok, scored) trace's signals."""
    scan = _Scan(rows=[])
    for t in ws.iter_traces(split=split, arm=UNINTERCEPTED_ARMS):
        scan.n_traces += 1
        correct = verdicts.get(t.id)
        scan.missing += t.id not in verdicts
        if correct is None:
            continue
        scan.n_scored += 1
        if t.status != "ok":
            continue
        scan.rows.append((signals_for(t, signal_cfgs, _task(suite, t.task_id)), not correct,
                          t.condition))
    return scan


def run_sweep(
    ws: Workspace,
    *,
    split: str = "val",
    judge: str | None = None,
    suite: Suite | None = None,
    configs: Sequence[InterceptConfig] | None = None,
    save: bool = True,
    max_false_abstain: float | None = None,
    delta: float = 0.1,
) -> SweepOutcome:
    """Replay the configurations over the stored un-intercepted traces of `split` and
    pick the best (highest F1; with `max_false_abstain` α, by Learn-then-Test: the most
    hallucinations caught among the configurations whose P(abstain | right answer) ≤ α
    holds with confidence 1 − `delta`, then measured on the other split). With `save`,
    store it (meta `interceptor_config`), the table (meta `interceptor_sweep`) and the
    guarantee (meta `interceptor_guarantee`, None after an F1 choice). Raises
    InterceptError when there is nothing to sweep over, `_guarantee.NoValidConfig` when
    no configuration can be promised (nothing stored)."""
    from agentprop.app._guarantee import guarantee, mark_chosen, select

    name = primary_judge(ws, judge)
    if judge and name not in ws.judges():
        known = ", ".join(ws.judges()) or "none yet"
        raise InterceptError(f"judge {name!r} has no verdicts in this workspace"
                             f"{did_you_mean(name, ws.judges())} (judges with verdicts: "
                             f"{known}); run `agentprop judge --judge {name}` first")
    configs = list(configs) if configs is not None else default_configs()
    verdicts = verdict_map(ws, name)
    kws = keyword_sets(configs)
    signal_cfgs = [signal_config(kw) for kw in kws]
    scan = _scan(ws, split, verdicts, signal_cfgs, suite)
    if not scan.n_traces:
        raise InterceptError(
            f"no un-intercepted traces of split {split!r} in the workspace; run "
            f"`agentprop run --split {split}` first"
        )
    if not scan.n_scored:
        raise InterceptError(
            f"none of the {scan.n_traces} {split} traces has a verdict of judge {name!r} "
            f"({scan.missing} not judged yet); run `agentprop judge --workspace {ws.path} "
            f"--judge {name}` first"
        )
    inputs = {kw: [(sigs[i], wrong) for sigs, wrong, _ in scan.rows]
              for i, kw in enumerate(kws)}
    table = sweep_table(inputs, configs)
    promise: dict[str, Any] | None = None
    if max_false_abstain is None:
        best = best_config(table)
    else:
        res = select(table, alpha=max_false_abstain, delta=delta)
        best = configs[res.index or 0].model_copy(update={"mode": "abstain"})
        table = mark_chosen(table, res)
        i = kws.index(best.keywords)
        other = "test" if split == "val" else "val"
        held = _scan(ws, other, verdicts, [signal_cfgs[i]], suite)
        promise = guarantee(
            res, best, val=[(sigs[i], w, c) for sigs, w, c in scan.rows],
            held_out=[(sigs[0], w, c) for sigs, w, c in held.rows], split=split,
            held_out_split=other, judge=name)
    if save:
        ws.update_meta(
            interceptor_config=best.model_dump(mode="json"),
            interceptor_sweep=[{**r, "split": split, "judge": name} for r in records(table)],
            interceptor_guarantee=_json_safe(promise))
    return SweepOutcome(table=table, best=best, judge=name, split=split,
                        n_traces=int(table["n"].max()) if len(table) else 0,
                        guarantee=promise)


# -- evaluation -------------------------------------------------------------------------
def resolve_config(ws: Workspace | None, spec: str, mode: str | None = None) -> InterceptConfig:
    """`best` (the sweep's choice stored in the workspace) or a `tau_l1=..,...` spec."""
    if spec.strip().lower() == "best":
        stored = ws.meta().interceptor_config if ws is not None else None
        if stored is None:
            raise InterceptError(
                "no tuned interceptor configuration in the workspace; run `agentprop "
                "intercept sweep` on the val split first, or pass --config "
                "tau_l1=1,tau_l2=2,l3=on"
            )
        cfg = InterceptConfig.model_validate(stored)
    else:
        try:
            cfg = parse_config(spec)
        except ValueError as e:
            raise InterceptError(str(e)) from None
    if mode is not None:
        if mode not in ("abstain", "warn"):
            raise InterceptError(f"invalid mode {mode!r}: use abstain or warn")
        cfg = cfg.model_copy(update={"mode": mode})
    return cfg


def treatment_hooks(cfg: InterceptConfig, guard: GuardSpec | None = None
                    ) -> Callable[[WorkUnit, Task], list[AgentHooks]]:
    """The runner's `extra_hooks`: a fresh interceptor (or the guard's hooks; none for a
    guard that lives inside the user's agent) for every treatment unit."""

    def extra_hooks(unit: WorkUnit, task: Task) -> list[AgentHooks]:
        if unit.arm != "treatment":
            return []
        return guard.hooks() if guard is not None else [Interceptor(cfg)]

    return extra_hooks


@dataclass
class EvalPlan:
    run_id: str
    units: list[WorkUnit]
    tasks: list[Task]
    conditions: list[str]
    config: InterceptConfig


def plan_evaluation(
    suite: Suite,
    *,
    models: Sequence[str],
    config: InterceptConfig,
    split: str = "test",
    n: int | None = 600,
    conditions: Sequence[str] = (DEFAULT_CONDITION,),
    seed: int = 0,
    domains: Sequence[str] | None = None,
    run_id: str | None = None,
    guard: str | None = None,
) -> EvalPlan:
    """Both arms for the same tasks and seed, interleaved (control, treatment of one
    task back to back). Injected conditions skip tasks the injector cannot target."""
    if not models:
        raise InterceptError("give at least one --model")
    if n is not None and n < 1:
        raise InterceptError(f"invalid --n {n}: must be at least 1")
    cfg = RunConfig(models=tuple(models), conditions=tuple(conditions), seeds=(seed,),
                    arms=("control", "treatment"), domains=tuple(domains) if domains else None,
                    split=split, n=n, sample_seed=seed, sample_injectable=True, run_id=run_id)

    def derive_id(c: RunConfig) -> str:
        return "intercept-" + stable_hash({
            "models": sorted(c.models), "conditions": list(c.conditions), "seed": seed,
            "split": split, "n": n, "domains": sorted(c.domains or ()),
            "suite": suite.checksum, "config": config.model_dump(mode="json"),
            **({"guard": guard} if guard else {}),
        })[:12]

    try:
        plan = plan_run(suite, cfg, derive_id)
    except PlanError as e:
        raise InterceptError(str(e)) from None
    if not plan.tasks:
        raise InterceptError(f"no tasks of split {split!r} in domains "
                             f"{', '.join(plan.config.domains or ())}")
    return EvalPlan(run_id=plan.run_id, units=plan.units, tasks=plan.tasks,
                    conditions=list(plan.config.conditions), config=config)


def summarize_evaluation(
    ws: Workspace,
    *,
    run_id: str,
    config: InterceptConfig,
    judge: str,
    suite: Suite | None = None,
    models: Sequence[str] | None = None,
    seed: int = 42,
    n_boot: int = 1000,
    guard: GuardSpec | None = None,
) -> dict[str, Any]:
    """All evaluation tables for the traces of `run_id` (JSON-safe rows). With a `guard`
    that does more than abstain there is no replay: its effect is the two arms'."""
    verdicts = verdict_map(ws, judge)
    sweep_cfgs = default_configs()
    replay_cfg = config if guard is None else guard.replay_config
    all_cfgs = [] if replay_cfg is None else [
        replay_cfg.model_copy(update={"mode": "abstain"}),
        *(c for c in sweep_cfgs if c.label != replay_cfg.label)]
    # one pass over the run's traces: an outcome row per trace, replay rows per control
    rows: list[dict[str, Any]] = []
    fire_rows: list[FireRow] = []
    seen_models: set[str] = set()
    seen_tasks: set[str] = set()
    seen_conditions: set[str] = set()
    simulated = False
    split: str | None = None
    for t in ws.iter_traces(run_id=run_id):
        split = t.split if split is None else split
        rows.append(outcome_row(t, verdicts.get(t.id)))
        if t.arm == "control" and all_cfgs:
            fire_rows.extend(replay_rows(t, all_cfgs, _task(suite, t.task_id)))
        seen_models.add(t.model)
        seen_tasks.add(t.task_id)
        seen_conditions.add(t.condition)
        simulated = simulated or t.simulated
    if not rows:
        raise InterceptError(f"run {run_id!r} has no traces")
    outcomes = outcomes_of_rows(rows)
    del rows
    model_ids = list(models) if models else sorted(seen_models)
    ab = ab_table(outcomes, seed=seed, n_boot=n_boot)
    extra: dict[str, Any] = {}
    if guard is None and config.mode == "abstain" and len(ab):
        from agentprop.app._guarantee import realised_line

        line = realised_line(ws.meta().interceptor_guarantee, config,
                             int(ab["false_alarms"].sum()), int(ab["n_control_correct"].sum()))
        if line is not None:  # the run of a guaranteed configuration: its realised rate
            extra["guarantee"] = line
    result: dict[str, Any] = {
        "run_id": run_id,
        "judge": judge,
        "split": split,
        "config": config.model_dump(mode="json"),
        "config_label": config.label,
        "mode": config.mode,
        "guard": guard.name if guard is not None else None,
        "models": model_ids,
        "conditions": sorted(seen_conditions),
        "simulated": simulated,
        "n_traces": len(outcomes),
        "n_tasks": len(seen_tasks),
        "unscored": int((outcomes["outcome"] == "unscored").sum()),
        "errors": int((outcomes["outcome"] == "error").sum()),
        "ab": records(ab),
        "guard_actions": records(action_table(outcomes)) if guard is not None else [],
        "replay": [], "risk_coverage": [], "false_alarm_baseline": [],
        **extra,
        "created_at": utcnow().isoformat(),
    }
    if replay_cfg is not None:
        result.update(_replayed(ws, outcomes, fires_of_rows(fire_rows), replay_cfg,
                                verdicts=verdicts, suite=suite, models=model_ids,
                                split=split, seed=seed, n_boot=n_boot))
    return result


def _replayed(ws: Workspace, outcomes: pd.DataFrame, fires: pd.DataFrame,
              config: InterceptConfig, *, verdicts: Mapping[str, bool | None],
              suite: Suite | None, models: list[str],
              split: str | None, seed: int, n_boot: int) -> dict[str, Any]:
    """The replay tables of an abstaining interceptor configuration: its exact estimate
    over the control arm, the sweep's risk–coverage points, and its false alarms on the
    clean baseline traces stored in the workspace (any run)."""
    replay = replay_table(outcomes, fires, config=config.label, seed=seed, n_boot=n_boot)
    rc = risk_coverage(outcomes[outcomes["arm"] == "control"],
                       fires[fires["config"].isin([c.label for c in default_configs()])])
    base_rows: list[dict[str, Any]] = []
    base_fire_rows: list[FireRow] = []
    for t in ws.iter_traces(condition="baseline", arm=UNINTERCEPTED_ARMS, model=models,
                            split=split):
        base_rows.append(outcome_row(t, verdicts.get(t.id)))
        base_fire_rows.extend(replay_rows(t, [config], _task(suite, t.task_id)))
    return {"replay": records(replay) if config.mode == "abstain" else [],
            "risk_coverage": records(rc),
            "false_alarm_baseline": records(false_alarm_table(
                outcomes_of_rows(base_rows), fires_of_rows(base_fire_rows),
                config=config.label))}


def refuse_mixed_config(ws: Workspace, run_id: str, config: InterceptConfig,
                        guard: str | None = None) -> None:
    """A stored evaluation run keeps its configuration and guard: resuming it under another
    one would pair treatment traces of two interceptors in one set of numbers."""
    run = ws.get_run(run_id)
    stored_guard = run.config.get("guard") if run is not None else None
    if run is not None and stored_guard != guard:
        raise InterceptError(
            f"run {run_id!r} already holds an evaluation of "
            f"{_what(stored_guard)}; this one is of {_what(guard)}. Use another --run-id "
            "(or leave it out) so the two are kept apart")
    stored = run.config.get("interceptor") if run is not None else None
    old = InterceptConfig.model_validate(stored) if stored is not None else None
    if old is not None and old != config:
        raise InterceptError(
            f"run {run_id!r} already holds an evaluation of interceptor {old.label} mode "
            f"{old.mode}; this one is {config.label} mode {config.mode}. Use another "
            "--run-id (or leave it out) so the two are kept apart")


def _what(guard: str | None) -> str:
    return f"guard {guard}" if guard else "the interceptor"


def evaluation_configs(ws: Workspace) -> dict[str, str]:
    """run id → "LABEL mode=MODE" of every interceptor evaluation stored in `ws` (guard
    evaluations are `guard_evaluations`)."""
    out: dict[str, str] = {}
    for run in ws.runs():
        cfg = run.config.get("interceptor")
        if isinstance(cfg, dict) and not run.config.get("guard"):
            c = InterceptConfig.model_validate(cfg)
            out[run.id] = f"{c.label} mode={c.mode}"
    return out


def guard_evaluations(ws: Workspace) -> dict[str, str]:
    """run id → guard name of every guard evaluation (`intercept evaluate --guard`,
    `intercept matrix`) stored in `ws`."""
    return {run.id: str(run.config["guard"]) for run in ws.runs()
            if run.config.get("guard")}


def run_evaluation(
    ws: Workspace,
    *,
    suite: Suite,
    models: Sequence[str],
    config: InterceptConfig,
    split: str = "test",
    n: int | None = 600,
    conditions: Sequence[str] = (DEFAULT_CONDITION,),
    seed: int = 0,
    concurrency: int = 32,
    judge: str | None = None,
    domains: Sequence[str] | None = None,
    run_id: str | None = None,
    model_options: Mapping[str, Any] | None = None,
    use_cache: bool = True,
    progress: bool = False,
    runtime_models: Mapping[str, Model] | None = None,
    executor: EpisodeExecutor | None = None,
    judge_options: Mapping[str, Any] | None = None,
    max_cost: float | None = None,
    preflight: str = "warn",
    on_probe: Callable[[ToolProbe], None] | None = None,
    guard: GuardSpec | None = None,
    store_summary: bool = True,
) -> dict[str, Any]:
    """Run both arms in one scheduler, judge them, compute and store the summary (meta
    `interceptor_eval`). Resumable: rerunning the same evaluation skips stored units.
    `executor` runs an external agent instead of `models` (`models` then holds its name;
    P2 then corrupts only the executed call, the agent's history is its own).
    `judge_options` go to the judge's models (e.g. a base URL); `max_cost` is the
    runner's cost guard; `preflight` and `on_probe` its tool-calling probe. `guard`:
    evaluate that guardrail or mitigation instead of the interceptor (one inside the
    user's agent needs `executor`, which hands it to the agent's treatment episodes);
    `store_summary` False leaves meta `interceptor_eval` alone (the matrix's runs)."""
    if guard is not None and guard.in_agent and executor is None:
        raise InterceptError(
            f"guard {guard.spec!r} is not an agentprop guard but an object for your agent's "
            "framework: give --agent, whose agent installs `episode.guards`")
    from agentprop.judges import judge_workspace
    from agentprop.runner import RunSummary, run_units_sync

    plan = plan_evaluation(suite, models=models, config=config, split=split, n=n,
                           conditions=conditions, seed=seed, domains=domains, run_id=run_id,
                           guard=guard.spec if guard is not None else None)
    guard_name = guard.name if guard is not None else None
    refuse_mixed_config(ws, plan.run_id, config, guard_name)
    summary: RunSummary = run_units_sync(
        plan.units, workspace=ws, suite=suite, model_options=model_options,
        concurrency=concurrency, extra_hooks=treatment_hooks(config, guard),
        progress=progress,
        use_cache=use_cache, models=runtime_models, executor=executor,
        in_history=executor is None, max_cost=max_cost,
        probe=preflight, on_probe=on_probe,
        manifest={"command": "agentprop intercept evaluate", "split": split, "n": n,
                  "interceptor": config.model_dump(mode="json"),
                  **({"guard": guard.name, "guard_spec": guard.spec} if guard else {})},
    )
    name = primary_judge(ws, judge)
    judge_workspace(ws, [name], suite=suite, progress=progress, concurrency=concurrency,
                    run_ids=[plan.run_id],
                    model_options=dict(judge_options) if judge_options else None)
    result = summarize_evaluation(ws, run_id=plan.run_id, config=config, judge=name,
                                  suite=suite, models=models, guard=guard)
    result["run"] = {"units": summary.units, "completed": summary.completed,
                     "skipped": summary.skipped, "errors": summary.errors,
                     "not_started": summary.not_started,
                     "cost": summary.cost, "wall_s": summary.wall_s}
    result["seed"] = seed
    if store_summary:
        ws.update_meta(interceptor_eval=_json_safe(result))
    return result


def _json_safe(obj: Any) -> Any:
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: _json_safe(v) for k, v in obj.items()}
    if isinstance(obj, list):
        return [_json_safe(v) for v in obj]
    return obj
