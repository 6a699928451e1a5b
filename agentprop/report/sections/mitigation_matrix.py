"""Report section: the mitigation × fault-class matrix (every guard evaluation)."""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import pandas as pd
from matplotlib.colors import TwoSlopeNorm
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisContext, AnalysisResult, guard_matrix
from agentprop.report._figures import panels, select, wrap
from agentprop.report._section import Section, SectionFigure, register

CLEAN = "baseline"
FAMILIES = ("baseline", "p2", "out", "fault", "api")
"""Row order: the clean row first, then the fault families as the fault model lists them."""


def _condition_order(condition: str) -> tuple[int, str]:
    family = condition.split(":", 1)[0]
    return (FAMILIES.index(family) if family in FAMILIES else len(FAMILIES), condition)


def _cell_text(delta: float, lo: float, hi: float, fa: float | None) -> str:
    """Δ, a star when its CI excludes 0, and on the clean row the false-alarm rate."""
    if math.isnan(delta):
        return "n/a"
    star = "*" if not (math.isnan(lo) or math.isnan(hi)) and (hi < 0 or lo > 0) else ""
    text = f"{delta:+.2f}{star}"
    if fa is not None:
        text += "\nFA " + ("n/a" if math.isnan(fa) else f"{fa:.2f}")
    return text


def matrix_heatmap(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """Δ hallucination (treatment − control) per fault class (rows) and guard (columns),
    one panel per model: blue = fewer hallucinations, red = more. The clean `baseline`
    row is the guard's cost where nothing was wrong, with its false-alarm rate (FA)."""
    m = res.tables.get("mitigation_matrix")
    d = select(m, "delta_hallucination")
    if d.empty:
        return None
    fa = select(m, "false_alarm_rate")
    d = d.merge(fa[["key", "value"]].rename(
        columns={"value": "fa"}), on="key", how="left")
    models = list(dict.fromkeys(d["model"].astype(str)))
    guards = list(dict.fromkeys(d["guard"].astype(str)))  # the order they were run in
    conds = sorted(set(d["condition"].astype(str)), key=_condition_order)
    fig, axes = panels(len(models), (0.95 * len(guards) + 2.2, 0.42 * len(conds) + 1.4),
                       per_row=2)
    norm = TwoSlopeNorm(vmin=-1.0, vcenter=0.0, vmax=1.0)
    image = None
    for ax, model in zip(axes, models, strict=True):
        sub = d[d["model"].astype(str) == model].drop_duplicates(["guard", "condition"])
        grid = sub.pivot(index="condition", columns="guard", values="value")
        grid = grid.reindex(index=conds, columns=guards)
        image = ax.imshow(grid.to_numpy(dtype=float), cmap="RdBu_r", norm=norm,
                          aspect="auto")
        cells = {(str(c), str(g)): (float(lo), float(hi), float(fa)) for c, g, lo, hi, fa in
                 sub[["condition", "guard", "ci_lo", "ci_hi", "fa"]].to_numpy(dtype=object)}
        for (r, c), v in np.ndenumerate(grid.to_numpy(dtype=float)):
            if (conds[r], guards[c]) not in cells:
                continue
            lo, hi, rate = cells[(conds[r], guards[c])]
            ax.text(c, r, _cell_text(v, lo, hi, rate if conds[r] == CLEAN else None),
                    ha="center", va="center", fontsize=6.5,
                    color="white" if abs(v) > 0.6 else "black")
        ax.set_xticks(range(len(guards)), [wrap(g, 12) for g in guards], fontsize=7,
                      rotation=30, ha="right")
        ax.set_yticks(range(len(conds)), conds, fontsize=7)
        ax.set_title(wrap(label(model), 30), fontsize=9)
    fig.suptitle("Mitigation × fault class: Δ hallucination, * = 95% CI excludes 0",
                 fontsize=10)
    fig.tight_layout(rect=(0.0, 0.0, 0.88, 1.0))
    if image is not None:
        bar = fig.add_axes((0.9, 0.25, 0.02, 0.5))
        fig.colorbar(image, cax=bar, label="Δ hallucination (trt − ctl)")
    return fig


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return guard_matrix(ctx.stages, ctx.inp.workspace.guard_evaluations,
                        n_resamples=ctx.n_resamples, seed=ctx.seed)


SECTION = register(Section(
    name="mitigation_matrix",
    title="Mitigation × fault class (guards against a concurrent control)",
    compute=compute,
    order=95,
    explain=("Each guard (a built-in mitigation or yours, `intercept evaluate --guard`, "
             "`intercept matrix`) ran in a treatment arm paired with a control arm on the "
             "same tasks and seeds. Δ = treatment − control hallucination rate, with a "
             "paired bootstrap by task; saved and broken count the discordant pairs. The "
             "baseline rows are clean runs: there every abstention is a false alarm "
             "(false_alarm_rate) and every broken pair a harm. A mitigation can help one "
             "fault class and hurt another."),
    columns=("n_pairs", "delta_hallucination", "saved", "broken", "false_alarm_rate",
             "mcnemar_p", "hallucination_control", "hallucination_treatment"),
    p_values=("mcnemar_p",),
    key_columns=("guard", "model", "condition"),
    key_separator="|",
    figures=(
        SectionFigure("mitigation_matrix",
                      "Δ hallucination per guard and fault class (clean row: false alarms).",
                      matrix_heatmap),
    ),
))
