"""Report section: Propagation per model (stage reach and hop rates)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisContext, AnalysisResult
from agentprop.report._figures import error_bars, select, subplots
from agentprop.report._section import Section, SectionFigure, register
from agentprop.report._tables import constant_rates, constant_sentence

STAGE_NAMES = {"p_S1": "S1 injection applied", "p_S2": "S2 visible effect",
               "p_S3": "S3 wrong answer"}


def stage_reach(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """Stage reach per model, without the rates that are constant by construction (with
    neither p_S1 nor p_S2 left, the stopping funnel says it all: no figure)."""
    const = set(res.info.get("constant_by_construction") or [])
    if {"p_S1", "p_S2"} <= const:
        return None
    prop = res.tables.get("propagation")
    subs = {m: select(prop, m) for m in ("p_S1", "p_S2", "p_S3") if m not in const}
    first = next(iter(subs.values()))
    if first.empty:
        return None
    keys = list(first["key"])
    fig, ax = subplots((max(6, 0.9 * len(keys) + 2), 4))
    width = 0.27
    x = np.arange(len(keys))
    for i, (m, sub) in enumerate(subs.items()):
        sub = sub.set_index("key").reindex(keys).reset_index()
        ax.bar(x + (i - (len(subs) - 1) / 2) * width,
               np.nan_to_num(sub["value"].to_numpy(dtype=float)), width,
               yerr=error_bars(sub), capsize=2, label=STAGE_NAMES[m])
    ax.set_xticks(x, [label(k) for k in keys], rotation=30, ha="right", fontsize=8)
    ax.set_ylabel("share of injected traces")
    ax.set_ylim(0, 1.05)
    ax.set_title("Stage reach per model (95% bootstrap CI)", pad=24)
    ax.legend(loc="lower center", bbox_to_anchor=(0.5, 1.0), ncol=3, fontsize=8,
              frameon=False)
    fig.tight_layout()
    return fig


def constant_note(result: AnalysisResult, stages: pd.DataFrame) -> str:
    """The one sentence on the rates constant by construction (hidden from the tables)."""
    text = constant_sentence(result.info)
    return f'<p class="note">{escape(text)}</p>' if text else ""


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return ctx.propagation


SECTION = register(Section(
    name="propagation",
    title="Propagation per model (stage reach and hop rates)",
    compute=compute,
    order=20,
    explain=("p_S1 = P(injection applied | opportunity), p_S2 = P(visible effect), r_23 = "
             "P(wrong answer | S2), inj_to_err = P(wrong | S1). noticed = P(noticed | S2); "
             "noticed_false_alarm = the same detector on clean baseline traces; noticed_delta "
             "= injected − baseline on the same tasks; recovered = 1 − r_23. Calibrated rates "
             "are named by method: the paper's (P(human correct | judge correct/wrong)) and "
             "Rogan–Gladen (sensitivity/specificity)."),
    columns=("n", "p_S1", "p_S2", "p_S3", "r_12", "r_23", "inj_to_err", "noticed",
             "noticed_false_alarm", "noticed_delta", "recovered", "no_tool_share",
             "fabricated", "correction_rate", "noticed_requery", "noticed_verify",
             "noticed_clarify", "noticed_abstain", "noticed_mention", "r_23_cal_paper",
             "r_23_cal_rogan_gladen", "inj_to_err_cal_paper", "inj_to_err_cal_rogan_gladen"),
    groups=(("n", "p_S1", "p_S2", "p_S3", "r_12", "r_23", "inj_to_err"),),
    hidden=constant_rates,
    lead=constant_note,
    figures=(
        SectionFigure("stage_reach",
                      "Share of injected traces reaching each stage, per model.",
                      stage_reach),
    ),
))
