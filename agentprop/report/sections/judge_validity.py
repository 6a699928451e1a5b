"""Report section: Judge validity (hand-labelled validation set).

Each judge's Cohen's κ against the hand-labelled answers shipped with agentprop
(judges/validity.json, measured once by bench/bench_judge_validity.py, not on this
workspace). The page has no part of its own for it: it states a judge's validity where it
names the judge (the primary judge, the reference of judge agreement).
"""

from __future__ import annotations

import math
from html import escape

import pandas as pd

from agentprop.analysis import AnalysisContext, AnalysisResult, Estimate, tidy_frame, tidy_row
from agentprop.report._section import Section, register

NAME = "judge_validity"
STATED = ("accuracy", "false_accept_rate", "false_reject_rate")
"""Figures the page states beside κ (the table's leading columns; not in numbers.json)."""


def _float(v: object) -> float:
    return math.nan if v is None else float(v)  # type: ignore[arg-type]


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    """κ per judge whose κ was measured (None without the shipped validity)."""
    validity = ctx.inp.judge_validity
    if validity is None:
        return None
    rows = [
        tidy_row({"judge": judge, "tasks": validity.tasks,
                  **{k: _float(v.get(k)) for k in STATED}},
                 judge, "kappa",
                 Estimate(float(v["kappa"]), int(v.get("n") or 0), _float(v.get("kappa_lo")),
                          _float(v.get("kappa_hi"))))
        for judge, v in validity.judges.items() if v.get("kappa") is not None]
    return tidy_frame(rows, ["judge", "tasks", *STATED]) if rows else None


def judge_note(res: AnalysisResult, judge: str) -> str:
    """", measured against N hand-labelled answers: κ … [CI], …" ("" when not measured)."""
    t = res.tables.get(NAME)
    hit = t[t["key"] == judge] if t is not None else None
    if hit is None or hit.empty:
        return ""
    v = hit.iloc[0]
    need = ("value", "ci_lo", "ci_hi", *STATED)
    if any(pd.isna(v[k]) for k in need):
        return ""
    tasks = "?" if pd.isna(v["tasks"]) else str(int(v["tasks"]))
    return (f" (measured against {int(v['n'])} hand-labelled answers to "
            f"{escape(tasks)} tasks: "
            f"κ {v['value']:.2f} [{v['ci_lo']:.2f}, {v['ci_hi']:.2f}], accuracy "
            f"{v['accuracy']:.2f}, false accepts {100 * v['false_accept_rate']:.1f} %, false "
            f"rejects {100 * v['false_reject_rate']:.1f} %; docs/judges.md)")


SECTION = register(Section(
    name=NAME,
    title="Judge validity (hand-labelled validation set)",
    compute=compute,
    order=910,  # after every measured section: it is not measured on this workspace
    explain="Cohen's κ of each judge against the hand-labelled answers shipped with agentprop.",
    page=False,
    judge_note=judge_note,
))
