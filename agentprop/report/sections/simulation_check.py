"""Report section: Simulation check (known truth).

Simulated agents have stated parameters, so the pipeline must recover them. The study
computes the check (experiment/_simcheck.py: it needs the simulated profiles) and the
analysis input carries its rows; this section turns them into numbers (`true` and `covered`
beside each estimate) and shows them with the true value next to the estimate.
"""

from __future__ import annotations

import math
from html import escape
from typing import Any

import pandas as pd

from agentprop.analysis import AnalysisContext, AnalysisResult, Estimate, tidy_frame, tidy_row
from agentprop.report._section import Section, anchor, register

NAME = "simulation_check"


def _float(v: Any) -> float:
    return math.nan if v is None else float(v)


def _text(v: Any) -> str:
    return "" if v is None or (isinstance(v, float) and v != v) else str(v)


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    """The stored rows as a tidy table keyed by model (None without simulated agents)."""
    rows = ctx.inp.simulation_check
    if rows is None or rows.empty:
        return None
    records = rows.to_dict("records")
    df = tidy_frame([
        tidy_row({"model": r["model"], "judge": _text(r.get("judge")), "level": r.get("level")},
                 str(r["model"]), str(r["metric"]),
                 Estimate(_float(r["estimate"]), int(r["n"]), _float(r["ci_lo"]),
                          _float(r["ci_hi"])),
                 note=_text(r.get("note")))
        for r in records], ["model", "judge", "level"])
    # after `note`: further fields of each number in numbers.json
    df["true"] = [_float(r["true"]) for r in records]
    df["covered"] = [bool(r["covered"]) for r in records]
    return df


def _f(v: Any) -> str:
    return "—" if v is None or (isinstance(v, float) and v != v) else f"{float(v):.3f}"


def reader(df: pd.DataFrame) -> pd.DataFrame:
    """One row per model × metric: true value, estimate, CI, n, covered, note."""
    out = pd.DataFrame([
        {"model": r["model"], "metric": r["metric"], "true": _f(r["true"]),
         "estimate": _f(r["value"]), "CI": f"[{_f(r['ci_lo'])}, {_f(r['ci_hi'])}]",
         "n": r["n"], "covered": "yes" if r["covered"] else "NO", "note": r["note"] or ""}
        for r in df.to_dict("records")])
    return out.set_index("model") if not out.empty else out


def page_table(t: pd.DataFrame) -> str:
    """Consecutive rows of one model share its cell; a true value outside its CI stands out."""
    head = '<th class="k">model</th><th class="k">metric</th>' + "".join(
        f"<th>{escape(str(c))}</th>" for c in t.columns[1:])
    body = []
    models = list(t.index)
    for i, (model, r) in enumerate(t.iterrows()):
        cells = ""
        if i == 0 or models[i - 1] != model:
            span = 1
            while i + span < len(models) and models[i + span] == model:
                span += 1
            cells += f'<td class="k" rowspan="{span}">{escape(str(model))}</td>'
        vals = r.tolist()
        cells += f'<td class="k">{escape(str(vals[0]))}</td>'
        for c, v in zip(t.columns[1:], vals[1:], strict=True):
            bad = ' class="bad"' if c == "covered" and v == "NO" else ""
            cells += f"<td{bad}>{escape(str(v))}</td>"
        body.append(f"<tr>{cells}</tr>")
    return f"<table><tr>{head}</tr>{''.join(body)}</table>"


def lead(res: AnalysisResult, stages: pd.DataFrame) -> str:
    t = res.tables[NAME]
    covered = int(t["covered"].sum())
    judge = t["judge"].iloc[0]
    level = t["level"].iloc[0]
    each = f" (each a {100 * float(level):.2f}% interval, Bonferroni over {len(t)})" \
        if level is not None and level == level and level else ""
    return (
        "<p>Simulated agents have stated parameters, so the pipeline must recover them: "
        f"{covered} of {len(t)} true values lie inside their simultaneous 95% bootstrap "
        f"CIs{escape(each)}; S3 by the <b>{escape(str(judge))}</b> judge; p2:semantic_wrong "
        "traces. A true value outside its CI is a measurement problem to investigate, not a "
        "finding.</p>")


def fact(res: AnalysisResult) -> str:
    t = res.tables[NAME]
    return (f"simulation check: {int(t['covered'].sum())} of {len(t)} true values inside "
            f'their simultaneous 95% CIs (<a href="#{anchor(NAME)}">details</a>)')


SECTION = register(Section(
    name=NAME,
    title="Simulation check (known truth)",
    compute=compute,
    order=900,  # after every measured section
    lead=lead,
    reader=reader,
    page_table=page_table,
    fact=fact,
))
