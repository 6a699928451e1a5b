"""`agentprop judge` and `agentprop label ...`: verdicts, human labels, agreement."""

from __future__ import annotations

import math
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.markup import escape
from rich.text import Text

from agentprop.cli._common import (
    UserError,
    console,
    err_console,
    fail,
    listen_error,
    open_workspace,
    print_json,
    probe_models,
    user_errors,
)
from agentprop.cli._layout import breakable, narrow_table
from agentprop.cli._suite import workspace_questions

if TYPE_CHECKING:
    from agentprop.suite import Suite

WorkspaceOpt = typer.Option(..., "--workspace", "-w", envvar="AGENTPROP_WORKSPACE",
                            help="Workspace folder.")
SuiteOpt = typer.Option(None, "--suite", envvar="AGENTPROP_SUITE",
                        help="Suite JSONL file (default: the built-in suite).")

label_app = typer.Typer(help="Human labels: plan, sample, annotate in a web app, import, "
                             "export, agreement.", no_args_is_help=True)
RATE_CHOICES = ("p_S3", "r23", "inj_to_err", "noticed", "fabricated", "hallucination",
                "delta")


def _suite(path: Path | None) -> Suite:
    from agentprop.suite import load_suite

    return load_suite(path)


def judge_models(judge: Any) -> list[Any]:
    """The models a judge calls (an ensemble's members' too)."""
    members = getattr(judge, "members", None) or [judge]
    return [m.model for m in members if getattr(m, "model", None) is not None]


def _did_you_mean(value: str, choices: Sequence[str]) -> str:
    """"; did you mean X?" for a likely typo of one of `choices` ("" otherwise)."""
    import difflib

    close = difflib.get_close_matches(value, list(choices), n=1)
    return f"; did you mean {close[0]}?" if close else ""


def _fmt(x: float | None, digits: int = 3) -> str:
    return "—" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.{digits}f}"


def _default_judges(workspace: Path) -> list[str]:
    """The judge when none is named: the workspace's primary (the facts judge for the
    suite's tasks; the agreement judge for the user's own questions, which have no
    graded facts)."""
    with open_workspace(workspace) as ws:
        return [ws.primary_judge()]


@user_errors
def judge_cmd(
    workspace: Path = WorkspaceOpt,
    judge: list[str] = typer.Option([], "--judge", "-j", help="heuristic, facts, "
                                    "llm:<provider/model>, ensemble:<m1>,<m2>,<m3>, agree, "
                                    "agree:<provider/model>; repeatable (default: facts; agree "
                                    "for your own questions)."),
    noticed: str = typer.Option(None, "--noticed", help="Also read `noticed` with an LLM "
                                "classifier, llm:<provider/model>: its readings are stored for "
                                "`stages/analyze/report --noticed llm:MODEL` (resumable)."),
    primary: str = typer.Option(None, "--primary", help="The judge S3 and headline rates use "
                                "(stored in the workspace; default facts, or agree for your "
                                "own questions)."),
    concurrency: int = typer.Option(16, "--concurrency", min=1, envvar="AGENTPROP_CONCURRENCY"),
    workers: int = typer.Option(0, "--workers", min=0, envvar="AGENTPROP_JUDGE_WORKERS",
                                help="Run the in-process judges (facts, heuristic) in N "
                                "worker processes, one core each (0: in this process); "
                                "same verdicts, still resumable."),
    no_cache: bool = typer.Option(False, "--no-cache", help="Do not use the response cache."),
    suite_file: Path = SuiteOpt,
    as_json: bool = typer.Option(False, "--json", help="Print the summary as JSON."),
    model_option: list[str] = typer.Option(
        [], "--model-option", "-o", envvar="AGENTPROP_MODEL_OPTION",
        help="Option KEY=VALUE (repeatable) for the judge and classifier models, e.g. "
        "n_ctx=1024 for a local model."),
) -> None:
    """Judge every trace that lacks a verdict of each judge (resumable, concurrent); with
    --noticed, store an LLM classifier's readings of the texts `noticed` reads."""
    from agentprop.cli._run import _parse_options
    from agentprop.judges import canonical_name, get_judge, judge_workspace
    from agentprop.models import ModelError

    options = _parse_options(model_option)

    if not judge and not noticed:
        judge = _default_judges(workspace)
    if noticed:
        _check_noticed(noticed, options)
    if not judge:
        _judge_noticed(workspace, noticed, concurrency, no_cache, as_json, options)
        return
    names = [canonical_name(n) for n in judge]
    try:
        # validate every name (and model provider and base URL) before touching anything
        built = [get_judge(n, suite=None, model_options=options) for n in names]
    except ModelError as e:
        raise UserError(f"judge model unavailable: {e.message}") from None
    # an unreachable judge server fails now, not after minutes of retries
    probe_models(m for j in built for m in judge_models(j))
    ws = open_workspace(workspace, write=True)
    suite = workspace_questions(ws, suite_file)
    try:
        summary = judge_workspace(ws, names, suite=suite, primary=primary,
                                  concurrency=concurrency, progress=not as_json,
                                  use_cache=not no_cache, model_options=options,
                                  workers=workers)
    except ModelError as e:
        fail(f"judge model unavailable: {e.message}", code=1)
    if as_json:
        print_json(summary.model_dump())
    else:
        t = narrow_table("judge")
        for col in ("judged", "correct", "wrong", "unscored", "failed", "calls\n(cached)",
                    "cost $"):
            t.add_column(col, justify="right", no_wrap=True)
        for s in summary.judges.values():
            t.add_row(Text(breakable(s.judge)), str(s.written), str(s.correct),
                      str(s.incorrect), str(s.unscored), str(s.failed),
                      f"{s.model_calls} ({s.cached_calls})", f"{s.cost:.4f}")
        console.print(t)
        console.print(f"primary judge: {escape(summary.primary)}")
    waiting = max((len(ws.retry_ids(n)) for n in names), default=0)
    if waiting and not as_json:
        err_console.print(f"note: {waiting} trace(s) wait for their clean pair (the baseline "
                          "trace of the same run, model, task and seed) and are unscored for "
                          "now; run it, then judge again")
    if noticed:
        _judge_noticed(workspace, noticed, concurrency, no_cache, as_json, options)
    if summary.failed:
        err_console.print(f"warning: {summary.failed} verdict(s) not written because model "
                          "calls failed; rerun the same command to retry them")
        raise typer.Exit(1)


def _check_noticed(spec: str, options: dict[str, Any]) -> None:
    """Validate `--noticed` (form, provider, server) before anything is read or written."""
    from agentprop.judges._noticed import make_classifier
    from agentprop.models import ModelError

    try:
        clf = make_classifier(spec, model_options=options)
    except ModelError as e:
        raise UserError(f"noticed classifier unavailable: {e.message}") from None
    probe_models([clf.model])


def _judge_noticed(workspace: Path, spec: str, concurrency: int, no_cache: bool,
                   as_json: bool, options: dict[str, Any]) -> None:
    """`judge --noticed llm:MODEL`: store the classifier's readings, print what it did."""
    import dataclasses

    from agentprop.judges import read_noticed
    from agentprop.models import ModelError

    ws = open_workspace(workspace, write=True)
    try:
        s = read_noticed(ws, spec, concurrency=concurrency, progress=not as_json,
                         use_cache=not no_cache, model_options=options)
    except ModelError as e:
        fail(f"noticed classifier unavailable: {e.message}", code=1)
    finally:
        ws.close()
    if as_json:
        print_json({"noticed": dataclasses.asdict(s)})
    else:
        counts = ", ".join(f"{k} {v}" for k, v in sorted(s.counts.items())) or "none new"
        console.print(f"noticed readings by {escape(s.classifier)}: {s.traces} traces with "
                      f"texts; {s.asked} asked ({s.cached} cached), {s.reused} already "
                      f"stored, {s.unscored} unscored, {s.failed} failed; {counts}; "
                      f"cost ${s.cost:.4f}", highlight=False)
    if s.failed:
        err_console.print(f"warning: {s.failed} reading(s) not stored because model calls "
                          "failed; rerun the same command to retry them")
        raise typer.Exit(1)


@label_app.command("sample")
@user_errors
def sample_cmd(
    workspace: Path = WorkspaceOpt,
    n: int = typer.Option(None, "--n", help="Sample size (default 100; with --for, spread "
                          "over the rate's cells by Neyman allocation)."),
    by: str = typer.Option("model,domain", "--by", help="Strata columns, comma-separated "
                           "(without --for)."),
    for_rate: str = typer.Option(None, "--for", help="Draw for one rate, inside its traces, "
                                 "per model × instrument verdict: " + ", ".join(RATE_CHOICES)
                                 + "."),
    half_width: float = typer.Option(None, "--half-width", help="With --for: as many labels "
                                     "as `label plan` says this CI half-width needs."),
    assume_accuracy: float = typer.Option(None, "--assume-accuracy", help="With --for: cells "
                                          "without labels assume the instrument is right "
                                          "this often (default: the worst case)."),
    model: list[str] = typer.Option([], "--model", help="With --for: only these models."),
    pooled: bool = typer.Option(False, "--pooled", help="With --for --half-width: plan for "
                                "the rate over all models together."),
    overlap: int = typer.Option(0, "--overlap", help="Items every annotator labels."),
    seed: int = typer.Option(0, "--seed", min=0),
    condition: str = typer.Option(None, "--condition", help="Only traces of this condition "
                                  "(without --for)."),
    annotators: str = typer.Option("", "--annotators", help="Assign the non-shared items "
                                   "round-robin to these names (default: first come)."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Draw a stratified, seeded label sample (replaces the previous sample and records
    how it was drawn, so the analysis can weight the labels)."""
    from agentprop.labels import sample_for_rate, sample_labels
    from agentprop.safety import has_control_chars

    names = [a.strip() for a in annotators.split(",") if a.strip()]
    if any(has_control_chars(a) for a in names):
        raise UserError("--annotators: a name cannot hold control characters")
    if for_rate is None and (half_width is not None or assume_accuracy is not None or model
                             or pooled):
        raise UserError("--half-width, --assume-accuracy, --model and --pooled go with "
                        "--for RATE")
    if for_rate is not None and condition is not None:
        raise UserError("--condition does not go with --for: the rate says which traces")
    ws = open_workspace(workspace, write=True)
    if for_rate is not None:
        stages, labels = _stages_and_labels(ws)
        s = sample_for_rate(ws, stages, labels, for_rate,
                            n=n if n is not None or half_width is not None else 100,
                            half_width=half_width, seed=seed, overlap=overlap,
                            annotators=names, assume_accuracy=assume_accuracy, models=model,
                            pooled=pooled)
    else:
        n = 100 if n is None else n
        s = sample_labels(ws, n, [c.strip() for c in by.split(",") if c.strip()],
                          overlap=overlap, seed=seed, condition=condition, annotators=names)
    if as_json:
        print_json(s.model_dump())
        return
    console.print(f"sampled {s.n} of {s.available} trace(s), {s.overlap} shared, "
                  f"{len(s.strata)} strata")
    if for_rate is None and s.n < n:
        err_console.print(f"warning: only {s.n} traces available (asked for {n})")
    t = narrow_table("stratum")
    t.add_column("n", justify="right", no_wrap=True)
    for k, v in s.strata.items():
        t.add_row(Text(k), str(v))
    console.print(t)


def _stages_and_labels(ws: Any) -> tuple[Any, Any]:
    """The workspace's stage table and every human label (all questions), as the report
    reads them."""
    import pandas as pd

    from agentprop.experiment import load_analysis_input

    inp = load_analysis_input(ws)
    labels = pd.concat([inp.labels, inp.question_labels], ignore_index=True)
    return inp.stages, labels


@label_app.command("plan")
@user_errors
def plan_cmd(
    workspace: Path = WorkspaceOpt,
    rate: str = typer.Option(..., "--rate", help="The rate to plan for: "
                             + ", ".join(RATE_CHOICES) + "."),
    half_width: float = typer.Option(0.05, "--half-width", help="The 95 % CI half-width to "
                                     "reach."),
    assume_accuracy: float = typer.Option(None, "--assume-accuracy", help="Cells without "
                                          "labels assume the instrument is right this often "
                                          "(default: the worst case, ½)."),
    model: list[str] = typer.Option([], "--model", help="Only these models."),
    pooled: bool = typer.Option(False, "--pooled", help="Plan for the rate over all models "
                                "together (the report's pooled value), not per model."),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """How many human labels each cell (model × instrument verdict) needs for a rate's CI
    half-width: stratified PPI++ with Neyman allocation, from the labels already made (a
    pilot) or a stated assumption."""
    from agentprop.labels import canonical_rate, plan_labels
    from agentprop.labels._plan import plan_rows

    name = canonical_rate(rate)
    with open_workspace(workspace) as ws:
        stages, labels = _stages_and_labels(ws)
    plans = plan_labels(stages, labels, name, half_width, assume_accuracy=assume_accuracy,
                        models=model, pooled=pooled)
    if as_json:
        print_json({"rate": name, "half_width": half_width, "confidence": 0.95,
                    "groups": [{"group": p.group, "reachable": p.reachable,
                                "need": p.need, "labelled": p.labelled,
                                "to_label": p.to_label,
                                "expected_half_width": p.expected_half_width} for p in plans],
                    "cells": plan_rows(plans)})
        return
    console.print(f"labels for {name} ± {half_width:g} (95 % CI)", highlight=False)
    each = " (each arm ± half-width/√2)" if name == "delta_hallucination" else ""
    for p in plans:
        t = narrow_table("instrument says", "traces", "labelled", "human rate", "from",
                         "need", "to label", title=escape(p.group))
        for c in p.cells:
            t.add_row(c.key.rsplit("|", 1)[-1], str(c.population), str(c.labelled),
                      f"{c.rate:.2f}", "pilot" if c.source.startswith("pilot") else "assumed",
                      str(c.need), str(c.to_label))
        console.print(t)
        head = f"{name} {escape(p.group)}{each}: "
        if p.reachable:
            console.print(head + f"{p.need} labels give ±{p.expected_half_width:.3f}; "
                          f"{p.labelled} made, {p.to_label} to make", highlight=False)
        else:
            console.print(head + f"not reachable: even all {p.need} traces labelled give "
                          f"±{p.expected_half_width:.3f} (the traces themselves are too few)",
                          highlight=False)
    assumed = {c.source for p in plans for c in p.cells if c.source.startswith("assumed")}
    for a in sorted(assumed):
        console.print(f"cells without labels: {a}", highlight=False)
    console.print(f"draw them: agentprop label sample -w {escape(str(workspace))} "
                  f"--for {escape(rate)} --half-width {half_width:g}"
                  + (" --pooled" if pooled else ""), highlight=False)


@label_app.command("serve")
@user_errors
def serve_cmd(
    workspace: Path = WorkspaceOpt,
    port: int = typer.Option(8765, "--port", min=0, max=65535),
    host: str = typer.Option("127.0.0.1", "--host", help="Bind address (default loopback)."),
    suite_file: Path = SuiteOpt,
) -> None:
    """Serve the annotation web app until Ctrl-C."""
    from agentprop.labels import make_server

    with open_workspace(workspace, write=True) as ws:
        suite = workspace_questions(ws, suite_file)
    try:
        server = make_server(workspace, suite, host=host, port=port)
    except OSError as e:
        raise listen_error(host, port, e) from None
    console.print(f"labelling at http://{host}:{server.server_port}/  (Ctrl-C to stop)")
    if host not in ("127.0.0.1", "localhost", "::1"):
        err_console.print("warning: listening beyond this machine; anyone who can reach it "
                          "can read the sample and write labels")
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


@label_app.command("import")
@user_errors
def import_cmd(
    file: Path = typer.Argument(..., help="CSV: trace_id|session_id, annotator, label[, note, "
                                "time, question]."),
    workspace: Path = WorkspaceOpt,
    question: str = typer.Option("answer", "--question", help="What rows without a question "
                                 "cell label: answer (correct/incorrect), noticed or "
                                 "fabricated (yes/no)."),
) -> None:
    """Import labels from CSV, all or nothing."""
    from agentprop.labels import import_labels
    from agentprop.labels._io import QUESTIONS

    if question not in QUESTIONS:
        raise UserError(f"--question must be one of {', '.join(QUESTIONS)} (got {question!r})"
                        + _did_you_mean(question, QUESTIONS))
    if file.is_dir():
        raise UserError(f"{file} is a folder, expected a CSV file")
    ws = open_workspace(workspace, write=True)
    if not file.exists():
        raise UserError(f"file not found: {file}")
    n = import_labels(file, ws, default_question=question)
    console.print(f"imported {n} label(s)")


@label_app.command("export")
@user_errors
def export_cmd(
    workspace: Path = WorkspaceOpt,
    out: Path = typer.Option(..., "--out", help="CSV file to write."),
) -> None:
    """Export every label as CSV."""
    from agentprop.labels import export_labels

    ws = open_workspace(workspace)
    try:
        n = export_labels(ws, out)
    except OSError as e:
        raise UserError(f"cannot write {out}: {e.strerror or e}") from None
    console.print(f"wrote {n} label(s) to {escape(str(out))}")


@label_app.command("agreement")
@user_errors
def agreement_cmd(
    workspace: Path = WorkspaceOpt,
    as_json: bool = typer.Option(False, "--json"),
    resamples: int = typer.Option(1000, "--resamples", min=10, envvar="AGENTPROP_RESAMPLES",
                                  help="Bootstrap resamples (as `agentprop analyze`)."),
    seed: int = typer.Option(42, "--seed", min=0, envvar="AGENTPROP_SEED",
                             help="Bootstrap seed (as `agentprop analyze`)."),
) -> None:
    """Cohen's κ of each judge against the human labels, inter-annotator κ, Krippendorff's α
    (the same numbers as the report's judges section for the same seed)."""
    from agentprop.labels import workspace_agreement

    with open_workspace(workspace) as ws:
        res = workspace_agreement(ws, n_resamples=resamples, seed=seed)
    if as_json:
        print_json(res)
        return
    if not res["labels"]:
        raise UserError("no human labels in this workspace; use label serve or label import")
    console.print(f"{res['labels']} label(s) on {res['labelled_traces']} trace(s) by "
                  f"{len(res['annotators'])} annotator(s); {res['unsure']} unsure (left out)")
    t = narrow_table(caption="✓ share: of answers judged correct by the judge, "
                     "then by the humans; J✓H✗: judge correct, human wrong, and so on")
    t.add_column("judge", overflow="fold", min_width=17)
    t.add_column("n", justify="right", no_wrap=True)
    t.add_column("κ", justify="right", no_wrap=True)
    for col in ("95 % CI\nbootstrap", "95 % CI\nasymptotic"):
        t.add_column(col, no_wrap=True)
    t.add_column("✓ share\njudge\nhuman", justify="right", no_wrap=True)
    t.add_column("J✓H✓ J✓H✗\nJ✗H✓ J✗H✗", justify="right", no_wrap=True)
    for name, r in res["judges"].items():
        (a, b), (c, d) = r["confusion"]
        t.add_row(Text(breakable(name)), str(r["n"]), _fmt(r["kappa"]),
                  f"[{_fmt(r['ci_low'])},\n {_fmt(r['ci_high'])}]",
                  f"[{_fmt(r['asymptotic_ci_low'])},\n {_fmt(r['asymptotic_ci_high'])}]",
                  f"{_fmt(r['judge_correct_share'], 2)}\n{_fmt(r['human_correct_share'], 2)}",
                  f"{a:>4} {b:>4}\n{c:>4} {d:>4}")
    console.print(t)
    for r in res["inter_annotator"]:
        console.print(f"inter-annotator κ {escape(r['a'])} vs {escape(r['b'])}: "
                      f"{_fmt(r['kappa'])} [{_fmt(r['ci_low'])}, {_fmt(r['ci_high'])}] "
                      f"(n={r['n']})")
    if res["krippendorff_alpha"] is not None:
        console.print(f"Krippendorff's α (nominal): {_fmt(res['krippendorff_alpha'])}")
    for w in res["warnings"]:
        err_console.print(Text(w, style="yellow"))


def register(app: typer.Typer) -> None:
    """Add `judge` and the `label` sub-app."""
    app.command("judge")(judge_cmd)
    app.add_typer(label_app, name="label")
    app.add_typer(label_app, name="labels", hidden=True)  # the plural, as the issue wrote it
