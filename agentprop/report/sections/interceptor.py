"""Report section: Interceptor A/B (paired control vs treatment)."""

from __future__ import annotations

from collections.abc import Callable
from html import escape

import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from agentprop.analysis import AnalysisContext, AnalysisResult, interceptor_ab
from agentprop.report._figures import error_bars, select, subplots
from agentprop.report._section import Section, SectionFigure, register


def interceptor_effect(res: AnalysisResult, label: Callable[[str], str]) -> Figure | None:
    it = res.tables.get("interceptor")
    c, t = select(it, "hallucination_control"), select(it, "hallucination_treatment")
    if c.empty:
        return None
    keys = list(c["key"])
    t = t.set_index("key").reindex(keys).reset_index()
    x = np.arange(len(keys))
    fig, ax = subplots((max(5, 1.5 * len(keys) + 2), 4))
    ax.bar(x - 0.2, c["value"].to_numpy(dtype=float), 0.4, yerr=error_bars(c), capsize=3,
           label="control")
    ax.bar(x + 0.2, np.nan_to_num(t["value"].to_numpy(dtype=float)), 0.4, yerr=error_bars(t),
           capsize=3, label="interceptor")
    ax.set_xticks(x, [label(k) for k in keys], fontsize=8)
    ax.set_ylabel("hallucination rate (wrong, not abstained)")
    ax.set_ylim(0, 1)
    ax.set_title("Interceptor effect, paired arms (95% bootstrap CI)")
    ax.legend()
    fig.tight_layout()
    return fig


def interceptor_conditions(stages: pd.DataFrame) -> list[str]:
    """The conditions that have interceptor arms (the A/B table pools over them)."""
    if stages.empty or "arm" not in stages or "condition" not in stages:
        return []
    arms = stages[stages["arm"].fillna("").isin(["control", "treatment"])]
    return sorted(set(arms["condition"].astype(str)))


def conditions_note(result: AnalysisResult, stages: pd.DataFrame) -> str:
    conditions = interceptor_conditions(stages)
    if not conditions:
        return ""
    return ('<p class="muted">Conditions run with both arms: '
            + escape(", ".join(conditions)) + ".</p>")


def compute(ctx: AnalysisContext) -> pd.DataFrame | None:
    return interceptor_ab(ctx.stages, n_resamples=ctx.n_resamples, seed=ctx.seed,
                          evaluations=ctx.inp.workspace.interceptor_evaluations)


SECTION = register(Section(
    name="interceptor",
    title="Interceptor A/B (paired control vs treatment)",
    compute=compute,
    order=90,
    explain=("Hallucination = wrong and not abstained. Saved: control hallucinated, treatment "
             "did not; broken: the reverse. Pairs are the same model, task, condition and "
             "seed in both arms; Δ = treatment − control with a paired bootstrap by task."),
    columns=("n_pairs", "hallucination_control", "hallucination_treatment",
             "delta_hallucination", "saved", "broken", "correct_control", "correct_treatment",
             "abstention_treatment", "coverage_treatment", "selective_accuracy_treatment",
             "mcnemar_p", "ztest_p", "cohens_h", "power"),
    key_columns=("model", "condition"),
    key_separator="|",
    groups=(("n_pairs", "hallucination_control", "hallucination_treatment",
             "delta_hallucination", "saved", "broken"),
            ("correct_control", "correct_treatment", "abstention_treatment",
             "coverage_treatment", "selective_accuracy_treatment")),
    lead=conditions_note,
    figures=(
        SectionFigure("interceptor_effect",
                      "Hallucination rate per arm, per model.",
                      interceptor_effect),
    ),
))
