"""`agentprop demo` (the main job: the whole study offline) and `agentprop experiment run`."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape

from agentprop.cli._common import (
    UserError,
    console,
    err_console,
    fail,
    preflight_mode,
    print_json,
    probe_base_url,
    user_errors,
)
from agentprop.cli._layout import headline_table

if TYPE_CHECKING:
    from agentprop.experiment import ExperimentConfig

experiment_app = typer.Typer(
    help="Run a whole study declared in one YAML/TOML file.", no_args_is_help=True
)

DEMO_CONFIG = Path(__file__).resolve().parent.parent / "experiment" / "demo.yaml"
DEMO_LOCAL_CONFIG = DEMO_CONFIG.with_name("demo-local.yaml")


def _load(config: Path) -> ExperimentConfig:
    from agentprop.experiment import ConfigError, load_config

    try:
        return load_config(config)
    except ConfigError as e:
        raise UserError(str(e)) from None


def _print_plan(plan: Any) -> None:
    from agentprop.cli._layout import plan_table

    console.print(plan_table(f"plan: {plan.name} (estimates; nothing is called)",
                             plan.rows(), [r.model_dump() for r in plan.model_totals()],
                             plan.totals))
    for s in plan.steps:
        if s.note and "no price" in s.note:
            console.print(f"[yellow]{escape(s.name)}: {escape(s.note)}[/]")
    console.print(
        "cost from the editable price table (agentprop/models/_prices.py, "
        "override with AGENTPROP_PRICES); simulated models cost nothing."
    )


def _summary_table(workspace: Path) -> None:
    """The few headline numbers a person looks at first."""
    from agentprop.store import Workspace

    numbers_path = workspace / "report" / "numbers.json"
    if not numbers_path.exists():
        return
    numbers = json.loads(numbers_path.read_text())
    table = headline_table(numbers)
    console.print(table)
    with Workspace(workspace, create=False) as ws:
        rows = ws.meta().simulation_check or []
    if rows:
        covered = sum(bool(r["covered"]) for r in rows)
        console.print(
            f"simulation check: {covered}/{len(rows)} true values inside their simultaneous"
            " 95 % CIs"
        )


@dataclass(frozen=True)
class RunOptions:
    """How `experiment run` runs beyond the file: cost guard and rehearsal."""

    max_cost: float | None = None
    rehearse: bool = False
    scale: float = 1.0
    aliases: dict[str, str] = field(default_factory=dict)
    resamples: int = 1000
    preflight: str = "warn"


def _run(config: ExperimentConfig, workspace: Path, dry_run: bool, no_cache: bool, as_json: bool,
         opts: RunOptions | None = None) -> None:
    from agentprop.app._intercept import InterceptError
    from agentprop.experiment import ConfigError
    from agentprop.judges import JudgeError
    from agentprop.runner import RunAborted, RunError

    try:
        _run_checked(config, workspace, dry_run, no_cache, as_json, opts or RunOptions())
    except KeyboardInterrupt:
        from agentprop.cli._run import resume_command

        err_console.print(f"interrupted: what finished is stored in {workspace}; to resume,"
                          f" run:\n  {resume_command()}", highlight=False, soft_wrap=True)
        raise typer.Exit(130) from None
    except RunAborted as e:
        fail(str(e), code=1)
    except (ConfigError, InterceptError, JudgeError, RunError) as e:
        raise UserError(str(e)) from None


def _run_checked(
    config: ExperimentConfig, workspace: Path, dry_run: bool, no_cache: bool, as_json: bool,
    opts: RunOptions,
) -> None:
    from agentprop.experiment import build_plan, run_experiment
    from agentprop.suite import DEFAULT_SEED, load_suite

    if dry_run:
        suite = load_suite(
            seed=config.suite_seed if config.suite_seed is not None else DEFAULT_SEED
        )
        if opts.rehearse:
            from agentprop.experiment._rehearse import scale_config

            config = scale_config(config, suite, opts.scale)
        plan = build_plan(config, suite)
        if as_json:
            print_json(
                {
                    "name": plan.name,
                    "steps": [s.model_dump() for s in plan.steps],
                    "rows": plan.rows(),
                    "model_totals": [r.model_dump() for r in plan.model_totals()],
                    "totals": plan.totals,
                }
            )
        else:
            _print_plan(plan)
        return
    say = (lambda _m: None) if as_json else (lambda m: console.print(escape(m)))
    if opts.rehearse:
        from agentprop.experiment._rehearse import rehearse

        result = rehearse(config, workspace=workspace, scale=opts.scale,
                          aliases=opts.aliases, progress=not as_json,
                          use_cache=not no_cache, say=say, max_cost=opts.max_cost,
                          resamples=opts.resamples, preflight=opts.preflight)
    else:
        for entry in config.models:  # a bad or unreachable server fails before the workspace
            if entry.base_url:
                probe_base_url(entry.base_url)
        result = run_experiment(
            config, workspace=workspace, progress=not as_json, use_cache=not no_cache,
            say=say, max_cost=opts.max_cost, resamples=opts.resamples,
            preflight=opts.preflight,
        )
    if as_json:
        print_json(
            {
                "workspace": str(result.workspace),
                "report": str(result.report) if result.report else None,
                "rehearsal": opts.rehearse,
                "steps_s": result.steps,
                **result.summary,
            }
        )
        if result.summary.get("invariant_violations"):
            raise typer.Exit(1)
        return
    if opts.rehearse:
        console.print("[bold yellow]REHEARSAL[/]: simulated answers behind the real SDKs "
                      "— not results")
    _summary_table(workspace)
    if result.report:
        console.print(f"report: {escape(str(result.report))}")
        from agentprop.cli._analyze import _print_verification

        # the report's quick verify: the invariants on what the report read
        _print_verification(result.summary.get("invariant_violations") or [],
                            f"{result.summary.get('traces', 0)} traces")


@experiment_app.command("run")
@user_errors
def experiment_run(
    config: Path = typer.Argument(..., help="experiment file (.yaml, .yml or .toml)"),
    workspace: Path = typer.Option(
        None,
        "--workspace",
        "-w",
        envvar="AGENTPROP_WORKSPACE",
        help="default: the file's `workspace`, else agentprop-runs/<name>",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="print the plan, call nothing"),
    no_cache: bool = typer.Option(False, "--no-cache", help="bypass the response cache"),
    as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    max_cost: float = typer.Option(
        None, "--max-cost", envvar="AGENTPROP_MAX_COST",
        help="cost guard (USD, this invocation): no agent episode starts once the estimated "
        "spend would pass it; rerun with a higher limit to resume"),
    rehearse: bool = typer.Option(
        False, "--rehearse", help="run the whole study through every provider's SDK against "
        "a local serve-sim (real names → sim profiles); nothing reaches a real API"),
    scale: float = typer.Option(
        1.0, "--scale", help="with --rehearse: every block's task count times this (0-1]"),
    alias: list[str] = typer.Option(
        [], "--alias", help="with --rehearse: NAME=PROFILE, the sim profile serving a model "
        "name (default: balanced)"),
    resamples: int = typer.Option(
        1000, "--resamples", min=10, help="bootstrap resamples of the report's CIs"),
    preflight: str = typer.Option(
        "warn", "--preflight", envvar="AGENTPROP_PREFLIGHT",
        help="tool-calling check of each model before its first unit: strict, warn or off "
        "(docs/real-servers.md)"),
) -> None:
    """Run (or with --dry-run, plan and cost) every step of a study; resumable."""
    preflight_mode(preflight)
    cfg = _load(config)
    if max_cost is not None and max_cost < 0:
        raise UserError(f"invalid --max-cost {max_cost:g}: must be >= 0")
    if not 0 < scale <= 1:
        raise UserError(f"invalid --scale {scale:g}: must be in (0, 1]")
    if scale != 1.0 and not rehearse:
        raise UserError("--scale needs --rehearse")
    aliases: dict[str, str] = {}
    for pair in alias:
        name, sep, profile = pair.partition("=")
        if not sep or not name.strip() or not profile.strip():
            raise UserError(f"invalid --alias {pair!r}: expected NAME=PROFILE")
        aliases[name.strip()] = profile.strip()
    default_ws = f"agentprop-runs/{cfg.name}" + ("-rehearsal" if rehearse else "")
    ws = workspace or (Path(default_ws) if rehearse else Path(cfg.workspace or default_ws))
    _run(cfg, ws, dry_run, no_cache, as_json,
         RunOptions(max_cost=max_cost, rehearse=rehearse, scale=scale, aliases=aliases,
                    resamples=resamples, preflight=preflight))


# where `agentprop demo` writes unless told (docs/injection.md's commands name it)
DEMO_WORKSPACE = "agentprop-runs/demo"
DEMO_LOCAL_WORKSPACE = "agentprop-runs/demo-local"


def register(app: typer.Typer) -> None:
    @app.command()
    @user_errors
    def demo(
        workspace: Path = typer.Option(
            None,
            "--workspace",
            "-w",
            envvar="AGENTPROP_WORKSPACE",
            help=f"where to write (default {DEMO_WORKSPACE}, or {DEMO_LOCAL_WORKSPACE})",
        ),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
        local: bool = typer.Option(
            False, "--local", help="a small study of a real model instead: SmolLM2-135M "
            "in-process through llama.cpp (the local extra); minutes, not seconds"),
        limit: int = typer.Option(
            None, "--limit", min=1, help="with --local: tasks per condition (default 30)"),
    ) -> None:
        """The whole study offline on simulated agents and judges: no keys, about a minute.

        Builds the suite, runs four sim profiles under baseline and P2, judges, tunes and
        evaluates the interceptor, and writes WORKSPACE/report/index.html. With --local,
        a real open-weight model (SmolLM2-135M) under baseline, P2 and corrupted output,
        judged by facts, heuristic and the model itself as an LLM judge."""
        if limit is not None and not local:
            raise UserError("--limit needs --local")
        if not local:
            _run(_load(DEMO_CONFIG), workspace or Path(DEMO_WORKSPACE), False, False,
                 as_json)
            return
        cfg = _load(DEMO_LOCAL_CONFIG)
        if limit is not None:
            cfg = cfg.model_copy(update={"runs": [
                r.model_copy(update={"n": limit}) for r in cfg.runs]})
        _run(cfg, workspace or Path(DEMO_LOCAL_WORKSPACE), False, False, as_json)

    app.add_typer(experiment_app, name="experiment")
