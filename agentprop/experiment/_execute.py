"""Running a study end to end. Every step is resumable: what is stored is skipped."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agentprop.experiment._config import ExperimentConfig
from agentprop.experiment._plan import build_plan
from agentprop.experiment._simcheck import simulation_check
from agentprop.store import Workspace

META_EXPERIMENT = "experiment"
META_SIMCHECK = "simulation_check"

Say = Callable[[str], None]


@dataclass
class ExperimentResult:
    workspace: Path
    report: Path | None
    steps: dict[str, float] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)


def _models(
    cfg: ExperimentConfig, ws: Workspace | None, suite: Any, use_cache: bool
) -> dict[str, Any]:
    """One Model per declared entry, with its own base URL and limits (`ws` None: no
    cache, used to reject unknown providers before the workspace is created)."""
    from agentprop.models import get_model

    out: dict[str, Any] = {}
    for m in cfg.models:
        opts: dict[str, Any] = {"suite": suite}
        if m.base_url:
            opts["base_url"] = m.base_url
        if m.max_attempts:
            opts["max_attempts"] = m.max_attempts
        if m.concurrency:
            opts["max_connections"] = m.concurrency
        limits = {k: v for k, v in (("rpm", m.rpm), ("tpm", m.tpm)) if v is not None}
        if limits and not m.id.startswith(("sim/", "sim-judge/")):
            opts.update(limits)  # simulated models have no provider limits
        model = get_model(m.id, **opts)
        if use_cache and ws is not None and not model.simulated:
            model = get_model(m.id, **opts, cache=ws)
        out[m.id] = model
    return out


def report_workspace(ws: Workspace, *, resamples: int = 1000, seed: int = 42) -> Path:
    """Analyse a workspace and write its report folder; the path of index.html."""
    from agentprop.analysis import analyze
    from agentprop.report import build_report

    inp = load_analysis_input(ws)
    runs = [r.model_dump(mode="json") for r in ws.runs()]
    result = analyze(inp, n_resamples=resamples, seed=seed)
    return build_report(result, ws.report_dir, stages=inp.stages, runs=runs,
                        rationales=example_rationales(ws, inp))


def example_rationales(ws: Workspace, inp: Any) -> dict[str, str]:
    """The primary judge's rationale for the answers the report shows as samples."""
    from agentprop.report import pick_examples

    ids = list(pick_examples(inp.stages)["trace_id"])
    return ws.rationales(str(inp.primary_judge), ids)


def load_analysis_input(ws: Workspace) -> Any:
    """The analysis input from a workspace: traces, verdicts, labels, primary judge, sweep,
    and the simulation check when the study ran simulated agents. Traces are streamed and
    verdicts read as light rows, so memory does not grow with their payloads."""
    import pandas as pd

    from agentprop.analysis import build_input
    from agentprop.intercept._workflow import evaluation_configs

    meta: dict[str, Any] = {"interceptor_evaluations": evaluation_configs(ws)}
    if ws.get_meta("imported"):
        meta["imported"] = ws.get_meta("imported")
    if ws.get_meta("rehearsal"):  # experiment/_rehearse.py: the report's first line says so
        meta["rehearsal"] = ws.get_meta("rehearsal")
    simcheck = ws.get_meta(META_SIMCHECK)
    if simcheck:
        meta["simulation_check"] = simcheck
    sweep_rows = ws.get_meta("interceptor_sweep")
    from agentprop.judges._validity import load_validity

    validity = load_validity()
    if validity:
        meta["judge_validity"] = validity  # measured on the labelled validation set
    return build_input(
        ws.iter_traces(),
        ws.verdict_rows(),
        ws.labels(),
        primary_judge=ws.get_meta("primary_judge") or "facts",
        sweep=pd.DataFrame(sweep_rows) if sweep_rows else None,
        meta=meta,
    )


def compute_simulation_check(ws: Workspace, *, seed: int = 42) -> list[dict[str, Any]]:
    """The simulation-check rows for the simulated agents in the workspace (stored in meta)."""
    from agentprop.analysis.stages import stage_table
    from agentprop.sim import PROFILES

    primary = ws.get_meta("primary_judge") or "facts"
    truth = {
        f"sim/{name}": p.true_rates()
        for name, p in PROFILES.items()
        if ws.count_traces(arm="", model=f"sim/{name}")
    }
    if not truth:
        ws.set_meta(META_SIMCHECK, [])
        return []
    verdicts = {tid: correct for tid, _, correct, _ in ws.verdict_rows(primary)}
    # streamed, and only the profiles' own traces: the check reads no others
    table = simulation_check(stage_table(ws.iter_traces(arm="", model=list(truth)), verdicts),
                             truth, seed=seed)
    rows: list[dict[str, Any]] = [
        {str(k): (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
        for r in table.to_dict("records")
    ]
    for r in rows:
        r["judge"] = primary
    ws.set_meta(META_SIMCHECK, rows)
    return rows


def run_experiment(
    cfg: ExperimentConfig,
    *,
    workspace: Path,
    progress: bool = True,
    use_cache: bool = True,
    say: Say = print,
    resamples: int = 1000,
    max_cost: float | None = None,
    judge_options: dict[str, Any] | None = None,
    meta: dict[str, Any] | None = None,
) -> ExperimentResult:
    """Run every step of `cfg` into `workspace`; rerunning resumes where it stopped.

    `max_cost` (USD, this invocation) is the cost guard over the agent episodes (runs and
    the interceptor evaluation): once it stops a unit, the study stops after that step
    and `summary["not_started"]` says how many units are left for a rerun with a higher
    limit. `judge_options` go to the LLM judges' models (a base URL); `meta` is stored
    in the workspace first (the rehearsal mark)."""
    from agentprop.intercept._workflow import resolve_config, run_evaluation, run_sweep
    from agentprop.judges import judge_workspace
    from agentprop.labels import sample_labels
    from agentprop.runner import run_units_sync
    from agentprop.suite import DEFAULT_SEED, load_suite

    timings: dict[str, float] = {}

    def timed(name: str, t0: float) -> None:
        timings[name] = round(time.perf_counter() - t0, 2)

    t0 = time.perf_counter()
    suite = load_suite(seed=cfg.suite_seed if cfg.suite_seed is not None else DEFAULT_SEED)
    plan = build_plan(cfg, suite)
    timed("suite+plan", t0)
    _models(cfg, None, suite, False)  # an unknown provider fails before anything is written
    ws = Workspace(workspace, create=True)
    try:
        ws.set_meta(META_EXPERIMENT, cfg.model_dump(mode="json"))
        for key, value in (meta or {}).items():
            ws.set_meta(key, value)
        models = _models(cfg, ws, suite, use_cache)

        def judge_all() -> None:
            """Every configured judge over every trace lacking its verdict (resumable)."""
            judge_workspace(ws, cfg.judges, suite=suite, primary=cfg.primary_judge,
                            progress=progress, use_cache=use_cache,
                            model_options=judge_options)

        t0 = time.perf_counter()
        agent_units = [u for s in plan.steps if s.kind == "run" for u in s.units]
        say(f"[1/6] agent runs: {len(agent_units)} units")
        rs = run_units_sync(
            agent_units,
            workspace=ws,
            suite=suite,
            models=models,
            concurrency=cfg.concurrency,
            progress=progress,
            manifest={"experiment": cfg.name},
            max_cost=max_cost,
        )
        timed("runs", t0)
        summary: dict[str, Any] = {
            "units": rs.units,
            "completed": rs.completed,
            "skipped": rs.skipped,
            "errors": rs.errors,
            "rate_limited": rs.rate_limited,
            "cost": round(rs.cost, 4),
            "not_started": rs.not_started,
        }
        if rs.not_started:
            say(f"cost guard: {rs.not_started} units not started (the estimated spend would "
                f"pass ${max_cost:g}); rerun with a higher --max-cost to resume")
            summary["traces"] = ws.count_traces()
            return ExperimentResult(workspace=Path(workspace), report=None, steps=timings,
                                    summary=summary)

        t0 = time.perf_counter()
        say(f"[2/6] judges: {', '.join(cfg.judges)} (primary {cfg.primary_judge})")
        judge_all()
        timed("judges", t0)

        if cfg.sweep:
            t0 = time.perf_counter()
            say(f"[3/6] interceptor sweep over {cfg.sweep.split} traces (no model calls)")
            outcome = run_sweep(ws, split=cfg.sweep.split, judge=cfg.primary_judge, suite=suite)
            summary["interceptor_config"] = outcome.best.label
            timed("sweep", t0)
        if cfg.evaluate:
            t0 = time.perf_counter()
            ev = cfg.evaluate
            icfg = resolve_config(ws, ev.config, ev.mode)
            n_units = sum(s.n_units for s in plan.steps if s.kind == "evaluate")
            say(f"[4/6] interceptor evaluation ({icfg.label}): {n_units} paired units")
            ev_out = run_evaluation(
                ws,
                suite=suite,
                models=ev.models,
                config=icfg,
                split=ev.split,
                n=ev.n,
                conditions=ev.conditions,
                seed=ev.seed,
                concurrency=cfg.concurrency,
                judge=cfg.primary_judge,
                domains=ev.domains,
                run_id=f"{cfg.name}:evaluate",
                use_cache=use_cache,
                progress=progress,
                runtime_models={m: models[m] for m in ev.models},
                judge_options=judge_options,
                max_cost=None if max_cost is None else max(0.0, max_cost - rs.cost),
            )
            left = int(ev_out.get("run", {}).get("not_started") or 0)
            if left:
                say(f"cost guard: {left} evaluation units not started; rerun with a higher "
                    "--max-cost to resume")
                summary["not_started"] = left
                summary["traces"] = ws.count_traces()
                return ExperimentResult(workspace=Path(workspace), report=None,
                                        steps=timings, summary=summary)
            # the other judges score the evaluation's traces too (resumable, cached)
            judge_all()
            timed("evaluate", t0)

        t0 = time.perf_counter()
        if cfg.labels:
            lb = cfg.labels
            if not ws.label_sample():
                s = sample_labels(
                    ws, lb.n, lb.by, overlap=lb.overlap, seed=lb.seed, condition=lb.condition
                )
                say(f"[5/6] label sample: {s.n} traces over {len(s.strata)} strata")
            else:
                say("[5/6] label sample: kept the existing sample")
        rows = compute_simulation_check(ws)
        if rows:
            summary["simulation_check_covered"] = sum(r["covered"] for r in rows)
            summary["simulation_check_total"] = len(rows)
        timed("labels+simcheck", t0)

        report: Path | None = None
        if cfg.report:
            t0 = time.perf_counter()
            say("[6/6] analysis and report")
            report = report_workspace(ws, resamples=resamples)
            timed("report", t0)
        summary["traces"] = ws.count_traces()
        return ExperimentResult(
            workspace=Path(workspace), report=report, steps=timings, summary=summary
        )
    finally:
        ws.close()
