"""Report section: Judge reliability."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisContext, AnalysisResult, judge_agreement
from agentprop.report._figures import error_bars, select, subplots, wrap
from agentprop.report._section import Section, SectionFigure, register


def judge_kappa(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    j = res.tables.get("judges")
    sub = select(j, "kappa")
    if sub.empty:
        return None
    refs = sub["reference"].unique()
    ref = "human" if "human" in refs else refs[0]
    sub = sub[sub["reference"] == ref]
    fig, ax = subplots((7, max(2.5, 0.5 * len(sub) + 1.5)))
    y = np.arange(len(sub))
    ax.errorbar(np.nan_to_num(sub["value"].to_numpy(dtype=float)), y, xerr=error_bars(sub),
                fmt="o", capsize=3)
    ax.set_yticks(y, [f"{wrap(k)} (n={n})" for k, n in zip(sub["judge"], sub["n"],
                                                             strict=True)], fontsize=8)
    ax.axvline(0, color="grey", lw=0.5)
    ax.set_xlim(-1, 1)
    ax.set_xlabel(f"Cohen's κ (95% bootstrap CI) vs reference:\n{wrap(ref, 60)}",
                  fontsize=9)
    fig.tight_layout()
    return fig


def confusion(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    j = res.tables.get("judges")
    if j is None or j.empty:
        return None
    primary = str(res.info.get("primary_judge", ""))
    cm = j[j["metric"].isin(["tp", "fp", "fn", "tn"])]
    pairs = list(dict.fromkeys(zip(cm["judge"], cm["reference"], strict=True)))
    # the primary judge against humans, else any judge against humans, else the primary
    # judge against the LLM majority, else any judge against the stated reference
    order = [(primary, "human")] + [p for p in pairs if p[1] == "human"] + \
        [p for p in pairs if p[0] == primary] + \
        [p for p in pairs if p[1] == str(res.info.get("agreement_reference") or "")]
    pick = next((p for p in order if p in pairs), None)
    if pick is None:
        return None
    judge, ref = pick
    cells = cm[(cm["judge"] == judge) & (cm["reference"] == ref)]
    v = cells.set_index("metric")["value"]
    m = np.array([[v["tp"], v["fp"]], [v["fn"], v["tn"]]])
    fig, ax = subplots((5.5, 4.5))
    ax.imshow(m, cmap="Blues", vmin=0)
    dark = float(m.max()) * 0.6
    for (r, c), val in np.ndenumerate(m):
        ax.text(c, r, f"{int(val)}", ha="center", va="center",
                color="white" if val > dark else "black")
    jn, rn = wrap(judge, 30), wrap(ref, 30)
    ax.set_xticks([0, 1], ["says correct", "says wrong"], fontsize=8)
    ax.set_yticks([0, 1], ["says correct", "says wrong"], fontsize=8)
    ax.set_xlabel(f"reference: {rn}", fontsize=8)
    ax.set_ylabel(f"judge: {jn}", fontsize=8)
    ax.set_title(f"Judge vs reference (n={int(m.sum())})", fontsize=9)
    fig.tight_layout()
    return fig


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return judge_agreement(ctx.inp.verdicts, ctx.inp.labels, members=ctx.inp.members,
                           reference=ctx.agreement_reference, tasks=ctx.tasks,
                           n_resamples=ctx.n_resamples, seed=ctx.seed)


SECTION = register(Section(
    name="judges",
    title="Judge reliability",
    compute=compute,
    order=70,
    explain=("Cohen's κ of each judge against a reference: human labels when there are any, "
             "the LLM majority, and the stated reference judge. kappa_loo: a panel member "
             "against the majority of the other members. bias = judge share correct − "
             "reference share correct. tp/fp/fn/tn count (judge, reference) = (correct, "
             "correct) / (correct, wrong) / (wrong, correct) / (wrong, wrong). "
             "judge_unscored: traces the reference scored but the judge left unscored (an "
             "LLM judge's reply that is neither YES nor NO): left out of every number, "
             "never counted as wrong."),
    columns=("kappa", "kappa_loo", "kappa_asymptotic", "agreement", "judge_correct_share",
             "reference_correct_share", "bias", "tp", "fp", "fn", "tn", "judge_unscored",
             "krippendorff_alpha"),
    counts=("judge_unscored",),
    key_columns=("judge", "reference"),
    key_separator="~",
    key_first=1,
    groups=(("kappa", "kappa_loo", "kappa_asymptotic", "agreement"),),
    figures=(
        SectionFigure("judge_kappa",
                      "Cohen's κ of each judge against the reference.",
                      judge_kappa),
        SectionFigure("confusion_matrix",
                      "Judge vs reference verdict counts.",
                      confusion),
    ),
))
