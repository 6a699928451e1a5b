"""Running a study end to end. Every step is resumable: what is stored is skipped."""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agentprop.core import ModelInfo, ToolProbe
from agentprop.experiment._config import ExperimentConfig
from agentprop.experiment._plan import build_plan
from agentprop.experiment._simcheck import simulation_check
from agentprop.store import Workspace

if TYPE_CHECKING:
    import pandas as pd

    from agentprop.analysis import AnalysisInput
    from agentprop.analysis._stored import StageRecorder
    from agentprop.analysis.invariants import TraceChecks
    from agentprop.analysis.stages import FabricationCheck, StoredNoticed
    from agentprop.core import Trace, WorkUnit
    from agentprop.intercept import InterceptConfig
    from agentprop.judges import FabricationRule
    from agentprop.judges._entities import Vocabulary
    from agentprop.models import Model
    from agentprop.runner import RunSummary
    from agentprop.suite import Suite

Say = Callable[[str], None]


@dataclass
class ExperimentResult:
    workspace: Path
    report: Path | None
    steps: dict[str, float] = field(default_factory=dict)
    summary: dict[str, Any] = field(default_factory=dict)


def _models(
    cfg: ExperimentConfig, ws: Workspace | None, suite: Suite | None, use_cache: bool
) -> dict[str, Model]:
    """One Model per declared entry, with its own base URL and limits (`ws` None: no
    cache, used to reject unknown providers before the workspace is created)."""
    from agentprop.models import get_model

    out: dict[str, Model] = {}
    for m in cfg.models:
        opts: dict[str, Any] = {"suite": suite, **m.options}
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


def _run_agents(cfg: ExperimentConfig, units: list[WorkUnit], ws: Workspace, suite: Suite,
                models: dict[str, Model], *, progress: bool, max_cost: float | None,
                probe: str, on_probe: Callable[[ToolProbe], None]) -> RunSummary:
    """The agent units, run together unless models differ in how an episode runs (text
    mode, steps, a forced answer at the step limit): then one batch per such group."""
    from agentprop.runner import run_units_sync

    entries = {m.id: m for m in cfg.models}

    def episode_settings(model_id: str) -> tuple[bool, int, bool | None]:
        e = entries.get(model_id)
        if e is None:
            return False, 10, None
        return e.text_mode, e.max_steps or 10, e.answer_on_step_limit

    groups: dict[tuple[bool, int, bool | None], list[WorkUnit]] = {}
    for u in units:
        groups.setdefault(episode_settings(u.model), []).append(u)
    total: RunSummary | None = None
    for (text_mode, max_steps, answer), group in (groups or {(False, 10, None): []}).items():
        spent = total.cost if total is not None else 0.0
        rs = run_units_sync(
            group, workspace=ws, suite=suite, models=models, concurrency=cfg.concurrency,
            progress=progress, manifest={"experiment": cfg.name}, text_mode=text_mode,
            max_steps=max_steps, answer_on_step_limit=answer,
            max_cost=None if max_cost is None else max(0.0, max_cost - spent),
            probe=probe, on_probe=on_probe)
        total = rs if total is None else total.merged(rs)
    assert total is not None
    return total


def workspace_suite(ws: Workspace, suite: Suite | None = None) -> Suite | None:
    """The suite the workspace's runs used (the given one, the user's own tasks it stores,
    or the built-in default), or None when their checksum says it was another:
    `fabricated` is then left undefined rather than read against the wrong tasks."""
    from agentprop.suite import SuiteError, load_suite, user_suite

    used = {r.suite_checksum for r in ws.runs() if r.suite_checksum}
    if suite is None and (stored := ws.stored_tasks()):
        return user_suite(stored)  # the user's own questions (`run --tasks`)
    if suite is None:
        try:
            suite = load_suite()
        except SuiteError:
            return None
    return suite if not used or suite.checksum in used else None


def suite_vocabulary(suite: Suite | None) -> Vocabulary | None:
    from agentprop.judges import query_vocabulary

    return query_vocabulary(suite.tasks) if suite is not None else None


def _rule_for(tasks: Suite | None) -> FabricationRule | None:
    """A fresh `FabricationRule` for a suite (None without one: `fabricated` is <NA>)."""
    from agentprop.judges import FabricationRule

    return FabricationRule(suite_vocabulary(tasks)) if tasks is not None else None


def fabrication_rule(ws: Workspace, suite: Suite | None = None,
                     vocabulary: Vocabulary | None = None) -> FabricationRule | None:
    """One `FabricationRule` for a workspace's analyses (None when its suite is unknown);
    `vocabulary` (of that suite) shares the answer readings a judge already made."""
    from agentprop.judges import FabricationRule

    tasks = workspace_suite(ws, suite)
    if tasks is None:
        return None
    return FabricationRule(vocabulary if vocabulary is not None else suite_vocabulary(tasks))


def store_layer_hits(ws: Workspace, config: InterceptConfig, *, judge: str | None = None,
                     suite: Suite | None = None) -> int:
    """Replay the chosen interceptor configuration over every injected un-intercepted
    trace (no model calls) and store which layer fires on each (meta
    `interceptor_layers`): the report's "which layer catches which fault class"."""
    from agentprop.intercept._sweep import layer_hits

    name = judge or ws.primary_judge()
    verdicts = {tid: correct for tid, _, correct, _ in ws.verdict_rows(name)}
    tasks = {t.id: t for t in suite.tasks} if suite is not None else None
    hits = layer_hits(ws.iter_traces(arm=["", "control"]), config, verdicts=verdicts,
                      tasks=tasks)
    ws.update_meta(interceptor_layers=hits.to_dict("records"))
    return len(hits)


def report_workspace(ws: Workspace, *, resamples: int = 1000, seed: int = 42,
                     suite: Suite | None = None, rule: FabricationRule | None = None
                     ) -> Path:
    """Analyse a workspace and write its report folder; the path of index.html (the
    invariants are checked on the way: `report_checked`)."""
    return report_checked(ws, resamples=resamples, seed=seed, suite=suite, rule=rule)[0]


def report_checked(ws: Workspace, *, resamples: int = 1000, seed: int = 42,
                   suite: Suite | None = None, rule: FabricationRule | None = None,
                   noticed: StoredNoticed | None = None,
                   ) -> tuple[Path, list[str], int]:
    """Analyse a workspace, write its report, and check the invariants on the traces and
    stage table the report was made from (`agentprop verify`'s checks without the second
    read and the recomputation): index.html, the violations, the traces read. `noticed`:
    an LLM classifier's stored readings for `noticed` (None: the text rules)."""
    from agentprop.analysis.invariants import UNIT_FIELDS, TraceChecks, all_violations
    from agentprop.report import analyze, build_report

    checks = TraceChecks()
    inp = load_analysis_input(ws, suite, rule=rule, checks=checks, noticed=noticed)
    runs = [r.model_dump(mode="json") for r in ws.runs()]
    result = analyze(inp, n_resamples=resamples, seed=seed)
    path = build_report(result, ws.report_dir, stages=inp.stages, runs=runs,
                        rationales=example_rationales(ws, inp))
    # the stage table's unit columns are the stored ones (read with the stage rows)
    found = all_violations(inp.stages[list(UNIT_FIELDS)], inp.stages, checks,
                           ws.unscored_ids(str(inp.primary_judge)))
    return path, found, checks.n_traces


def example_rationales(ws: Workspace, inp: AnalysisInput) -> dict[str, str]:
    """The primary judge's rationale for the answers the report shows as samples."""
    from agentprop.report import pick_examples

    ids = list(pick_examples(inp.stages)["trace_id"])
    return ws.rationales(str(inp.primary_judge), ids)


def load_analysis_input(ws: Workspace, suite: Suite | None = None, *,
                        rule: FabricationRule | None = None,
                        tap: Callable[[Iterable[Trace]], Iterable[Trace]] | None = None,
                        noticed: StoredNoticed | None = None,
                        checks: TraceChecks | None = None,
                        ) -> AnalysisInput:
    """The analysis input from a workspace: stage table, verdicts, labels, primary judge,
    sweep, and the simulation check when the study ran simulated agents. The stage table is
    read from the store's stage rows (`stored_stages`, back-filled first where missing);
    `checks` gets what the invariant checks read of the traces from those rows too. Only
    `tap` (`agentprop verify`, which recomputes everything from the events) and an LLM
    classifier's `noticed` readings stream and parse the traces, as before the stage table
    was stored; verdicts and votes are read as columns either way. `rule`: the workspace
    suite's `FabricationRule` (passed to share its answer readings), the rule the stored
    rows were computed with; it reads answers only for rows being back-filled."""
    import pandas as pd

    from agentprop.analysis import JudgeValidity, WorkspaceFacts, build_input
    from agentprop.app._intercept import evaluation_configs, guard_evaluations

    stored = ws.meta()
    facts = WorkspaceFacts(imported=stored.imported, rehearsal=stored.rehearsal,
                           interceptor_evaluations=evaluation_configs(ws),
                           guard_evaluations=guard_evaluations(ws),
                           preflight=latest_preflight(ws), models=latest_models(ws),
                           user_tools=latest_upstream(ws))
    sweep_rows = stored.interceptor_sweep
    layer_rows = stored.interceptor_layers
    from agentprop.judges._cards import load_instrument_validity

    validity = load_instrument_validity()  # measured on the shipped labelled sets
    tasks = workspace_suite(ws, suite)
    rule = rule if rule is not None else _rule_for(tasks)
    frame = (stored_stages(ws, tasks, rule) if tap is None and noticed is None else None)
    traces: Iterable[Trace] = ()
    if frame is None:
        traces = ws.iter_traces()
        if checks is not None:
            traces = checks.tap(traces)
        if tap is not None:
            traces = tap(traces)
    elif checks is not None:
        from agentprop.analysis._stored import stored_checks

        checks.differs, checks.violations = stored_checks(frame)
        checks.n_traces = len(frame)
    user = [t for t in ws.stored_tasks() if t.intent == "user"]
    queries = {t.id: t.query for t in user}
    return build_input(
        traces,
        (),
        ws.labels(),
        primary_judge=ws.primary_judge(),
        sweep=pd.DataFrame(sweep_rows) if sweep_rows else None,
        sweep_guarantee=stored.interceptor_guarantee,
        workspace=facts,
        tasks=tasks,
        rule=rule,
        layer_hits=pd.DataFrame(layer_rows) if layer_rows else None,
        simulation_check=pd.DataFrame(stored.simulation_check)
        if stored.simulation_check else None,
        judge_validity=JudgeValidity.from_summary(validity) if validity else None,
        question_labels=[*ws.labels(question="noticed"), *ws.labels(question="fabricated")],
        label_design=stored.label_design,
        noticed=noticed,
        queries=queries,
        unreferenced=[t.id for t in user if not t.reference_answer.strip()],
        agree=agreement_judge() if queries else None,
        stored_stages=frame,
        verdict_tables=(ws.verdict_table(), ws.member_table()),
    )


def stage_recorder(ws: Workspace, suite: Suite | None = None,
                   rule: FabricationRule | None = None) -> tuple[str, StageRecorder]:
    """(context, row function) of the workspace's stored stage rows, for
    `Workspace.put_traces(stages=...)`: the suite the workspace's runs used decides
    `fabricated` (`workspace_suite`)."""
    from agentprop.analysis._stored import StageRecorder, stage_context

    tasks = workspace_suite(ws, suite)
    return (stage_context(tasks.checksum if tasks is not None else None),
            StageRecorder(tasks, rule if rule is not None else _rule_for(tasks)))


def stored_stages(ws: Workspace, tasks: Suite | None, rule: FabricationRule | None,
                  batch: int = 2000) -> pd.DataFrame | None:
    """The workspace's stored stage rows (`Workspace.stage_frame`), after back-filling the
    traces without a row of the current context (a workspace written before the stage
    table, or against another suite); None when rows are missing and the workspace is
    read-only (the caller then computes the table from the traces, as before)."""
    from agentprop.analysis._stored import StageRecorder, stage_context

    context = stage_context(tasks.checksum if tasks is not None else None)
    complete = ws.stages_complete(context)
    if not ws.readonly and not complete:
        record = StageRecorder(tasks, rule)
        rows: list[tuple[Any, ...]] = []
        for t in ws.traces_without_stages(context):
            rows.append((t.id, context, *record(t)))
            if len(rows) >= batch:
                ws.put_stage_rows(rows)
                rows = []
        ws.put_stage_rows(rows)
    frame: pd.DataFrame | None = ws.stage_frame(context, complete=complete)
    return frame


def agreement_judge() -> Callable[[str, str, str], bool | None] | None:
    """`agentprop.judges.answers_agree` (the agreement judge) when this install has it;
    None otherwise, and the noise floor is undefined with the reason "no agreement judge"."""
    import importlib

    judges = importlib.import_module("agentprop.judges")
    found = getattr(judges, "answers_agree", None)
    return found if callable(found) else None


UPSTREAM_KEYS = ("upstream", "upstream_server", "safe_tools", "upstream_tools")
"""What a run's manifest says of the user's MCP server (cli/_upstream.py `recorded`)."""


def latest_upstream(ws: Workspace) -> dict[str, Any] | None:
    """The user's server as the latest run that had one recorded it (None: no such run)."""
    found = None
    for run in ws.runs():
        if run.config.get("upstream"):
            found = {k: run.config[k] for k in UPSTREAM_KEYS if k in run.config}
    return found


def latest_preflight(ws: Workspace) -> tuple[ToolProbe, ...]:
    """The latest stored tool-calling preflight of each model (runs in creation order,
    a later run's probe replacing an earlier one's), in model order."""
    latest: dict[str, ToolProbe] = {}
    for run in ws.runs():
        for probe in run.preflight:
            latest[probe.model] = probe
    return tuple(latest[m] for m in sorted(latest))


def latest_models(ws: Workspace) -> tuple[ModelInfo, ...]:
    """What each self-describing model said of itself in the latest run that used it."""
    latest: dict[str, ModelInfo] = {}
    for run in ws.runs():
        for info in run.models:
            latest[info.model] = info
    return tuple(latest[m] for m in sorted(latest))


def compute_simulation_check(ws: Workspace, *, seed: int = 42, suite: Suite | None = None,
                             rule: FabricationCheck | None = None) -> list[dict[str, Any]]:
    """The simulation-check rows for the simulated agents in the workspace (stored in meta)."""
    from agentprop.analysis.stages import stage_table
    from agentprop.sim import PROFILES

    primary = ws.primary_judge()
    truth = {
        f"sim/{name}": p.true_rates()
        for name, p in PROFILES.items()
        if ws.count_traces(arm="", model=f"sim/{name}")
    }
    if not truth:
        ws.update_meta(simulation_check=[])
        return []
    verdicts = {tid: correct for tid, _, correct, _ in ws.verdict_rows(primary)}
    # streamed, and only the profiles' own traces: the check reads no others
    tasks = workspace_suite(ws, suite)
    stages = stage_table(ws.iter_traces(arm="", model=list(truth)), verdicts, tasks=tasks,
                         rule=rule if rule is not None else _rule_for(tasks))
    # the profiles' stated rates are the suite policy's: a simulated agent on the user's
    # own questions plays the generic policy, which the check does not describe
    user = {t.id for t in ws.stored_tasks() if t.intent == "user"}
    if user and not stages.empty:
        stages = stages[~stages["task_id"].astype(str).isin(user)]
    if stages.empty:
        ws.update_meta(simulation_check=[])
        return []
    table = simulation_check(stages, truth, seed=seed)
    rows: list[dict[str, Any]] = [
        {str(k): (None if isinstance(v, float) and v != v else v) for k, v in r.items()}
        for r in table.to_dict("records")
    ]
    for r in rows:
        r["judge"] = primary
    ws.update_meta(simulation_check=rows)
    return rows


def _evaluate_interceptor(cfg: ExperimentConfig, ws: Workspace, suite: Suite, plan: Any,
                          models: dict[str, Any], *, say: Say, use_cache: bool,
                          progress: bool, judge_options: dict[str, Any] | None,
                          preflight: str, on_probe: Callable[[ToolProbe], None],
                          max_cost: float | None) -> int:
    """Step 4: the paired interceptor evaluation of `cfg.evaluate`, with the spend left
    under the cost guard; how many of its units the guard did not start."""
    from agentprop.app._intercept import resolve_config, run_evaluation

    ev = cfg.evaluate
    assert ev is not None
    icfg = resolve_config(ws, ev.config, ev.mode)
    n_units = sum(s.n_units for s in plan.steps if s.kind == "evaluate")
    say(f"[4/6] interceptor evaluation ({icfg.label}): {n_units} paired units")
    ev_out = run_evaluation(
        ws, suite=suite, models=ev.models, config=icfg, split=ev.split, n=ev.n,
        conditions=ev.conditions, seed=ev.seed, concurrency=cfg.concurrency,
        judge=cfg.primary_judge, domains=ev.domains, run_id=f"{cfg.name}:evaluate",
        use_cache=use_cache, progress=progress,
        runtime_models={m: models[m] for m in ev.models}, judge_options=judge_options,
        max_cost=max_cost, preflight=preflight, on_probe=on_probe)
    return int(ev_out.get("run", {}).get("not_started") or 0)


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
    preflight: str = "warn",
) -> ExperimentResult:
    """Run every step of `cfg` into `workspace`; rerunning resumes where it stopped.

    `max_cost` (USD, this invocation) is the cost guard over the agent episodes (runs and
    the interceptor evaluation): once it stops a unit, the study stops after that step
    and `summary["not_started"]` says how many units are left for a rerun with a higher
    limit. `judge_options` go to the LLM judges' models (a base URL); `meta` is stored
    in the workspace first (the rehearsal mark). `preflight` is the runner's
    tool-calling probe of each model (strict, warn, off), one line each through `say`."""
    from agentprop.app._intercept import run_sweep
    from agentprop.judges import judge_workspace, query_vocabulary
    from agentprop.labels import sample_labels
    from agentprop.runner import probe_line
    from agentprop.suite import DEFAULT_SEED, load_suite

    def say_probe(probe: ToolProbe) -> None:
        say(probe_line(probe))

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
        ws.update_meta(experiment=cfg.model_dump(mode="json"), **dict(meta or {}))
        models = _models(cfg, ws, suite, use_cache)

        # one vocabulary for the judges and the `fabricated` rule: an answer the facts
        # judge read is not read again for the simulation check and the report
        vocabulary = functools.cache(lambda: query_vocabulary(suite.tasks))

        def judge_all() -> None:
            """Every configured judge over every trace lacking its verdict (resumable)."""
            judge_workspace(ws, cfg.judges, suite=suite, primary=cfg.primary_judge,
                            progress=progress, use_cache=use_cache,
                            model_options=judge_options, vocabulary=vocabulary)

        t0 = time.perf_counter()
        agent_units = [u for s in plan.steps if s.kind == "run" for u in s.units]
        say(f"[1/6] agent runs: {len(agent_units)} units")
        rs = _run_agents(cfg, agent_units, ws, suite, models, progress=progress,
                         max_cost=max_cost, probe=preflight, on_probe=say_probe)
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
        line = f"[2/6] judges: {', '.join(cfg.judges)} (primary {cfg.primary_judge})"
        if len(line) > 80:  # one judge a line rather than a break inside the list
            line = (f"[2/6] judges (primary {cfg.primary_judge}):"
                    + "".join(f"\n  {j}" for j in cfg.judges))
        say(line)
        judge_all()
        timed("judges", t0)

        if cfg.sweep:
            t0 = time.perf_counter()
            say(f"[3/6] interceptor sweep over {cfg.sweep.split} traces (no model calls)")
            outcome = run_sweep(ws, split=cfg.sweep.split, judge=cfg.primary_judge, suite=suite)
            summary["interceptor_config"] = outcome.best.label
            store_layer_hits(ws, outcome.best, judge=cfg.primary_judge, suite=suite)
            timed("sweep", t0)
        if cfg.evaluate:
            t0 = time.perf_counter()
            left = _evaluate_interceptor(
                cfg, ws, suite, plan, models, say=say, use_cache=use_cache, progress=progress,
                judge_options=judge_options, preflight=preflight, on_probe=say_probe,
                max_cost=None if max_cost is None else max(0.0, max_cost - rs.cost))
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
        rule = fabrication_rule(ws, suite, vocabulary())  # shared: each answer read once
        rows = compute_simulation_check(ws, suite=suite, rule=rule)
        if rows:
            summary["simulation_check_covered"] = sum(r["covered"] for r in rows)
            summary["simulation_check_total"] = len(rows)
        timed("labels+simcheck", t0)

        report: Path | None = None
        if cfg.report:
            t0 = time.perf_counter()
            say("[6/6] analysis and report")
            report, found, _ = report_checked(ws, resamples=resamples, suite=suite, rule=rule)
            summary["invariant_violations"] = found  # the report's quick verify
            timed("report", t0)
        summary["traces"] = ws.count_traces()
        return ExperimentResult(
            workspace=Path(workspace), report=report, steps=timings, summary=summary
        )
    finally:
        ws.close()
