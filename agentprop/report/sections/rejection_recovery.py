"""Report section: Rejection vs recovery."""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any

import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisContext, AnalysisResult, rank_note, rejection_recovery
from agentprop.report._figures import plt, subplots, wrap
from agentprop.report._section import Section, SectionFigure, register
from agentprop.report._tables import constant_rates

PAPER_REJECTION = {"rejection", "rejection_given_tool_call", "spearman_rho", "spearman_p"}


def hidden_rejection(info: Mapping[str, Any]) -> set[str]:
    """With p_S1 constant, the paper's rejection = 1 − p_S1 is 0 for every model."""
    return set(PAPER_REJECTION) if "p_S1" in constant_rates(info) else set()


def rejection_vs_recovery(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    """Noticed vs recovered per model (our runs); the paper's rejection (1 − p_S1) vs
    recovery where noticing cannot be measured (imported release data)."""
    rr = res.tables.get("rejection_recovery")
    if rr is None or rr.empty:
        return None
    w = rr[rr["key"] != ""].pivot_table(index="key", columns="metric", values="value")
    ours = "noticed" in w and bool(w["noticed"].notna().any())
    xcol, rho_name, p_name = (("noticed", "spearman_rho_ours", "spearman_p_ours") if ours
                              else ("rejection", "spearman_rho", "spearman_p"))
    if xcol not in w or "recovery" not in w:
        return None
    w = w.dropna(subset=[xcol, "recovery"])
    if w.empty:
        return None
    fig, ax = subplots((7.5, 4.5))
    n_s2 = w.get("n_S2", pd.Series(1.0, index=w.index)).fillna(0).to_numpy(dtype=float)
    sizes = 20 + 220 * n_s2 / max(1.0, float(n_s2.max()))
    # one colour per model, named in the legend: labels written beside the points would
    # cover each other wherever two models land close together
    colours = plt.get_cmap("tab10")
    for i, (k, r) in enumerate(w.iterrows()):
        ax.scatter([float(r[xcol])], [float(r["recovery"])], s=[sizes[i]], alpha=0.7,
                   color=colours(i % 10), label=wrap(label(str(k)), 30))
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False,
              markerscale=0.5)
    rho = rr[(rr["key"] == "") & (rr["metric"] == rho_name)]
    title = ("Noticed P(noticed | S2) vs recovered (1 − r_23); size ∝ n_S2" if ours else
             "Rejection (1 − p_S1) vs recovery (1 − r_23); size ∝ n_S2")
    if len(rho) and not math.isnan(float(rho["value"].iloc[0])):
        p = rr[(rr["key"] == "") & (rr["metric"] == p_name)]["value"]
        untested = rank_note(int(rho["n"].iloc[0]))
        title += f"\nSpearman ρ = {float(rho['value'].iloc[0]):.3f}, " + (
            untested.split(":")[0] if untested else f"p = {float(p.iloc[0]):.3f}")
    ax.set_title(title, fontsize=9)
    ax.set_xlabel("noticed after the corruption reached the observation" if ours
                  else "rejection rate")
    ax.set_ylabel("recovery rate (right answer after S2)")
    ax.set_xlim(-0.05, 1.05)
    ax.set_ylim(-0.05, 1.05)
    fig.tight_layout()
    return fig


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return rejection_recovery(ctx.propagation, n_resamples=ctx.n_resamples, seed=ctx.seed)


SECTION = register(Section(
    name="rejection_recovery",
    title="Rejection vs recovery",
    compute=compute,
    order=50,
    explain=("Paper-compatible: rejection = 1 − p_S1, recovery = 1 − r_23. Ours: noticed = "
             "P(noticed | S2) vs recovery (spearman_rho_ours), with no-tool traces kept apart "
             "(never counted as rejection)."),
    columns=("rejection", "noticed", "recovery", "no_tool_share", "rejection_given_tool_call",
             "correction_rate", "n_S2", "spearman_rho", "spearman_p", "spearman_rho_ours",
             "spearman_p_ours"),
    hidden=hidden_rejection,
    figures=(
        SectionFigure("rejection_vs_recovery",
                     ("Noticed (or, for the paper's release, rejection) vs recovery per "
                        "model (bubble area ∝ n_S2)."),
                      rejection_vs_recovery),
    ),
))
