"""`agentprop analyze`, `agentprop report` and `agentprop import agenthallu`."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from agentprop.cli._common import (
    UserError,
    console,
    noticed_option,
    open_workspace,
    print_json,
    user_errors,
)

if TYPE_CHECKING:
    from agentprop.analysis import AnalysisInput
    from agentprop.store import Workspace

WORKSPACE_HELP = "workspace folder"


def load_input(ws: Workspace, noticed: str | None = None) -> AnalysisInput:
    """The analysis input from a workspace (primary judge, sweep, simulation check);
    `noticed`: the `--noticed` value (rules, or llm:MODEL's stored readings)."""
    from agentprop.experiment import load_analysis_input
    from agentprop.judges import stored_readings

    return load_analysis_input(ws, noticed=stored_readings(ws, noticed))


def _run_analysis(workspace: Path, resamples: int, seed: int,
                  noticed: str | None = None) -> tuple[Any, Any, Any]:
    from agentprop.report import analyze

    ws = open_workspace(workspace)
    try:
        if ws.count_traces() == 0:
            raise UserError(f"workspace {workspace} has no traces; run or import some first")
        inp = load_input(ws, noticed)
        runs = [r.model_dump(mode="json") for r in ws.runs()]
    finally:
        ws.close()
    return analyze(inp, n_resamples=resamples, seed=seed), inp, runs


def _print_tables(result: Any) -> None:
    """One narrow table per section (key, metric, value [CI] (n)): readable at any width."""
    from rich.text import Text

    from agentprop.cli._layout import narrow_table, stack
    from agentprop.report import (
        constant_sentence,
        display_table,
        get_section,
        hidden_metrics,
        model_labels,
        title_of,
    )

    keys = [k for df in result.tables.values() if not df.empty for k in df["key"].unique()]
    labels = model_labels(result, keys)
    console.print(f"primary judge: [bold]{result.info['primary_judge']}[/]"
                  + (f"  (imported from the paper's release: {result.info['imported']})"
                     if result.info.get("imported") else ""))
    from rich.markup import escape

    if result.info.get("noticed_classifier"):
        console.print(f"noticed: read by {escape(result.info['noticed_classifier'])} (stored "
                      "readings; an unscored one leaves noticed undefined)", highlight=False)
    for instrument in result.info.get("unvalidated") or []:
        console.print(f"[yellow]warning: unvalidated: {escape(instrument)} has no validity card; "
                      "every rate measured through it is unvalidated[/]", highlight=False)
    if constant_sentence(result.info):
        console.print(constant_sentence(result.info), highlight=False)
    hidden = hidden_metrics(result.info)
    for section, df in result.tables.items():
        own = get_section(section)
        if own is not None and own.reader is not None:  # its rows are not key × metric
            _print_reader(own.reader(df), title_of(section))
            continue
        t = display_table(df, section, labels=labels, hidden=hidden.get(section))
        if t.empty:
            continue
        console.print(Text(title_of(section), style="bold"))
        table = narrow_table("key")
        table.add_column("metric", overflow="fold", min_width=22)
        table.add_column("value [95% CI] (n)", min_width=27)  # wraps at its spaces
        for idx, r in t.iterrows():
            first = True
            for metric, cell in r.items():
                if cell:
                    table.add_row(Text(stack(str(idx), 24)) if first else "",
                                  Text(stack(str(metric), 22)), str(cell))
                    first = False
        console.print(table)
        notes = sorted({n for n in df["note"].astype(str) if n.startswith("warning")})
        for n in notes:
            console.print(f"[yellow]{n}[/]", highlight=False)


def _print_reader(t: Any, title: str) -> None:
    """A section's own reader table (e.g. the simulation check), as it reads in tables/:
    one record per row (its key, then "column value" pairs folded at 80 columns), since
    its columns are too many to sit side by side with their names whole."""
    import textwrap

    from rich.text import Text

    if t.empty:
        return
    console.print(Text(title, style="bold"))
    for idx, r in t.iterrows():
        pairs = " · ".join(f"{c} {v}" for c, v in r.items() if str(v) != "")
        body = textwrap.fill(pairs, 78, initial_indent="  ", subsequent_indent="  ",
                             break_long_words=False, break_on_hyphens=False)
        console.print(Text(f"{idx}\n{body}", overflow="fold"))


def _print_verification(violations: list[str], what: str) -> None:
    """One line per violation on stderr and exit 1, or one line that all holds."""
    from rich.text import Text

    from agentprop.cli._common import err_console

    if not violations:
        console.print(f"verify: ok ({what}; every invariant holds)", highlight=False)
        return
    # a thousand lines per print: the same text as one print per line, at a fraction of
    # rich's per-call cost (a big workspace can have tens of thousands of violations)
    for start in range(0, len(violations), 1000):
        lines = "\n".join(f"verify: {v}" for v in violations[start:start + 1000])
        err_console.print(Text(lines), soft_wrap=True, highlight=False)
    err_console.print(f"verify: {len(violations)} violation(s)", highlight=False)
    raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    """Add analyze, report and the import sub-app."""

    @app.command()
    @user_errors
    def analyze(
        workspace: Path = typer.Option(..., "--workspace", "-w", help=WORKSPACE_HELP,
                                       envvar="AGENTPROP_WORKSPACE"),
        as_json: bool = typer.Option(False, "--json", help="print the numbers manifest"),
        resamples: int = typer.Option(1000, "--resamples", min=10,
                                      envvar="AGENTPROP_RESAMPLES"),
        seed: int = typer.Option(42, "--seed", min=0, envvar="AGENTPROP_SEED"),
        noticed: str = noticed_option(),
    ) -> None:
        """Print every analysis table (or, with --json, the flat numbers manifest)."""
        from agentprop.analysis import numbers_manifest

        result, _, _ = _run_analysis(workspace, resamples, seed, noticed)
        if as_json:
            print_json(numbers_manifest(result))
        else:
            _print_tables(result)

    @app.command()
    @user_errors
    def report(
        workspace: Path = typer.Option(..., "--workspace", "-w", help=WORKSPACE_HELP,
                                       envvar="AGENTPROP_WORKSPACE"),
        resamples: int = typer.Option(1000, "--resamples", min=10,
                                      envvar="AGENTPROP_RESAMPLES"),
        seed: int = typer.Option(42, "--seed", min=0, envvar="AGENTPROP_SEED"),
        no_verify: bool = typer.Option(
            False, "--no-verify", help="Skip the invariant checks of `agentprop verify` "
            "(run by default on the traces the report reads; no recomputation)."),
        noticed: str = noticed_option(),
    ) -> None:
        """Write WORKSPACE/report/ (index.html, figures, tables, numbers.json), then check
        the data's invariants as `agentprop verify` does (one line per violation, exit 1)."""
        from agentprop.experiment._execute import report_checked
        from agentprop.judges import stored_readings

        with open_workspace(workspace) as ws:
            if ws.count_traces() == 0:
                raise UserError(f"workspace {workspace} has no traces; run or import some "
                                "first")
            path, found, n_traces = report_checked(ws, resamples=resamples, seed=seed,
                                                   noticed=stored_readings(ws, noticed))
        console.print(f"report written: {path}")
        if not no_verify:
            _print_verification(found, f"{n_traces} traces")

    @app.command()
    def verify(
        workspace: Path = typer.Option(..., "--workspace", "-w", help=WORKSPACE_HELP,
                                       envvar="AGENTPROP_WORKSPACE"),
        as_json: bool = typer.Option(False, "--json", help="print one JSON object"),
    ) -> None:
        """Recompute every number of the report from the store and check that numbers.json
        is byte-identical; check the invariants (S2 ⇒ S1; the counterfactual differs where
        S2; no S3 from an unscored verdict; every injection landed on its target call; no
        unit stored twice; interceptor arms paired one to one). One line per violation,
        exit 1 on any."""
        from agentprop.experiment._verify import verify_workspace

        with open_workspace(workspace) as ws:
            if ws.count_traces() == 0:
                raise UserError(f"workspace {workspace} has no traces; run or import some "
                                "first")
            res = verify_workspace(ws)
        if as_json:
            print_json({"ok": not res.violations, "violations": res.violations,
                        "traces": res.n_traces, "numbers": res.n_numbers})
            if res.violations:
                raise typer.Exit(1)
            return
        _print_verification(res.violations, f"{res.n_traces} traces, "
                            f"{res.n_numbers or 0} numbers identical to numbers.json")

    import_app = typer.Typer(help="Import traces from other formats.", no_args_is_help=True)

    @import_app.command("agenthallu")
    @user_errors
    def import_agenthallu_cmd(
        folder: Path = typer.Argument(..., help="folder with the release's CSV files"),
        workspace: Path = typer.Option(..., "--workspace", "-w", help=WORKSPACE_HELP,
                                       envvar="AGENTPROP_WORKSPACE"),
    ) -> None:
        """Import the paper's released CSVs (validated first; nothing written on error)."""
        from agentprop.interop import import_agenthallu, read_release

        read_release(folder)  # validate before the workspace is even created
        ws = open_workspace(workspace, create=True)
        try:
            res = import_agenthallu(folder, ws)
        finally:
            ws.close()
        s = res.summary()
        console.print(f"imported {s['traces']} traces, {s['verdicts']} verdicts, "
                      f"{s['labels']} labels from {len(s['files'])} file(s)"
                      + (f"; skipped {', '.join(s['skipped'])}" if s["skipped"] else ""))

    app.add_typer(import_app, name="import")
