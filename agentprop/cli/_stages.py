"""`agentprop stages`: per-model stage counts and propagation rates of a workspace."""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any

import typer

from agentprop.cli._common import (
    console,
    fail,
    noticed_option,
    open_workspace,
    print_json,
    user_errors,
)

_SHOWN = (
    ("p_S1", "p_S1"), ("p_S2", "p_S2"), ("r_12", "r_12"), ("corrected", "corrected"),
    ("noticed", "noticed"), ("no_tool", "no-tool"), ("fabricated", "fabricated"),
)
_JUDGED = (("r_23", "r_23"), ("recovered", "recovered"))


def _fmt(row: dict[str, Any], rate: str) -> str:
    """A rate on two short lines, "value (n)" over its CI, so four conditions fit across
    80 columns."""
    value, n = row[rate], row[f"{rate}_n"]
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return f"– (n={n})"
    return f"{value:.2f} ({n})\n[{row[f'{rate}_lo']:.2f}, {row[f'{rate}_hi']:.2f}]"


def _clean(value: Any) -> Any:
    if isinstance(value, float) and math.isnan(value):
        return None
    if hasattr(value, "item"):  # numpy scalars
        return value.item()
    return value


def register(app: typer.Typer) -> None:
    """Add `stages` to the main app."""

    @app.command("stages")
    @user_errors
    def stages(
        workspace: Path = typer.Option(
            ..., "--workspace", "-w", envvar="AGENTPROP_WORKSPACE", help="Workspace folder."
        ),
        judge: str | None = typer.Option(
            None, "--judge", envvar="AGENTPROP_JUDGE",
            help="Judge whose verdicts define S3 (default: the workspace's primary judge).",
        ),
        as_json: bool = typer.Option(False, "--json", help="Print one JSON object."),
        n_boot: int = typer.Option(1000, "--n-boot", min=100, help="Bootstrap resamples."),
        seed: int = typer.Option(42, "--seed", min=0, help="Bootstrap seed."),
        noticed: str = noticed_option(),
    ) -> None:
        """Stage counts and propagation rates (p_S1, p_S2, r_12, r_23, correction, noticed,
        recovered, no-tool share, fabricated) per model and condition, with 95 % bootstrap
        CIs clustered by task."""
        from agentprop.analysis.stages import propagation_rates, stage_table
        from agentprop.core import did_you_mean
        from agentprop.judges import resolve_judge, stored_readings

        ws = open_workspace(workspace)
        try:
            readings = stored_readings(ws, noticed)
            judge_name = resolve_judge(judge, ws.judges()) if judge else ws.primary_judge()
            verdicts = {v.trace_id: v.correct for v in ws.verdicts(judge_name)}
            if judge and not verdicts:
                known = ", ".join(ws.judges()) or "none"
                fail(f"no verdicts by judge {judge!r} in {workspace}"
                     f"{did_you_mean(judge, ws.judges())} (judges with verdicts: "
                     f"{known}); run `agentprop judge` first")
            from agentprop.experiment._execute import fabrication_rule, workspace_suite

            tasks = workspace_suite(ws)
            df = stage_table(ws.iter_traces(), verdicts, tasks=tasks,
                             rule=fabrication_rule(ws),
                             readings=readings.readings if readings else None)
            imported = bool(ws.meta().imported)
        finally:
            ws.close()
        if df.empty:
            fail(f"no traces in workspace {workspace}; run `agentprop run` first")
        injected = df[df["condition"] != "baseline"]
        if injected.empty:
            fail(f"workspace {workspace} has only baseline traces; run a p2:* condition")
        rates = propagation_rates(df, by=["model", "condition"], rng_seed=seed, n_boot=n_boot)
        from agentprop.analysis import delivery_table

        delivery = delivery_table(df, n_resamples=n_boot, seed=seed)
        simulated = set(df.loc[df["simulated"], "model"])
        judged = bool(verdicts) and bool(injected["S3"].notna().any())
        records = [
            {str(k): _clean(v) for k, v in r.items()} | {"simulated": r["model"] in simulated}
            for r in rates.to_dict("records")
        ]
        if as_json:
            print_json({
                "workspace": str(workspace), "judge": judge_name, "judged": judged,
                "n_traces": len(df), "n_baseline": int((df["condition"] == "baseline").sum()),
                "noticed": readings.classifier if readings else "rules",
                "noticed_unscored": int(df["noticed_unscored"].sum()),
                "groups": records,
                "call_delivery": _delivery_records(delivery),
            })
            return
        _print_table(records, judge_name if judged else None, len(df), imported)
        if readings:
            console.print(f"noticed: read by {readings.classifier} (stored readings; "
                          f"structural requery counts too); {int(df['noticed_unscored'].sum())}"
                          " trace(s) unscored there (noticed undefined, not counted)",
                          highlight=False)
        _print_delivery(delivery, simulated)


def _constant(records: list[dict[str, Any]], imported: bool) -> list[str]:
    """The rates 1 by construction in our own runs (every defined value is 1)."""
    from agentprop.analysis._analyze import CONSTANT_IN_OUR_RUNS

    if imported:
        return []
    out = []
    for rate in CONSTANT_IN_OUR_RUNS:
        values = [r[rate] for r in records if r[rate] is not None]
        if values and all(v == 1.0 for v in values):
            out.append(rate)
    return out


def _print_table(records: list[dict[str, Any]], judge: str | None, n_traces: int,
                 imported: bool = False) -> None:
    """One table per model: a row per rate, a column per condition."""
    from agentprop.cli._layout import column_tables
    from agentprop.report import constant_sentence

    const = _constant(records, imported)
    shown = [x for x in (*_SHOWN, *(_JUDGED if judge else ())) if x[0] not in const]
    console.print(
        f"{n_traces} traces; S3 judge: {judge or 'none yet (run agentprop judge)'}; "
        "rate [95% CI] (n = denominator); p_S1, p_S2 conditional on an opportunity; "
        "noticed, recovered given S2"
    )
    if const:
        console.print(constant_sentence({"constant_by_construction": const}),
                      highlight=False)
    models = list(dict.fromkeys(r["model"] for r in records))
    labels = ["traces (errors)", "opportunities", *(label for _, label in shown)]
    for model in models:
        rows = [r for r in records if r["model"] == model]
        title = f"{model} (simulated)" if rows[0]["simulated"] else str(model)
        columns = [(str(r["condition"]), [f"{r['n']} ({r['n_error']})",
                                          str(r["n_opportunity"]),
                                          *(_fmt(r, rate) for rate, _ in shown)])
                   for r in rows]
        # as many tables as it takes: every condition's name and number whole at 80 columns
        for heading, table in column_tables(title, labels, columns, label_width=16,
                                            column_width=16):
            table.title = heading
            console.print(table)
        for rate, label in shown:  # why a rate is undefined, where the analysis says
            why = sorted({str(r.get(f"{rate}_note")) for r in rows if r.get(f"{rate}_note")})
            for note in why:
                console.print(f"{label}: undefined, {note}", highlight=False)


_DELIVERY_SHOWN = (("leaked_call", "leaked into text"), ("unknown_tool", "unknown tool"),
                   ("bad_arguments", "bad arguments"), ("undelivered_call", "none arrived"),
                   ("no_tool_call", "no tool call"))


def _delivery_records(delivery: Any) -> dict[str, dict[str, Any]]:
    """model → metric → {value, n, ci}: the delivery table as JSON."""
    out: dict[str, dict[str, Any]] = {}
    for r in delivery.to_dict("records"):
        if r["key"] == "":
            continue
        out.setdefault(str(r["key"]), {})[str(r["metric"])] = {
            "value": _clean(r["value"]), "n": int(r["n"]),
            "ci": [_clean(r["ci_lo"]), _clean(r["ci_hi"])]}
    return out


def _print_delivery(delivery: Any, simulated: set[str]) -> None:
    """One table: per model, the traces whose tool calls did not arrive as calls
    (docs/tool-call-outcomes.md), over all its traces, baseline included."""
    from agentprop.cli._layout import column_tables

    per = _delivery_records(delivery)
    if not per:
        return
    labels = ["traces (errors)", *(label for _, label in _DELIVERY_SHOWN)]
    columns = []
    for m in per:
        cells = [f"{int(per[m]['n']['value'])} ({int(per[m]['n_error']['value'])})"]
        for metric, _ in _DELIVERY_SHOWN:
            est, count = per[m][metric], int(per[m][f"n_{metric}"]["value"])
            lo, hi = est["ci"]
            cells.append("–" if est["value"] is None else
                         f"{est['value']:.2f} [{lo:.2f}, {hi:.2f}] ({count})")
        columns.append((f"{m}{' (sim)' if m in simulated else ''}", cells))
    for title, table in column_tables("tool calls that did not arrive as calls (all "
                                      "traces; share [95% CI] (count))", labels, columns):
        table.title = title
        console.print(table)
    if simulated & set(per):
        console.print("simulated agents make only structured calls of offered tools: "
                      "their zeros above hold by construction", highlight=False)
