"""`agentprop intercept sweep|evaluate`: tune the interceptor offline, test it in a paired
concurrent experiment."""

from __future__ import annotations

import math
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.text import Text

from agentprop.cli._common import (
    UserError,
    console,
    err_console,
    open_workspace,
    preflight_mode,
    print_json,
    probe_models,
    say_probe,
    user_errors,
)
from agentprop.cli._layout import breakable, narrow_table

if TYPE_CHECKING:
    from collections.abc import Callable

    from agentprop.core import WorkUnit
    from agentprop.intercept import GuardSpec, InterceptConfig
    from agentprop.store import Workspace
    from agentprop.suite import Suite

intercept_app = typer.Typer(
    help="The three-layer interceptor: offline threshold sweep and paired evaluation.",
    no_args_is_help=True,
)

WorkspaceOpt = typer.Option(..., "--workspace", "-w", envvar="AGENTPROP_WORKSPACE",
                            help="Workspace folder.")
SuiteOpt = typer.Option(None, "--suite", envvar="AGENTPROP_SUITE",
                        help="Suite JSONL file (default: the built-in suite).")
JudgeOpt = typer.Option(None, "--judge", "-j", envvar="AGENTPROP_JUDGE",
                        help="Judge whose verdicts define wrong answers (default: the "
                             "workspace's primary judge).")
JsonOpt = typer.Option(False, "--json", envvar="AGENTPROP_JSON", help="Print JSON.")


def _suite(path: Path | None) -> Suite:
    from agentprop.suite import load_suite

    return load_suite(path)


def _f(x: Any, digits: int = 3) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.{digits}f}"


def _p(x: Any) -> str:
    if x is None or (isinstance(x, float) and math.isnan(x)):
        return "—"
    return f"{x:.2e}" if x < 1e-3 else f"{x:.3f}"


@intercept_app.command("sweep")
@user_errors
def sweep_cmd(
    workspace: Path = WorkspaceOpt,
    split: str = typer.Option("val", "--split", envvar="AGENTPROP_SPLIT",
                              help="Split whose stored traces to replay over."),
    judge: str = JudgeOpt,
    suite_file: Path = SuiteOpt,
    as_json: bool = JsonOpt,
    max_false_abstain: float = typer.Option(
        None, "--max-false-abstain", envvar="AGENTPROP_MAX_FALSE_ABSTAIN",
        help="α: choose by Learn-then-Test instead of F1, so that P(abstain | the answer "
             "would be right) ≤ α with confidence 1 − δ (docs/interceptor.md)."),
    delta: float = typer.Option(None, "--delta", envvar="AGENTPROP_DELTA",
                                help="δ of --max-false-abstain (default 0.1)."),
) -> None:
    """Replay the 12 threshold configurations over stored un-intercepted traces (no model
    is called); save the best (highest F1, ties → fewer abstentions; with
    --max-false-abstain, the most hallucinations caught under a false-abstain guarantee)
    in the workspace."""
    from agentprop.app._intercept import run_sweep

    if split not in ("val", "test"):
        raise UserError(f"invalid split {split!r}: use val or test")
    for name, level in (("--max-false-abstain", max_false_abstain), ("--delta", delta)):
        if level is not None and not 0 < level < 1:
            raise UserError(f"invalid {name} {level:g}: must lie strictly between 0 and 1")
    if delta is not None and max_false_abstain is None:
        raise UserError("--delta needs --max-false-abstain (the α it goes with)")
    with open_workspace(workspace, write=True) as ws:
        out = run_sweep(ws, split=split, judge=judge, suite=_suite(suite_file),
                        max_false_abstain=max_false_abstain,
                        delta=0.1 if delta is None else delta)
    from agentprop.app._intercept import records

    rows = records(out.table)
    if as_json:
        print_json({"split": out.split, "judge": out.judge, "n": out.n_traces,
                    "rows": rows, "best": out.best.model_dump(mode="json"),
                    "best_label": out.best.label,
                    **({"guarantee": out.guarantee} if out.guarantee else {})})
        return
    console.print(Text(f"interceptor sweep — {out.split}, judge {breakable(out.judge)}, "
                       f"n={out.n_traces}, positives={rows[0]['positives'] if rows else 0}"))
    table = narrow_table()
    for col in ("τ_L1", "τ_L2", "L3", "precision", "recall", "F1", "abstain", "tp", "fp",
                "fn", ""):
        table.add_column(col, justify="right", no_wrap=True)
    for r in rows:
        table.add_row(str(r["tau_l1"]), str(r["tau_l2"]), "on" if r["l3"] else "off",
                      _f(r["precision"]), _f(r["recall"]), _f(r["f1"]),
                      _f(r["abstention_rate"]), str(r["tp"]), str(r["fp"]), str(r["fn"]),
                      "best" if r["best"] else ("repeat" if r.get("same_as") else ""))
    console.print(table)
    for r in rows:  # a row that repeats an earlier one says why (the same traces flagged)
        if r.get("same_as"):
            console.print(Text(f"repeat {r['config']}: {r['same_as']}"))
    if out.guarantee is not None:
        _print_guarantee(out.guarantee)
        return
    console.print(f"best: [bold]{out.best.label}[/] — saved to the workspace "
                  "(use --config best with `agentprop intercept evaluate`)", highlight=False)


def _share(r: dict[str, Any]) -> str:
    """"k/n (rate)", or "— (n=0)" when there was nothing to measure on."""
    return f"{r['k']}/{r['n']} ({_f(r['rate'])})" if r["n"] else "— (n=0)"


def _print_guarantee(g: dict[str, Any]) -> None:
    """The Learn-then-Test choice, its promise and what it realised, in lines ≤ 80."""
    level = f"δ/{len(g['candidates'])}" if g["correction"] == "bonferroni" else "δ"
    lines = [
        f"chosen by Learn-then-Test: {g['config']}",
        f"  P(abstain | right answer) ≤ α = {g['alpha']:g} with confidence 1 − δ = "
        f"{1 - g['delta']:g}",
        f"  {g['split']}: {g['k']}/{g['n']} right answers flagged ({_f(g['val_rate'])}); "
        f"p = {_p(g['p_value'])} ≤ {level} = {g['level']:.3g}",
        f"  {g['split']}: catches {_share(g['val_caught'])} of the wrong answers",
        f"realised false-abstain rate, {g['held_out_split']}: {_share(g['held_out'])}",
        f"  clean baseline traces of {g['held_out_split']}: {_share(g['baseline'])}",
        f"AURC of the signal strength: {g['split']} {_f(g['aurc_val']['value'])} "
        f"(n={g['aurc_val']['n']}), {g['held_out_split']} "
        f"{_f(g['aurc_held_out']['value'])} (n={g['aurc_held_out']['n']})",
        "saved to the workspace (use --config best with `agentprop intercept evaluate`)",
    ]
    for line in lines:
        console.print(Text(line))


@intercept_app.command("evaluate")
@user_errors
def evaluate_cmd(
    workspace: Path = WorkspaceOpt,
    model: list[str] = typer.Option([], "--model", "-m", envvar="AGENTPROP_MODEL",
                                    help="Model id (repeatable), e.g. sim/propagator."),
    agent: str = typer.Option(None, "--agent", envvar="AGENTPROP_AGENT",
                              help="Your own agent instead of --model: "
                              "MODULE_OR_FILE:CALLABLE (docs/external-agents.md)."),
    agent_name: str = typer.Option(None, "--agent-name", envvar="AGENTPROP_AGENT_NAME"),
    episode_timeout: float = typer.Option(300.0, "--episode-timeout",
                                          envvar="AGENTPROP_EPISODE_TIMEOUT"),
    split: str = typer.Option("test", "--split", envvar="AGENTPROP_SPLIT"),
    n: int = typer.Option(600, "--n", "-n", envvar="AGENTPROP_N",
                          help="Tasks (balanced over domain × difficulty)."),
    condition: list[str] = typer.Option(
        ["p2:semantic_wrong"], "--condition", "-c", envvar="AGENTPROP_CONDITION",
        help="baseline, p2:<type>, out:<kind>, fault:<kind> or <family>:all (repeatable)."),
    config: str = typer.Option("best", "--config", envvar="AGENTPROP_INTERCEPT_CONFIG",
                               help="best (the sweep's choice) or tau_l1=1,tau_l2=2,l3=on."),
    mode: str = typer.Option(None, "--mode", envvar="AGENTPROP_INTERCEPT_MODE",
                             help="abstain (default) or warn."),
    seed: int = typer.Option(0, "--seed", min=0, envvar="AGENTPROP_SEED",
                             help="Episode seed and task sample seed (same for both arms)."),
    concurrency: int = typer.Option(32, "--concurrency", envvar="AGENTPROP_CONCURRENCY"),
    judge: str = JudgeOpt,
    domain: list[str] = typer.Option([], "--domain", "-d", envvar="AGENTPROP_DOMAIN",
                                     help="Domain (repeatable; default: the core domains)."),
    run_id: str = typer.Option(None, "--run-id", envvar="AGENTPROP_RUN_ID",
                               help="Run id (default: derived from the options; reruns "
                                    "resume)."),
    no_cache: bool = typer.Option(False, "--no-cache", envvar="AGENTPROP_NO_CACHE"),
    suite_file: Path = SuiteOpt,
    as_json: bool = JsonOpt,
    preflight: str = typer.Option(
        "warn", "--preflight", envvar="AGENTPROP_PREFLIGHT",
        help="Tool-calling check of each model before the first unit: strict, warn or off "
        "(docs/real-servers.md)."),
    guard: str = typer.Option(
        None, "--guard", envvar="AGENTPROP_GUARD",
        help="Evaluate this guardrail or mitigation instead of the interceptor: a built-in "
        "(retry, requery, ask_user, abstain_l1..3, interceptor) or MODULE_OR_FILE:NAME "
        "(docs/guardrails.md). Adds the clean baseline condition (false alarms)."),
) -> None:
    """Run the control and interceptor (or --guard) arms on the same tasks and seed,
    interleaved in one scheduler; judge both; report Δ hallucination and its tests."""
    from agentprop.app._intercept import (
        plan_evaluation,
        resolve_config,
        run_evaluation,
    )
    from agentprop.runner import make_models

    if split not in ("val", "test"):
        raise UserError(f"invalid split {split!r}: use val or test")
    if concurrency < 1:
        raise UserError(f"invalid concurrency {concurrency}: must be at least 1")
    if mode is not None and mode not in ("abstain", "warn"):
        raise UserError(f"invalid mode {mode!r}: use abstain or warn")
    probe = preflight_mode(preflight)
    spec = _guard(guard, agent)
    if spec is not None and "baseline" not in condition:
        condition = [*condition, "baseline"]  # a guard's false alarms: on clean runs
    external = None
    if agent is not None:  # a bad callable fails here, before anything is written
        from agentprop.cli._external import agent_executor

        external, model = agent_executor(agent, agent_name, episode_timeout, model,
                                         guards=_episode_guards(spec))
    elif not model:
        raise UserError("give --model (a model id) or --agent (your own agent)")
    suite = _suite(suite_file)
    models = list(dict.fromkeys(model))
    # fail early: an unknown model or an unreachable server, before any workspace is created
    if external is None:
        probe_models(make_models(models, workspace=None, suite=suite,
                                 use_cache=False).values())
    best = config.strip().lower() == "best"
    try:
        # Everything that can be checked without the workspace is checked before it is
        # created, so a bad option leaves nothing behind.
        if not best:
            cfg = resolve_config(None, config, mode)
            plan_evaluation(suite, models=models, config=cfg, split=split, n=n,
                            conditions=condition, seed=seed, domains=domain, run_id=run_id)
        with open_workspace(workspace, create=not best or spec is not None,
                            write=True) as ws:
            cfg = _config(ws, config, mode, defaults=spec is not None)
            result = run_evaluation(
                ws, suite=suite, models=models, config=cfg, split=split, n=n,
                conditions=condition, seed=seed, concurrency=concurrency, judge=judge,
                domains=domain, run_id=run_id, use_cache=not no_cache,
                progress=not as_json, executor=external,
                preflight=probe, on_probe=None if as_json else say_probe,
                guard=_with_config(spec, cfg),
            )
    except KeyboardInterrupt:
        err_console.print("interrupted: rerun the same command to resume")
        raise typer.Exit(130) from None
    if as_json:
        print_json(result)
        return
    _print_eval(result)


@intercept_app.command("matrix")
@user_errors
def matrix_cmd(
    workspace: Path = WorkspaceOpt,
    model: list[str] = typer.Option([], "--model", "-m", envvar="AGENTPROP_MODEL",
                                    help="Model id (repeatable), e.g. sim/propagator."),
    mitigation: list[str] = typer.Option(
        [], "--mitigation", envvar="AGENTPROP_MITIGATION",
        help="Built-in mitigation or MODULE_OR_FILE:NAME guard (repeatable; default: "
        "every built-in)."),
    condition: list[str] = typer.Option(
        [], "--condition", "-c", envvar="AGENTPROP_CONDITION",
        help="Fault classes (repeatable; default: p2:all, out:all, fault:all, api:all). "
        "The clean baseline is always added."),
    config: str = typer.Option("best", "--config", envvar="AGENTPROP_INTERCEPT_CONFIG",
                               help="Thresholds the mitigations read: best (the sweep's, "
                               "else the defaults) or tau_l1=1,tau_l2=2,l3=on."),
    split: str = typer.Option("test", "--split", envvar="AGENTPROP_SPLIT"),
    n: int = typer.Option(100, "--n", "-n", envvar="AGENTPROP_N",
                          help="Tasks per fault class (balanced over domain × difficulty)."),
    seed: int = typer.Option(0, "--seed", min=0, envvar="AGENTPROP_SEED"),
    concurrency: int = typer.Option(32, "--concurrency", envvar="AGENTPROP_CONCURRENCY"),
    judge: str = JudgeOpt,
    suite_file: Path = SuiteOpt,
    as_json: bool = JsonOpt,
) -> None:
    """Evaluate each mitigation over each fault class against its own concurrent control
    (one paired evaluation per mitigation, plus clean runs for false alarms); print Δ
    hallucination per cell. The report draws the matrix as a heatmap."""
    from agentprop.app._matrix import run_matrix
    from agentprop.runner import make_models

    if split not in ("val", "test"):
        raise UserError(f"invalid split {split!r}: use val or test")
    if concurrency < 1:
        raise UserError(f"invalid concurrency {concurrency}: must be at least 1")
    if not model:
        raise UserError("give --model (a model id)")
    for name in mitigation:  # a bad name (or a framework's guard) before anything is written
        _guard(name, None)
    if condition:
        from agentprop.inject import expand_conditions

        try:
            expand_conditions(condition)
        except KeyError as e:  # UnknownNameError: its message names the known ones
            raise UserError(str(e)) from None
    suite = _suite(suite_file)
    models = list(dict.fromkeys(model))
    probe_models(make_models(models, workspace=None, suite=suite, use_cache=False).values())
    try:
        with open_workspace(workspace, create=True, write=True) as ws:
            cfg = _config(ws, config, None, defaults=True)
            out = run_matrix(ws, suite=suite, models=models, config=cfg,
                             mitigations=mitigation or None, conditions=condition or None,
                             split=split, n=n, seed=seed, concurrency=concurrency,
                             judge=judge, progress=not as_json)
    except KeyboardInterrupt:
        err_console.print("interrupted: rerun the same command to resume")
        raise typer.Exit(130) from None
    if as_json:
        print_json(out)
        return
    _print_matrix(out)


def _print_matrix(out: dict[str, Any]) -> None:
    """Δ hallucination per condition (rows) and mitigation (columns), per model; a star
    when the 95% CI excludes 0; then each mitigation's cost on clean runs."""
    from agentprop.cli._layout import column_tables

    cells = out["cells"]
    for m in dict.fromkeys(c["model"] for c in cells):
        mine = [c for c in cells if c["model"] == m]
        conds = [c for c in out["conditions"] if any(x["condition"] == c for x in mine)]
        by = {(c["mitigation"], c["condition"]): c for c in mine}
        columns = [(name, [_delta_cell(by.get((name, cond))) for cond in conds])
                   for name in out["mitigations"]]
        title = f"Δ hallucination (treatment − control), {m}; * = 95% CI excludes 0"
        for heading, table in column_tables(title, conds, columns, label_width=24):
            console.print(heading, highlight=False)
            console.print(table)
        for name in out["mitigations"]:
            c = by.get((name, "baseline"))
            if c is not None:
                console.print(
                    f"{name} on clean runs: false alarms {c['false_alarms']}/"
                    f"{c['n_control_correct']} ({_f(c['false_alarm_rate'])}), broken "
                    f"{c['broken']} of {c['n_pairs']}", highlight=False)
    runs = ", ".join(f"{k}: {v}" for k, v in out["runs"].items())
    console.print(Text(f"runs: {runs}. The report's matrix section draws the heatmap."))


def _delta_cell(c: dict[str, Any] | None) -> str:
    """A matrix cell: Δ hallucination, starred when its 95% CI excludes 0."""
    if c is None or c["delta_hallucination"] is None:
        return "n/a"
    lo, hi = c["delta_ci_low"], c["delta_ci_high"]
    star = "*" if lo is not None and hi is not None and (hi < 0 or lo > 0) else ""
    return f"{c['delta_hallucination']:+.3f}{star}"


def _guard(spec: str | None, agent: str | None) -> GuardSpec | None:
    """`--guard` resolved before anything is written (a bad one is one line)."""
    if spec is None:
        return None
    from agentprop.intercept import resolve_guard

    g = resolve_guard(spec)
    if g.in_agent and agent is None:
        raise UserError(f"guard {spec!r} is an object for your agent's framework, not an "
                        "agentprop guard: give --agent, whose agent installs "
                        "`episode.guards` (docs/guardrails.md)")
    return g


def _episode_guards(spec: GuardSpec | None
                    ) -> Callable[[WorkUnit], tuple[Any, ...]] | None:
    """A framework guard for the treatment arm's episodes (`Episode.guards`)."""
    if spec is None or not spec.in_agent:
        return None
    return lambda unit: spec.framework() if unit.arm == "treatment" else ()


def _config(ws: Workspace, config: str, mode: str | None, *, defaults: bool
            ) -> InterceptConfig:
    """The interceptor configuration; with `defaults` (guards: a built-in mitigation reads
    its thresholds), `best` falls back to the defaults when no sweep was stored."""
    from agentprop.app._intercept import InterceptError, resolve_config
    from agentprop.intercept import InterceptConfig

    try:
        return resolve_config(ws, config, mode)
    except InterceptError:
        if not defaults or config.strip().lower() != "best":
            raise
        return InterceptConfig()


def _with_config(spec: GuardSpec | None, cfg: InterceptConfig) -> GuardSpec | None:
    """A built-in mitigation rebuilt on the configuration in use (its thresholds)."""
    if spec is None or spec.kind != "builtin":
        return spec
    from agentprop.intercept import resolve_guard

    return resolve_guard(spec.spec, cfg)


def _print_eval(r: dict[str, Any]) -> None:
    sim = " (simulated)" if r["simulated"] else ""
    what = (f"guard {escape(r['guard'])}" if r.get("guard") else
            f"interceptor {r['config_label']} mode {r['mode']}")
    console.print(
        f"run [bold]{escape(r['run_id'])}[/]{sim}: {what}, "
        f"judge {escape(r['judge'])}, {r['n_tasks']} tasks, "
        f"{r['n_traces']} traces ({r['unscored']} unscored, {r['errors']} failed)",
        highlight=False,
    )
    # One column per (model, condition), one row per statistic, as many tables as it
    # takes to fit 80 columns with every name whole.
    rows: list[tuple[str, Any]] = [
        ("pairs", lambda a: str(a["n_pairs"])),
        ("hallucination ctl", lambda a: _f(a["hallucination_control"])),
        ("hallucination trt", lambda a: _f(a["hallucination_treatment"])),
        ("Δ hallucination", lambda a: _f(a["delta_hallucination"])),
        ("95% CI (tasks)", lambda a: f"[{_f(a['delta_ci_low'])}, {_f(a['delta_ci_high'])}]"),
        ("saved / broken", lambda a: f"{a['saved']} / {a['broken']}"),
        ("McNemar p (exact)", lambda a: _p(a["mcnemar_p"])),
        ("McNemar mid-p", lambda a: _p(a["mcnemar_midp"])),
        ("two-proportion p", lambda a: _p(a["ztest_p"])),
        ("Cohen's h", lambda a: _f(a["cohens_h"], 2)),
        ("achieved power", lambda a: _f(a["power"], 2)),
        ("correct ctl / trt", lambda a: f"{_f(a['correct_control'], 2)} / "
                                        f"{_f(a['correct_treatment'], 2)}"),
        ("coverage ctl / trt", lambda a: f"{_f(a['coverage_control'], 2)} / "
                                         f"{_f(a['coverage_treatment'], 2)}"),
        ("selective acc. ctl / trt", lambda a: f"{_f(a['selective_accuracy_control'], 2)} / "
                                               f"{_f(a['selective_accuracy_treatment'], 2)}"),
        ("false-alarm rate", lambda a: f"{_f(a['false_alarm_rate'])} "
                                       f"({a['false_alarms']}/{a['n_control_correct']})"),
        ("cost ctl / trt", lambda a: f"${a['cost_control']:.4f} / ${a['cost_treatment']:.4f}"),
    ]
    arm = "guard" if r.get("guard") else "interceptor"
    _print_columns(f"control vs {arm} (paired by task and seed)", rows, r["ab"])
    if r.get("guard_actions"):
        _print_columns("what the guard did in the treatment arm", [
            ("traces", lambda a: str(a["n"])),
            ("acted on", lambda a: _f(a["acted_rate"])),
            ("retries / rejects", lambda a: f"{a['retry_actions']} / {a['reject_actions']}"),
            ("abstentions", lambda a: str(a["abstain_actions"])),
        ], r["guard_actions"])
    if r["replay"]:
        rows2: list[tuple[str, Any]] = [
            ("traces", lambda a: str(a["n"])),
            ("hallucination ctl", lambda a: _f(a["hallucination_control"])),
            ("hallucination replay", lambda a: _f(a["hallucination_replay"])),
            ("Δ hallucination", lambda a: _f(a["delta_hallucination"])),
            ("95% CI (tasks)",
             lambda a: f"[{_f(a['delta_ci_low'])}, {_f(a['delta_ci_high'])}]"),
            ("saved", lambda a: str(a["saved"])),
            ("false-alarm rate", lambda a: _f(a["false_alarm_rate"])),
        ]
        _print_columns("exact replay estimate (interceptor replayed on the control traces)",
                       rows2, r["replay"])
    g = r.get("guarantee")
    if g:
        console.print(
            f"false-abstain rate of this run: {_share(g)}; promised ≤ α = {g['alpha']:g} "
            f"at 1 − δ = {1 - g['delta']:g}", highlight=False)
    for fa in r["false_alarm_baseline"]:
        console.print(
            f"false alarms on clean baseline traces, {escape(fa['model'])}: "
            f"{fa['false_alarms']}/{fa['n_correct']} correct answers "
            f"({_f(fa['false_alarm_rate'])})", highlight=False)
    console.print("summary saved in workspace meta 'interceptor_eval'", highlight=False)


def _print_columns(title: str, rows: list[tuple[str, Any]],
                   groups: list[dict[str, Any]]) -> None:
    """Statistics (rows) × (model, condition) groups, in tables that fit 80 columns."""
    from agentprop.cli._layout import column_tables

    columns = [(f"{a['model']}\n{a['condition']}", [fmt(a) for _, fmt in rows])
               for a in groups]
    for heading, table in column_tables(title, [label for label, _ in rows], columns):
        console.print(heading, highlight=False)
        console.print(table)


def register(app: typer.Typer) -> None:
    """Add the `intercept` sub-app to the main app."""
    app.add_typer(intercept_app, name="intercept")
