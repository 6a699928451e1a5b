"""`agentprop suite ...`: build, inspect, check and export the task suite."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.markup import escape
from rich.table import Table

from agentprop.cli._common import UserError, console, fail, print_json, user_errors

if TYPE_CHECKING:
    from agentprop.app import RunConfig
    from agentprop.store import Workspace
    from agentprop.suite import Suite

suite_app = typer.Typer(
    help="Build, inspect, check and export the task suite.", no_args_is_help=True
)

SuiteOpt = typer.Option(
    None, "--suite", envvar="AGENTPROP_SUITE", help="Suite JSONL file (default: built-in)."
)
SeedOpt = typer.Option(
    None, "--seed", envvar="AGENTPROP_SUITE_SEED", help="Suite seed (default: the published one)."
)


def parse_seed(seed: str | None) -> int:
    from agentprop.suite import DEFAULT_SEED

    if seed is None:
        return DEFAULT_SEED
    try:
        value = int(seed)
    except ValueError:
        raise UserError(f"invalid seed {seed!r}: must be a non-negative integer") from None
    if value < 0 or value >= 2**63:
        raise UserError(f"invalid seed {seed!r}: must be in [0, 2**63)")
    return value


def get_suite(suite_file: Path | None, seed: str | None = None) -> Suite:
    """The suite named on the command line: a file, else the built-in one for the seed."""
    from agentprop.suite import load_suite

    return load_suite(suite_file, seed=parse_seed(seed))


def workspace_questions(ws: Workspace, suite_file: Path | None) -> Suite:
    """The questions a workspace's traces answer: --suite's file, else the user's own
    tasks it stores (`run --tasks`), else the built-in suite."""
    from agentprop.suite import user_suite

    if suite_file is None and (stored := ws.stored_tasks()):
        return user_suite(stored)
    return get_suite(suite_file)


@suite_app.command("build")
@user_errors
def build(
    seed: str = SeedOpt,
    out: Path = typer.Option(None, "--out", help="Write here (default: the built-in location)."),
) -> None:
    """Generate the suite deterministically from a seed and write it as JSONL."""
    from agentprop.suite import build_suite, default_suite_path

    s = parse_seed(seed)
    t0 = time.perf_counter()
    suite = build_suite(s)
    target = out or default_suite_path(s)
    try:
        suite.to_jsonl(target)
    except OSError as e:
        raise UserError(f"cannot write {target}: {e.strerror or e}") from None
    console.print(
        f"built {len(suite)} tasks in {time.perf_counter() - t0:.1f} s → {escape(str(target))}"
        f"\nchecksum {suite.checksum}"
    )


@suite_app.command("stats")
@user_errors
def stats(
    suite_file: Path = SuiteOpt,
    seed: str = SeedOpt,
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
) -> None:
    """Counts by domain, difficulty and split, and the checksum."""
    suite = get_suite(suite_file, seed)
    st = suite.stats()
    if as_json:
        print_json(st)
        return
    console.print(f"suite v{st['version']}  seed {st['seed']}\nchecksum {st['checksum']}")
    table = Table("domain", "easy", "medium", "hard", "val", "test", "total")
    for dom in sorted(st["by_domain"]):
        ts = suite.select(domain=dom)
        table.add_row(
            dom,
            *(str(sum(t.difficulty == d for t in ts)) for d in ("easy", "medium", "hard")),
            *(str(sum(t.split == sp for t in ts)) for sp in ("val", "test")),
            str(len(ts)),
        )
    table.add_row("all", *("" for _ in range(5)), str(st["total"]), style="bold")
    console.print(table)


@suite_app.command("show")
@user_errors
def show(
    task_id: str = typer.Argument(..., help="e.g. weather_0001"),
    suite_file: Path = SuiteOpt,
    seed: str = SeedOpt,
) -> None:
    """Render a task, its gold plan and its reference answer."""
    suite = get_suite(suite_file, seed)
    task = suite.get(task_id)
    if task is None:
        fail(
            f"unknown task id {task_id!r} (ids look like weather_0001; see `agentprop suite stats`)"
        )
    console.print(
        f"[bold]{escape(task.id)}[/]  {task.domain} · {task.difficulty} · {task.split}"
        f" · intent {escape(task.intent)}"
    )
    console.print(f"[bold]query[/]  {escape(task.query)}")
    console.print("[bold]gold plan[/]")
    for i, call in enumerate(task.gold_plan, 1):
        console.print(f"  {i}. {escape(call.name)}({escape(json.dumps(call.arguments))})")
    console.print(f"[bold]reference[/]  {escape(task.reference_answer)}")
    console.print("[bold]expected facts[/]")
    for f in task.expected_facts:
        unit = f" {f.unit}" if f.unit else ""
        console.print(f"  {f.kind:7} {escape(f.key)} = {escape(str(f.value))}{escape(unit)}")
    if task.expected_state is not None:
        console.print(f"[bold]expected state[/]  {escape(json.dumps(task.expected_state))}")


@suite_app.command("check")
@user_errors
def check(suite_file: Path = SuiteOpt, seed: str = SeedOpt) -> None:
    """Execute every gold plan in a fresh environment and verify references and state."""
    from agentprop.suite import check_suite

    suite = get_suite(suite_file, seed)
    t0 = time.perf_counter()
    failures = check_suite(suite)
    dt = time.perf_counter() - t0
    if failures:
        for f in failures[:200]:
            console.print(f"[red]FAIL[/] {escape(f.task_id)}: {escape(f.problem)}")
        if len(failures) > 200:
            console.print(f"… and {len(failures) - 200} more")
        fail(f"{len(failures)} check failures in {len({f.task_id for f in failures})} tasks", 1)
    console.print(f"all {len(suite)} tasks pass ({dt:.1f} s)")


@suite_app.command("export")
@user_errors
def export(
    out: Path = typer.Option(..., "--out", help="Output JSONL file (.gz compresses)."),
    suite_file: Path = SuiteOpt,
    seed: str = SeedOpt,
) -> None:
    """Write the suite as JSON lines: a header line, then one task per line."""
    suite = get_suite(suite_file, seed)
    try:
        suite.to_jsonl(out)
    except OSError as e:
        raise UserError(f"cannot write {out}: {e.strerror or e}") from None
    console.print(f"wrote {len(suite)} tasks to {escape(str(out))}")


def register(app: typer.Typer) -> None:
    app.add_typer(suite_app, name="suite")


def run_config(
    suite: Suite, *, models: list[str], conditions: list[str], seeds: list[int],
    domains: list[str], split: str, limit: int | None, run_id: str | None,
) -> RunConfig:
    """The `RunConfig` of `run` (and `run --agent`, `serve-tools`) from its options: known
    domains, a valid split (`all`: both), a positive limit; the planner does the rest."""
    from agentprop.app import RunConfig, check_domains

    check_domains(suite, domains)
    if split not in ("val", "test", "all"):
        raise UserError(f"invalid split {split!r}: use val, test or all")
    if limit is not None and limit < 1:
        raise UserError(f"invalid limit {limit}: must be at least 1")
    return RunConfig(models=tuple(dict.fromkeys(models)), conditions=tuple(conditions),
                     seeds=tuple(seeds), domains=tuple(domains) or None,
                     split=None if split == "all" else split, n=limit, run_id=run_id)
